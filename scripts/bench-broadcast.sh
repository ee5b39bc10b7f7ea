#!/usr/bin/env bash
# CPU per broadcast and per channel create, beside the device push, on one apns-mock (capture
# off) in one run: h2load over TLS (-c 4 -m 100 -t 1, a PyJWT provider token) sends in turn
#   device     the 151-byte alert of bench-common.sh to /3/device/<token>;
#   broadcast  a Live Activity update of about the same size to /4/broadcasts/apps/com.example.app
#              on a channel the control API made (apns-channel-id, apns-push-type liveactivity,
#              apns-expiration 0);
#   create     POST /1/apps/com.example.app/channels to the sandbox channel management
#              listener, CREATES of them (under Apple's 10,000 per environment); the control
#              API deletes them between rounds, outside the measured window.
# Each figure is the mock's own CPU time (utime + stime of all its threads, /proc/PID/stat)
# across the run, read 0.2 s after h2load ends, divided by the requests. Prints each round,
# the medians, and broadcast / device (target <= 1.5, PASS or MISS; exits 0 either way).
#
# Usage: scripts/bench-broadcast.sh
#   REQUESTS (200000 per kind and round), CREATES (9000), ROUNDS (3) override the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v h2load >/dev/null && python3 -c "import jwt" 2>/dev/null || bash scripts/setup.sh

REQUESTS=${REQUESTS:-200000}
CREATES=${CREATES:-9000}
ROUNDS=${ROUNDS:-3}
WARM_UP=20000
RATIO_TARGET=1.5
source scripts/bench-common.sh
prepare_pushes
hz=$(getconf CLK_TCK)

mock_binary=.build/release/apns-mock
[ -x "$mock_binary" ] || swift build -c release --product apns-mock >&2
port=$(free_port); control=$(free_port); channels=$(free_port)
"$mock_binary" --port "$port" --sandbox-port "$(free_port)" --control-port "$control" --channel-sandbox-port "$channels" \
    --channel-port 0 --log-level warning >/dev/null 2>"$work/mock.log" & mock=$!; pids+=($!)
for p in "$port" "$control" "$channels"; do wait_port "$p"; done
url="https://127.0.0.1:$port"; channel_url="https://127.0.0.1:$channels"; control_url="http://127.0.0.1:$control"

channel_id=$(curl -sf -X POST -H "content-type: application/json" "$control_url/channels" -d '{"bundle_id":"com.example.app","environment":"production"}' \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["channel_id"])')
printf '%s' '{"aps":{"event":"update","timestamp":1764892800,"content-state":{"build":"b-20417","checks":42,"state":"passed"},"stale-date":1764896400}}' \
    > "$work/update.json"
printf '%s' '{"message-storage-policy":1,"push-type":"LiveActivity"}' > "$work/create.json"

send() { # KIND N -> h2load output
    case $1 in
        device) h2load_pushes "$url" "$2" ;;
        broadcast) h2load "${push_flags[@]}" -n "$2" -H "authorization: bearer $push_token" -H "apns-channel-id: $channel_id" \
            -H "apns-push-type: liveactivity" -H "apns-expiration: 0" -d "$work/update.json" \
            "$url/4/broadcasts/apps/com.example.app" 2>&1 ;;
        create) h2load "${push_flags[@]}" -n "$2" -H "authorization: bearer $push_token" -d "$work/create.json" \
            "$channel_url/1/apps/com.example.app/channels" 2>&1 ;;
    esac
}
run() { # KIND N: every request answered 2xx
    local out
    out=$(send "$1" "$2") || true
    check_h2load "$out" "$2"
}
clear_channels() { # the created channels, keeping the broadcast's
    curl -sf -X DELETE -H "content-type: application/json" "$control_url/channels" >/dev/null
    channel_id=$(curl -sf -X POST -H "content-type: application/json" "$control_url/channels" -d '{"bundle_id":"com.example.app","environment":"production"}' \
        | python3 -c 'import json, sys; print(json.load(sys.stdin)["channel_id"])')
}
measure() { # KIND N -> µs of the mock's CPU per request
    local before after
    before=$(cpu_ticks "$mock")
    run "$1" "$2"
    sleep 0.2
    after=$(cpu_ticks "$mock")
    awk -v hz="$hz" -v n="$2" -v b="$before" -v a="$after" 'BEGIN { printf "%.2f", (a - b) * 1e6 / hz / n }'
}

run device "$WARM_UP"; run broadcast "$WARM_UP"; run create "$CREATES"; clear_channels
echo "CPU per request (µs): apns-mock's utime + stime from /proc/PID/stat (CLK_TCK $hz), h2load ${push_flags[*]} over TLS;" \
    "device and broadcast -n $REQUESTS, create -n $CREATES; $ROUNDS rounds"
printf '%-7s %10s %10s %10s\n' round device broadcast create
devices=(); broadcasts=(); creates=()
for round in $(seq "$ROUNDS"); do
    d=$(measure device "$REQUESTS"); b=$(measure broadcast "$REQUESTS"); c=$(measure create "$CREATES"); clear_channels
    devices+=("$d"); broadcasts+=("$b"); creates+=("$c")
    printf '%-7s %10s %10s %10s\n' "$round" "$d" "$b" "$c"
done
d=$(median "${devices[@]}"); b=$(median "${broadcasts[@]}"); c=$(median "${creates[@]}")
printf '%-7s %10.2f %10.2f %10.2f\n' median "$d" "$b" "$c"
awk -v d="$d" -v b="$b" -v c="$c" -v t="$RATIO_TARGET" 'BEGIN {
    printf "\nbroadcast / device, CPU per request: %.2f / %.2f = %.2f (target <= %.1f: %s)\n", b, d, b / d, t, (b / d <= t ? "PASS" : "MISS")
    printf "channel create / device: %.2f / %.2f = %.2f (%.0f creates per CPU second)\n", c, d, c / d, 1e6 / c
}'
