#!/usr/bin/env bash
# The steps a CI job runs around an apns-mock service container (docs/containers.md has the
# GitHub Actions and GitLab CI jobs that call it). The image test (scripts/test-images.sh)
# runs it the same way, so what the jobs do is tested, though their YAML is not.
#
#   scripts/ci-apns-mock.sh ready          wait for /healthz, copy the mock's CA out
#   scripts/ci-apns-mock.sh check [N]      wait for N pushes (default 1), then run
#                                          push-inspect check on the capture, in the container
#
# Settings (environment):
#   APNS_MOCK_CONTAINER    the service container's name or id (GitHub: job.services.<name>.id)
#   CONTAINER_CLI          docker (default) or podman
#   APNS_MOCK_CONTROL_URL  the control API as the job reaches it (default http://127.0.0.1:2199)
#   APNS_MOCK_CA           where `ready` writes the CA that signs the mock's certificate
#                          (default ./apns-mock-ca.pem), for the backend under test to trust
#   APNS_MOCK_WAIT         seconds `ready` and `check` wait (default 60)
#   APNS_MOCK_CONTROL_TOKEN the control API's access token, when the mock has one
set -euo pipefail

command=${1:-}
cli=${CONTAINER_CLI:-docker}
container=${APNS_MOCK_CONTAINER:?set APNS_MOCK_CONTAINER to the apns-mock service container}
control=${APNS_MOCK_CONTROL_URL:-http://127.0.0.1:2199}
ca=${APNS_MOCK_CA:-./apns-mock-ca.pem}
wait=${APNS_MOCK_WAIT:-60}

# A shell and its /dev/tcp would do, but curl is on every CI image and reads answers whole.
get() {
    local authorization=()
    [ -z "${APNS_MOCK_CONTROL_TOKEN:-}" ] || authorization=(-H "authorization: Bearer $APNS_MOCK_CONTROL_TOKEN")
    curl -fsS --max-time "$((wait + 5))" "${authorization[@]}" "$control$1"
}

case "$command" in
ready)
    deadline=$((SECONDS + wait))
    until get /healthz >/dev/null 2>&1; do
        if [ "$SECONDS" -ge "$deadline" ]; then
            echo "ci-apns-mock: no answer from $control/healthz after ${wait}s; the container's log:" >&2
            "$cli" logs "$container" >&2 || true
            exit 1
        fi
        sleep 0.5
    done
    "$cli" cp "$container:/etc/apns-mock/certs/ca.pem" "$ca"
    echo "ci-apns-mock: apns-mock is up ($control); its CA is in $ca"
    ;;
check)
    count=${2:-1}
    # /pushes/wait answers 200 once `count` pushes arrived, 408 (curl -f fails) if not in time.
    if ! answer=$(get "/pushes/wait?count=$count&timeout=$wait"); then
        echo "ci-apns-mock: fewer than $count push(es) reached the mock within ${wait}s:" >&2
        get /pushes >&2 || true
        exit 1
    fi
    echo "ci-apns-mock: $(printf '%s' "$answer" | sed -n 's/^{"count":\([0-9]*\).*/\1/p') push(es) captured"
    # The capture file, in the container: push-inspect is in the image beside the mock.
    "$cli" exec "$container" push-inspect check /var/lib/apns-mock/pushes.jsonl
    ;;
*)
    echo "usage: scripts/ci-apns-mock.sh ready | check [N]" >&2
    exit 2
    ;;
esac
