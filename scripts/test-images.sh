#!/usr/bin/env bash
# The image test, run by `make test`: builds both images (scripts/build-images.sh) and runs
# them with podman as a CI job would run them.
#
# - apns-mock: a TLS HTTP/2 push from curl with a PyJWT token, read back through the control
#   API with its access token (refused without), `push-inspect check` in the container
#   (through scripts/ci-apns-mock.sh, as the CI examples in docs/containers.md call it), the
#   image's HEALTHCHECK, its non-root user, its certificates replaced by a mount, captures on
#   a host folder and on a named volume;
# - push-gateway pointed at the mock container by Apple's host names, its secrets from files
#   and variables: a push with a valid HMAC delivered, a bad HMAC refused and not forwarded;
# - SIGTERM (`podman stop`) with a push in flight in each: answered, both exit 0, and the
#   capture on the volume holds every push the mock answered;
# - bad input: the gateway without its settings, an invalid mounted configuration and a
#   read-only capture volume stop at once with exit 2 and a message naming what is wrong.
#
# A machine that cannot run containers fails the test, saying why; it is never skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
containers=()

fail() {
    echo "test-images: FAIL: $*" >&2
    for container in "${containers[@]}"; do
        echo "--- podman logs $container" >&2
        podman logs "$container" >&2 2>&1 || true
    done
    exit 1
}
step() { echo "test-images: $* ($((SECONDS - started)) s)"; }

for tool in podman runc curl python3 openssl; do
    command -v "$tool" >/dev/null || fail "$tool is missing: run scripts/setup.sh as root (it installs podman, runc and debootstrap)"
done
python3 -c 'import jwt' 2>/dev/null || fail "python3 cannot import jwt (PyJWT): run scripts/setup.sh"

# This machine's workarounds, for `podman run` only (docs/containers.md, "What is tested here"):
# crun refuses its hybrid cgroups, and podman's default limits exceed its hard caps.
run_flags=(--runtime runc --ulimit nofile=10000:10000 --ulimit nproc=4096:4096)

suffix=$$
network=apns-test-$suffix
work=$(mktemp -d /tmp/apns-image-test.XXXXXX)
cleanup() {
    for container in "${containers[@]}"; do podman rm -f -v "$container" >/dev/null 2>&1 || true; done
    podman volume rm -f "apns-mock-certs-$suffix" >/dev/null 2>&1 || true
    podman network rm -f "$network" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

bash scripts/build-images.sh >"$work/build.log" 2>&1 || fail "make image failed: $(tail -n 30 "$work/build.log")"
step "images built"

if ! probe=$(timeout 60 podman run --rm "${run_flags[@]}" --entrypoint /bin/bash localhost/apns-mock:latest -c true 2>&1); then
    fail "containers cannot run on this machine: podman run said: $probe"
fi
podman network create "$network" >/dev/null 2>&1 || fail "podman network create $network failed"

# Four free loopback ports for what the containers publish.
read -r sandbox_port control_port gateway_port spare_port < <(python3 - <<'EOF'
import socket
sockets = [socket.socket() for _ in range(4)]
for s in sockets: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in sockets])
EOF
)

# Device tokens: one per push, so each is found by itself.
device() { printf "$1%.0s" $(seq 32); }
direct=$(device 11) gateway_good=$(device 22) gateway_bad=$(device 33) gateway_held=$(device 44) direct_held=$(device 55)
token=$(python3 -c 'import jwt, sys, time; print(jwt.encode({"iss": "TEAM000001", "iat": int(time.time())}, open(sys.argv[1]).read(), algorithm="ES256", headers={"kid": "ABC123DEFG"}))' certs/AuthKey_ABC123DEFG.p8)

# push DEVICE APNS_ID [CA]: one TLS HTTP/2 push to the mock's sandbox; prints status and HTTP version.
push() {
    curl -sS --max-time 20 --http2 --cacert "${3:-$work/ca.pem}" -o /dev/null -w '%{http_code} %{http_version}' \
        -H "authorization: bearer $token" -H "apns-topic: com.example.app" -H "apns-push-type: alert" -H "apns-id: $2" \
        -d '{"aps":{"alert":{"title":"Image test","body":"hello"}}}' "https://127.0.0.1:$sandbox_port/3/device/$1"
}
control_token=image-test-control-token-0123456789
control() { curl -sS --max-time 30 -H "authorization: Bearer $control_token" "${@:2}" "http://127.0.0.1:$control_port$1"; }
# json EXPRESSION: evaluates EXPRESSION on the JSON read from standard input (`data`); a
# tuple prints as its values separated by spaces.
json() { python3 -c "import json, sys; data = json.load(sys.stdin); value = ($1); print(*value) if isinstance(value, tuple) else print(value)"; }

# --- apns-mock ---------------------------------------------------------------------------
mock=apns-mock-test-$suffix
mkdir -p "$work/capture" "$work/mock-secrets"
chown 10001:10001 "$work/capture"
printf '%s\n' "$control_token" > "$work/mock-secrets/control-token"
chmod 0444 "$work/mock-secrets/control-token"
containers+=("$mock")
podman run -d --name "$mock" "${run_flags[@]}" --network "$network" \
    --network-alias api.push.apple.com --network-alias api.sandbox.push.apple.com \
    -p "127.0.0.1:$sandbox_port:2198" -p "127.0.0.1:$control_port:2199" \
    -v "$work/capture:/var/lib/apns-mock" -v "$work/mock-secrets:/run/secrets:ro" \
    -e APNS_MOCK_CONTROL_TOKEN_FILE=/run/secrets/control-token \
    localhost/apns-mock:latest --log-level info >/dev/null 2>"$work/run.log" \
    || fail "podman run apns-mock: $(cat "$work/run.log")"

CONTAINER_CLI=podman APNS_MOCK_CONTAINER=$mock APNS_MOCK_CONTROL_URL=http://127.0.0.1:$control_port \
    APNS_MOCK_CONTROL_TOKEN=$control_token APNS_MOCK_CA=$work/ca.pem APNS_MOCK_WAIT=30 \
    bash scripts/ci-apns-mock.sh ready >/dev/null || fail "the mock did not come up"
refused=$(curl -sS -o /dev/null -w '%{http_code}' "http://127.0.0.1:$control_port/pushes")
[ "$refused" = 401 ] || fail "the control API answered $refused without its access token, not 401"
podman healthcheck run "$mock" >/dev/null 2>&1 || fail "the mock's HEALTHCHECK does not pass"
[ "$(podman exec "$mock" bash -c 'echo $EUID')" = 10001 ] || fail "the mock does not run as the image's user 10001"
step "apns-mock up, healthy, user 10001, control API closed without its token"

answer=$(push "$direct" 11111111-1111-4111-8111-111111111111) || fail "curl could not push to the mock: $answer"
[ "$answer" = "200 2" ] || fail "a valid push over TLS HTTP/2 got '$answer', expected '200 2'"
listed=$(control "/pushes?device_token=$direct")
[ "$(json 'data["count"], data["pushes"][0]["apns_id"], data["pushes"][0]["status"]' <<<"$listed")" \
    = "1 11111111-1111-4111-8111-111111111111 200" ] || fail "the control API lists: $listed"
step "a curl push answered 200 over HTTP/2 and read back through the control API"

# --- push-gateway ------------------------------------------------------------------------
gateway=push-gateway-test-$suffix
hmac_secret=image-test-hmac-secret
mkdir -p "$work/secrets"
cp certs/AuthKey_ABC123DEFG.p8 "$work/secrets/apns.p8"
cp "$work/ca.pem" "$work/secrets/apns-ca.pem"
printf '%s\n' "$hmac_secret" > "$work/secrets/hmac"
chmod 0444 "$work/secrets"/*
containers+=("$gateway")
podman run -d --name "$gateway" "${run_flags[@]}" --network "$network" -p "127.0.0.1:$gateway_port:8088" \
    -v "$work/secrets:/run/secrets:ro" \
    -e PUSH_GATEWAY_TOPIC=com.example.app -e PUSH_GATEWAY_AUTH_KEY=ABC123DEFG:TEAM000001 \
    -e PUSH_GATEWAY_AUTH_KEY_P8_FILE=/run/secrets/apns.p8 -e PUSH_GATEWAY_HMAC_SECRET_FILE=/run/secrets/hmac \
    -e PUSH_GATEWAY_CAPABILITY_KEY=image-test-capability-key-0123456789 \
    localhost/push-gateway:latest --apns-production https://api.push.apple.com:2197 \
    --apns-sandbox https://api.sandbox.push.apple.com:2198 --apns-ca /run/secrets/apns-ca.pem >/dev/null 2>"$work/run.log" \
    || fail "podman run push-gateway: $(cat "$work/run.log")"
for _ in $(seq 60); do
    curl -fsS --max-time 2 "http://127.0.0.1:$gateway_port/healthz" >/dev/null 2>&1 && break
    sleep 0.5
done
podman healthcheck run "$gateway" >/dev/null 2>&1 || fail "the gateway's HEALTHCHECK does not pass"
step "push-gateway up and healthy"

# gateway_push DEVICE [bad]: a /push as the Hermes plugin sends it; prints the status.
gateway_push() {
    python3 - "http://127.0.0.1:$gateway_port/push" "$hmac_secret" "$1" "${2:-}" <<'EOF'
import hashlib, hmac, json, sys, urllib.error, urllib.request
url, secret, device, bad = sys.argv[1:5]
payload = {"device_token": device, "apns_env": "sandbox", "type": "approval", "session_id": "image_test",
           "title": "Approval needed", "body": "Hermes needs your approval"}
canonical = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()
payload["hmac"] = hmac.new((secret + ("-wrong" if bad else "")).encode(), canonical, hashlib.sha256).hexdigest()
request = urllib.request.Request(url, data=json.dumps(payload).encode(), method="POST", headers={"Content-Type": "application/json"})
try:
    with urllib.request.urlopen(request, timeout=20) as response: print(response.status)
except urllib.error.HTTPError as error: print(error.code)
EOF
}
[ "$(gateway_push "$gateway_good")" = 200 ] || fail "a push with a valid HMAC through the gateway was not answered 200"
[ "$(gateway_push "$gateway_bad" bad)" = 403 ] || fail "a push with a bad HMAC was not refused with 403"
forwarded=$(control "/pushes?device_token=$gateway_good" | json 'data["count"], data["pushes"][0]["status"]')
[ "$forwarded" = "1 200" ] || fail "the mock did not capture the gateway's push once, accepted: $forwarded"
[ "$(control "/pushes?device_token=$gateway_bad" | json 'data["count"]')" = 0 ] || fail "a push with a bad HMAC reached the mock"
step "gateway: valid HMAC delivered to the mock container, bad HMAC refused"

CONTAINER_CLI=podman APNS_MOCK_CONTAINER=$mock APNS_MOCK_CONTROL_URL=http://127.0.0.1:$control_port \
    APNS_MOCK_CONTROL_TOKEN=$control_token APNS_MOCK_WAIT=30 bash scripts/ci-apns-mock.sh check 2 >"$work/check.log" 2>&1 \
    || fail "push-inspect check in the container failed: $(cat "$work/check.log")"
step "push-inspect check passes in the container"

# --- SIGTERM with a push in flight in each -----------------------------------------------
# hold DEVICE: the mock holds its answer to DEVICE 1.5 s; prints the rule's id.
hold() {
    control /faults -X POST -H "content-type: application/json" -d "{\"match\":{\"device_token\":\"$1\"},\"action\":{\"type\":\"delay\",\"milliseconds\":1500}}" \
        | json 'data[0]["id"]'
}
# fired ID: waits until the held push has reached the mock, so that it is in flight.
fired() {
    for _ in $(seq 100); do
        [ "$(control /faults | json "[rule['fired'] for rule in data if rule['id'] == '$1'][0]")" = 1 ] && return 0
        sleep 0.1
    done
    fail "the held push never reached the mock"
}
exit_code() { podman inspect --format '{{.State.ExitCode}}' "$1"; }

rule=$(hold "$gateway_held")
gateway_push "$gateway_held" > "$work/gateway-held" &
fired "$rule"
podman stop --time 15 "$gateway" >/dev/null 2>&1
wait $!
[ "$(cat "$work/gateway-held")" = 200 ] || fail "the push in flight when the gateway got SIGTERM got '$(cat "$work/gateway-held")', not 200"
[ "$(exit_code "$gateway")" = 0 ] || fail "the gateway exited $(exit_code "$gateway") after SIGTERM, not 0"

rule=$(hold "$direct_held")
push "$direct_held" 55555555-5555-4555-8555-555555555555 > "$work/mock-held" &
fired "$rule"
podman stop --time 15 "$mock" >/dev/null 2>&1
wait $!
[ "$(cat "$work/mock-held")" = "200 2" ] || fail "the push in flight when the mock got SIGTERM got '$(cat "$work/mock-held")', not 200"
[ "$(exit_code "$mock")" = 0 ] || fail "the mock exited $(exit_code "$mock") after SIGTERM, not 0"
# Read whole first: with pipefail, `grep -q` closing the pipe early would fail `podman logs`.
log=$(podman logs "$mock" 2>&1)
grep -q "stopped; capture flushed" <<<"$log" || fail "the mock did not log 'stopped; capture flushed'"

captured=$(python3 - "$work/capture/pushes.jsonl" <<'EOF'
import json, sys
records = [json.loads(line) for line in open(sys.argv[1])]
print(" ".join(sorted(f'{r["device_token"][:2]}:{r["status"]}' for r in records)))
EOF
) || fail "the capture on the volume does not parse"
[ "$captured" = "11:200 22:200 44:200 55:200" ] \
    || fail "the capture on the volume holds '$captured', expected the four pushes the mock answered (11 22 44 55), each 200"
step "SIGTERM: both answered their push in flight and exited 0; the capture on the volume is complete"

# --- bad input ---------------------------------------------------------------------------
# refused EXPECTED_TEXT ARGS...: the container must exit 2 at once, saying EXPECTED_TEXT.
refused() {
    local expected=$1 output status=0
    shift
    output=$(timeout 60 podman run --rm "${run_flags[@]}" "$@" 2>&1) || status=$?
    [ "$status" = 2 ] || fail "podman run $*: exit $status, expected 2: $output"
    grep -qF -- "$expected" <<<"$output" || fail "podman run $*: expected '$expected' in: $output"
}
refused "PUSH_GATEWAY_TOPIC" localhost/push-gateway:latest
refused "PUSH_GATEWAY_HMAC_SECRET" -e PUSH_GATEWAY_TOPIC=com.example.app -e PUSH_GATEWAY_AUTH_KEY=ABC123DEFG:TEAM000001 \
    -e PUSH_GATEWAY_AUTH_KEY_P8_FILE=/run/secrets/apns.p8 -v "$work/secrets:/run/secrets:ro" localhost/push-gateway:latest
printf '%s\n' '{"server":{"sandbox_port":"2198"}}' > "$work/config.json"
chmod 0444 "$work/config.json"
refused '/etc/apns-mock/config.json: server.sandbox_port: expected an integer 0-65535, found string "2198"' \
    -v "$work/config.json:/etc/apns-mock/config.json:ro" localhost/apns-mock:latest --config /etc/apns-mock/config.json
refused "server.capture_file: cannot write '/var/lib/apns-mock/pushes.jsonl': Read-only file system" \
    -v "$work/capture:/var/lib/apns-mock:ro" localhost/apns-mock:latest
step "bad input: missing gateway settings, invalid mounted config, read-only capture volume exit 2"

# --- the mock's certificates replaced by a mount -----------------------------------------
mkdir -p "$work/other-certs"
cp certs/*.p8 certs/*.pub.pem "$work/other-certs/"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj "/CN=other test CA" \
    -addext "subjectAltName=IP:127.0.0.1" -keyout "$work/other-certs/server.key" -out "$work/other-certs/server.pem" 2>/dev/null
cp "$work/other-certs/server.pem" "$work/other-certs/ca.pem"
chmod 0444 "$work/other-certs"/*
other=apns-mock-certs-$suffix
containers+=("$other")
sandbox_port=$spare_port
# A named volume this time: podman gives it the image's folder, owned by the image's user.
podman volume create "$other" >/dev/null
podman run -d --name "$other" "${run_flags[@]}" -p "127.0.0.1:$sandbox_port:2198" \
    -v "$work/other-certs:/etc/apns-mock/certs:ro" -v "$other:/var/lib/apns-mock" localhost/apns-mock:latest \
    >/dev/null 2>"$work/run.log" || fail "podman run apns-mock with mounted certificates: $(cat "$work/run.log")"
for _ in $(seq 60); do
    podman exec "$other" bash -c 'exec 3<>/dev/tcp/127.0.0.1/2199' 2>/dev/null && break
    sleep 0.5
done
answer=$(push "$direct" 66666666-6666-4666-8666-666666666666 "$work/other-certs/ca.pem") \
    || fail "a push trusting the mounted certificate failed: $answer"
[ "$answer" = "200 2" ] || fail "a push trusting the mounted certificate got '$answer'"
if push "$direct" 77777777-7777-4777-8777-777777777777 "$work/ca.pem" >/dev/null 2>&1; then
    fail "the image's own test certificate is still served with others mounted over it"
fi
podman stop --time 15 "$other" >/dev/null 2>&1
[ "$(exit_code "$other")" = 0 ] || fail "the mock with mounted certificates exited $(exit_code "$other")"
log=$(podman logs "$other" 2>&1)
grep -q "the control API listens on 0.0.0.0 without an access token" <<<"$log" \
    || fail "a mock without an access token on 0.0.0.0 did not warn"
volume=$(podman volume inspect --format '{{.Mountpoint}}' "$other")
[ "$(wc -l < "$volume/pushes.jsonl")" = 1 ] || fail "the named volume does not hold the one push captured"
step "the mock serves the certificates mounted over the image's, captures to a named volume, warns without a token"

echo "test-images: passed in $((SECONDS - started)) s"
