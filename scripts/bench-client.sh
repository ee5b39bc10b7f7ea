#!/usr/bin/env bash
# Client benchmark: APNsClient (Benchmarks/client-bench) against h2load, both pushing to the
# same release apns-mock over TLS in one run, with the same shape: C connections, M streams
# each, C×M pushes in flight. Prints pushes/s of each and the ratio (target ≥ 0.7×).
#
# Both send the same ~150-byte alert payload to one device with apns-topic com.example.app
# and apns-push-type alert, authenticated with a provider token for kid ABC123DEFG of team
# TEAM000001 (certs/): APNsClient signs its own; h2load's is minted by PyJWT. The mock
# validates every push fully and captures it in memory.
#
# Usage: scripts/bench-client.sh   (REQUESTS, ROUNDS, CONNECTIONS and STREAMS override the defaults)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v h2load >/dev/null && python3 -c "import jwt" 2>/dev/null || bash scripts/setup.sh
swift build -c release --product client-bench >/dev/null
swift build -c release --product apns-mock >/dev/null

REQUESTS=${REQUESTS:-200000}
ROUNDS=${ROUNDS:-3}
CONNECTIONS=${CONNECTIONS:-4}
STREAMS=${STREAMS:-100}
DEVICE=$(printf '%064x' 1)
source scripts/bench-common.sh

alert_payload > "$work/body.json"
token=$(provider_token)


production=$(free_port); sandbox=$(free_port); control=$(free_port)
.build/release/apns-mock --port "$production" --sandbox-port "$sandbox" --control-port "$control" --channel-sandbox-port 0 --channel-port 0 >/dev/null 2>&1 & pids+=($!)
wait_port "$sandbox"
url="https://127.0.0.1:$sandbox"

h2load_rate() { # N -> req/s, failing loudly unless every request got a 2xx
    local out
    out=$(h2load -c "$CONNECTIONS" -m "$STREAMS" -t 1 -n "$1" -H "authorization: bearer $token" \
        -H "apns-topic: com.example.app" -H "apns-push-type: alert" -d "$work/body.json" "$url/3/device/$DEVICE" 2>&1)
    grep -q "0 failed, 0 errored, 0 timeout" <<<"$out" && grep -Eq "status codes: [0-9]+ 2xx, 0 3xx, 0 4xx, 0 5xx" <<<"$out" \
        || { echo "$out" >&2; echo "h2load reported failures" >&2; exit 1; }
    awk '/^finished in/ { gsub(",", "", $4); print $4 }' <<<"$out"
}
client_rate() { # N -> pushes/s, failing loudly on any failed push
    local out
    out=$(.build/release/client-bench --url "$url" --ca certs/ca.pem --payload-file "$work/body.json" --device "$DEVICE" \
        -c "$CONNECTIONS" -m "$STREAMS" -n "$1" 2>&1) || { echo "$out" >&2; echo "client-bench reported failures" >&2; exit 1; }
    awk -F= '$1 == "pushes_per_second" { print $2 }' <<<"$out"
}

# Warm-up, so neither side pays first-touch costs in the measured rounds.
h2load_rate 20000 >/dev/null
client_rate 20000 >/dev/null

echo "$CONNECTIONS connections × $STREAMS streams, $REQUESTS pushes of $(wc -c < "$work/body.json") bytes over TLS to one apns-mock;" \
    "mean of $ROUNDS alternating rounds (the machine may be shared: compare the ratio, not the rates)"
h=0; c=0
for _ in $(seq "$ROUNDS"); do
    h=$(add "$h" "$(h2load_rate "$REQUESTS")")
    c=$(add "$c" "$(client_rate "$REQUESTS")")
done
printf '%14s %16s %8s %8s\n' "h2load req/s" "APNsClient req/s" ratio target
printf '%14.0f %16.0f %7.2fx %8s\n' "$(awk -v a="$h" -v n="$ROUNDS" 'BEGIN { print a / n }')" \
    "$(awk -v a="$c" -v n="$ROUNDS" 'BEGIN { print a / n }')" "$(awk -v c="$c" -v h="$h" 'BEGIN { print c / h }')" "≥ 0.70x"
