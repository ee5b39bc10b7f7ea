#!/usr/bin/env bash
# make demo's script as a test, on the debug builds: as it is, it passes and shows the
# app's onboarding; with a hermes-device whose snooze dates are off by a day, the step
# fails and so does the demo (exit 1).
set -euo pipefail
cd "$(dirname "$0")/.."

DEBUG=$(swift build --show-bin-path)
WORK=$(mktemp -d /tmp/test-demo.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "test-demo: $1; the demo printed:" >&2; cat "$2" >&2; exit 1; }

if ! DEMO_BIN="$DEBUG" bash scripts/demo-hermes.sh >"$WORK/demo.out" 2>&1; then fail "the demo failed" "$WORK/demo.out"; fi
for line in "demo: every step passed" "app            shows the install sheet" "snoozed 5 days" \
    "asks for notification permission, then registers" "the phone shows: ['complete'] - the approval never reached it"; do
    grep -qF -- "$line" "$WORK/demo.out" || fail "the demo printed no '$line'" "$WORK/demo.out"
done

mkdir "$WORK/bin"
for product in apns-mock push-gateway push-agent push-inspect; do ln -s "$DEBUG/$product" "$WORK/bin/$product"; done
cat >"$WORK/bin/hermes-device" <<WRAPPER
#!/usr/bin/env bash
[ "\${1:-}" = onboarding ] || exec "$DEBUG/hermes-device" "\$@"
"$DEBUG/hermes-device" "\$@" | sed 's/snoozed 3 days/snoozed 4 days/'
WRAPPER
chmod +x "$WORK/bin/hermes-device"
if DEMO_BIN="$WORK/bin" bash scripts/demo-hermes.sh >"$WORK/broken.out" 2>&1; then
    fail "the demo passed with wrong snooze dates" "$WORK/broken.out"
fi
grep -q "^demo: 1 step(s) failed" "$WORK/broken.out" || fail "the demo did not count the failed step" "$WORK/broken.out"
grep -q "^demo: the onboarding step failed" "$WORK/broken.out" || fail "the demo did not name the failed step" "$WORK/broken.out"
echo "test-demo: the demo passes, and fails when its onboarding step does"
