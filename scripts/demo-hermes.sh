#!/usr/bin/env bash
# make demo: the whole Hermes chain on one machine.
#
#   push-agent (HermesAgent) --HTTP--> push-gateway --HTTP/2+TLS--> apns-mock --control API--> hermes-device (HermesApp)
#
# Starts apns-mock and push-gateway (release builds) on demo ports, registers a virtual
# device, fires all four triggers through the agent library, and prints per push what the
# mock received, push-inspect's verdict under the hermes profile (when push-inspect is
# built) and what the app logic did. Every process it starts is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=.build/release
WORK=$(mktemp -d /tmp/hermes-demo.XXXXXX)
MOCK_PORT=${HERMES_DEMO_MOCK_PORT:-2297}       # production; sandbox +1, control +2
GATEWAY_PORT=${HERMES_DEMO_GATEWAY_PORT:-2280}
CONTROL="http://127.0.0.1:$((MOCK_PORT + 2))"
GATEWAY="http://127.0.0.1:${GATEWAY_PORT}/push"
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

wait_for() {  # wait_for URL NAME LOG: poll until URL answers, or show LOG and fail
    for _ in $(seq 1 100); do
        curl -sf -o /dev/null "$1" && return 0
        sleep 0.1
    done
    echo "demo: $2 did not start; its log:" >&2
    cat "$3" >&2
    exit 1
}

products=(apns-mock push-gateway push-agent hermes-device)
if [ -d Sources/push-inspect ]; then products+=(push-inspect); fi
echo "== building (release): ${products[*]}"
for product in "${products[@]}"; do
    if ! swift build -c release --product "$product" >"$WORK/build.log" 2>&1; then
        echo "demo: building $product failed:" >&2
        tail -30 "$WORK/build.log" >&2
        exit 1
    fi
done

echo "== starting apns-mock (TLS) and push-gateway"
"$BIN/apns-mock" --port "$MOCK_PORT" --sandbox-port "$((MOCK_PORT + 1))" --control-port "$((MOCK_PORT + 2))" \
    --capture "$WORK/capture.jsonl" >"$WORK/mock.log" 2>&1 &
PIDS+=($!)
wait_for "$CONTROL/healthz" apns-mock "$WORK/mock.log"

PUSH_GATEWAY_HMAC_SECRET="$SECRET" "$BIN/push-gateway" --port "$GATEWAY_PORT" --topic com.example.app \
    --auth-key ABC123DEFG:TEAM000001:certs/AuthKey_ABC123DEFG.p8 \
    --apns-production "https://127.0.0.1:$MOCK_PORT" --apns-sandbox "https://127.0.0.1:$((MOCK_PORT + 1))" \
    --apns-ca certs/ca.pem --auth-modes hmac >"$WORK/gateway.log" 2>&1 &
PIDS+=($!)
wait_for "http://127.0.0.1:${GATEWAY_PORT}/healthz" push-gateway "$WORK/gateway.log"

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

INSPECT=""
if [ -x "$BIN/push-inspect" ]; then INSPECT="$BIN/push-inspect"; fi
sleep 0.2   # the capture file's writer thread lingers 1 ms to batch lines

echo
echo "== per push: what the mock received, push-inspect's verdict (hermes profile), what the app did"
apns_id=""
while IFS= read -r line; do
    if [[ $line =~ ^push\ [0-9]+\ \ apns-id\ ([^ ]+) ]]; then apns_id=${BASH_REMATCH[1]}; fi
    if [[ $line == "  app "* ]]; then
        if [ -n "$INSPECT" ]; then
            # The one push the device saw, found by its apns-id.
            if verdict=$("$INSPECT" check --no-apple --profile hermes --apns-id "$apns_id" "$WORK/capture.jsonl" 2>&1); then
                passed=1
            else
                passed=0
            fi
            if grep -q "^checked 0 pushes" <<<"$verdict"; then
                echo "  push-inspect   no capture record for $apns_id"
            elif [ "$passed" = 1 ]; then
                echo "  push-inspect   hermes profile: pass"
            else
                echo "  push-inspect   hermes profile: FAIL"
                sed 's/^/                 /' <<<"$verdict"
            fi
        else
            echo "  push-inspect   not built on this branch: no verdict"
        fi
    fi
    echo "$line"
done <"$WORK/device.out"

if [ -n "$INSPECT" ]; then
    echo
    echo "== push-inspect check --profile hermes (and apple), everything the mock captured"
    "$INSPECT" check --profile hermes --from "$CONTROL" || true
fi
