#!/usr/bin/env bash
# The operating-system seam (docs/ARCHITECTURE.md): outside the system module
# (Sources/SystemSeam, Sources/CSystemShims) and the event-loop backends
# (Sources/HTTPTransport/EventLoop/Backends), no file under Sources/ names the C library or
# a Linux-only interface, comments included. Test and fuzz code may name Linux-only
# interfaces (under `#if os(Linux)`), but never imports a C library unconditionally, so that
# it compiles wherever the library does: tests import SystemSeam; the fuzz package, which
# cannot see SystemSeam, imports each C library under `#if canImport(...)` of the same name.
# Prints each offending file:line; exit 1 if any.
#
#   bash scripts/check-os-seam.sh [SOURCES_DIR [TEST_DIR...]]    (defaults: Sources Tests Fuzz/Sources)
set -euo pipefail
cd "$(dirname "$0")/.."
sources="${1:-Sources}"
shift || true
test_dirs=("$@")
(( ${#test_dirs[@]} )) || test_dirs=(Tests Fuzz/Sources)
for dir in "$sources" "${test_dirs[@]}"; do
    [[ -d "$dir" ]] || { echo "Error: no folder $dir" >&2; exit 2; }
done

pattern='Glibc|epoll|eventfd|accept4|/proc'
seam='^('"$sources"'/SystemSeam/|'"$sources"'/CSystemShims/|'"$sources"'/HTTPTransport/EventLoop/Backends/)'

# file:line:text of each line that names the C library or a Linux-only interface outside the seam.
offences=$(grep -rnE "$pattern" "$sources" | grep -vE "$seam" || true)
# file:line:text of each `import Glibc` (Musl, Darwin) not right under `#if canImport(` that module `)`.
unguarded=$(find "${test_dirs[@]}" -name '*.swift' -exec awk '
    FNR == 1 { previous = "" }
    /^[ \t]*(@[A-Za-z_]+[ \t]+)?([a-z]+[ \t]+)?import[ \t]+(Glibc|Musl|Darwin)[ \t]*$/ {
        module = $NF
        if (previous !~ ("^[ \t]*#(if|elseif)[ \t]+canImport\\(" module "\\)[ \t]*$")) print FILENAME ":" FNR ":" $0
    }
    NF { previous = $0 }' {} +)

report() {
    while IFS= read -r line; do
        echo "  ${line%%:*}:$(cut -d: -f2 <<<"$line"): $(cut -d: -f3- <<<"$line" | sed 's/^[[:space:]]*//')" >&2
    done <<<"$1"
}
if [[ -n "$offences" ]]; then
    echo "check-os-seam: these lines name the C library or a Linux-only interface outside the seam;" >&2
    echo "call SystemSeam's typed functions instead (docs/ARCHITECTURE.md, \"The operating-system seam\"):" >&2
    report "$offences"
fi
if [[ -n "$unguarded" ]]; then
    echo "check-os-seam: these lines import a C library that only some platforms have; import SystemSeam" >&2
    echo "(tests), or put the import under \`#if canImport(<that module>)\` (the fuzz package):" >&2
    report "$unguarded"
fi
[[ -z "$offences" && -z "$unguarded" ]] || exit 1
echo "check-os-seam: no C library or Linux-only names outside the seam, no unguarded C library imports"
