#!/usr/bin/env bash
# Mock benchmark: apns-mock with full validation and file capture, against nghttpd serving a
# static answer, with the same h2load flags, over TLS, in one run. Prints req/s of each and
# the ratio (target ≥ 0.8×). For scale, the same rounds also go to HTTPTransport alone
# (Benchmarks/transport-bench-server: an APNs-shaped 200, no validation, capture or log), so
# the output shows how much of the gap is the transport and how much the mock's per-push
# work. Then the resident memory of apns-mock once it has answered
# 1,000,000 pushes (target ≤ 64 MB).
#
# Every push carries a provider token minted by PyJWT (ES256, kid ABC123DEFG of team
# TEAM000001, from certs/), apns-topic com.example.app, apns-push-type alert and a ~150-byte
# alert payload, so each one goes through the whole validator, the fault engine, the capture
# (ring and file) and the metrics.
#
# Usage: scripts/bench-mock.sh   (REQUESTS, ROUNDS and PUSHES override the defaults)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v h2load >/dev/null && command -v nghttpd >/dev/null && python3 -c "import jwt" 2>/dev/null \
    || bash scripts/setup.sh

REQUESTS=${REQUESTS:-400000}
ROUNDS=${ROUNDS:-3}
PUSHES=${PUSHES:-1000000}
MEMORY_TARGET_MB=64
source scripts/bench-common.sh
prepare_pushes

rate() { # h2load output -> req/s, failing loudly unless every request got a 2xx
    check_h2load "$1"
    awk '/^finished in/ { gsub(",", "", $4); print $4 }' <<<"$1"
}

p1=$(free_port); p2=$(free_port); p3=$(free_port); p4=$(free_port)
nghttpd -n 2 -d "$work/docroot" "$p1" certs/server.key certs/server.pem >/dev/null 2>&1 & pids+=($!)
.build/release/apns-mock --port "$p2" --sandbox-port "$p3" --control-port "$p4" --channel-sandbox-port 0 --channel-port 0 --capture "$work/capture.jsonl" \
    >/dev/null 2>&1 & mock=$!; pids+=($mock)
bare=$(swift build -c release --show-bin-path)/transport-bench-server
[ -x "$bare" ] || swift build -c release --product transport-bench-server >&2
p5=$(free_port)
"$bare" "$p5" --tls certs/server.pem certs/server.key >/dev/null 2>&1 & pids+=($!)
for p in "$p1" "$p2" "$p5"; do wait_port "$p"; done

sent=0
run() { h2load_pushes "$@"; } # URL N -> h2load output
ref="https://127.0.0.1:$p1"; ours="https://127.0.0.1:$p2"; transport="https://127.0.0.1:$p5"
# Warm-up, so neither side pays first-touch costs in the measured run.
rate "$(run "$ref" 20000)" >/dev/null
rate "$(run "$ours" 20000)" >/dev/null; sent=20000
rate "$(run "$transport" 20000)" >/dev/null

echo "h2load ${push_flags[*]} -n $REQUESTS over TLS, POST $(wc -c < "$work/body.json") bytes with a provider token;" \
    "mean of $ROUNDS alternating rounds"
echo "apns-mock: full validation, capture to a file; nghttpd -n 2: a static empty 200"
r=0; o=0; t=0
for _ in $(seq "$ROUNDS"); do
    r=$(add "$r" "$(rate "$(run "$ref" "$REQUESTS")")")
    o=$(add "$o" "$(rate "$(run "$ours" "$REQUESTS")")"); sent=$((sent + REQUESTS))
    t=$(add "$t" "$(rate "$(run "$transport" "$REQUESTS")")")
done
printf '%14s %14s %8s %8s\n' "nghttpd req/s" "mock req/s" ratio target
printf '%14.0f %14.0f %7.2fx %8s\n' "$(awk -v a="$r" -v n="$ROUNDS" 'BEGIN { print a / n }')" \
    "$(awk -v a="$o" -v n="$ROUNDS" 'BEGIN { print a / n }')" "$(awk -v o="$o" -v r="$r" 'BEGIN { print o / r }')" "≥ 0.80x"
printf 'for scale, HTTPTransport alone (same TLS, headers and flags; no validation, capture or log): %.0f req/s, %.2fx of nghttpd\n' \
    "$(awk -v a="$t" -v n="$ROUNDS" 'BEGIN { print a / n }')" "$(awk -v t="$t" -v r="$r" 'BEGIN { print t / r }')"

# Memory: the same process, topped up to PUSHES answered pushes.
if [ "$sent" -lt "$PUSHES" ]; then rate "$(run "$ours" $((PUSHES - sent)))" >/dev/null; sent=$PUSHES; fi
sleep 0.5  # Let the capture writer drain what is pending.
kib() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$mock/status"; }
rss=$(kib VmRSS); hwm=$(kib VmHWM)
lines=$(wc -l < "$work/capture.jsonl")
[ "$lines" -ge "$sent" ] || { echo "capture file has $lines lines for $sent pushes" >&2; exit 1; }
printf '\napns-mock after %d pushes (%d capture lines): VmRSS %.1f MB, VmHWM %.1f MB; target ≤ %d MB (%s)\n' \
    "$sent" "$lines" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" "$(awk -v k="$hwm" 'BEGIN { print k / 1024 }')" \
    "$MEMORY_TARGET_MB" "$(awk -v k="$hwm" -v t="$MEMORY_TARGET_MB" 'BEGIN { print (k <= t * 1024 ? "met" : "NOT met") }')"
