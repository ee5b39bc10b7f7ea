#!/usr/bin/env bash
# Instructions per push under callgrind with the delivery model on, beside the figure with it
# off, from the same run: h2load sends bench-mock.sh's pushes (TLS, -c 4 -m 100 -t 1, PyJWT
# token, 151-byte alert, one device, online) to the release apns-mock with --capture to a
# file, once without --delivery and once with it. With it, each push also gets a delivery
# record, a notification-centre entry and a "kind":"delivery" line in the capture file.
# Counters are zeroed after a warm-up and dumped after the pushes (bench-mock-instructions.sh
# does the same). Target: at most 10% more instructions per push.
#
# Usage: scripts/bench-delivery.sh   (PUSHES overrides the default 30000; KEEP=DIR keeps both
# callgrind profiles there, for callgrind_annotate)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v h2load >/dev/null && command -v valgrind >/dev/null && python3 -c "import jwt" 2>/dev/null \
    || bash scripts/setup.sh

PUSHES=${PUSHES:-30000}
WARM_UP=2000
source scripts/bench-common.sh
prepare_pushes
mock_binary=.build/release/apns-mock
[ -x "$mock_binary" ] || swift build -c release --product apns-mock >&2

wait_slow_port() { for _ in $(seq 60); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && break; sleep 0.5; done; wait_port "$1"; }
profile_mock() { # NAME flags... -> instructions per push
    local name=$1 port server out; shift
    port=$(free_port)
    valgrind --tool=callgrind --callgrind-out-file="$work/$name.all" "$mock_binary" --port "$port" \
        --sandbox-port "$(free_port)" --control-port "$(free_port)" --log-level warning "$@" >/dev/null 2>"$work/$name.log" &
    server=$!; pids+=($server)
    wait_slow_port "$port"
    out=$(h2load_pushes "https://127.0.0.1:$port" "$WARM_UP") || true; check_h2load "$out" "$WARM_UP"
    callgrind_control --zero "$server" >"$work/control.log" 2>&1 || { cat "$work/control.log" >&2; exit 1; }
    out=$(h2load_pushes "https://127.0.0.1:$port" "$PUSHES") || true; check_h2load "$out" "$PUSHES"
    sleep 0.5  # The capture writer's last batches belong to these pushes.
    callgrind_control --dump "$server" >"$work/control.log" 2>&1 || { cat "$work/control.log" >&2; exit 1; }
    kill -TERM "$server"; wait "$server" || true
    callgrind_annotate "$work/$name.all.1" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }'
}

if [ -n "${KEEP:-}" ]; then trap 'cp "$work"/*.all.1 "$KEEP"/ 2>/dev/null; cleanup' EXIT; fi
off=$(profile_mock off --capture "$work/off.jsonl")
on=$(profile_mock on --capture "$work/on.jsonl" --delivery)
grep -q '"kind":"delivery"' "$work/on.jsonl" || { echo "no delivery lines in the capture file" >&2; exit 1; }
echo "delivery model, instructions per push under callgrind ($PUSHES pushes after $WARM_UP of warm-up, capture to a file, one online device)"
awk -v off="$off" -v on="$on" -v n="$PUSHES" 'BEGIN {
    printf "  delivery off: %6.1fk per push\n", off / n / 1000
    printf "  delivery on:  %6.1fk per push, %.3fx the figure with it off (target <= 1.10x): %s\n",
        on / n / 1000, on / off, (on / off <= 1.10 ? "PASS" : "MISS")
}'
