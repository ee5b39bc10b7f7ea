#!/usr/bin/env bash
# Benchmarks JWTVerify against `openssl speed` on this machine, in one invocation:
#   1. openssl speed -seconds 3 ecdsap256   (verify/s and sign/s, one core)
#   2. the Swift jwt-bench executable, built with -c release
# and prints each Swift figure with its ratio to openssl's.
#
# Usage: scripts/bench-jwt.sh [seconds] [rounds]   (defaults 3 and 1; run from anywhere)
#
# ECDSA verify time depends on the key and signature by several percent, and `openssl
# speed` draws one fresh key per run. So each round gives jwt-bench 8 fresh keys (verified
# round-robin), openssl speed and jwt-bench alternate for `rounds` rounds, and each figure
# is the mean over rounds: both sides are averaged over fresh keys the same way.
set -euo pipefail

seconds="${1:-3}"
rounds="${2:-3}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

echo "Building jwt-bench (release)..." >&2
swift build -c release --product jwt-bench >&2
bench="$(swift build -c release --show-bin-path)/jwt-bench"

# Both sides run pinned to the same core: on this VM the two vCPUs differ by up to 10%
# from moment to moment, which otherwise swamps a 5% comparison.
pin=()
command -v taskset >/dev/null 2>&1 && pin=(taskset -c "$(($(nproc) - 1))")
add() { awk -v a="${1:-0}" -v b="$2" 'BEGIN { print a + b }'; }
mean() { awk -v a="$1" -v n="$rounds" 'BEGIN { printf "%.0f", a / n }'; }
keys="$(mktemp -d)"
trap 'rm -rf "$keys"' EXIT
openssl_sign=0 openssl_verify=0 verifies=0 signs=0 lookups=0 reuses=0 parses=0
for round in $(seq 1 "$rounds"); do
    echo "Round $round/$rounds: openssl speed -seconds $seconds ecdsap256..." >&2
    speed="$("${pin[@]}" openssl speed -seconds "$seconds" ecdsap256 2>/dev/null)"
    # The result line reads: " 256 bits ecdsa (nistp256)   0.0000s   0.0001s  33181.7  10960.9"
    read -r sign verify < <(echo "$speed" | awk '/ecdsa \(nistp256\)/ { print $(NF-1), $NF }' | tail -1)
    if [[ -z "${sign:-}" || -z "${verify:-}" ]]; then
        echo "Error: could not parse openssl speed output:" >&2
        echo "$speed" >&2
        exit 1
    fi
    openssl_sign="$(add "$openssl_sign" "$sign")"
    openssl_verify="$(add "$openssl_verify" "$verify")"

    key_args=(--key "$root/certs/AuthKey_ABC123DEFG.p8")
    for index in 1 2 3 4 5 6 7; do
        openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$keys/key$index.p8"
        key_args+=(--key "$keys/key$index.p8")
    done

    echo "Round $round/$rounds: jwt-bench --seconds $seconds..." >&2
    results="$("${pin[@]}" "$bench" --seconds "$seconds" "${key_args[@]}")"
    value() { echo "$results" | awk -F= -v k="$1" '$1 == k { print $2 }'; }
    verifies="$(add "$verifies" "$(value uncached_verifies_per_sec)")"
    signs="$(add "$signs" "$(value signs_per_sec)")"
    lookups="$(add "$lookups" "$(value cached_lookups_per_sec)")"
    reuses="$(add "$reuses" "$(value same_connection_checks_per_sec)")"
    parses="$(add "$parses" "$(value token_parses_per_sec)")"
done

openssl_sign="$(mean "$openssl_sign")" openssl_verify="$(mean "$openssl_verify")"
verifies="$(mean "$verifies")" signs="$(mean "$signs")" lookups="$(mean "$lookups")"
reuses="$(mean "$reuses")" parses="$(mean "$parses")"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f×", a / b }'; }
verify_ratio="$(ratio "$verifies" "$openssl_verify")"
sign_ratio="$(ratio "$signs" "$openssl_sign")"
lookup_status="$(awk -v a="$lookups" 'BEGIN { print (a >= 5000000 ? "met" : "NOT met") }')"
verify_status="$(awk -v a="$verifies" -v b="$openssl_verify" 'BEGIN { print (a / b >= 0.95 ? "met" : "NOT met") }')"

printf 'openssl speed ecdsap256: verify/s %s, sign/s %s (mean of %s rounds)\n\n' "$openssl_verify" "$openssl_sign" "$rounds"
printf '| figure | Swift | vs openssl | target |\n'
printf '|---|---|---|---|\n'
printf '| uncached verifies/s (full JWT parse + ES256 verify) | %s | %s of %s verify/s | ≥ 0.95× (%s) |\n' \
    "$verifies" "$verify_ratio" "$openssl_verify" "$verify_status"
printf '| signs/s (full provider-token mint) | %s | %s of %s sign/s | |\n' "$signs" "$sign_ratio" "$openssl_sign"
printf '| cached-token lookups/s on one core (shared cache, new connection each call) | %s | | ≥ 5M/s (%s) |\n' "$lookups" "$lookup_status"
printf '| same-connection token checks/s (token already in force) | %s | | |\n' "$reuses"
printf '| token decodes/s (base64url + JSON + SHA-256, no ECDSA) | %s | | |\n' "$parses"
printf '\nFigures are per CPU second on one thread, as openssl speed counts them.\n'
