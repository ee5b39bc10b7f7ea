#!/usr/bin/env bash
# Control API benchmark, in one run against one release apns-mock (TLS, file capture on):
#
#   1. listing: `GET /pushes` of a full default ring (10,000 pushes) against jq reading the
#      same 10,000 lines from the capture file (`jq -c .`), the reference for handing out that
#      many JSON lines; best of ROUNDS. A listing that copied everything written so far for
#      each line would take seconds.
#   2. inspection: `GET /pushes/reasons` over the full ring (counted from the ring's keys,
#      no record decoded) against jq counting the same lines' reasons, and
#      `GET /pushes/{seq}/findings` (one record decoded, the `apple` rules run); best of ROUNDS.
#   3. isolation: h2load pushes/s while WAITS long-polls are pending and listings of
#      the whole ring run in a loop, against the same h2load run with the control API idle;
#      the control API has an event loop of its own, so its work must not stall the pushes of
#      connections on the APNs listeners' loops (on 2 cores it still takes CPU from them).
#
# Usage: scripts/bench-control.sh   (ROUNDS, WAITS override the defaults)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v h2load >/dev/null && command -v jq >/dev/null && python3 -c "import jwt" 2>/dev/null || bash scripts/setup.sh
[ -x .build/release/apns-mock ] || swift build -c release --product apns-mock >&2

ROUNDS=${ROUNDS:-3}
WAITS=${WAITS:-200}
RING=10000
DEVICE=$(printf '%064x' 1)
source scripts/bench-common.sh

alert_payload > "$work/body.json"
token=$(provider_token)
p1=$(free_port); p2=$(free_port); p3=$(free_port)
.build/release/apns-mock --port "$p1" --sandbox-port "$p2" --control-port "$p3" --capture "$work/capture.jsonl" \
    >/dev/null 2>&1 & pids+=($!)
wait_port "$p1"; wait_port "$p3"
control="http://127.0.0.1:$p3"
push() { # N -> h2load output
    h2load -c 4 -m 100 -t 1 -n "$1" -H "authorization: bearer $token" -H "apns-topic: com.example.app" \
        -H "apns-push-type: alert" -d "$work/body.json" "https://127.0.0.1:$p1/3/device/$DEVICE" 2>&1
}
rate() { # h2load output -> req/s, failing loudly unless every request got a 2xx
    grep -q "0 failed, 0 errored, 0 timeout" <<<"$1" || { echo "$1" >&2; echo "h2load reported failures" >&2; exit 1; }
    awk '/^finished in/ { gsub(",", "", $4); print $4 }' <<<"$1"
}
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", b - a }'; }

push "$RING" >/dev/null
sleep 0.5  # The capture file's writer drains what is pending.
tail -n "$RING" "$work/capture.jsonl" > "$work/ring.jsonl"

# 1. Listing the ring against jq over the same lines.
best_list=""; best_jq=""
for _ in $(seq "$ROUNDS"); do
    a=$(now); count=$(curl -sf "$control/pushes" | jq '.count'); b=$(now)
    [ "$count" = "$RING" ] || { echo "GET /pushes listed $count pushes, expected $RING" >&2; exit 1; }
    c=$(now); jq -c . "$work/ring.jsonl" >/dev/null; d=$(now)
    t=$(elapsed "$a" "$b"); r=$(elapsed "$c" "$d")
    best_list=$(awk -v x="$t" -v y="$best_list" 'BEGIN { print (y == "" || x < y) ? x : y }')
    best_jq=$(awk -v x="$r" -v y="$best_jq" 'BEGIN { print (y == "" || x < y) ? x : y }')
done

# 2. Counting reasons over the ring against jq over the same lines; one push's findings.
best_reasons=""; best_jq_reasons=""; best_findings=""
last_seq=$(tail -n 1 "$work/ring.jsonl" | jq '.seq')
for _ in $(seq "$ROUNDS"); do
    a=$(now); total=$(curl -sf "$control/pushes/reasons" | jq '.total'); b=$(now)
    [ "$total" = "$RING" ] || { echo "GET /pushes/reasons counted $total pushes, expected $RING" >&2; exit 1; }
    c=$(now); jq -c '[.status, .reason]' "$work/ring.jsonl" | sort | uniq -c >/dev/null; d=$(now)
    e=$(now); curl -sf "$control/pushes/$last_seq/findings" >/dev/null; f=$(now)
    best_reasons=$(awk -v x="$(elapsed "$a" "$b")" -v y="$best_reasons" 'BEGIN { print (y == "" || x < y) ? x : y }')
    best_jq_reasons=$(awk -v x="$(elapsed "$c" "$d")" -v y="$best_jq_reasons" 'BEGIN { print (y == "" || x < y) ? x : y }')
    best_findings=$(awk -v x="$(elapsed "$e" "$f")" -v y="$best_findings" 'BEGIN { print (y == "" || x < y) ? x : y }')
done

# 3. Pushes/s with the control API idle, then busy.
idle=$(rate "$(push 40000)")
curl -sf -X DELETE -H "content-type: application/json" "$control/pushes" >/dev/null
push "$RING" >/dev/null
for _ in $(seq "$WAITS"); do
    curl -s -o /dev/null "$control/pushes/wait?count=$((RING + 1))&timeout=60" & pids+=($!)
done
sleep 3  # Each wait takes its matches from the ring when it registers.
lister=""
if [ -z "${NOLIST:-}" ]; then ( while true; do curl -s -o /dev/null "$control/pushes"; done ) & lister=$!; pids+=($lister); fi
busy=$(rate "$(push 40000)")
[ -n "$lister" ] && kill "$lister" 2>/dev/null || true

printf 'GET /pushes of %d pushes: %.3f s; jq -c over the same lines: %.3f s; ratio %.2fx (listing / jq, lower is better)\n' \
    "$RING" "$best_list" "$best_jq" "$(awk -v a="$best_list" -v b="$best_jq" 'BEGIN { print a / b }')"
printf 'GET /pushes/reasons of %d pushes: %.4f s; jq counting the same lines: %.3f s; ratio %.3fx. GET /pushes/{seq}/findings: %.4f s (curl round trip)\n' \
    "$RING" "$best_reasons" "$best_jq_reasons" "$(awk -v a="$best_reasons" -v b="$best_jq_reasons" 'BEGIN { print a / b }')" "$best_findings"
printf 'pushes/s with the control API idle: %.0f; while %d long-polls are pending and the ring is listed in a loop: %.0f; ratio %.2fx\n' \
    "$idle" "$WAITS" "$busy" "$(awk -v a="$busy" -v b="$idle" 'BEGIN { print a / b }')"
