"""Drives the dashboard in headless chromium (Selenium, chromium-driver) against a real
apns-mock, sending pushes with the python `h2` client and tokens signed by PyJWT: nothing
here shares code with the mock.

    python3 dashboard_browser.py SCENARIO --mock PATH --certs DIR --out DIR

Each scenario prints one JSON object of what it saw as its last line; DashboardBrowserTests
asserts on it. Every wait is bounded.
"""
import argparse, json, os, socket, subprocess, sys, time, urllib.error, urllib.request, uuid
import h2.config, h2.connection, h2.events, jwt
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

DEVICE = "ab" * 32
TOPIC = "com.example.app"
WAIT = 30  # seconds any one thing may take to show: a bound, never a speed asserted


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Mock:
    """apns-mock on free ports, h2c listeners; restartable on the same ports."""

    def __init__(self, binary, certs, token=None, args=()):
        self.binary, self.certs, self.token, self.args = binary, certs, token, list(args)
        self.ports = {"port": free_port(), "sandbox-port": free_port(), "control-port": free_port(),
                      "channel-port": free_port(), "channel-sandbox-port": free_port()}
        self.process = None
        self.start()

    @property
    def control(self):
        return f"http://127.0.0.1:{self.ports['control-port']}"

    def start(self):
        args = [self.binary, "--no-tls", "--host", "127.0.0.1"]
        for name, port in self.ports.items():
            args += [f"--{name}", str(port)]
        if self.token:
            args += ["--control-token", self.token]
        args += self.args
        env = dict(os.environ, APNS_MOCK_CERTS=self.certs)
        self.process = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 2 * WAIT
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(self.control + "/healthz", timeout=WAIT).read()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"apns-mock did not answer /healthz within {2 * WAIT} s")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def control_json(self, path, method="GET", body=None):
        """A control API call's JSON answer (any status)."""
        request = urllib.request.Request(self.control + path, method=method, headers={"content-type": "application/json"},
                                         data=None if body is None else json.dumps(body).encode())
        try:
            return json.load(urllib.request.urlopen(request, timeout=WAIT))
        except urllib.error.HTTPError as error:
            return json.load(error)

    def push(self, payload, push_type="alert", topic=TOPIC, device=DEVICE, extra=(), token=True):
        """Sends one push to the sandbox listener; returns (status, apns-id)."""
        return self.pushes([dict(payload=payload, push_type=push_type, topic=topic, device=device, extra=extra, token=token)])[0]

    def pushes(self, requests):
        sock = socket.create_connection(("127.0.0.1", self.ports["sandbox-port"]), timeout=WAIT)
        conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        conn.initiate_connection()
        key = open(os.path.join(self.certs, "AuthKey_ABC123DEFG.p8")).read()
        bearer = jwt.encode({"iss": "TEAM000001", "iat": int(time.time())}, key, algorithm="ES256", headers={"kid": "ABC123DEFG"})
        streams = []
        for request in requests:
            stream = conn.get_next_available_stream_id()
            path = request.get("path") or "/3/device/" + request["device"]
            headers = [(":method", "POST"), (":scheme", "http"), (":path", path),
                       (":authority", "127.0.0.1"), ("apns-topic", request["topic"]), ("apns-push-type", request["push_type"])]
            if request["token"]:
                headers.append(("authorization", "bearer " + bearer))
            headers += list(request["extra"])
            body = request["payload"] if isinstance(request["payload"], bytes) else json.dumps(request["payload"]).encode()
            conn.send_headers(stream, headers)
            conn.send_data(stream, body, end_stream=True)
            streams.append(stream)
        sock.sendall(conn.data_to_send())
        answers = {}
        deadline = time.monotonic() + WAIT
        while len([s for s in answers.values() if s.get("ended")]) < len(streams) and time.monotonic() < deadline:
            data = sock.recv(65536)
            if not data:
                break
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.ResponseReceived):
                    answers.setdefault(event.stream_id, {}).update(headers=dict(event.headers))
                elif isinstance(event, h2.events.StreamEnded):
                    answers.setdefault(event.stream_id, {})["ended"] = True
            sock.sendall(conn.data_to_send())
        sock.close()
        return [(int(answers[s]["headers"][":status"]), answers[s]["headers"].get("apns-id")) for s in streams]


def browser(downloads):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1400,1000",
                     "--force-prefers-reduced-motion", "--no-first-run"):
        options.add_argument(argument)
    options.add_experimental_option("prefs", {"download.default_directory": downloads, "download.prompt_for_download": False})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(WAIT)
    driver.set_script_timeout(WAIT)
    return driver


def until(driver, condition, what):
    return WebDriverWait(driver, WAIT, poll_frequency=0.05).until(lambda d: condition(d), message=f"waited {WAIT} s for {what}")


def open_page(driver, mock):
    driver.get(mock.control + "/")
    until(driver, lambda d: d.find_element(By.ID, "connection").get_attribute("data-state") == "live", "the live state")
    # A reload would drop this marker.
    driver.execute_script("window.dashboardLoadMarker = 42;")


def item(driver, apns_id):
    return until(driver, lambda d: d.find_elements(By.CSS_SELECTOR, f'li.push[data-apns-id="{apns_id}"]'), f"the push {apns_id}")[0]


def text_of(element, selector):
    found = element.find_elements(By.CSS_SELECTOR, selector)
    return found[0].get_attribute("textContent") if found else None


def shown_ids(driver):
    # In one script: the list may be redrawn between finding the items and reading them.
    return driver.execute_script("return Array.from(document.querySelectorAll('li.push')).map(li => li.dataset.apnsId);")


def csp_violations_listener(driver):
    driver.execute_script("window.cspViolations = []; document.addEventListener('securitypolicyviolation', e => window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));")


# MARK: Scenarios

def live(mock, driver, out):
    open_page(driver, mock)
    payload = {"aps": {"alert": {"title": "Dinner is ready", "subtitle": "From the kitchen", "body": "Come down while it is hot"},
                       "badge": 3, "sound": "bell.caf", "interruption-level": "time-sensitive", "thread-id": "family"}}
    status, apns_id = mock.push(payload)
    li = item(driver, apns_id)
    return {"status": status, "title": text_of(li, ".title"), "subtitle": text_of(li, ".subtitle"), "body": text_of(li, ".body"),
            "badge": text_of(li, ".badge"), "app": text_of(li, ".app"), "tags": [t.get_attribute("textContent") for t in li.find_elements(By.CSS_SELECTOR, ".tag")],
            "outcome": text_of(li, ".outcome"), "time_sensitive": "time-sensitive" in li.find_element(By.CSS_SELECTOR, ".banner").get_attribute("class"),
            "reloaded": driver.execute_script("return window.dashboardLoadMarker !== 42;"),
            "delivery_off": until(driver, lambda d: d.find_element(By.ID, "delivery-off").get_attribute("textContent"), "the delivery note")}


def rejected_and_filters(mock, driver, out):
    open_page(driver, mock)
    _, accepted_id = mock.push({"aps": {"alert": {"title": "Accepted one", "body": "fine"}}})
    _, rejected_id = mock.push({"aps": {"alert": "refused"}}, topic="com.example.other")
    _, other_id = mock.push({"aps": {"content-available": 1}}, push_type="background", extra=[("apns-priority", "5")])
    li = item(driver, rejected_id)
    item(driver, other_id)
    seen = {"rejected_reason": text_of(li, ".reason"), "rejected_status": text_of(li, ".status"),
            "rejected_explanation": text_of(li, ".explanation"), "all": sorted(shown_ids(driver))}
    Select(driver.find_element(By.ID, "f-outcome")).select_by_value("rejected")
    until(driver, lambda d: shown_ids(d) == [rejected_id], "only the rejected push")
    seen["outcome_rejected"] = shown_ids(driver)
    Select(driver.find_element(By.ID, "f-outcome")).select_by_value("")
    Select(driver.find_element(By.ID, "f-push-type")).select_by_visible_text("background")
    until(driver, lambda d: shown_ids(d) == [other_id], "only the background push")
    seen["push_type_background"] = shown_ids(driver)
    Select(driver.find_element(By.ID, "f-push-type")).select_by_value("")
    driver.find_element(By.ID, "f-apns-id").send_keys(accepted_id.lower())
    until(driver, lambda d: shown_ids(d) == [accepted_id], "only the searched apns-id")
    seen["apns_id_search"] = shown_ids(driver)
    # A push arriving while filtered is shown only if it matches: one that matches, sent
    # after it (the same apns-id), shows that the page has had its news since.
    _, later_id = mock.push({"aps": {"alert": "later"}})
    mock.push({"aps": {"alert": "matches"}}, extra=[("apns-id", accepted_id)])
    until(driver, lambda d: len(shown_ids(d)) > 1, "the matching push sent after it")
    seen["after_unmatched_push"] = shown_ids(driver)
    seen.update(ids={"accepted": accepted_id, "rejected": rejected_id, "background": other_id, "later": later_id})
    return seen


XSS = [
    "<script>window.injected = 'script';</script>",
    "<img src=x onerror=\"window.injected = 'img'\">",
    "javascript:window.injected = 'url'",
    "\u202eexe.tnuocca\u202c and \u2066isolated\u2069",
]


def xss(mock, driver, out):
    open_page(driver, mock)
    csp_violations_listener(driver)
    ids = []
    for text in XSS:
        payload = {"aps": {"alert": {"title": text, "subtitle": text, "body": text}, "thread-id": text, "sound": text, "category": text},
                   "url": text, text: text}
        _, apns_id = mock.push(payload, extra=[("apns-collapse-id", "x"), ("x-note", text.encode("ascii", "ignore").decode())])
        ids.append(apns_id)
    # A Live Activity and a rejection carrying them too (content-state keys and values, a refused topic).
    _, la = mock.push({"aps": {"event": XSS[0], "timestamp": int(time.time()), "content-state": {XSS[1]: XSS[2]}}},
                      push_type="liveactivity", topic=TOPIC + ".push-type.liveactivity")
    _, bad = mock.push({"aps": {"alert": XSS[1]}}, topic="<img src=x onerror=alert(1)>")
    ids += [la, bad]
    items = [item(driver, i) for i in ids]
    for li in items:
        li.click()
        until(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#details .findings"), "the details")
    time.sleep(0.5)
    titles = [text_of(li, ".title") for li in items[:4]]
    return {
        "injected": driver.execute_script("return window.injected === undefined ? null : String(window.injected);"),
        "scripts": driver.execute_script("return Array.from(document.scripts).map(s => s.getAttribute('src'));"),
        "images": len(driver.find_elements(By.TAG_NAME, "img")),
        "links": len(driver.find_elements(By.TAG_NAME, "a")),
        "event_attributes": driver.execute_script(
            "return Array.from(document.querySelectorAll('*')).flatMap(e => Array.from(e.attributes).map(a => a.name)).filter(n => n.startsWith('on'));"),
        "titles": titles, "expected_titles": [t.replace("\u202e", "U+202E").replace("\u202c", "U+202C").replace("\u2066", "U+2066").replace("\u2069", "U+2069") for t in XSS],
        "controls_marked": len(items[3].find_elements(By.CSS_SELECTOR, ".title .control")),
        "details_text": driver.find_element(By.ID, "details").get_attribute("textContent"),
        "csp_violations": driver.execute_script("return window.cspViolations;"),
    }


def export(mock, driver, out):
    open_page(driver, mock)
    payload = {"aps": {"alert": {"title": "Export me", "body": "to the simulator"}, "badge": 1}, "deep_link": "example://x"}
    _, apns_id = mock.push(payload)
    item(driver, apns_id).click()
    button = until(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#details button.export"), "the export button")[0]
    seq = button.get_attribute("data-seq")
    button.click()
    path = os.path.join(out, f"{apns_id}.apns")
    deadline = time.monotonic() + WAIT
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.05)
    until(driver, lambda d: "saved" in d.find_element(By.CSS_SELECTOR, "#details .export-status").text, "the saved note")
    findings = until(driver, lambda d: (lambda t: t if t and t != "loading…" else None)(
        d.find_element(By.CSS_SELECTOR, "#details .findings").get_attribute("textContent")), "the findings")
    Select(driver.find_element(By.CSS_SELECTOR, "#details select.profile")).select_by_visible_text("privacy")
    until(driver, lambda d: d.find_element(By.CSS_SELECTOR, "#details .findings").get_attribute("textContent") != findings
          or d.execute_script("return performance.getEntriesByType('resource').some(e => e.name.includes('profile=privacy'));"), "the privacy findings")
    return {"findings": findings, "profiles": [o.text for o in driver.find_elements(By.CSS_SELECTOR, "#details select.profile option")],
            "asked_privacy": driver.execute_script("return performance.getEntriesByType('resource').some(e => e.name.includes('findings?profile=privacy'));"),
            "file": json.load(open(path)) if os.path.exists(path) else None, "sent": payload,
            "command": driver.find_element(By.CSS_SELECTOR, "#details .command").text, "files": sorted(os.listdir(out)),
            "apns_id": apns_id}


def screenshot(mock, driver, out):
    open_page(driver, mock)
    _, rejected = mock.push({"aps": {"alert": {"title": "Order shipped", "body": "Arrives Thursday"}}}, topic="com.example.shop")
    mock.push({"aps": {"event": "update", "timestamp": int(time.time()),
                       "content-state": {"driver": "Sam", "minutes_away": 4, "stage": "on the way"}}},
              push_type="liveactivity", topic=TOPIC + ".push-type.liveactivity")
    mock.push({"aps": {"content-available": 1}, "sync": "inbox"}, push_type="background", extra=[("apns-priority", "5")])
    _, alert = mock.push({"aps": {"alert": {"title": "Dinner is ready", "subtitle": "From the kitchen", "body": "Come down while it is hot"},
                                  "badge": 3, "sound": "bell.caf", "interruption-level": "time-sensitive", "thread-id": "family"}})
    item(driver, alert).click()
    until(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#details .findings"), "the details")
    until(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#reasons .chip"), "the counts per reason")
    path = os.path.join(out, "dashboard.png")
    driver.save_screenshot(path)
    return {"path": path, "pushes": len(driver.find_elements(By.CSS_SELECTOR, "li.push")),
            "reasons": [c.get_attribute("textContent") for c in driver.find_elements(By.CSS_SELECTOR, "#reasons .chip")],
            "rejected_reason": text_of(item(driver, rejected), ".reason"),
            "activity": text_of(driver.find_element(By.CSS_SELECTOR, ".banner.activity"), ".state")}


screenshot.mock_args = ["--delivery"]  # the picture shows delivery states and the Connectivity panel


def thinning(mock, driver, out):
    mock.pushes([dict(payload={"aps": {"alert": f"push {i}"}}, push_type="alert", topic=TOPIC, device=DEVICE, extra=(), token=True)
                 for i in range(60)])
    open_page(driver, mock)
    seen = {"drawn_first": driver.execute_script("return Array.from(document.querySelectorAll('li.push')).map(li => Number(li.dataset.seq));"),
            "more": driver.find_element(By.ID, "more").text}
    driver.find_element(By.ID, "older").click()
    until(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "li.push")) > len(seen["drawn_first"]), "older pushes")
    seen["drawn_after_older"] = driver.execute_script("return Array.from(document.querySelectorAll('li.push')).map(li => Number(li.dataset.seq));")
    seen["more_shown_after_older"] = driver.find_element(By.ID, "more").is_displayed()
    return seen


def reconnect(mock, driver, out):
    open_page(driver, mock)
    _, before = mock.push({"aps": {"alert": "before the restart"}})
    item(driver, before)
    mock.stop()
    until(driver, lambda d: d.find_element(By.ID, "connection").get_attribute("data-state") == "disconnected", "the disconnected state")
    disconnected = driver.find_element(By.ID, "connection").text
    mock.start()
    until(driver, lambda d: d.find_element(By.ID, "connection").get_attribute("data-state") == "live", "the live state again")
    _, after = mock.push({"aps": {"alert": {"title": "after the restart"}}})
    li = item(driver, after)
    return {"disconnected_text": disconnected, "after_title": text_of(li, ".title"),
            "reloaded": driver.execute_script("return window.dashboardLoadMarker !== 42;")}


def login(mock, driver, out):
    driver.get(mock.control + "/")
    until(driver, lambda d: d.find_element(By.ID, "login").is_displayed(), "the login form")
    state_before = driver.find_element(By.ID, "connection").get_attribute("data-state")
    driver.find_element(By.ID, "login-token").send_keys(mock.token)
    driver.find_element(By.CSS_SELECTOR, "#login button").click()
    until(driver, lambda d: d.find_element(By.ID, "connection").get_attribute("data-state") == "live", "the live state")
    _, apns_id = mock.push({"aps": {"alert": {"title": "behind a token"}}})
    li = item(driver, apns_id)
    return {"state_before": state_before, "title": text_of(li, ".title"),
            "stored": driver.execute_script("return sessionStorage.getItem('apns-mock-control-token');"),
            "apps": driver.find_element(By.ID, "apps").text}


def mock_state(mock, driver, out):
    open_page(driver, mock)
    _, apns_id = mock.push({"aps": {"alert": "to an unregistered device soon"}})
    item(driver, apns_id).click()
    until(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#details button.unregister"), "the unregister button")[0].click()
    until(driver, lambda d: d.find_elements(By.CSS_SELECTOR, f'#devices tr[data-token="{DEVICE}"]'), "the device row")
    status, _ = mock.push({"aps": {"alert": "now refused"}})
    driver.find_element(By.ID, "fault-json").clear()
    driver.find_element(By.ID, "fault-json").send_keys('{"id":"page-rule","action":{"type":"unavailable","reason":"ServiceUnavailable"}}')
    driver.find_element(By.CSS_SELECTOR, "#fault-form button").click()
    until(driver, lambda d: d.find_elements(By.CSS_SELECTOR, '#faults li[data-id="page-rule"]'), "the new rule")
    faulted, faulted_id = mock.push({"aps": {"alert": "faulted"}}, device="cd" * 32)
    injected = text_of(item(driver, faulted_id), ".injected")
    faults_after_add = json.load(urllib.request.urlopen(mock.control + "/faults", timeout=WAIT))
    driver.find_element(By.CSS_SELECTOR, '#faults li[data-id="page-rule"] button').click()
    until(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, '#faults li[data-id="page-rule"]'), "the rule gone")
    driver.find_element(By.ID, "clear-capture").click()
    WebDriverWait(driver, WAIT).until(lambda d: d.switch_to.alert).accept()
    until(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, "li.push"), "an empty list")
    held = json.load(urllib.request.urlopen(mock.control + "/pushes", timeout=WAIT))["count"]
    return {"held_after_clear": held, "status_after_unregister": status, "devices": json.load(urllib.request.urlopen(mock.control + "/devices", timeout=WAIT)),
            "faults_after_add": [r["id"] for r in faults_after_add], "faulted_status": faulted, "injected": injected,
            "faults_after_remove": [r["id"] for r in json.load(urllib.request.urlopen(mock.control + "/faults", timeout=WAIT))]}


def broadcast(mock, driver, out):
    """A broadcast to a channel is drawn as the Live Activity it is, naming its channel."""
    request = urllib.request.Request(mock.control + "/channels", method="POST", headers={"content-type": "application/json"},
                                     data=json.dumps({"bundle_id": TOPIC, "message_storage_policy": 0}).encode())
    channel = json.load(urllib.request.urlopen(request, timeout=WAIT))["channel_id"]
    open_page(driver, mock)
    payload = {"aps": {"event": "update", "timestamp": int(time.time()), "content-state": {"score": "2-1"}}}
    status, _ = mock.pushes([dict(payload=payload, push_type="liveactivity", topic=TOPIC, device=DEVICE, token=True,
                                  path="/4/broadcasts/apps/" + TOPIC,
                                  extra=[("apns-channel-id", channel), ("apns-expiration", "0"), ("apns-priority", "10")])])[0]
    banner = until(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".banner.activity"), "the broadcast's banner")[0]
    return {"status": status, "channel": channel, "text": banner.get_attribute("textContent")}


def text_at(driver, selector):
    """The text of the first element `selector` finds, read in one script: the page redraws
    delivery badges and rows while it runs."""
    return driver.execute_script("const e = document.querySelector(arguments[0]); return e ? e.textContent : null;", selector)


def delivery_badge(driver, apns_id):
    item(driver, apns_id)
    return text_at(driver, f'li.push[data-apns-id="{apns_id}"] .delivery')


def history(driver):
    """The selected push's delivery history: each state, and ` by` where a push caused it."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll('#details .delivery-history li')).map(li => li.querySelector('.what').textContent + (li.textContent.includes(' by ') ? ' by' : ''));")


def delivery(mock, driver, out):
    """With --delivery: pushes to an offline device show as stored, the earlier one as
    coalesced; the page's toggle brings the device online and the later one shows delivered."""
    mock.control_json(f"/delivery/devices/{DEVICE}", method="PUT", body={"connectivity": "offline"})
    open_page(driver, mock)
    first_status, first = mock.push({"aps": {"alert": {"title": "Approve?"}}})
    until(driver, lambda d: delivery_badge(d, first) == "stored (offline)", "the first push stored")
    seen = {"statuses": [first_status], "first_stored": delivery_badge(driver, first)}
    second_status, second = mock.push({"aps": {"alert": {"title": "Done"}}})
    seen["statuses"].append(second_status)
    until(driver, lambda d: delivery_badge(d, second) == "stored (offline)" and delivery_badge(d, first) == "discarded (coalesced)",
          "the second stored, the first coalesced")
    seen["first_after_second"] = delivery_badge(driver, first)
    seen["second_before_online"] = delivery_badge(driver, second)
    row = f'#connectivity tr[data-token="{DEVICE}"]'
    seen["row_before"] = until(driver, lambda d: text_at(d, row + " td.connectivity"), "the device's row")
    # The second push's details are open while it changes: its history grows in place.
    item(driver, second).click()
    until(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#details .delivery-history li"), "the second push's history")
    driver.find_element(By.CSS_SELECTOR, row + " button.connectivity-toggle").click()
    until(driver, lambda d: delivery_badge(d, second) == "delivered", "the second push delivered")
    seen["second_history"] = until(driver, lambda d: (lambda h: h if len(h) == 2 else None)(history(d)), "the second push's history grown")
    seen["second_after_online"] = delivery_badge(driver, second)
    seen["first_after_online"] = delivery_badge(driver, first)
    seen["row_after"] = until(driver, lambda d: (lambda t: t if t == "online" else None)(text_at(d, row + " td.connectivity")), "the row online")
    item(driver, first).click()
    until(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#details .delivery-history li"), "the first push's history")
    seen["first_history"] = history(driver)
    seen["history_times"] = driver.execute_script(
        "return Array.from(document.querySelectorAll('#details .delivery-history li .when')).map(e => e.textContent);")
    seen["api_devices"] = mock.control_json("/delivery/devices")["devices"]
    seen["api_second"] = mock.control_json(f"/delivery?apns_id={second}")["records"][0]["state"]
    seen["reloaded"] = driver.execute_script("return window.dashboardLoadMarker !== 42;")
    seen["ids"] = {"first": first, "second": second}
    return seen


delivery.mock_args = ["--delivery"]


def record_requests(driver):
    """Wraps the page's fetch from the next page load on, before the page's own scripts run:
    each request's path as it starts, those in flight, and the changes each `/delivery/live`
    answer carried."""
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
        window.started = []; window.inFlight = new Set(); window.liveChanges = [];
        const original = window.fetch;
        let next = 0;
        window.fetch = (path, options) => {
          const id = next++, text = String(path);
          window.started.push(text);
          window.inFlight.add(id + ' ' + text);
          return original(path, options).then((response) => {
            if (text.startsWith('/delivery/live')) response.clone().json().then((a) => window.liveChanges.push(...(a.changes || [])), () => null);
            return response;
          }).finally(() => window.inFlight.delete(id + ' ' + text));
        };"""})


def delivery_requests(driver):
    """The page's delivery requests in flight, and those it started, by kind."""
    return driver.execute_script("""
        const kind = (p) => p.startsWith('/delivery/live') ? 'live' : p.startsWith('/delivery/devices') ? 'devices'
          : p.startsWith('/delivery?') ? 'records' : null;
        const count = (k) => window.started.filter((p) => kind(p) === k).length;
        return {in_flight: Array.from(window.inFlight, (e) => kind(e.slice(e.indexOf(' ') + 1))).filter(Boolean).sort(),
                live: count('live'), devices: count('devices'), records: count('records')};""")


def idle(driver, mock):
    """Waits until the page's only delivery request is a long-poll for the changes after the
    mock's latest: nothing it has not seen is on its way to it."""
    def check(d):
        latest = mock.control_json("/delivery/live?timeout=0&limit=1")["latest_seq"]
        requests = delivery_requests(d)
        last = d.execute_script("return window.started.filter((p) => p.startsWith('/delivery/live')).pop() || '';")
        return requests if requests["in_flight"] == ["live"] and f"after={latest}&" in last and "timeout=25" in last else None
    return until(driver, check, "the page idle on its delivery long-poll")


def delivery_stream(mock, driver, out):
    """With --delivery: a device brought online through the control API (not the page)
    turns the page's stored push delivered, carried by the page's /delivery/live long-poll,
    and idle the page holds that one request and reads no records; the same after a restart."""
    seen = {}
    for round in ("first", "restarted"):
        mock.control_json(f"/delivery/devices/{DEVICE}", method="PUT", body={"connectivity": "offline"})
        if round == "first":
            record_requests(driver)
            open_page(driver, mock)
        status, apns_id = mock.push({"aps": {"alert": {"title": f"stored in the {round} run"}}})
        until(driver, lambda d: delivery_badge(d, apns_id) == "stored (offline)", "the push stored")
        before = idle(driver, mock)
        mock.control_json(f"/delivery/devices/{DEVICE}", method="PUT", body={"connectivity": "online"})
        until(driver, lambda d: delivery_badge(d, apns_id) == "delivered", "the push delivered")
        after = idle(driver, mock)
        streamed = driver.execute_script("return window.liveChanges.filter((c) => c.apns_id === arguments[0]).map((c) => c.state).sort();", apns_id)
        seen[round] = {"status": status, "idle_in_flight": before["in_flight"], "streamed": streamed,
                       "records_read": after["records"] - before["records"], "devices_read": after["devices"] - before["devices"],
                       "row": until(driver, lambda d: text_at(d, f'#connectivity tr[data-token="{DEVICE}"] td.connectivity'), "the row")}
        if round == "first":
            mock.stop()
            until(driver, lambda d: d.find_element(By.ID, "connection").get_attribute("data-state") == "disconnected", "the disconnected state")
            mock.start()
            # As in reconnect: a push before the page's first answer from the new mock could
            # carry the number the page saw last, which /pushes/live's restart rule cannot tell.
            until(driver, lambda d: d.find_element(By.ID, "connection").get_attribute("data-state") == "live", "the live state again")
    seen["reloaded"] = driver.execute_script("return window.dashboardLoadMarker !== 42;")
    return seen


delivery_stream.mock_args = ["--delivery"]


def render_delivery(mock, driver, out):
    """render.js's delivery functions, called in the page with hostile values: labels, and
    markup in every field drawn as text."""
    open_page(driver, mock)
    csp_violations_listener(driver)
    bad = "<img src=x onerror=\"window.injected = 1\">"
    return driver.execute_async_script("""
        const [bad, done] = arguments;
        import('/dashboard/render.js').then((r) => {
          const record = {apns_id: bad, state: bad, events: [
            {state: 'stored', why: 'offline', at: '2026-12-05T10:00:00.000000Z'},
            {state: 'discarded', why: bad, by: bad, at: 'not a time'}]};
          const box = document.createElement('div');
          const badge = r.deliveryBadge(record), history = r.deliveryHistory(record);
          const row = r.connectivityRow({device_token: bad, connectivity: 'offline', stored_pushes: 2});
          const online = r.connectivityRow({device_token: 'abab', connectivity: 'online'});
          box.append(badge, history);
          document.body.append(box);
          done({
            labels: [r.deliveryLabel('discarded', 'coalesced'), r.deliveryLabel('replaced_on_screen'),
                     r.deliveryLabel('rejected', 'expired_token'), r.deliveryLabel('delivered', null)],
            badge_text: badge.textContent, badge_class: badge.className, badge_state: badge.dataset.state,
            plain_badge: r.deliveryBadge({state: 'stored', events: [{state: 'stored', why: 'power', at: 'x'}]}).textContent,
            history: Array.from(history.children).map((li) => li.textContent),
            row_cells: Array.from(row.cells).map((c) => c.textContent), row_token: row.dataset.token,
            row_button: row.querySelector('button').dataset.connectivity,
            online_cells: Array.from(online.cells).map((c) => c.textContent),
            online_button: online.querySelector('button').dataset.connectivity,
            images: document.querySelectorAll('img').length + box.querySelectorAll('img').length + row.querySelectorAll('img').length,
            injected: window.injected === undefined ? null : String(window.injected),
            csp_violations: window.cspViolations,
          });
        }, (error) => done({error: String(error)}));
    """, bad)


SCENARIOS = {f.__name__: f for f in (live, rejected_and_filters, xss, export, screenshot, thinning, reconnect, login, mock_state, broadcast,
                                     delivery, delivery_stream, render_delivery)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario", choices=sorted(SCENARIOS))
    parser.add_argument("--mock", required=True)
    parser.add_argument("--certs", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--token")
    args = parser.parse_args()
    mock = Mock(args.mock, args.certs, token=args.token, args=getattr(SCENARIOS[args.scenario], "mock_args", ()))
    driver = None
    try:
        driver = browser(args.out)
        seen = SCENARIOS[args.scenario](mock, driver, args.out)
        seen["console_errors"] = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    finally:
        if driver:
            driver.quit()
        mock.stop()
    print(json.dumps(seen))


if __name__ == "__main__":
    main()
