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
