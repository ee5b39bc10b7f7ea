#!/usr/bin/env bash
# The operating-system seam (docs/ARCHITECTURE.md): outside the system module
# (Sources/SystemSeam, Sources/CSystemShims) and the event-loop backends
# (Sources/HTTPTransport/EventLoop/Backends), no file under Sources/ names the C library or
# a Linux-only interface, comments included. Prints each offending file:line; exit 1 if any.
#
#   bash scripts/check-os-seam.sh [SOURCES_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
sources="${1:-Sources}"
[[ -d "$sources" ]] || { echo "Error: no folder $sources" >&2; exit 2; }

pattern='Glibc|epoll|eventfd|accept4|/proc'
seam='^('"$sources"'/SystemSeam/|'"$sources"'/CSystemShims/|'"$sources"'/HTTPTransport/EventLoop/Backends/)'

offences=$(grep -rnE "$pattern" "$sources" | grep -vE "$seam" || true)
if [[ -n "$offences" ]]; then
    echo "check-os-seam: these lines name the C library or a Linux-only interface outside the seam;" >&2
    echo "call SystemSeam's typed functions instead (docs/ARCHITECTURE.md, \"The operating-system seam\"):" >&2
    while IFS= read -r line; do
        echo "  ${line%%:*}:$(cut -d: -f2 <<<"$line"): $(cut -d: -f3- <<<"$line" | sed 's/^[[:space:]]*//')" >&2
    done <<<"$offences"
    exit 1
fi
echo "check-os-seam: no C library or Linux-only names outside the seam"
