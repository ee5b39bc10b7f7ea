#!/usr/bin/env bash
# Benchmarks `push-inspect check --profile hermes --profile apple` against an equivalent jq
# filter (scripts/bench-inspect/equivalent.jq) in one invocation, and prints push-inspect's
# peak RSS.
#
# Usage: scripts/bench-inspect.sh [pushes] [jq-pushes]   (defaults 1000000 and 20000)
#
#   1. generates `pushes` capture lines of Hermes pushes (one in 1000 leaks a command), cached
#      in .build/bench-inspect/;
#   2. times push-inspect over all of them (wall, CPU, peak RSS via /usr/bin/time -v);
#   3. times push-inspect and two jq filters over the first `jq-pushes` lines: the full
#      equivalent (whose leak detectors are one oniguruma regex per string) and the same
#      filter without the leak regex (a lower bound for any jq equivalent);
#   4. checks that push-inspect and the full jq filter find the same failing pushes, and
#      prints throughput ratios by CPU time (the machine may be shared) and by wall time.
#
# jq runs on a prefix only because the full filter needs about 5 ms per push: a million
# would take hours. The ratios compare pushes per second on the same lines.
set -euo pipefail

pushes="${1:-1000000}"
jq_pushes="${2:-20000}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
for tool in jq python3 /usr/bin/time; do
    command -v "$tool" >/dev/null 2>&1 || { echo "Error: $tool is missing; run scripts/setup.sh" >&2; exit 1; }
done
(( jq_pushes <= pushes )) || jq_pushes="$pushes"

echo "Building push-inspect (release)..." >&2
swift build -c release --product push-inspect >&2
inspect="$(swift build -c release --show-bin-path)/push-inspect"

data_dir=".build/bench-inspect"
mkdir -p "$data_dir"
data="$data_dir/pushes-$pushes.jsonl"
if [[ ! -s "$data" ]]; then
    echo "Generating $pushes capture lines..." >&2
    python3 scripts/bench-inspect/generate.py "$pushes" > "$data.tmp"
    mv "$data.tmp" "$data"
fi
prefix="$data_dir/pushes-$pushes-first-$jq_pushes.jsonl"
head -n "$jq_pushes" "$data" > "$prefix"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
sed 's/^def leaky: test(leakpattern) or /def leaky: /' scripts/bench-inspect/equivalent.jq > "$work/no-leak-regex.jq"

# Runs a command with stdout to a file; prints "wall cpu peak_kb" from /usr/bin/time -v.
measure() {
    local out="$1"; shift
    /usr/bin/time -v -o "$work/time" "$@" > "$out" || [[ $? -eq 1 ]]
    awk -F': ' '
        /Elapsed \(wall clock\)/ { n = split($2, p, ":"); wall = (n == 3) ? p[1]*3600 + p[2]*60 + p[3] : p[1]*60 + p[2] }
        /User time/ { user = $2 } /System time/ { sys = $2 } /Maximum resident/ { rss = $2 }
        END { printf "%.3f %.3f %d\n", wall, user + sys, rss }' "$work/time"
}
check=("$inspect" check --profile hermes --profile apple --json)

echo "push-inspect over $pushes pushes..." >&2
read -r all_wall all_cpu all_rss < <(measure "$work/all.json" "${check[@]}" "$data")
echo "push-inspect over the first $jq_pushes pushes..." >&2
read -r pi_wall pi_cpu pi_rss < <(measure "$work/prefix.json" "${check[@]}" "$prefix")
echo "jq (full equivalent) over the first $jq_pushes pushes..." >&2
read -r jq_wall jq_cpu jq_rss < <(measure "$work/jq.jsonl" jq -c -f scripts/bench-inspect/equivalent.jq "$prefix")
echo "jq (without the leak regex) over the first $jq_pushes pushes..." >&2
read -r jn_wall jn_cpu jn_rss < <(measure "$work/jq-no-leak.jsonl" jq -c -f "$work/no-leak-regex.jq" "$prefix")

inspect_failed="$(jq '.failed' "$work/prefix.json")"
jq_failed="$(wc -l < "$work/jq.jsonl" | tr -d ' ')"
all_failed="$(jq '.failed' "$work/all.json")"
rate() { awk -v n="$1" -v s="$2" 'BEGIN { if (s <= 0) s = 0.001; printf "%.0f", n / s }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a <= 0) a = 0.001; printf "%.1f", b / a }'; }

echo
echo "push-inspect check --profile hermes --profile apple vs jq ($(nproc) cores; load $(cut -d' ' -f1 /proc/loadavg))"
printf "  %-44s %10s %12s %12s %10s\n" "run" "pushes" "pushes/s" "pushes/cpu-s" "peak RSS"
printf "  %-44s %10d %12s %12s %8d KB\n" "push-inspect, all pushes" "$pushes" "$(rate "$pushes" "$all_wall")" "$(rate "$pushes" "$all_cpu")" "$all_rss"
printf "  %-44s %10d %12s %12s %8d KB\n" "push-inspect, prefix" "$jq_pushes" "$(rate "$jq_pushes" "$pi_wall")" "$(rate "$jq_pushes" "$pi_cpu")" "$pi_rss"
printf "  %-44s %10d %12s %12s %8d KB\n" "jq equivalent, prefix" "$jq_pushes" "$(rate "$jq_pushes" "$jq_wall")" "$(rate "$jq_pushes" "$jq_cpu")" "$jq_rss"
printf "  %-44s %10d %12s %12s %8d KB\n" "jq without leak regex (lower bound), prefix" "$jq_pushes" "$(rate "$jq_pushes" "$jn_wall")" "$(rate "$jq_pushes" "$jn_cpu")" "$jn_rss"
echo
echo "  failing pushes in the prefix: push-inspect $inspect_failed, jq $jq_failed (all pushes: $all_failed)"
echo "  speed-up vs jq equivalent:      $(ratio "$pi_cpu" "$jq_cpu")x by CPU time, $(ratio "$pi_wall" "$jq_wall")x by wall time"
echo "  speed-up vs jq without leaks:   $(ratio "$pi_cpu" "$jn_cpu")x by CPU time, $(ratio "$pi_wall" "$jn_wall")x by wall time"
echo "  peak RSS over $pushes pushes:   $((all_rss / 1024)) MB (target < 50 MB)"
if [[ "$inspect_failed" != "$jq_failed" ]]; then
    echo "Error: push-inspect and jq disagree on the failing pushes" >&2
    exit 1
fi
