#!/usr/bin/env bash
# Transport benchmark: h2load against nghttpd (reference) and against our transport serving
# an APNs-shaped 200 (Benchmarks/transport-bench-server), with
# the same flags, in one run, over h2c and TLS. Prints req/s and the ratio ours/nghttpd.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v h2load >/dev/null && command -v nghttpd >/dev/null || bash scripts/setup.sh

REQUESTS=${REQUESTS:-400000}
ROUNDS=${ROUNDS:-3}
FLAGS=(-c 4 -m 100 -t 1 -n "$REQUESTS")
TOKEN=$(printf 'a%.0s' {1..64})
source scripts/bench-common.sh

# A ~100-byte APNs-like POST body.
printf '{"aps":{"alert":{"title":"Build finished","body":"All 42 checks passed"},"badge":1}}%s' "        " > "$work/body.json"
mkdir -p "$work/docroot/3/device" && : > "$work/docroot/3/device/$TOKEN"

rate() { # h2load output -> req/s, failing loudly on errors
    local out="$1"
    grep -q "0 failed, 0 errored, 0 timeout" <<<"$out" || { echo "$out" >&2; echo "h2load reported failures" >&2; exit 1; }
    awk '/^finished in/ { gsub(",", "", $4); print $4 }' <<<"$out"
}

p1=$(free_port); p2=$(free_port); p3=$(free_port); p4=$(free_port)
nghttpd --no-tls -n 2 -d "$work/docroot" "$p1" >/dev/null 2>&1 & pids+=($!)
nghttpd -n 2 -d "$work/docroot" "$p2" certs/server.key certs/server.pem >/dev/null 2>&1 & pids+=($!)
server=$(swift build -c release --show-bin-path)/transport-bench-server
[ -x "$server" ] || swift build -c release --product transport-bench-server >&2
"$server" "$p3" >/dev/null 2>&1 & pids+=($!)
"$server" "$p4" --tls certs/server.pem certs/server.key >/dev/null 2>&1 & pids+=($!)
for p in "$p1" "$p2" "$p3" "$p4"; do wait_port "$p"; done

run() { h2load "${FLAGS[@]}" -d "$work/body.json" "$1" 2>&1; }
# Warm-up, so neither side pays first-touch costs in the measured run.
for url in "http://127.0.0.1:$p1" "http://127.0.0.1:$p3"; do h2load -c 4 -m 100 -t 1 -n 20000 -d "$work/body.json" "$url/3/device/$TOKEN" >/dev/null 2>&1; done

echo "h2load ${FLAGS[*]}, POST $(wc -c < "$work/body.json") bytes, 2 server threads each; mean of $ROUNDS alternating rounds"
printf '%-8s %14s %14s %8s\n' transport "nghttpd req/s" "ours req/s" ratio
for mode in h2c tls; do
    if [ "$mode" = h2c ]; then ref="http://127.0.0.1:$p1"; ours="http://127.0.0.1:$p3"; else ref="https://127.0.0.1:$p2"; ours="https://127.0.0.1:$p4"; fi
    r=0; o=0
    for _ in $(seq "$ROUNDS"); do
        r=$(awk -v a="$r" -v b="$(rate "$(run "$ref/3/device/$TOKEN")")" 'BEGIN { print a + b }')
        o=$(awk -v a="$o" -v b="$(rate "$(run "$ours/3/device/$TOKEN")")" 'BEGIN { print a + b }')
    done
    printf '%-8s %14.0f %14.0f %7.2fx\n' "$mode" "$(awk -v a="$r" -v n="$ROUNDS" 'BEGIN { print a / n }')" \
        "$(awk -v a="$o" -v n="$ROUNDS" 'BEGIN { print a / n }')" "$(awk -v o="$o" -v r="$r" 'BEGIN { print o / r }')"
done

# Memory per idle connection: the growth of each TLS server's resident memory while IDLE
# connections (preface and SETTINGS done) are held open, per connection.
IDLE=${IDLE:-1000}
ulimit -n $((IDLE * 2 + 256)) 2>/dev/null || true
echo
echo "memory per idle TLS connection ($IDLE held open), KiB of the server's resident memory;"
echo "then what is still resident per connection 2 s after they closed"
read -r ref_idle ref_after < <(python3 scripts/idle-connection-memory.py "$p2" "$IDLE" "${pids[1]}")
read -r our_idle our_after < <(python3 scripts/idle-connection-memory.py "$p4" "$IDLE" "${pids[3]}")
printf '%-12s %14s %14s\n' "" nghttpd ours
printf '%-12s %14s %14s\n' idle "$ref_idle" "$our_idle"
printf '%-12s %14s %14s\n' "after close" "$ref_after" "$our_after"
