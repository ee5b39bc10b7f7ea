#!/usr/bin/env bash
# Builds and runs the libFuzzer targets of Fuzz/ (docs/fuzzing.md).
#
#   scripts/fuzz.sh [TARGET...]        FUZZ_RUNS executions per target (default 10,000,000)
#   scripts/fuzz.sh --smoke            FUZZ_SMOKE_RUNS executions per target (default 2,000), for `make test`
#
# The package is built with `-sanitize=fuzzer,address` (the toolchain's own libFuzzer and
# ASan runtimes: Debian's clang would not match Swift's) into Fuzz/.build, so the normal
# build never sees the flags. Targets run one after another, one process at a time. Each
# starts from its seeds (Fuzz/Corpus/TARGET, never written to) and the inputs earlier
# campaigns found (Fuzz/.build/corpus/TARGET). A crash, a leak, an out-of-memory or a
# timeout fails the run and leaves the input in Fuzz/.build/artifacts/.
#
# Other settings: FUZZ_SECONDS (a time limit per target instead of a run count),
# FUZZ_TIMEOUT (seconds one input may take, default 30), FUZZ_ARGS (more libFuzzer flags).
set -euo pipefail
cd "$(dirname "$0")/../Fuzz"

all_targets=(fuzz-json fuzz-jwt fuzz-push fuzz-capture fuzz-config fuzz-http1 fuzz-http1parser fuzz-http2)
runs=${FUZZ_RUNS:-10000000}
smoke=0
if [ "${1:-}" = "--smoke" ]; then
    shift
    smoke=1
    runs=${FUZZ_SMOKE_RUNS:-2000}
fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")

# The flags reach every module of the suite, so coverage and ASan see all of it.
flags=(-c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -g)
build_started=$(date +%s)
mkdir -p .build
if ! swift build "${flags[@]}" > .build/build.log 2>&1; then
    grep -E 'error:' .build/build.log | head -n 20 >&2 || tail -n 30 .build/build.log >&2
    echo "fuzz: the build failed (log: $PWD/.build/build.log)" >&2
    exit 1
fi
bin=$(swift build "${flags[@]}" --show-bin-path)
for target in "${targets[@]}"; do
    [ -x "$bin/$target" ] || { echo "fuzz: $target was not built" >&2; exit 1; }
done
echo "fuzz: build took $(( $(date +%s) - build_started )) s"

# An input that runs longer than the timeout, or any leak, is a finding.
# Swift's own crash backtracer would read memory ASan guards, and wait; ASan reports instead.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
limit=(-runs="$runs")
[ -n "${FUZZ_SECONDS:-}" ] && limit=(-max_total_time="$FUZZ_SECONDS")

failed=0
summary=()
for target in "${targets[@]}"; do
    # A smoke run starts from the seeds alone, so its length does not grow with past campaigns.
    if [ $smoke = 1 ]; then corpus=.build/smoke-corpus/$target; rm -rf "$corpus"; else corpus=.build/corpus/$target; fi
    artifacts=.build/artifacts
    mkdir -p "$corpus" "$artifacts"
    log=.build/$target.log
    echo "== $target: ${limit[*]}"
    started=$(date +%s)
    set +e
    # shellcheck disable=SC2086
    "$bin/$target" "${limit[@]}" -timeout="${FUZZ_TIMEOUT:-30}" -rss_limit_mb=2048 -max_len=16384 \
        -print_final_stats=1 -artifact_prefix="$artifacts/$target-" ${FUZZ_ARGS:-} \
        "$corpus" "Corpus/$target" > "$log" 2>&1
    status=$?
    set -e
    seconds=$(( $(date +%s) - started ))
    executed=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    units=$(find "$corpus" -type f | wc -l)
    if [ $status -eq 0 ]; then
        result="ok"
    else
        failed=1
        artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
        result="FAILED (exit $status): $(grep -m1 -E 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)|Fatal error' "$log" || true) ${artifact:+input $artifact} (log $PWD/$log)"
    fi
    summary+=("$(printf '%-17s %12s executions %6s s %8s exec/s %6s corpus  %s' "$target" "${executed:-?}" "$seconds" "${rate:-?}" "$units" "$result")")
    echo "${summary[-1]}"
done

echo "== fuzz summary"
printf '%s\n' "${summary[@]}"
exit $failed
