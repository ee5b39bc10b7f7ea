#!/usr/bin/env bash
# Benchmarks JWTVerify against `openssl speed` on this machine, in one invocation:
#   1. openssl speed -seconds 3 ecdsap256   (verify/s and sign/s, one core)
#   2. the Swift jwt-bench executable, built with -c release
# and prints each Swift figure with its ratio to openssl's.
#
# Usage: scripts/bench-jwt.sh [seconds] [rounds]   (defaults 3 and 1; run from anywhere)
#
# With rounds > 1, openssl speed and jwt-bench alternate that many times and each figure is
# the best round: on a shared machine the best round is the one least disturbed by other
# processes, and both sides get the same treatment.
set -euo pipefail

seconds="${1:-3}"
rounds="${2:-1}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

echo "Building jwt-bench (release)..." >&2
swift build -c release --product jwt-bench >&2
bench="$(swift build -c release --show-bin-path)/jwt-bench"

max() { awk -v a="${1:-0}" -v b="$2" 'BEGIN { print (a + 0 >= b + 0 ? a : b) }'; }
openssl_sign=0 openssl_verify=0 verifies=0 signs=0 lookups=0 reuses=0 parses=0
for round in $(seq 1 "$rounds"); do
    echo "Round $round/$rounds: openssl speed -seconds $seconds ecdsap256..." >&2
    speed="$(openssl speed -seconds "$seconds" ecdsap256 2>/dev/null)"
    # The result line reads: " 256 bits ecdsa (nistp256)   0.0000s   0.0001s  33181.7  10960.9"
    read -r sign verify < <(echo "$speed" | awk '/ecdsa \(nistp256\)/ { print $(NF-1), $NF }' | tail -1)
    if [[ -z "${sign:-}" || -z "${verify:-}" ]]; then
        echo "Error: could not parse openssl speed output:" >&2
        echo "$speed" >&2
        exit 1
    fi
    openssl_sign="$(max "$openssl_sign" "$sign")"
    openssl_verify="$(max "$openssl_verify" "$verify")"

    echo "Round $round/$rounds: jwt-bench --seconds $seconds..." >&2
    results="$("$bench" --seconds "$seconds" --key "$root/certs/AuthKey_ABC123DEFG.p8")"
    value() { echo "$results" | awk -F= -v k="$1" '$1 == k { print $2 }'; }
    verifies="$(max "$verifies" "$(value uncached_verifies_per_sec)")"
    signs="$(max "$signs" "$(value signs_per_sec)")"
    lookups="$(max "$lookups" "$(value cached_lookups_per_sec)")"
    reuses="$(max "$reuses" "$(value same_connection_checks_per_sec)")"
    parses="$(max "$parses" "$(value token_parses_per_sec)")"
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f×", a / b }'; }
verify_ratio="$(ratio "$verifies" "$openssl_verify")"
sign_ratio="$(ratio "$signs" "$openssl_sign")"
lookup_status="$(awk -v a="$lookups" 'BEGIN { print (a >= 5000000 ? "met" : "NOT met") }')"
verify_status="$(awk -v a="$verifies" -v b="$openssl_verify" 'BEGIN { print (a / b >= 0.95 ? "met" : "NOT met") }')"

printf 'openssl speed ecdsap256: verify/s %s, sign/s %s (best of %s round(s))\n\n' "$openssl_verify" "$openssl_sign" "$rounds"
printf '| figure | Swift | vs openssl | target |\n'
printf '|---|---|---|---|\n'
printf '| uncached verifies/s (full JWT parse + ES256 verify) | %s | %s of %s verify/s | ≥ 0.95× (%s) |\n' \
    "$verifies" "$verify_ratio" "$openssl_verify" "$verify_status"
printf '| signs/s (full provider-token mint) | %s | %s of %s sign/s | |\n' "$signs" "$sign_ratio" "$openssl_sign"
printf '| cached-token lookups/s on one core (shared cache, new connection each call) | %s | | ≥ 5M/s (%s) |\n' "$lookups" "$lookup_status"
printf '| same-connection token checks/s (token already in force) | %s | | |\n' "$reuses"
printf '| token decodes/s (base64url + JSON + SHA-256, no ECDSA) | %s | | |\n' "$parses"
printf '\nFigures are per CPU second on one thread, as openssl speed counts them.\n'
