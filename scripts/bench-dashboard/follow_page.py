"""Holds the dashboard open in headless chromium while scripts/bench-dashboard.sh loads the
mock: prints "ready" once the page is live; on SIGTERM (or after SECONDS) prints what the
page drew, as one JSON line, and exits.

    python3 follow_page.py CONTROL_URL SECONDS
"""
import json, signal, sys, time
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

url, seconds = sys.argv[1], float(sys.argv[2])
options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1400,1000"):
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
try:
    driver.get(url + "/")
    WebDriverWait(driver, 20).until(lambda d: d.find_element(By.ID, "connection").get_attribute("data-state") == "live")
    print("ready", flush=True)
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM])  # taken below, not fatal
    signal.sigtimedwait([signal.SIGTERM], seconds)
    seqs = [int(e) for e in driver.execute_script("return Array.from(document.querySelectorAll('li.push')).map(li => li.dataset.seq);")]
    print(json.dumps({"drawn": len(seqs), "newest_seq": max(seqs, default=0),
                      "state": driver.find_element(By.ID, "connection").get_attribute("data-state"),
                      "more": driver.find_element(By.ID, "more").text,
                      "heap_mb": round(driver.execute_script("return performance.memory ? performance.memory.usedJSHeapSize : 0;") / 1e6, 1)}), flush=True)
finally:
    driver.quit()
