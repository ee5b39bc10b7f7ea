#!/usr/bin/env bash
# Benchmarks Hermes' agent and app logic against references measured in the same run:
#   agent_push   (suppression gates + signed /push body)  /  reference_hmac  (HMAC-SHA256 of the canonical bytes)
#   app_receive  (HermesNotificationHandler.receive)      /  reference_parse (HermesNotification(payload:))
# CPU time per operation on one pinned core; each figure is the mean over `rounds` runs.
#
# Usage: scripts/bench-hermes.sh [iterations] [rounds]   (defaults 200000 and 3)
set -euo pipefail
iterations="${1:-200000}"
rounds="${2:-3}"
cd "$(dirname "$0")/.."

echo "Building hermes-bench (release)..." >&2
swift build -c release --product hermes-bench >&2
bench="$(swift build -c release --show-bin-path)/hermes-bench"
pin=()
command -v taskset >/dev/null 2>&1 && pin=(taskset -c "$(($(nproc) - 1))")

declare -A sum=()
for round in $(seq 1 "$rounds"); do
    while IFS='=' read -r name value; do
        sum[$name]=$(awk -v a="${sum[$name]:-0}" -v b="$value" 'BEGIN { print a + b }')
    done < <("${pin[@]}" "$bench" "$iterations" 2>/dev/null)
done
figure() { awk -v a="${sum[$1]}" -v n="$rounds" 'BEGIN { printf "%.0f", a / n }'; }
ratio() { awk -v a="${sum[$1]}" -v b="${sum[$2]}" 'BEGIN { printf "%.2f", a / b }'; }
printf "agent: gates + signed body  %6s ns/push     HMAC alone    %6s ns   ratio %s\n" \
    "$(figure agent_push)" "$(figure reference_hmac)" "$(ratio agent_push reference_hmac)"
printf "app:   handle a payload     %6s ns/payload  parse alone   %6s ns   ratio %s\n" \
    "$(figure app_receive)" "$(figure reference_parse)" "$(ratio app_receive reference_parse)"
echo "(CPU time per operation, mean of $rounds rounds of $iterations; the machine may be shared)"
