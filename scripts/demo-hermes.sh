#!/usr/bin/env bash
# make demo: the whole Hermes chain on one machine.
#
#   push-agent (HermesAgent) --HTTP--> push-gateway --HTTP/2+TLS--> apns-mock --control API--> hermes-device (HermesApp)
#
# Starts apns-mock and push-gateway (release builds) on free ports, read from each one's own
# banner, so it can only talk to the servers it started; registers a virtual device, fires
# all four triggers through the agent library, and prints per push what the mock received,
# push-inspect's verdict under the hermes profile and what the app logic did; then runs the
# app's onboarding (hermes-device onboarding) on a virtual clock. Every process
# it starts is stopped on exit; any step that fails (a push not captured, a verdict that
# fails) makes the exit status 1.
set -euo pipefail
cd "$(dirname "$0")/.."

# DEMO_BIN: a folder of binaries already built (scripts/test-demo.sh gives the debug ones).
BIN=${DEMO_BIN:-.build/release}
WORK=$(mktemp -d /tmp/hermes-demo.XXXXXX)
FAILURES=0
TOKEN=$(printf 'ab%.0s' {1..32})
STORE="$WORK/devices.json"
SECRET="demo-shared-secret"
PIDS=()

cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT

banner_url() {  # banner_url NAME LABEL OUT LOG: the URL after LABEL in OUT, the banner NAME printed
    for _ in $(seq 1 200); do
        url=$(awk -v label="$2" '$1 == label { print $2; exit }' "$3")
        if [ -n "$url" ]; then echo "$url"; return 0; fi
        sleep 0.1
    done
    echo "demo: $1 did not start; its output:" >&2
    cat "$3" "$4" >&2
    exit 1
}

products=(apns-mock push-gateway push-agent hermes-device push-inspect)
if [ -n "${DEMO_BIN:-}" ]; then products=(); else echo "== building (release): ${products[*]}"; fi
for product in "${products[@]}"; do
    if ! swift build -c release --product "$product" >"$WORK/build.log" 2>&1; then
        echo "demo: building $product failed:" >&2
        tail -30 "$WORK/build.log" >&2
        exit 1
    fi
done

echo "== starting apns-mock (TLS) and push-gateway"
"$BIN/apns-mock" --port 0 --sandbox-port 0 --control-port 0 --channel-sandbox-port 0 --channel-port 0 \
    --capture "$WORK/capture.jsonl" >"$WORK/mock.out" 2>"$WORK/mock.log" &
PIDS+=($!)
PRODUCTION=$(banner_url apns-mock production "$WORK/mock.out" "$WORK/mock.log")
SANDBOX=$(banner_url apns-mock sandbox "$WORK/mock.out" "$WORK/mock.log")
CONTROL=$(banner_url apns-mock control "$WORK/mock.out" "$WORK/mock.log")

PUSH_GATEWAY_HMAC_SECRET="$SECRET" "$BIN/push-gateway" --port 0 --topic com.example.app \
    --auth-key ABC123DEFG:TEAM000001:certs/AuthKey_ABC123DEFG.p8 \
    --apns-production "$PRODUCTION" --apns-sandbox "$SANDBOX" \
    --apns-ca certs/ca.pem --auth-modes hmac >"$WORK/gateway.out" 2>"$WORK/gateway.log" &
PIDS+=($!)
GATEWAY="$(banner_url push-gateway listening "$WORK/gateway.out" "$WORK/gateway.log")/push"
echo "   apns-mock: $CONTROL (control), push-gateway: $GATEWAY"

echo "== registering the virtual device"
"$BIN/push-agent" register --store "$STORE" --device-token "$TOKEN" --env sandbox --app-version demo

# The device listens first; the user has the app open on session sess-error.
"$BIN/hermes-device" --control "$CONTROL" --device-token "$TOKEN" --count 4 --timeout 60 \
    --viewing sess-error >"$WORK/device.out" 2>&1 &
DEVICE_PID=$!
PIDS+=($DEVICE_PID)

echo "== firing the four triggers through HermesAgent (push-agent fire)"
fire() { HERMES_PUSH_SECRET="$SECRET" "$BIN/push-agent" fire --store "$STORE" --gateway "$GATEWAY" "$@"; }
fire --hook pre_approval_request --surface gateway --session sess-approval
fire --hook pre_tool_call --tool clarify --session sess-clarify
fire --hook post_llm_call --session sess-complete --turn-seconds 12
fire --hook on_session_end --session sess-error
echo "   (and two the gates drop)"
fire --hook post_llm_call --session sess-quick --turn-seconds 3
fire --hook pre_approval_request --surface cli --session sess-approval

wait "$DEVICE_PID" || { echo "demo: the virtual device did not get 4 pushes" >&2; cat "$WORK/device.out" >&2; exit 1; }

INSPECT="$BIN/push-inspect"

echo
echo "== per push: what the mock received, push-inspect's verdict (hermes profile), what the app did"
apns_id=""
while IFS= read -r line; do
    if [[ $line =~ ^push\ [0-9]+\ \ apns-id\ ([^ ]+) ]]; then apns_id=${BASH_REMATCH[1]}; fi
    if [[ $line == "  app "* ]]; then
        # The one push the device saw, found by its apns-id (answered only once captured).
        if verdict=$("$INSPECT" check --no-apple --profile hermes --apns-id "$apns_id" "$WORK/capture.jsonl" 2>&1); then
            passed=1
        else
            passed=0
        fi
        if grep -q "^checked 0 pushes" <<<"$verdict"; then
            echo "  push-inspect   no capture record for $apns_id"
            FAILURES=$((FAILURES + 1))
        elif [ "$passed" = 1 ]; then
            echo "  push-inspect   hermes profile: pass"
        else
            echo "  push-inspect   hermes profile: FAIL"
            sed 's/^/                 /' <<<"$verdict"
            FAILURES=$((FAILURES + 1))
        fi
    fi
    echo "$line"
done <"$WORK/device.out"

echo
echo "== push-inspect check --profile hermes (and apple), everything the mock captured"
"$INSPECT" check --profile hermes --from "$CONTROL" || FAILURES=$((FAILURES + 1))

echo
echo "== the app's onboarding (hermes-device onboarding): the hub lists hermes-push, disabled"
# HermesApp's onboarding, from now on a virtual clock: readiness, the install sheet, and
# "Later" four times, each snooze checked one second before its end and at it.
START_EPOCH=$(date +%s)
printf '%s' '{"plugins":[{"name":"hermes-push","runtime_status":"disabled"}]}' >"$WORK/hub.json"
onboarding_ok=1
if onboarding=$("$BIN/hermes-device" onboarding --hub-file "$WORK/hub.json" --later 4 \
        --clock "$(date -u -d "@$START_EPOCH" +%FT%TZ)" 2>&1); then
    expected=("readiness      not ready" "app            shows the install sheet" "[Ask agent to install] [Later]")
    # The Fibonacci backoff (HermesSnoozeSchedule): 1, 2, 3, 5 days, each from the last.
    days_after=0
    for days in 1 2 3 5; do
        days_after=$((days_after + days))
        until=$(date -u -d "@$((START_EPOCH + days_after * 86400))" +%FT%TZ)
        expected+=("snoozed $days day$([ "$days" = 1 ] || echo s), until $until" "launch $until  shows the install sheet")
    done
    for line in "${expected[@]}"; do grep -qF -- "$line" <<<"$onboarding" || onboarding_ok=0; done
    [ "$(grep -c 'stays quiet (snoozed)' <<<"$onboarding")" = 4 ] || onboarding_ok=0
else
    onboarding_ok=0
fi
echo "$onboarding"
printf '%s' '{"plugins":[{"name":"hermes-push","runtime_status":"enabled"}]}' >"$WORK/hub.json"
echo "   (then the plugin is enabled)"
ready=$("$BIN/hermes-device" onboarding --hub-file "$WORK/hub.json" 2>&1) || onboarding_ok=0
echo "$ready"
grep -qF "app            asks for notification permission, then registers" <<<"$ready" || onboarding_ok=0
if [ "$onboarding_ok" = 0 ]; then
    echo "demo: the onboarding step failed: its readiness, sheet or snooze dates are not HermesApp's" >&2
    FAILURES=$((FAILURES + 1))
fi

# An offline phone (docs/hermes.md, "An offline phone"): a mock of its own with the delivery
# model on; the phone is offline while approval, then complete, arrive; APNs stores one
# notification per app, so once online the phone shows only the complete.
offline_phone_scenario() {
    echo
    echo "== an offline phone: approval, then complete, arrive while it is offline"
    local dir="$WORK/offline" token store control production sandbox gateway centre
    mkdir -p "$dir"
    token=$(printf 'cd%.0s' {1..32}); store="$dir/devices.json"
    "$BIN/apns-mock" --port 0 --sandbox-port 0 --control-port 0 --delivery \
        --capture "$dir/capture.jsonl" >"$dir/mock.out" 2>"$dir/mock.log" &
    PIDS+=($!)
    control=$(banner_url apns-mock control "$dir/mock.out" "$dir/mock.log")
    production=$(banner_url apns-mock production "$dir/mock.out" "$dir/mock.log")
    sandbox=$(banner_url apns-mock sandbox "$dir/mock.out" "$dir/mock.log")
    PUSH_GATEWAY_HMAC_SECRET="$SECRET" "$BIN/push-gateway" --port 0 --topic com.example.app \
        --auth-key ABC123DEFG:TEAM000001:certs/AuthKey_ABC123DEFG.p8 \
        --apns-production "$production" --apns-sandbox "$sandbox" \
        --apns-ca certs/ca.pem --auth-modes hmac >"$dir/gateway.out" 2>"$dir/gateway.log" &
    PIDS+=($!)
    gateway="$(banner_url push-gateway listening "$dir/gateway.out" "$dir/gateway.log")/push"
    "$BIN/push-agent" register --store "$store" --device-token "$token" --env sandbox --app-version demo >/dev/null
    curl -sf -X PUT -H 'content-type: application/json' "$control/delivery/devices/$token" -d '{"connectivity":"offline"}' >/dev/null
    echo "   the phone is offline"
    HERMES_PUSH_SECRET="$SECRET" "$BIN/push-agent" fire --store "$store" --gateway "$gateway" \
        --hook pre_approval_request --surface gateway --session sess-offline
    HERMES_PUSH_SECRET="$SECRET" "$BIN/push-agent" fire --store "$store" --gateway "$gateway" \
        --hook post_llm_call --session sess-offline --turn-seconds 12
    curl -sf -X PUT -H 'content-type: application/json' "$control/delivery/devices/$token" -d '{"connectivity":"online"}' >/dev/null
    echo "   the phone is online again; what became of each push (push-inspect delivery):"
    "$BIN/push-inspect" delivery --device-token "$token" "$dir/capture.jsonl" | sed 's/^/     /'
    centre=$(curl -sf "$control/delivery/devices/$token/notifications")
    if python3 -c 'import json, sys
shown = json.loads(sys.argv[1])["notifications"]
types = [n["payload"]["type"] for n in shown]
print("   the phone shows:", types, "- the approval never reached it; the app must fetch pending approvals when it comes to the foreground")
sys.exit(0 if types == ["complete"] else 1)' "$centre"; then :; else
        echo "demo: the offline phone should show only the complete push" >&2
        FAILURES=$((FAILURES + 1))
    fi
}
offline_phone_scenario

if [ "$FAILURES" -gt 0 ]; then
    echo "demo: $FAILURES step(s) failed" >&2
    exit 1
fi
echo "demo: every step passed"
