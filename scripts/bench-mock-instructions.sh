#!/usr/bin/env bash
# Instructions per push under callgrind, for PUSHES pushes from h2load (bench-mock.sh's: TLS,
# -c 4 -m 100 -t 1, PyJWT token, 151-byte alert) to each of, one after the other:
#   nghttpd serving a static empty 200 (the reference);
#   Benchmarks/transport-bench-server (HTTPTransport and an APNs-shaped 200);
#   the release apns-mock with capture off, info log to a file;
#   the same at log level warning, when apns-mock has a --log-level flag;
#   the same with --capture to a file.
# Each server is warmed up first and its counters are zeroed and dumped around the measured
# pushes (callgrind_control), so start-up and shut-down are not in the figures.
#
# Prints the whole mock (capture on) against nghttpd per request; the capture (the mock's
# CaptureRecord of the push, and CaptureStore's record: line encoding, ring, file queue) and
# the log line (PushLogObserver) as shares
# of the whole; and a budget that splits the mock's push into:
#   transport   transport-bench-server's whole process;
#   validation  PushValidator's steps (inclusive);
#   capture     the record, the ring and line (the mock's CaptureRecord(request:…) and
#               CaptureStore's record, inclusive, capture off)
#               plus the file (capture on minus capture off, whole processes);
#   log         log level info minus warning (whole processes), or, without --log-level,
#               PushLogObserver and the log-flush thread (inclusive);
#   other       the rest: the mock's endpoint, faults, metrics, and whatever the mock's
#               transport does beyond transport-bench-server's.
# Instruction counts do not move with other load on the machine, so they compare changes on
# a shared VM (docs/capture-cost.md); they leave out the kernel's work, which CPU times
# (scripts/bench-push-cpu.sh) include.
#
# Also the reference-count and allocation calls per push (docs/capture-cost.md).
#
# Usage: scripts/bench-mock-instructions.sh   (PUSHES overrides the default 30000)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v h2load >/dev/null && command -v valgrind >/dev/null && python3 -c "import jwt" 2>/dev/null \
    || bash scripts/setup.sh

PUSHES=${PUSHES:-30000}
WARM_UP=2000
source scripts/bench-common.sh
prepare_pushes
mock_binary=.build/release/apns-mock
bare=$(swift build -c release --show-bin-path)/transport-bench-server
# One product per call: given several --product flags, SwiftPM builds only the last.
[ -x "$mock_binary" ] || swift build -c release --product apns-mock >&2
[ -x "$bare" ] || swift build -c release --product transport-bench-server >&2
log_levels=no; "$mock_binary" --help 2>&1 | grep -q -- '--log-level' && log_levels=yes

push() { # URL N : N pushes, every one answered 2xx
    local out
    out=$(h2load_pushes "$1" "$2") || true
    check_h2load "$out" "$2"
}
# Under valgrind a server takes a few seconds to start listening.
wait_slow_port() { for _ in $(seq 60); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && break; sleep 0.5; done; wait_port "$1"; }
profile() { # NAME PORT command... : PUSHES pushes to the command under callgrind -> $work/NAME.out, NAME.txt
    local name=$1 port=$2 server; shift 2
    valgrind --tool=callgrind --callgrind-out-file="$work/$name.all" "$@" >/dev/null 2>"$work/$name.log" & server=$!; pids+=($server)
    wait_slow_port "$port"
    push "https://127.0.0.1:$port" "$WARM_UP"
    callgrind_control --zero "$server" >"$work/control.log" 2>&1 || { cat "$work/control.log" >&2; exit 1; }
    push "https://127.0.0.1:$port" "$PUSHES"
    sleep 0.5  # The log and capture writers' last batches belong to these pushes.
    callgrind_control --dump "$server" >"$work/control.log" 2>&1 || { cat "$work/control.log" >&2; exit 1; }
    kill -TERM "$server"; wait "$server" || true
    mv "$work/$name.all.1" "$work/$name.out"
    # Inlined code is filed under the file it came from; with one file name, each function's
    # pieces add up under its symbol.
    sed -E 's/^(fl|fi|fe|cfi|cfl)=\(([0-9]+)\).*/\1=(\2) x/' "$work/$name.out" > "$work/$name.merged"
    callgrind_annotate --inclusive=yes --threshold=100 "$work/$name.merged" 2>/dev/null > "$work/$name.txt"
}
profile_mock() { # NAME flags...
    local name=$1 port; shift
    port=$(free_port)
    profile "$name" "$port" "$mock_binary" --port "$port" --sandbox-port "$(free_port)" --control-port "$(free_port)" --channel-sandbox-port 0 --channel-port 0 "$@"
}
total() { awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }' "$work/$1.txt"; } # NAME -> instructions
cost() { # NAME symbol pattern -> inclusive instructions of the first match, 0 when none
    awk -v pattern="$2" '$0 ~ pattern { gsub(",", "", $1); print $1; found = 1; exit } END { if (!found) print 0 }' "$work/$1.txt"
}

port=$(free_port); profile nghttpd "$port" nghttpd -d "$work/docroot" "$port" certs/server.key certs/server.pem
port=$(free_port); profile transport "$port" "$bare" "$port" --tls certs/server.pem certs/server.key
profile_mock mock
if [ "$log_levels" = yes ]; then profile_mock mock-quiet --log-level warning; fi
profile_mock mock+capture --capture "$work/capture.jsonl"

# APNsCapture's CaptureStore.record(_:acknowledgement:), and the record the mock builds for it.
capture_symbol='APNsCapture0B5StoreC6record_15acknowledgement'
record_symbol='APNsCapture0B6RecordV04MockA0E7request7details'
log_symbol='PushLogObserverV8MockAPNs0cE0AadEP12pushAnswered'
flush_symbol='LogSinkC8buffered14fileDescriptor'
validation_symbol='PushValidatorV8runSteps'
whole=$(total mock+capture); reference=$(total nghttpd)
capture=$(($(cost mock+capture "$capture_symbol") + $(cost mock+capture "$record_symbol"))); log=$(cost mock+capture "$log_symbol")
[ "$capture" -gt 0 ] && [ "$log" -gt 0 ] && [ -n "$reference" ] \
    || { echo "capture or log observer, or nghttpd's total, not found in the profiles" >&2; exit 1; }

echo "instructions per push under callgrind, $PUSHES pushes after $WARM_UP of warm-up" \
    "(h2load ${push_flags[*]}, TLS, $(wc -c < "$work/body.json")-byte alert)"
awk -v t="$whole" -v c="$capture" -v l="$log" -v n="$PUSHES" -v r="$reference" 'BEGIN {
    printf "  whole mock, capture to a file: %6.1fk per push\n", t / n / 1000
    printf "  nghttpd:    %6.1fk per request (a static empty 200); mock / nghttpd %.2fx\n", r / n / 1000, t / r
    printf "  capture:    %6.1fk per push, %.3f of the whole\n", c / n / 1000, c / t
    printf "  log line:   %6.1fk per push, %.3f of the whole\n", l / n / 1000, l / t
}'

# The budget. The transport, the capture file and (with --log-level) the log are differences
# of whole processes; validation, the ring and (without --log-level) the log are inclusive
# costs of their functions; the rest is what remains of the whole.
transport=$(total transport); off=$(total mock)
validation=$(cost mock "$validation_symbol"); ring=$(($(cost mock "$capture_symbol") + $(cost mock "$record_symbol")))
if [ "$log_levels" = yes ]; then
    log=$(($(total mock) - $(total mock-quiet))); log_how="log level info minus warning"
else
    log=$(($(cost mock "$log_symbol") + $(cost mock "$flush_symbol"))); log_how="PushLogObserver and the log-flush thread, inclusive; apns-mock has no --log-level"
fi
[ "$validation" -gt 0 ] || echo "  (PushValidator's steps not found in the profile: validation is counted in other)"
awk -v n="$PUSHES" -v t="$transport" -v v="$validation" -v r="$ring" -v f="$((whole - off))" -v l="$log" -v w="$whole" \
    -v how="$log_how" 'BEGIN {
    k = n * 1000
    printf "budget of the mock'"'"'s push, capture to a file and info log (k instructions per push):\n"
    printf "  transport   %6.1fk  transport-bench-server, whole process\n", t / k
    printf "  validation  %6.1fk  PushValidator steps, inclusive\n", v / k
    printf "  capture     %6.1fk  record, ring and line %.1fk (CaptureRecord and CaptureStore record, inclusive) + file %.1fk (capture on - off)\n", (r + f) / k, r / k, f / k
    printf "  log         %6.1fk  %s\n", l / k, how
    printf "  other       %6.1fk  the rest: endpoint, faults, metrics, transport beyond transport-bench-server\n", (w - t - v - r - f - l) / k
    printf "  whole       %6.1fk\n", w / k
}'

# Reference counting and allocation per push: calls into the runtime's retain/release and
# malloc/free (docs/capture-cost.md), summed over every call site in the profile. Each
# retain or release of a live object is a locked read-modify-write that instruction counts
# understate. The swift_retain/release counts include the calls the bridge entry points
# make for strings and arrays on the heap, so the four are not to be added up.
python3 - "$work/mock+capture.out" "$PUSHES" <<'PY'
import re, sys
names, callee, calls = {}, None, {}
def name(token):
    match = re.match(r'\((\d+)\)(?: (.*))?', token)
    if not match:
        return token
    if match.group(2):
        names[match.group(1)] = match.group(2)
    return names.get(match.group(1), match.group(1))
with open(sys.argv[1]) as profile:
    for line in profile:
        if line.startswith('cfn='):
            callee = name(line[4:].strip())
        elif line.startswith('fn='):
            name(line[3:].strip())
        elif line.startswith('calls=') and callee:
            calls[callee] = calls.get(callee, 0) + int(line[6:].split()[0])
pushes = int(sys.argv[2])
symbols = ['swift_retain', 'swift_release', 'swift_bridgeObjectRetain', 'swift_bridgeObjectRelease', 'malloc', 'free']
print("  per push: swift_retain %.0f, swift_release %.0f; swift_bridgeObjectRetain %.0f, swift_bridgeObjectRelease %.0f"
      " (strings and arrays: they call the first two when the value is on the heap); malloc %.1f, free %.1f"
      % tuple(calls.get(symbol, 0) / pushes for symbol in symbols))
PY
