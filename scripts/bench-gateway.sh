#!/usr/bin/env bash
# Gateway benchmark, all in one run against one release apns-mock (TLS, full validation):
#
#   1. end-to-end pushes/s: wrk (HTTP/1.1 keep-alive, HMAC-signed /push) -> push-gateway ->
#      HTTP/2 to the mock, against the APNs client sending the same payload direct
#      (Benchmarks/client-bench, 4 connections x 100 streams); mean of ROUNDS alternating
#      rounds, ratio (target >= 0.5x); the CPU time per push of every process in both set-ups
#      (gateway and mock from /proc/<pid>/stat, wrk and client-bench from bash's `time`), since
#      the ratio follows those sums on a machine the processes share; the HTTP/1.1 hop alone
#      (wrk GETs of /healthz, answered without APNs), and the same to nginx as the reference
#      for what an HTTP/1.1 request costs here; and the gateway's instructions per push
#      under callgrind (Benchmarks/gateway-profile-server; CALLGRIND=0 skips it);
#   2. latency the gateway adds at RATE pushes/s, open loop: Benchmarks/http1-paced-load sends
#      one request every 1/RATE s over keep-alive connections and times each from its write
#      (and from its scheduled send), through the gateway to the mock, and on the gateway's
#      /healthz (the generator's and the HTTP/1.1 hop's floor). For each push it subtracts the
#      APNs leg the gateway reports in `server-timing: apns;dur=` (hand-off to the APNs client
#      to its answer): what is left is what the gateway added to that push, and its p99 is the
#      target figure (<= 1 ms), median of LATENCY_ROUNDS rounds. Pairing each push with its
#      own APNs leg keeps a stall of the VM during that leg (steal is reported) out of the
#      gateway's figure, as it would hit a client sending direct just the same. For
#      comparison, also the APNs client paced direct to the same mock
#      (Benchmarks/apns-client-load, timed from the send), and p99 through the gateway - p99
#      direct: two different sets of pushes, so on this VM mostly the difference of two stalls.
#
# Usage: scripts/bench-gateway.sh   (DURATION, ROUNDS, LATENCY_ROUNDS, RATE, COUNT, CALLGRIND override the defaults)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null && command -v nginx >/dev/null || bash scripts/setup.sh

DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-3}
LATENCY_ROUNDS=${LATENCY_ROUNDS:-5}
RATE=${RATE:-1000}
COUNT=${COUNT:-100000}
KEY="ABC123DEFG:TEAM000001:certs/AuthKey_ABC123DEFG.p8"
source scripts/bench-common.sh

mean() { awk '{ s += $1 } END { printf "%.0f", s / NR }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# The gateway's user + system CPU time so far, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/${1:-$gateway_pid}/stat"; }
# Runs a load generator with its output in $work/out; prints the CPU seconds (user + system) it used.
cpu_seconds_of() { local TIMEFORMAT='%U %S' t; t=$( { time "$@" >"$work/out" 2>&1; } 2>&1 ) || return 1; awk '{ print $1 + $2 }' <<<"$t"; }
pushes_answered() { curl -s "http://127.0.0.1:$p4/metrics" | awk '/^push_gateway_requests_total\{endpoint="push",outcome="ok"\}/ { print $2 }'; }

p1=$(free_port); p2=$(free_port); p3=$(free_port); p4=$(free_port)
APNS_MOCK_CERTS=certs .build/release/apns-mock --port "$p1" --sandbox-port "$p2" --control-port "$p3" --channel-sandbox-port 0 --channel-port 0 >/dev/null 2>&1 & pids+=($!)
mock_pid=$!
wait_port "$p1"
# Limits far above the load, so the benchmark measures forwarding, not refusing.
cat > "$work/gateway.json" <<JSON
{"auth_modes":["hmac"],"rate_limits":{"per_device":{"burst":1000000,"per_second":1000000},"total":{"burst":1000000,"per_second":1000000}}}
JSON
PUSH_GATEWAY_HMAC_SECRET=bench-secret .build/release/push-gateway --config "$work/gateway.json" --port "$p4" \
    --topic com.example.app --auth-key "$KEY" --apns-production "https://127.0.0.1:$p1" \
    --apns-sandbox "https://127.0.0.1:$p2" --apns-ca certs/ca.pem >/dev/null 2>&1 & pids+=($!)
gateway_pid=$!
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
# The client sending direct; its CPU seconds are added to client_seconds.
direct_rate() {
    local seconds
    seconds=$(cpu_seconds_of .build/release/client-bench --url "https://127.0.0.1:$p2" --ca certs/ca.pem --auth-key "$KEY" \
        --payload-file "$work/payload.json" --device "$(printf 'ab%.0s' {1..32})" -c 4 -m 100 -n "$COUNT") \
        || { cat "$work/out" >&2; echo "client-bench reported failures" >&2; exit 1; }
    client_seconds=$(add "$client_seconds" "$seconds")
    direct_rates+=("$(awk -F= '$1 == "pushes_per_second" { printf "%.0f", $2 }' "$work/out")")
}

# Where each push's CPU goes (µs, all processes): the ratio is about these sums, as the three
# (or two) processes share the machine's two cores.
gateway_rates=(); direct_rates=(); gateway_ticks=0; gateway_pushes=0; wrk_seconds=0; client_seconds=0
mock_gateway_ticks=0; mock_direct_ticks=0
for round in $(seq "$ROUNDS"); do
    ticks=$(cpu_ticks); mock_ticks=$(cpu_ticks "$mock_pid"); answered=$(pushes_answered)
    wrk_seconds=$(add "$wrk_seconds" "$(cpu_seconds_of wrk -t 2 -c 64 -d "${DURATION}s" -s "$work/post.lua" "$URL")")
    gateway_ticks=$((gateway_ticks + $(cpu_ticks) - ticks)); gateway_pushes=$((gateway_pushes + $(pushes_answered) - answered))
    mock_gateway_ticks=$((mock_gateway_ticks + $(cpu_ticks "$mock_pid") - mock_ticks))
    if grep -q "Non-2xx" "$work/out"; then cat "$work/out" >&2; echo "wrk saw errors" >&2; exit 1; fi
    gateway_rates+=("$(awk '/^Requests\/sec/ { print $2 }' "$work/out")")
    mock_ticks=$(cpu_ticks "$mock_pid")
    direct_rate
    mock_direct_ticks=$((mock_direct_ticks + $(cpu_ticks "$mock_pid") - mock_ticks))
    echo "round $round: gateway ${gateway_rates[-1]} pushes/s, client direct ${direct_rates[-1]} pushes/s" \
        "($(awk -v a="${gateway_rates[-1]}" -v b="${direct_rates[-1]}" 'BEGIN { printf "%.2fx", a / b }'))"
done
gateway=$(printf '%s\n' "${gateway_rates[@]}" | mean)
reference=$(printf '%s\n' "${direct_rates[@]}" | mean)
hz=$(getconf CLK_TCK); direct_pushes=$((ROUNDS * COUNT))
per_push() { awk -v s="$1" -v n="$2" 'BEGIN { printf "%.1f", s / n * 1e6 }'; }
cpu_per_push=$(per_push "$(awk -v t="$gateway_ticks" -v hz="$hz" 'BEGIN { print t / hz }')" "$gateway_pushes")
wrk_per_push=$(per_push "$wrk_seconds" "$gateway_pushes")
mock_gateway_per_push=$(per_push "$(awk -v t="$mock_gateway_ticks" -v hz="$hz" 'BEGIN { print t / hz }')" "$gateway_pushes")
client_per_push=$(per_push "$client_seconds" "$direct_pushes")
mock_direct_per_push=$(per_push "$(awk -v t="$mock_direct_ticks" -v hz="$hz" 'BEGIN { print t / hz }')" "$direct_pushes")

# The HTTP/1.1 hop alone: wrk's GETs of /healthz, which the gateway answers without APNs.
ticks=$(cpu_ticks)
health_wrk_seconds=$(cpu_seconds_of wrk -t 2 -c 64 -d "${DURATION}s" "http://127.0.0.1:$p4/healthz")
health_ticks=$(($(cpu_ticks) - ticks))
health_requests=$(awk '/requests in/ { print $1 }' "$work/out")
health_rate=$(awk '/^Requests\/sec/ { printf "%.0f", $2 }' "$work/out")
# The same hop to nginx (one worker) answering a static 200: the reference for what an
# HTTP/1.1 request costs on this machine before any gateway logic.
p6=$(free_port)
mkdir -p "$work/nginx"
cat > "$work/nginx/nginx.conf" <<NGINX
worker_processes 1;
daemon off;
error_log $work/nginx/error.log;
pid $work/nginx/nginx.pid;
events { worker_connections 1024; }
http {
    access_log off;
    server { listen 127.0.0.1:$p6; keepalive_requests 100000000; location / { return 200 '{"status":"ok"}'; } }
}
NGINX
nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" 2>/dev/null & pids+=($!)
nginx_master=$!
wait_port "$p6"
nginx_worker=$(pgrep -P "$nginx_master" | head -1)
ticks=$(cpu_ticks "$nginx_worker")
nginx_wrk_seconds=$(cpu_seconds_of wrk -t 2 -c 64 -d "${DURATION}s" "http://127.0.0.1:$p6/healthz")
nginx_ticks=$(($(cpu_ticks "$nginx_worker") - ticks))
nginx_requests=$(awk '/requests in/ { print $1 }' "$work/out")
nginx_rate=$(awk '/^Requests\/sec/ { printf "%.0f", $2 }' "$work/out")
kill "$nginx_master" 2>/dev/null || true

# Instructions per push, the measure that does not swing with the machine's load: the
# gateway as push-gateway runs it (Benchmarks/gateway-profile-server) under callgrind,
# counted over the pushes of a wrk run after a warm-up (CALLGRIND=0 skips it).
instructions_per_push=""
if [[ "${CALLGRIND:-1}" == 1 ]] && command -v valgrind >/dev/null; then
    p5=$(free_port)
    PUSH_GATEWAY_HMAC_SECRET=bench-secret valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" \
        .build/release/gateway-profile-server "$p5" "https://127.0.0.1:$p2" certs/ca.pem "$KEY" com.example.app \
        >/dev/null 2>"$work/callgrind.log" & pids+=($!)
    profiled=$!
    for _ in $(seq 600); do (exec 3<>/dev/tcp/127.0.0.1/"$p5") 2>/dev/null && break; sleep 0.1; done
    profiled_pushes() { { curl -s "http://127.0.0.1:$p5/metrics" || true; } | awk '/^push_gateway_requests_total\{endpoint="push",outcome="ok"\}/ { print $2 }'; }
    wrk -t 1 -c 16 -d 3s -s "$work/post.lua" "http://127.0.0.1:$p5/push" >/dev/null
    before=$(profiled_pushes)
    callgrind_control -z "$profiled" >/dev/null 2>&1 || true
    wrk -t 1 -c 16 -d "${DURATION}s" -s "$work/post.lua" "http://127.0.0.1:$p5/push" >/dev/null
    callgrind_control -d "$profiled" >/dev/null 2>&1 || true
    after=$(profiled_pushes)
    profiled_count=$(( ${after:-0} - ${before:-0} ))
    kill "$profiled" 2>/dev/null || true
    dump=$(ls -t "$work"/callgrind.out.* 2>/dev/null | head -1 || true)
    instructions=$([[ -n "$dump" ]] && callgrind_annotate "$dump" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }' || true)
    if [[ -n "$instructions" && "$profiled_count" -gt 0 ]]; then
        instructions_per_push=$(awk -v i="$instructions" -v n="$profiled_count" 'BEGIN { printf "%.1fk", i / n / 1000 }')
    fi
fi

# Fixed rate, open loop (one request every 1/RATE s, each timed from its scheduled send).
paced() { # URL [--body-file F] -> "p50_ms p99_ms" from the write (as the client direct is timed),
           # p99 from the scheduled send, then p50 and p99 of what the gateway added per push
           # (from server-timing; "- -" for /healthz); fails unless every answer was 200
    local out
    out=$(.build/release/http1-paced-load --rate "$RATE" --seconds "$DURATION" --url "$@") || { echo "$out" >&2; return 1; }
    awk '/^sent_p50_ms/ { a = $2 } /^sent_p99_ms/ { b = $2 } /^p99_ms/ { c = $2 } /^added_p50_ms/ { d = $2 } /^added_p99_ms/ { e = $2 }
         END { printf "%.3f %.3f %.3f %s %s\n", a, b, c, (d == "" ? "-" : d), (e == "" ? "-" : e) }' <<<"$out"
}
# CPU time the hypervisor took from this machine (the steal column of /proc/stat), and all CPU time:
# on a VM, a vCPU descheduled for milliseconds stalls every request in flight, and that is
# what the p99 figures below mostly measure when steal is high.
cpu_times() { awk '/^cpu / { print $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }
read -r steal_before total_before <<<"$(cpu_times)"
push_p50s=(); push_p99s=(); push_scheduled_p99s=(); added_p50s=(); added_p99s=(); health_p50s=(); health_p99s=(); direct_p50s=(); direct_p99s=()
for round in $(seq "$LATENCY_ROUNDS"); do
    read -r round_steal_before round_total_before <<<"$(cpu_times)"
    r=$(paced "$URL" --body-file "$work/body.json"); read -r a b c d e <<<"$r"
    push_p50s+=("$a"); push_p99s+=("$b"); push_scheduled_p99s+=("$c"); added_p50s+=("$d"); added_p99s+=("$e")
    [[ "$e" != "-" ]] || { echo "the gateway's answers carry no server-timing" >&2; exit 1; }
    read -r round_steal round_total <<<"$(cpu_times)"
    r=$(paced "http://127.0.0.1:$p4/healthz"); read -r a b c <<<"$r"; health_p50s+=("$a"); health_p99s+=("$b")
    r=$(direct --rate "$RATE" --seconds "$DURATION" | awk '/p50_ms/ { a = $2 } /p99_ms/ { b = $2 } END { printf "%.3f %.3f\n", a, b }')
    read -r a b <<<"$r"; direct_p50s+=("$a"); direct_p99s+=("$b")
    echo "round $round at $RATE/s, p50/p99 ms: added by the gateway ${added_p50s[-1]}/${added_p99s[-1]}" \
        "($(awk -v s=$((round_steal - round_steal_before)) -v t=$((round_total - round_total_before)) 'BEGIN { printf "%.1f", (t > 0 ? 100 * s / t : 0) }')% steal);" \
        "through the gateway ${push_p50s[-1]}/${push_p99s[-1]} (p99 from the schedule ${push_scheduled_p99s[-1]}), /healthz ${health_p50s[-1]}/${health_p99s[-1]}, client direct ${direct_p50s[-1]}/${direct_p99s[-1]}"
done
read -r steal_after total_after <<<"$(cpu_times)"
m() { printf '%s\n' "$@" | median; }
push_p50=$(m "${push_p50s[@]}"); push_p99=$(m "${push_p99s[@]}"); health_p50=$(m "${health_p50s[@]}")
health_p99=$(m "${health_p99s[@]}"); direct_p50=$(m "${direct_p50s[@]}"); direct_p99=$(m "${direct_p99s[@]}")
push_scheduled_p99=$(m "${push_scheduled_p99s[@]}"); added_p50=$(m "${added_p50s[@]}"); added_p99=$(m "${added_p99s[@]}")

echo
echo "gateway end-to-end (wrk HTTP/1.1 in, h2 out): $gateway pushes/s"
echo "APNs client direct to the same mock:          $reference pushes/s"
awk -v a="$gateway" -v b="$reference" 'BEGIN { printf "ratio gateway / client direct:                %.2fx (target >= 0.5x)\n", a / b }'
echo "gateway CPU per push (user + system):         $cpu_per_push us"
awk -v w="$wrk_per_push" -v g="$cpu_per_push" -v m="$mock_gateway_per_push" -v c="$client_per_push" -v d="$mock_direct_per_push" \
    'BEGIN { printf "CPU per push, all processes (us): through the gateway wrk %.1f + gateway %.1f + mock %.1f = %.1f; direct client %.1f + mock %.1f = %.1f\n", w, g, m, w + g + m, c, d, c + d }'
awk -v r="$health_rate" -v g="$(per_push "$(awk -v t="$health_ticks" -v hz="$hz" 'BEGIN { print t / hz }')" "$health_requests")" \
    -v w="$(per_push "$health_wrk_seconds" "$health_requests")" \
    'BEGIN { printf "the HTTP/1.1 hop alone (wrk GET /healthz): %s requests/s; CPU per request: gateway %.1f + wrk %.1f us\n", r, g, w }'
awk -v r="$nginx_rate" -v g="$(per_push "$(awk -v t="$nginx_ticks" -v hz="$hz" 'BEGIN { print t / hz }')" "$nginx_requests")" \
    -v w="$(per_push "$nginx_wrk_seconds" "$nginx_requests")" \
    'BEGIN { printf "  the same to nginx (1 worker, static 200):  %s requests/s; CPU per request: nginx %.1f + wrk %.1f us\n", r, g, w }'
[[ -n "$instructions_per_push" ]] && echo "gateway instructions per push (callgrind):     $instructions_per_push (user space, over $profiled_count pushes)"
echo "at $RATE pushes/s, open loop, median of $LATENCY_ROUNDS rounds (p50 / p99 ms): paced -> gateway -> mock $push_p50 / $push_p99;" \
    "paced -> gateway /healthz $health_p50 / $health_p99; client direct $direct_p50 / $direct_p99"
echo "p99 latency the gateway adds, per push:       $added_p99 ms (target <= 1 ms; each push's round trip from its write less its APNs leg" \
    "from server-timing; the HTTP/1.1 hop included)"
echo "p50 latency the gateway adds, per push:       $added_p50 ms"
awk -v a="$push_p99" -v b="$direct_p99" 'BEGIN { printf "  p99 through the gateway - p99 direct:       %.3f ms (different pushes: mostly the difference of two VM stalls)\n", a - b }'
awk -v a="$push_scheduled_p99" -v b="$direct_p99" 'BEGIN { printf "  the same, timed from the scheduled send:    %.3f ms (the generator'"'"'s own dispatch delay included)\n", a - b }'
awk -v a="$push_p50" -v b="$direct_p50" 'BEGIN { printf "  p50 through the gateway - p50 direct:       %.3f ms\n", a - b }'
awk -v s=$((steal_after - steal_before)) -v t=$((total_after - total_before)) \
    'BEGIN { printf "CPU time stolen by the hypervisor during the latency rounds: %.1f%%\n", (t > 0 ? 100 * s / t : 0) }'
echo "(2-core machine shared by the load generator, the gateway and the mock: compare ratios, not absolutes)"
