#!/usr/bin/env bash
# Instructions per push: runs the release apns-mock (full validation, file capture, info
# log) under callgrind for PUSHES pushes from h2load, then prints the instructions per push
# of the whole mock against nghttpd's per request (nghttpd serving a static empty 200 to the
# same h2load run, under callgrind in the same invocation), and of the mock's two per-push
# writers — the capture (CaptureStore's PushObserver: the record, its line, ring, file queue) and
# the push log line (PushLogObserver) — each as a share of the whole push.
#
# Instruction counts, not times: they do not move with other load on the machine, so they
# compare changes on a shared VM (docs/capture-cost.md). The push is bench-mock.sh's.
#
# Also the reference-count and allocation calls per push (docs/push-path-cost.md).
#
# Usage: scripts/bench-mock-instructions.sh   (PUSHES overrides the default 30000)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v h2load >/dev/null && command -v valgrind >/dev/null && python3 -c "import jwt" 2>/dev/null \
    || bash scripts/setup.sh

PUSHES=${PUSHES:-30000}
DEVICE=$(printf '%064x' 1)
source scripts/bench-common.sh

alert_payload > "$work/body.json"
token=$(provider_token)
push() { # URL -> h2load output, failing loudly unless every push got a 2xx
    local out
    out=$(h2load -c 4 -m 100 -t 1 -n "$PUSHES" -H "authorization: bearer $token" -H "apns-topic: com.example.app" \
        -H "apns-push-type: alert" -d "$work/body.json" "$1/3/device/$DEVICE" 2>&1)
    grep -Eq "status codes: $PUSHES 2xx" <<<"$out" || { echo "$out" >&2; echo "h2load reported failures" >&2; exit 1; }
}
# Under valgrind a server takes a few seconds to start listening.
wait_slow_port() { for _ in $(seq 60); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && break; sleep 0.5; done; wait_port "$1"; }

# The reference: nghttpd's instructions per request for the same pushes.
p0=$(free_port)
mkdir -p "$work/docroot/3/device" && : > "$work/docroot/3/device/$DEVICE"
valgrind --tool=callgrind --callgrind-out-file="$work/nghttpd.out" nghttpd -d "$work/docroot" "$p0" \
    certs/server.key certs/server.pem >/dev/null 2>&1 & reference=$!; pids+=($reference)
wait_slow_port "$p0"
push "https://127.0.0.1:$p0"
kill -TERM "$reference"; wait "$reference" || true
reference_total=$(callgrind_annotate "$work/nghttpd.out" 2>/dev/null | awk '/PROGRAM TOTALS/ && !seen { gsub(",", "", $1); print $1; seen = 1 }')

p1=$(free_port); p2=$(free_port); p3=$(free_port)
valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" .build/release/apns-mock \
    --port "$p1" --sandbox-port "$p2" --control-port "$p3" --capture "$work/capture.jsonl" \
    >"$work/mock.log" 2>&1 & mock=$!; pids+=($mock)
wait_slow_port "$p1"
push "https://127.0.0.1:$p1"
kill -INT "$mock"; wait "$mock" || true

# Inlined code is filed under the file it came from; with one file name, each function's
# pieces add up under its symbol.
sed -E 's/^(fl|fi|fe|cfi|cfl)=\(([0-9]+)\).*/\1=(\2) x/' "$work/callgrind.out" > "$work/merged.out"
callgrind_annotate --inclusive=yes --threshold=100 "$work/merged.out" 2>/dev/null > "$work/inclusive.txt"
cost() { # symbol pattern -> inclusive instructions, first match
    awk -v pattern="$1" '$0 ~ pattern { gsub(",", "", $1); print $1; exit }' "$work/inclusive.txt"
}
total=$(awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }' "$work/inclusive.txt")
# CaptureStore (APNsCapture) as MockAPNs' PushObserver: building the record and recording it.
capture=$(cost 'APNsCapture0B5StoreC04MockA012PushObserverA2dEP12pushAnswered')
log=$(cost 'PushLogObserverV8MockAPNs0cE0AadEP12pushAnswered')
[ -n "$capture" ] && [ -n "$log" ] && [ -n "$reference_total" ] \
    || { echo "capture or log observer, or nghttpd's total, not found in the profiles" >&2; exit 1; }

echo "apns-mock under callgrind, $PUSHES pushes (h2load -c 4 -m 100 -t 1, TLS, $(wc -c < "$work/body.json")-byte alert, capture to a file)"
awk -v t="$total" -v c="$capture" -v l="$log" -v n="$PUSHES" -v r="$reference_total" 'BEGIN {
    printf "  whole mock: %6.1fk instructions per push (process total / pushes)\n", t / n / 1000
    printf "  nghttpd:    %6.1fk per request (a static empty 200, same h2load run); mock / nghttpd %.2fx\n", r / n / 1000, t / r
    printf "  capture:    %6.1fk per push, %.3f of the whole\n", c / n / 1000, c / t
    printf "  log line:   %6.1fk per push, %.3f of the whole\n", l / n / 1000, l / t
}'
# Reference counting and allocation per push: calls into the runtime's retain/release and
# malloc/free (docs/push-path-cost.md), summed over every call site in the profile. Each
# retain or release of a live object is a locked read-modify-write that instruction counts
# understate. The swift_retain/release counts include the calls the bridge entry points
# make for strings and arrays on the heap, so the four are not to be added up.
python3 - "$work/callgrind.out" "$PUSHES" <<'PY'
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
