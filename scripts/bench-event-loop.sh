#!/usr/bin/env bash
# Event-loop backends side by side: CPU per push of two apns-mock processes (capture off),
# one on epoll and one on the portable poll(2) backend (APNS_MOCK_EVENT_LOOP, docs/transport.md),
# under the same h2load load (TLS, a PyJWT provider token, the 151-byte alert of
# bench-common.sh), in turn within each round. Two loads:
#   few      -c 4 -m 100 -t 1 (bench-push-cpu.sh's), 4 connections: poll scans 4 slots a wait;
#   many     -c 256 -m 2 -t 1, 256 connections: poll's wait is O(registered descriptors), so
#            this is where it pays.
# Each figure is the server's own CPU time (utime + stime of all its threads, /proc/PID/stat)
# across the run, divided by the pushes. Prints each round, the medians, and poll / epoll.
# Before measuring it checks that each process runs the backend it was given: an epoll
# loop holds an eventpoll descriptor, a poll loop none.
#
# Usage: scripts/bench-event-loop.sh   (REQUESTS: 200000 per server, load and round; ROUNDS: 3)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v h2load >/dev/null && python3 -c "import jwt" 2>/dev/null || bash scripts/setup.sh

REQUESTS=${REQUESTS:-200000}
ROUNDS=${ROUNDS:-3}
WARM_UP=20000
source scripts/bench-common.sh
prepare_pushes
hz=$(getconf CLK_TCK)
mock_binary=.build/release/apns-mock
[ -x "$mock_binary" ] || swift build -c release --product apns-mock >&2

backends=(epoll poll)
declare -A pid url
for backend in "${backends[@]}"; do
    port=$(free_port)
    APNS_MOCK_EVENT_LOOP=$backend "$mock_binary" --port "$port" --sandbox-port "$(free_port)" \
        --control-port "$(free_port)" --channel-sandbox-port 0 --channel-port 0 >/dev/null 2>"$work/$backend.log" &
    pid[$backend]=$!; pids+=($!); url[$backend]="https://127.0.0.1:$port"
done
for backend in "${backends[@]}"; do wait_port "${url[$backend]##*:}"; done
eventpolls() { find "/proc/$1/fd" -lname 'anon_inode:\[eventpoll\]' 2>/dev/null | wc -l; }
[ "$(eventpolls "${pid[epoll]}")" -gt 0 ] || { echo "the epoll mock holds no eventpoll descriptor" >&2; exit 1; }
[ "$(eventpolls "${pid[poll]}")" -eq 0 ] || { echo "APNS_MOCK_EVENT_LOOP=poll did not take effect" >&2; exit 1; }

declare -A load_flags=([few]="-c 4 -m 100 -t 1" [many]="-c 256 -m 2 -t 1")
loads=(few many)
push() { # BACKEND LOAD N : N pushes, every one answered 2xx
    local out; local -a push_flags
    read -ra push_flags <<<"${load_flags[$2]}"
    out=$(h2load_pushes "${url[$1]}" "$3") || true
    check_h2load "$out" "$3"
}
measure() { # BACKEND LOAD -> µs of the server's CPU per push over REQUESTS pushes
    local before after
    before=$(cpu_ticks "${pid[$1]}")
    push "$1" "$2" "$REQUESTS"
    sleep 0.2
    after=$(cpu_ticks "${pid[$1]}")
    awk -v hz="$hz" -v n="$REQUESTS" -v b="$before" -v a="$after" 'BEGIN { printf "%.2f", (a - b) * 1e6 / hz / n }'
}
for backend in "${backends[@]}"; do push "$backend" few "$WARM_UP"; done

echo "CPU per push (µs): apns-mock's utime + stime from /proc/PID/stat (CLK_TCK $hz), h2load -n $REQUESTS" \
    "over TLS, POST $(wc -c < "$work/body.json") bytes with a provider token; $ROUNDS rounds, backends in turn"
columns=(); for load in "${loads[@]}"; do for backend in "${backends[@]}"; do columns+=("$backend/$load"); done; done
printf '%-7s' round; printf ' %11s' "${columns[@]}"; printf '\n'
declare -A figures
for round in $(seq "$ROUNDS"); do
    row=()
    # Alternate the order, so that neither backend always runs on a warmer machine.
    order=("${backends[@]}"); [ $((round % 2)) -eq 0 ] && order=(poll epoll)
    for load in "${loads[@]}"; do
        for backend in "${order[@]}"; do
            figures[$backend/$load]="${figures[$backend/$load]:-} $(measure "$backend" "$load")"
        done
    done
    for column in "${columns[@]}"; do row+=("$(awk '{ print $NF }' <<<"${figures[$column]}")"); done
    printf '%-7s' "$round"; printf ' %11s' "${row[@]}"; printf '\n'
done
declare -A med
# shellcheck disable=SC2086 # the figures are space-separated numbers
for column in "${columns[@]}"; do med[$column]=$(median ${figures[$column]}); done
printf '%-7s' median; for column in "${columns[@]}"; do printf ' %11.2f' "${med[$column]}"; done; printf '\n'
for load in "${loads[@]}"; do
    awk -v load="$load" -v flags="${load_flags[$load]}" -v e="${med[epoll/$load]}" -v p="${med[poll/$load]}" 'BEGIN {
        printf "poll / epoll, %s (%s): %.2f / %.2f = %.2fx CPU per push\n", load, flags, p, e, p / e }'
done
