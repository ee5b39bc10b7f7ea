#!/usr/bin/env bash
# The README's first screen as a test (issue 24's bar), with the README's own commands on
# free ports: start apns-mock; send a good push and four bad ones with curl (wrong topic,
# expired token, background at priority 10, HTTP/1.1); run push-inspect check --from …
# --json; send a background push with push-send. Fails (exit 1) unless the JSON names each
# rejected push by its apns-id with its reason and a sentence naming the wrong value, the
# HTTP/1.1 request got an HTTP/1.1 answer, and push-send's background push got 200.
# BIN: the folder of built binaries (default: the debug build, made if missing).
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${BIN:-$(swift build --show-bin-path)}
for product in apns-mock push-inspect push-send; do
    [ -x "$BIN/$product" ] || swift build --product "$product" >/dev/null
done
WORK=$(mktemp -d /tmp/readme-bar.XXXXXX)
MOCK_PID=""
cleanup() {
    if [ -n "$MOCK_PID" ]; then kill "$MOCK_PID" 2>/dev/null || true; wait "$MOCK_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT
FAILURES=0
check() {  # check DESCRIPTION COMMAND…: runs COMMAND; a failure is counted and named
    if "${@:2}"; then echo "ok    $1"; else echo "FAIL  $1"; FAILURES=$((FAILURES + 1)); fi
}

# 1. The mock on its defaults, on free ports read from its own banner.
"$BIN/apns-mock" --port 0 --sandbox-port 0 --control-port 0 >"$WORK/mock.out" 2>"$WORK/mock.log" &
MOCK_PID=$!
for _ in $(seq 100); do grep -q '^  topics' "$WORK/mock.out" && break; sleep 0.1; done
banner() { awk -v label="$1" '$1 == label { print $2 }' "$WORK/mock.out"; }
PORT=$(banner production | sed 's/.*://')
SANDBOX=$(banner sandbox)
CONTROL=$(banner control)
if [ -z "$PORT" ] || [ -z "$CONTROL" ]; then
    echo "readme-bar: apns-mock did not start:" >&2; cat "$WORK/mock.out" "$WORK/mock.log" >&2; exit 1
fi

# 2. The README's curl, as it is but for the port; each answer is kept in $WORK/NAME.
TOKEN=$(python3 -c 'import jwt,time; print(jwt.encode({"iss":"TEAM000001","iat":int(time.time())}, open("certs/AuthKey_ABC123DEFG.p8").read(), algorithm="ES256", headers={"kid":"ABC123DEFG"}))')
OLD=$(python3 -c 'import jwt,time; print(jwt.encode({"iss":"TEAM000001","iat":int(time.time())-3724}, open("certs/AuthKey_ABC123DEFG.p8").read(), algorithm="ES256", headers={"kid":"ABC123DEFG"}))')
push() {  # push NAME HTTP_VERSION TOKEN TOPIC PUSH_TYPE PAYLOAD [HEADER]
    curl -i --max-time 10 -sS "$2" --cacert certs/ca.pem -H "authorization: bearer $3" \
        -H "apns-topic: $4" -H "apns-push-type: $5" ${7:+-H "$7"} \
        -d "$6" "https://localhost:$PORT/3/device/$(printf 'ab%.0s' {1..32})" >"$WORK/$1" 2>&1 || true
}
push good --http2 "$TOKEN" com.example.app alert '{"aps":{"alert":"hello"}}'
push wrong-topic --http2 "$TOKEN" com.example.wrong alert '{"aps":{"alert":"hello"}}'
push expired --http2 "$OLD" com.example.app alert '{"aps":{"alert":"hello"}}'
push background-10 --http2 "$TOKEN" com.example.app background '{"aps":{"content-available":1}}' "apns-priority: 10"
push http1 --http1.1 "$TOKEN" com.example.app alert '{"aps":{"alert":"hello"}}'
status() { head -1 "$WORK/$1" | awk '{ print $1, $2 }'; }
apns_id() { awk 'tolower($1) == "apns-id:" { print $2 }' "$WORK/$1" | tr -d '\r'; }

check "the good push: HTTP/2 200" [ "$(status good)" = "HTTP/2 200" ]
check "wrong topic: HTTP/2 400" [ "$(status wrong-topic)" = "HTTP/2 400" ]
check "expired token: HTTP/2 403" [ "$(status expired)" = "HTTP/2 403" ]
check "background at priority 10: HTTP/2 400" [ "$(status background-10)" = "HTTP/2 400" ]
check "HTTP/1.1: an HTTP/1.1 505 answer" [ "$(status http1)" = "HTTP/1.1 505" ]
check "HTTP/1.1: the body says APNs speaks HTTP/2 only" grep -q "APNs speaks HTTP/2 only" "$WORK/http1"
check "HTTP/1.1: counted in /metrics" \
    grep -qx 'apns_mock_http1_requests_total{environment="production"} 1' <(curl -sS --max-time 10 "$CONTROL/metrics")

# 3. push-inspect over the control API: exit 1, since three pushes were rejected.
set +e
timeout 60 "$BIN/push-inspect" check --from "$CONTROL" --json >"$WORK/check.json" 2>"$WORK/check.err"
inspect_status=$?
set -e
check "push-inspect check exits 1" [ "$inspect_status" = 1 ]
judge() {  # judge NAME REASON PATTERN: the JSON's failure named by NAME's apns-id has REASON and PATTERN
    python3 - "$WORK/check.json" "$(apns_id "$1")" "$2" "$3" <<'PY'
import json, re, sys
report, apns_id, reason, pattern = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3], sys.argv[4]
failures = [f for f in report["failures"] if f["apns_id"] == apns_id]
ok = (apns_id != "" and len(failures) == 1 and failures[0].get("reason") == reason
      and any(f["rule"] == "apns.rejected" and reason in f["message"] and re.search(pattern, f["message"])
              for f in failures[0]["findings"]))
if not ok:
    print(f"  apns-id {apns_id!r}: wanted {reason} and {pattern!r}; the report: {json.dumps(report)}", file=sys.stderr)
sys.exit(0 if ok else 1)
PY
}
check "JSON: wrong topic, by apns-id: TopicDisallowed, names com.example.wrong" \
    judge wrong-topic TopicDisallowed "topic com\\.example\\.wrong is not served"
check "JSON: expired token, by apns-id: ExpiredProviderToken, names the token's age" \
    judge expired ExpiredProviderToken "token iat is 3,7[0-9][0-9] s old"
check "JSON: background at 10, by apns-id: BadPriority, names priority 10" \
    judge background-10 BadPriority "apns-priority 5, not 10\""
check "JSON: the good push passed, the HTTP/1.1 request is no push" python3 -c '
import json, sys
report = json.load(open(sys.argv[1]))
sys.exit(0 if report["pushes"] == 4 and report["passed"] == 1 and report["failed"] == 3
         and sys.argv[2] not in [f["apns_id"] for f in report["failures"]] else 1)' "$WORK/check.json" "$(apns_id good)"

# 4. push-send's background push, with no priority given, to the same mock.
check "push-send --push-type background: status 200" grep -qx "status: 200" <(
    timeout 60 "$BIN/push-send" --sandbox --url "$SANDBOX" --ca certs/ca.pem \
        --auth-key ABC123DEFG:TEAM000001:certs/AuthKey_ABC123DEFG.p8 --topic com.example.app \
        --push-type background --payload '{"aps":{"content-available":1}}' "$(printf 'ab%.0s' {1..32})" 2>&1)

if [ "$FAILURES" -gt 0 ]; then
    echo "readme-bar: $FAILURES check(s) failed; push-inspect said:" >&2
    cat "$WORK/check.json" "$WORK/check.err" >&2
    exit 1
fi
echo "readme-bar: every check passed"
