#!/usr/bin/env bash
# Gateway benchmark, all in one run against one release apns-mock (TLS, full validation):
#
#   1. end-to-end pushes/s: wrk (HTTP/1.1 keep-alive, HMAC-signed /push) -> push-gateway ->
#      HTTP/2 to the mock, against the APNs client sending the same payload direct
#      (Benchmarks/client-bench, 4 connections x 100 streams); mean of ROUNDS alternating
#      rounds, ratio (target >= 0.5x);
#   2. latency the gateway adds at RATE pushes/s: p99 of hey (HTTP/1.1, fixed rate) through
#      the gateway minus p99 of the client sending direct at the same rate
#      (Benchmarks/apns-client-load) (target <= 1 ms).
#
# Usage: scripts/bench-gateway.sh   (DURATION, ROUNDS, RATE, COUNT override the defaults)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null && command -v hey >/dev/null || bash scripts/setup.sh

DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-3}
RATE=${RATE:-1000}
COUNT=${COUNT:-100000}
KEY="ABC123DEFG:TEAM000001:certs/AuthKey_ABC123DEFG.p8"
source scripts/bench-common.sh

mean() { awk '{ s += $1 } END { printf "%.0f", s / NR }'; }

p1=$(free_port); p2=$(free_port); p3=$(free_port); p4=$(free_port)
APNS_MOCK_CERTS=certs .build/release/apns-mock --port "$p1" --sandbox-port "$p2" --control-port "$p3" >/dev/null 2>&1 & pids+=($!)
wait_port "$p1"
# Limits far above the load, so the benchmark measures forwarding, not refusing.
cat > "$work/gateway.json" <<JSON
{"auth_modes":["hmac"],"rate_limits":{"per_device":{"burst":1000000,"per_second":1000000},"total":{"burst":1000000,"per_second":1000000}}}
JSON
PUSH_GATEWAY_HMAC_SECRET=bench-secret .build/release/push-gateway --config "$work/gateway.json" --port "$p4" \
    --topic com.example.app --auth-key "$KEY" --apns-production "https://127.0.0.1:$p1" \
    --apns-sandbox "https://127.0.0.1:$p2" --apns-ca certs/ca.pem >/dev/null 2>&1 & pids+=($!)
wait_port "$p4"

# The plugin's request, signed as the plugin signs it.
python3 - "$work/body.json" <<'PY'
import hashlib, hmac, json, sys
payload = {"device_token": "ab" * 32, "apns_env": "sandbox", "type": "approval", "session_id": "20261130_154126_a1b2c3",
           "title": "Approval needed", "body": "Hermes needs your approval", "thread_id": "20261130_154126_a1b2c3"}
canonical = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()
payload["hmac"] = hmac.new(b"bench-secret", canonical, hashlib.sha256).hexdigest()
open(sys.argv[1], "w").write(json.dumps(payload, separators=(",", ":"), ensure_ascii=False))
PY
cat > "$work/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = io.open("$work/body.json"):read("*a")
LUA
URL="http://127.0.0.1:$p4/push"
check=$(curl -s -X POST -H 'content-type: application/json' --data-binary @"$work/body.json" "$URL")
[[ "$check" == *apns_id* ]] || { echo "the gateway did not accept the benchmark push: $check" >&2; exit 1; }

# What the gateway sends for that request (contract §3), for the client sending direct.
printf '%s' '{"aps":{"alert":{"title":"Approval needed","body":"Hermes needs your approval"},"sound":"default","thread-id":"20261130_154126_a1b2c3","category":"HERMES_APPROVAL","badge":1},"session_id":"20261130_154126_a1b2c3","type":"approval"}' \
    > "$work/payload.json"
direct() { .build/release/apns-client-load --url "https://127.0.0.1:$p2" --ca certs/ca.pem --auth-key "$KEY" --topic com.example.app "$@"; }
direct_rate() {
    local out
    out=$(.build/release/client-bench --url "https://127.0.0.1:$p2" --ca certs/ca.pem --auth-key "$KEY" \
        --payload-file "$work/payload.json" --device "$(printf 'ab%.0s' {1..32})" -c 4 -m 100 -n "$COUNT" 2>&1) \
        || { echo "$out" >&2; echo "client-bench reported failures" >&2; exit 1; }
    awk -F= '$1 == "pushes_per_second" { printf "%.0f", $2 }' <<<"$out"
}

gateway_rates=(); direct_rates=()
for round in $(seq "$ROUNDS"); do
    out=$(wrk -t 2 -c 64 -d "${DURATION}s" -s "$work/post.lua" "$URL")
    if grep -q "Non-2xx" <<<"$out"; then echo "$out" >&2; echo "wrk saw errors" >&2; exit 1; fi
    gateway_rates+=("$(awk '/^Requests\/sec/ { print $2 }' <<<"$out")")
    direct_rates+=("$(direct_rate)")
    echo "round $round: gateway ${gateway_rates[-1]} pushes/s, client direct ${direct_rates[-1]} pushes/s"
done
gateway=$(printf '%s\n' "${gateway_rates[@]}" | mean)
reference=$(printf '%s\n' "${direct_rates[@]}" | mean)

# Fixed rate: hey spreads RATE over 50 keep-alive connections. The same load on the
# gateway's /healthz (no APNs, no parsing) is the floor of hey plus the HTTP/1.1 hop.
paced() { # hey arguments -> "p50_ms p99_ms", failing unless every answer was 200
    local out
    out=$(hey -z "${DURATION}s" -c 50 -q $((RATE / 50)) "$@")
    grep -Eq "\[200\][[:space:]]+[0-9]+ responses" <<<"$out" && ! grep -Eq "\[[1345][0-9][0-9]\][[:space:]]+[0-9]+ responses|Error distribution" <<<"$out" \
        || { echo "$out" >&2; echo "hey saw errors" >&2; exit 1; }
    awk '/50% in/ { p50 = $3 * 1000 } /99% in/ { p99 = $3 * 1000 } END { printf "%.3f %.3f\n", p50, p99 }' <<<"$out"
}
read -r push_p50 gateway_p99 < <(paced -m POST -T application/json -D "$work/body.json" "$URL")
read -r health_p50 health_p99 < <(paced "http://127.0.0.1:$p4/healthz")
read -r direct_p50 direct_p99 < <(direct --rate "$RATE" --seconds "$DURATION" | awk '/p50_ms/ { a = $2 } /p99_ms/ { b = $2 } END { printf "%.3f %.3f\n", a, b }')

echo
echo "gateway end-to-end (wrk HTTP/1.1 in, h2 out): $gateway pushes/s"
echo "APNs client direct to the same mock:          $reference pushes/s"
awk -v a="$gateway" -v b="$reference" 'BEGIN { printf "ratio gateway / client direct:                %.2fx (target >= 0.5x)\n", a / b }'
echo "at $RATE pushes/s (p50 / p99 ms): hey -> gateway -> mock $push_p50 / $gateway_p99;" \
    "hey -> gateway /healthz $health_p50 / $health_p99; client direct $direct_p50 / $direct_p99"
awk -v a="$gateway_p99" -v b="$direct_p99" 'BEGIN { printf "p99 latency the gateway adds:                 %.3f ms (target <= 1 ms; hey and the HTTP/1.1 hop included)\n", a - b }'
echo "(2-core machine shared by the load generator, the gateway and the mock: compare ratios, not absolutes)"
