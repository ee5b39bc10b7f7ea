#!/usr/bin/env bash
# The dashboard's cost to the mock: CPU per push of one release apns-mock (TLS, capture
# off) under the same h2load load with no page open, then with the page open in headless
# chromium and following (scripts/bench-dashboard/follow_page.py), alternating, ROUNDS
# times. The load is RATE pushes/s (default 50,000) for DURATION seconds (default 10), paced by
# `h2load -c 4 -m 100 -t 1 --rps` with the mock benchmark's alert and a PyJWT token; the
# pushes/s reached is printed beside each run (below RATE when the machine cannot keep up).
# Each figure is the mock's own CPU time (utime + stime, /proc/PID/stat) over the run,
# divided by the pushes. Target: the page adds at most 10% (PASS or MISS; exits 0 either
# way). Chromium itself is not counted: it is the user's tab, not the mock.
#
# Usage: scripts/bench-dashboard.sh   (RATE, DURATION, ROUNDS override the defaults)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v h2load >/dev/null && command -v chromium >/dev/null && python3 -c "import jwt, selenium" 2>/dev/null \
    || bash scripts/setup.sh
[ -x .build/release/apns-mock ] || swift build -c release --product apns-mock >&2

RATE=${RATE:-50000}
DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-3}
REQUESTS=$((RATE * DURATION))
TARGET=0.10
source scripts/bench-common.sh
prepare_pushes
hz=$(getconf CLK_TCK)

port=$(free_port); control_port=$(free_port)
.build/release/apns-mock --port "$port" --sandbox-port "$(free_port)" --control-port "$control_port" >/dev/null 2>"$work/mock.log" &
mock=$!; pids+=($mock)
wait_port "$port"; wait_port "$control_port"
control="http://127.0.0.1:$control_port"
h2load_pushes "https://127.0.0.1:$port" 20000 >/dev/null  # warm-up

paced_pushes() { # N -> h2load output: N pushes at RATE per second
    h2load "${push_flags[@]}" --rps=$((RATE / 4)) -n "$1" -H "authorization: bearer $push_token" -H "apns-topic: com.example.app" \
        -H "apns-push-type: alert" -d "$work/body.json" "https://127.0.0.1:$port/3/device/$push_device" 2>&1
}
run() { # -> "cpu_us_per_push pushes_per_s"
    local before after out
    before=$(cpu_ticks "$mock")
    out=$(paced_pushes "$REQUESTS")
    check_h2load "$out" "$REQUESTS"
    sleep 0.2
    after=$(cpu_ticks "$mock")
    awk -v t=$((after - before)) -v hz="$hz" -v n="$REQUESTS" -v r="$(awk '/^finished in/ { gsub(",", "", $4); print $4 }' <<<"$out")" \
        'BEGIN { printf "%.2f %.0f\n", t / hz / n * 1e6, r }'
}

bare=(); paged=()
for round in $(seq "$ROUNDS"); do
    read -r cpu rate < <(run)
    bare+=("$cpu")
    printf 'round %d  no page:        %6.2f us CPU/push  %7.0f pushes/s\n' "$round" "$cpu" "$rate"

    # Follows until told to stop, then says what it drew.
    python3 scripts/bench-dashboard/follow_page.py "$control" 3600 >"$work/page.out" 2>"$work/page.err" & page=$!; pids+=($page)
    for _ in $(seq 400); do grep -q ready "$work/page.out" && break; sleep 0.05; done
    grep -q ready "$work/page.out" || { cat "$work/page.err" >&2; echo "the page did not go live" >&2; exit 1; }
    read -r cpu rate < <(run)
    paged+=("$cpu")
    sleep 1  # one more answer after the last push
    latest=$(curl -s "$control/pushes/live?timeout=0&limit=1" | jq .latest_seq)
    kill "$page" 2>/dev/null; wait "$page" 2>/dev/null || true
    printf 'round %d  page following: %6.2f us CPU/push  %7.0f pushes/s\n' "$round" "$cpu" "$rate"
    printf '         the page drew %s; the mock had numbered %s\n' "$(tail -1 "$work/page.out")" "$latest"
done

b=$(median "${bare[@]}"); p=$(median "${paged[@]}")
printf 'dashboard: median CPU per push %.2f us with the page following, %.2f us without; %+.1f%% (target <= %.0f%%): %s\n' \
    "$p" "$b" "$(awk -v p="$p" -v b="$b" 'BEGIN { print (p / b - 1) * 100 }')" "$(awk -v t="$TARGET" 'BEGIN { print t * 100 }')" \
    "$(awk -v p="$p" -v b="$b" -v t="$TARGET" 'BEGIN { print (p / b - 1 <= t) ? "PASS" : "MISS" }')"
