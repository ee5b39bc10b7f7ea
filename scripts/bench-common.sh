# Shared by the benchmark scripts (source it from the repository root): a scratch folder
# and background processes that are cleaned up on exit, free ports, and a little awk.
work=$(mktemp -d)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# Waits up to 10 s for a listener on 127.0.0.1:$1.
wait_port() { for _ in $(seq 200); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.05; done; echo "port $1 did not open" >&2; exit 1; }
add() { awk -v a="$1" -v b="$2" 'BEGIN { print a + b }'; }
# The benchmarks' push: a 151-byte alert payload, and a PyJWT provider token for the key in certs/.
alert_payload() {
    printf '%s' '{"aps":{"alert":{"title":"Build finished","body":"All 42 checks passed on main"},"badge":1,"sound":"default"},"build":{"id":"b-20417","branch":"main"}}'
}
provider_token() {
    python3 -c 'import time, jwt; print(jwt.encode({"iss": "TEAM000001", "iat": int(time.time())}, open("certs/AuthKey_ABC123DEFG.p8").read(), algorithm="ES256", headers={"kid": "ABC123DEFG"}))'
}

# The mock benchmarks' push, one device for every server: prepare_pushes writes the payload
# to $work/body.json, mints $push_token and gives nghttpd a docroot ($work/docroot) with a
# static empty 200 at the push's path; h2load_pushes sends N of them to a server.
push_device=$(printf '%064x' 1)
push_flags=(-c 4 -m 100 -t 1)
prepare_pushes() {
    alert_payload > "$work/body.json"
    push_token=$(provider_token)
    mkdir -p "$work/docroot/3/device" && : > "$work/docroot/3/device/$push_device"
}
h2load_pushes() { # URL N -> h2load output
    h2load "${push_flags[@]}" -n "$2" -H "authorization: bearer $push_token" -H "apns-topic: com.example.app" \
        -H "apns-push-type: alert" -d "$work/body.json" "$1/3/device/$push_device" 2>&1
}
# h2load output [N] -> nothing; exits loudly unless every request (N of them, when given) got a 2xx.
check_h2load() {
    grep -q "0 failed, 0 errored, 0 timeout" <<<"$1" && grep -Eq "status codes: ${2:-[0-9]+} 2xx, 0 3xx, 0 4xx, 0 5xx" <<<"$1" \
        || { echo "$1" >&2; echo "h2load reported failures" >&2; exit 1; }
}
# PID -> the CPU time of the whole process (every thread) in clock ticks (getconf CLK_TCK a
# second): user and system, or their sum. The fields are counted after the command name,
# which may hold spaces.
cpu_ticks_split() { local stat; stat=$(< "/proc/$1/stat"); awk '{ print $12, $13 }' <<<"${stat##*) }"; }
cpu_ticks() { cpu_ticks_split "$1" | awk '{ print $1 + $2 }'; }
# Median of the numbers given.
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
