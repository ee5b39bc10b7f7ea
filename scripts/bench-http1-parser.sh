#!/usr/bin/env bash
# The HTTP/1.1 request parser alone, instructions per request under callgrind:
# HTTP1RequestParser (Benchmarks/http1-parser-bench, release) beside http-parser, the
# server's previous parser (Benchmarks/http1-parser-reference, a C driver built here with
# `gcc -O2 ... -lhttp_parser`), on the same requests: the valid cases of
# Tests/HTTPTransportTests/Fixtures/http1-corpus.json, each read with a fresh parser, every
# field and body delivered as ranges. Each program runs ROUNDS times over the corpus and
# once; the difference, over the requests, leaves out start-up. Target: <= 1.0x
# http-parser's count. http-parser is not a dependency of the package: without Debian's
# libhttp-parser-dev (installed here when apt-get can) the reference is reported unavailable.
#
# Usage: scripts/bench-http1-parser.sh   (ROUNDS overrides the default 2000)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-2000}
source scripts/bench-common.sh
command -v valgrind >/dev/null || bash scripts/setup.sh
bench=.build/release/http1-parser-bench
[ -x "$bench" ] || swift build -c release --product http1-parser-bench >&2

python3 - Tests/HTTPTransportTests/Fixtures/http1-corpus.json "$work/corpus.bin" <<'PY'
import json, struct, sys
cases = [c for c in json.load(open(sys.argv[1]))["cases"] if c["verdict"] == "valid"]
with open(sys.argv[2], "wb") as out:
    for c in cases:
        data = c["request"].encode("latin-1")
        out.write(struct.pack("<I", len(data)) + data)
PY

instructions() { # PROGRAM ARGS... -> instructions of the whole run
    valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" "$@" >"$work/out" 2>"$work/valgrind.log" \
        || { cat "$work/valgrind.log" >&2; exit 1; }
    callgrind_annotate "$work/callgrind.out" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }'
}
per_request() { # PROGRAM ARGS... (without ROUNDS) -> "instructions-per-request requests-per-round"
    local many one requests
    many=$(instructions "$@" "$ROUNDS")
    requests=$(sed -n 's/^requests=\([0-9]*\).*/\1/p' "$work/out")
    one=$(instructions "$@" 1)
    awk -v a="$many" -v b="$one" -v n="$requests" -v r="$ROUNDS" 'BEGIN { printf "%.1f %d\n", (a - b) / (n - n / r), n / r }'
}

read -r swift_per requests <<<"$(per_request "$bench" "$work/corpus.bin")"
if ! [ -f /usr/include/http_parser.h ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    apt-get install -y -qq libhttp-parser-dev >/dev/null 2>&1 || true
fi
reference="reference unavailable (no libhttp-parser-dev)"
if [ -f /usr/include/http_parser.h ] && gcc -O2 -o "$work/http_parser_driver" Benchmarks/http1-parser-reference/http_parser_driver.c -lhttp_parser 2>"$work/gcc.log"; then
    read -r c_per c_requests <<<"$(per_request "$work/http_parser_driver" bench "$work/corpus.bin")"
    [ "$c_requests" = "$requests" ] || { echo "the two parsers read $requests and $c_requests requests" >&2; exit 1; }
    reference=$c_per
fi
echo "HTTP/1.1 request parser, instructions per request under callgrind ($requests requests per round, $ROUNDS rounds)"
printf '  HTTP1RequestParser: %8.1f\n' "$swift_per"
if [[ "$reference" =~ ^[0-9.]+$ ]]; then
    awk -v s="$swift_per" -v c="$reference" 'BEGIN { printf "  http-parser 2.9:    %8.1f\n  ratio: %.3fx (target <= 1.0x): %s\n", c, s / c, (s / c <= 1.0 ? "PASS" : "MISS") }'
else
    echo "  http-parser: $reference"
fi
