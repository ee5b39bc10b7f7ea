#!/usr/bin/env bash
# Runs scripts/setup.sh's macOS branch on this machine with fake `uname`, `brew` and `swift`
# on PATH that record their arguments: what it installs, what it tells the person, and how
# it exits with no Homebrew or too old a Swift (docs/macos.md).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
    echo "test-setup-macos: FAIL: $*" >&2
    failures=$((failures + 1))
}

# expect_contains NAME FILE TEXT: FILE has TEXT as a whole line or part of one.
expect_contains() {
    grep -qF -- "$3" "$2" || fail "$1: expected '$3' in:"$'\n'"$(cat "$2")"
}

# make_tools DIR SWIFT_VERSION [brew]: fake uname (Darwin) and swift, and brew if asked,
# each appending its arguments to DIR/calls. The fake brew has nothing installed, and
# pkg-config is left off the fake PATH.
make_tools() {
    local dir="$1" version="$2"
    mkdir -p "$dir"
    printf '#!/bin/sh\necho "uname $*" >> "%s/calls"\necho Darwin\n' "$dir" > "$dir/uname"
    printf '#!/bin/sh\necho "swift $*" >> "%s/calls"\necho "swift-driver version: 1.127 Apple Swift version %s (swiftlang-6.2.0.19.9 clang-1700.3.19.1)"\n' \
        "$dir" "$version" > "$dir/swift"
    if [ "${3:-}" = brew ]; then
        cat > "$dir/brew" <<BREW
#!/bin/sh
echo "brew \$*" >> "$dir/calls"
case "\$1" in
    list) exit 1 ;;
    --prefix) echo "/opt/homebrew/opt/\$2" ;;
esac
exit 0
BREW
    fi
    chmod +x "$dir"/*
}

# run_setup DIR [VAR=VALUE...]: setup.sh with DIR first on a PATH of the basic tools only
# (no pkg-config, no real swift), its output in DIR/out and its exit status in DIR/status.
run_setup() {
    local dir="$1"
    shift
    mkdir -p "$dir/basic"
    for tool in bash sh cat grep head cut mkdir dirname; do
        ln -sf "$(command -v "$tool")" "$dir/basic/$tool"
    done
    set +e
    env -i HOME="$work" PATH="$dir:$dir/basic" "$@" bash "$root/scripts/setup.sh" > "$dir/out" 2>&1
    echo $? > "$dir/status"
    set -e
}

# 1. Homebrew present, nothing installed: one brew install of all three, the
#    PKG_CONFIG_PATH line for the keg-only openssl@3, and the Swift version check.
make_tools "$work/fresh" 6.2 brew
run_setup "$work/fresh"
[ "$(cat "$work/fresh/status")" = 0 ] || fail "fresh: exit $(cat "$work/fresh/status"), expected 0: $(cat "$work/fresh/out")"
expect_contains fresh "$work/fresh/calls" "uname -s"
expect_contains fresh "$work/fresh/calls" "brew list --versions openssl@3"
expect_contains fresh "$work/fresh/calls" "brew list --versions nghttp2"
[ "$(grep -c '^brew install' "$work/fresh/calls")" = 1 ] || fail "fresh: expected one brew install: $(cat "$work/fresh/calls")"
expect_contains fresh "$work/fresh/calls" "brew install openssl@3 nghttp2 pkg-config"
expect_contains fresh "$work/fresh/calls" "swift --version"
expect_contains fresh "$work/fresh/out" "setup: brew install openssl@3 nghttp2 pkg-config"
expect_contains fresh "$work/fresh/out" 'export PKG_CONFIG_PATH="$(brew --prefix openssl@3)/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"'
expect_contains fresh "$work/fresh/out" "setup: Swift 6.2 found; macOS is ready"
# The Debian branch did not run.
if grep -q "apt-get\|dpkg" "$work/fresh/out"; then fail "fresh: the Debian branch ran: $(cat "$work/fresh/out")"; fi

# 2. No Homebrew: the exact commands to run, on standard error, and exit 2.
make_tools "$work/nobrew" 6.2
run_setup "$work/nobrew"
[ "$(cat "$work/nobrew/status")" = 2 ] || fail "nobrew: exit $(cat "$work/nobrew/status"), expected 2: $(cat "$work/nobrew/out")"
expect_contains nobrew "$work/nobrew/out" "setup: Homebrew (brew) is not on PATH. Install it from https://brew.sh, then run:"
expect_contains nobrew "$work/nobrew/out" "  brew install openssl@3 nghttp2 pkg-config"
expect_contains nobrew "$work/nobrew/out" '  export PKG_CONFIG_PATH="$(brew --prefix openssl@3)/lib/pkgconfig'

# 3. SETUP_OS chooses the branch without uname; a Swift older than the package's tools
#    version 6.2 is refused with what to do, exit 1.
make_tools "$work/oldswift" 6.1 brew
rm "$work/oldswift/uname"
run_setup "$work/oldswift" SETUP_OS=Darwin
[ "$(cat "$work/oldswift/status")" = 1 ] || fail "oldswift: exit $(cat "$work/oldswift/status"), expected 1: $(cat "$work/oldswift/out")"
expect_contains oldswift "$work/oldswift/out" "setup: Package.swift needs Swift 6.2 or newer; 'swift --version' says: swift-driver version"
expect_contains oldswift "$work/oldswift/out" "xcode-select -s"
if grep -q "^uname" "$work/oldswift/calls"; then fail "oldswift: uname ran despite SETUP_OS"; fi

if [ "$failures" -gt 0 ]; then
    echo "test-setup-macos: $failures failure(s)" >&2
    exit 1
fi
echo "test-setup-macos: 3 cases passed"
