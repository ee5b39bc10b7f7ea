#!/usr/bin/env bash
# CPU per push: the same h2load load (TLS, -c 4 -m 100 -t 1, a PyJWT provider token, the
# 151-byte alert of bench-common.sh) goes in turn to each server of one run:
#   nghttpd        nghttpd -n 2 serving a static empty 200 (the reference), measured first
#                  and last in every round, so the output shows how much the machine moved;
#   transport      Benchmarks/transport-bench-server: HTTPTransport and an APNs-shaped 200;
#   mock           apns-mock, capture off;
#   mock+capture   apns-mock --capture FILE;
#   mock+fsync     apns-mock --capture FILE --capture-fsync, when apns-mock has that flag
#                  (measured, not held to the target).
# Every apns-mock writes its info log to a file. Each figure is the server's own CPU time
# (utime + stime of all its threads, /proc/PID/stat) across the run, read 0.2 s after h2load
# ends so the log and capture writers' last batches count, divided by the pushes.
#
# Prints each round, the medians and the median system part; the ratio of nghttpd's CPU per
# request (the mean of its two runs in the round) to the mock's with capture on (target
# >= 0.4, PASS or MISS; the script exits 0 either way); and the capture's own cost,
# mock+capture minus mock. Then the
# resident memory of the capture-on mock after PUSHES pushes (target <= 64 MB), and the
# budget per component in instructions (scripts/bench-mock-instructions.sh).
#
# Usage: scripts/bench-push-cpu.sh
#   REQUESTS (400000 per server and round), ROUNDS (3), PUSHES (1000000 for the memory
#   check), CALLGRIND_PUSHES (30000 for the budget; 0 skips it) override the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v h2load >/dev/null && command -v nghttpd >/dev/null && python3 -c "import jwt" 2>/dev/null \
    || bash scripts/setup.sh

REQUESTS=${REQUESTS:-400000}
ROUNDS=${ROUNDS:-3}
PUSHES=${PUSHES:-1000000}
CALLGRIND_PUSHES=${CALLGRIND_PUSHES:-30000}
WARM_UP=20000
RATIO_TARGET=0.4
MEMORY_TARGET_MB=64
source scripts/bench-common.sh
prepare_pushes
hz=$(getconf CLK_TCK)

mock_binary=.build/release/apns-mock
bare=$(swift build -c release --show-bin-path)/transport-bench-server
# One product per call: given several --product flags, SwiftPM builds only the last.
[ -x "$mock_binary" ] || swift build -c release --product apns-mock >&2
[ -x "$bare" ] || swift build -c release --product transport-bench-server >&2
fsync=no; "$mock_binary" --help 2>&1 | grep -q -- '--capture-fsync' && fsync=yes

declare -A pid url sent
start() { # NAME PORT command... : starts a server whose stderr goes to $work/NAME.log
    local name=$1 port=$2; shift 2
    "$@" >/dev/null 2>"$work/$name.log" & pid[$name]=$!; pids+=($!)
    url[$name]="https://127.0.0.1:$port"; sent[$name]=0
}
start_mock() { # NAME flags...
    local name=$1; shift
    local port; port=$(free_port)
    start "$name" "$port" "$mock_binary" --port "$port" --sandbox-port "$(free_port)" --control-port "$(free_port)" --channel-sandbox-port 0 --channel-port 0 "$@"
}
port=$(free_port); start nghttpd "$port" nghttpd -n 2 -d "$work/docroot" "$port" certs/server.key certs/server.pem
port=$(free_port); start transport "$port" "$bare" "$port" --tls certs/server.pem certs/server.key
start_mock mock
start_mock mock+capture --capture "$work/capture.jsonl"
servers=(nghttpd transport mock mock+capture)
if [ "$fsync" = yes ]; then start_mock mock+fsync --capture "$work/capture-fsync.jsonl" --capture-fsync; servers+=(mock+fsync); fi
for name in "${servers[@]}"; do wait_port "${url[$name]##*:}"; done

push() { # NAME N : N pushes to the server, every one answered 2xx
    local out
    out=$(h2load_pushes "${url[$1]}" "$2") || true
    check_h2load "$out" "$2"
    sent[$1]=$((sent[$1] + $2))
}
measure() { # NAME -> µs of the server's CPU per push over REQUESTS pushes: all, and system alone
    local before after
    before=$(cpu_ticks_split "${pid[$1]}")
    push "$1" "$REQUESTS"
    sleep 0.2
    after=$(cpu_ticks_split "${pid[$1]}")
    awk -v hz="$hz" -v n="$REQUESTS" -v before="$before" -v after="$after" 'BEGIN {
        split(before, b, " "); split(after, a, " ")
        printf "%.2f %.2f", (a[1] + a[2] - b[1] - b[2]) * 1e6 / hz / n, (a[2] - b[2]) * 1e6 / hz / n }'
}
# Warm-up, so that no server pays first-touch costs in a measured run. `push` runs in this
# shell (not in a command substitution) whenever `sent` must keep its count.
for name in "${servers[@]}"; do push "$name" "$WARM_UP"; done

echo "CPU per push (µs): the server's utime + stime from /proc/PID/stat (CLK_TCK $hz), h2load ${push_flags[*]}" \
    "-n $REQUESTS over TLS, POST $(wc -c < "$work/body.json") bytes with a provider token; $ROUNDS rounds"
columns=(nghttpd nghttpd-last transport mock mock+capture); order=(nghttpd transport mock mock+capture)
if [ "$fsync" = yes ]; then columns+=(mock+fsync); order+=(mock+fsync); fi
order+=(nghttpd-last)
[ "$fsync" = yes ] || echo "(apns-mock has no --capture-fsync: mock+fsync not measured)"
printf '%-7s' round; printf ' %13s' "${columns[@]}"; printf '\n'
declare -A figures system_figures
for round in $(seq "$ROUNDS"); do
    row=()
    for name in "${order[@]}"; do
        server=${name%-last}
        result=$(measure "$server"); read -r figure system <<<"$result"; sent[$server]=$((sent[$server] + REQUESTS))
        figures[$name]="${figures[$name]:-} $figure"; system_figures[$name]="${system_figures[$name]:-} $system"
    done
    for name in "${columns[@]}"; do row+=("$(awk '{ print $NF }' <<<"${figures[$name]}")"); done
    printf '%-7s' "$round"; printf ' %13s' "${row[@]}"; printf '\n'
done
declare -A med
for name in "${columns[@]}"; do
    # shellcheck disable=SC2086 # the figures are space-separated numbers
    med[$name]=$(median ${figures[$name]})
done
printf '%-7s' median; for name in "${columns[@]}"; do printf ' %13.2f' "${med[$name]}"; done; printf '\n'
# shellcheck disable=SC2086
printf '%-7s' system; for name in "${columns[@]}"; do printf ' %13.2f' "$(median ${system_figures[$name]})"; done
printf '   (median of the system part: the kernel on the server'"'"'s behalf)\n'

# nghttpd per round: the mean of its two runs, so that a drift during the round is split.
read -ra first <<<"${figures[nghttpd]}"; read -ra last <<<"${figures[nghttpd-last]}"
means=(); moves=()
for i in "${!first[@]}"; do
    means+=("$(awk -v a="${first[$i]}" -v b="${last[$i]}" 'BEGIN { print (a + b) / 2 }')")
    moves+=("$(awk -v a="${first[$i]}" -v b="${last[$i]}" 'BEGIN { printf "%+.0f%%", (b - a) / a * 100 }')")
done
reference=$(median "${means[@]}")
awk -v r="$reference" -v m="${med[mock+capture]}" -v t="$RATIO_TARGET" 'BEGIN {
    ratio = r / m
    printf "\nnghttpd / mock+capture, CPU per push: %.2f / %.2f = %.3f (target >= %.1f: %s)\n", r, m, ratio, t, (ratio >= t ? "PASS" : "MISS")
}'
echo "nghttpd from its first run of a round to its last, by round: ${moves[*]} (the machine's drift within a round)"
awk -v on="${med[mock+capture]}" -v off="${med[mock]}" 'BEGIN {
    printf "capture'"'"'s own cost: mock+capture - mock = %.2f - %.2f = %.2f µs per push\n", on, off, on - off }'
if [ "$fsync" = yes ]; then
    awk -v f="${med[mock+fsync]}" -v on="${med[mock+capture]}" 'BEGIN {
        printf "--capture-fsync adds %.2f µs per push (not held to the target)\n", f - on }'
fi

# Memory: the capture-on mock, topped up to PUSHES answered pushes.
if [ "${sent[mock+capture]}" -lt "$PUSHES" ]; then push mock+capture $((PUSHES - sent[mock+capture])); fi
sleep 0.5  # Let the capture writer drain what is pending.
kib() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/${pid[mock+capture]}/status"; }
rss=$(kib VmRSS); hwm=$(kib VmHWM)
lines=$(wc -l < "$work/capture.jsonl")
[ "$lines" -ge "${sent[mock+capture]}" ] || { echo "capture file has $lines lines for ${sent[mock+capture]} pushes" >&2; exit 1; }
awk -v n="${sent[mock+capture]}" -v lines="$lines" -v rss="$rss" -v hwm="$hwm" -v t="$MEMORY_TARGET_MB" 'BEGIN {
    printf "\nmock+capture after %d pushes (%d capture lines): VmRSS %.1f MB (target <= %d MB: %s), VmHWM %.1f MB\n",
        n, lines, rss / 1024, t, (rss <= t * 1024 ? "PASS" : "MISS"), hwm / 1024 }'

# The servers are stopped before the budget, whose callgrind runs want the cores.
cleanup; pids=(); work=$(mktemp -d)
if [ "$CALLGRIND_PUSHES" -gt 0 ]; then
    echo
    PUSHES=$CALLGRIND_PUSHES bash scripts/bench-mock-instructions.sh
fi
