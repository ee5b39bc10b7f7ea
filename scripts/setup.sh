#!/usr/bin/env bash
# Installs what the suite needs on a Debian machine, as root. Safe to run again:
# it installs only what is missing.
set -euo pipefail

# macOS (docs/macos.md): Homebrew's OpenSSL 3, nghttp2 and pkg-config, and a Swift 6.2+
# toolchain. SETUP_OS stands in for `uname -s`; scripts/test-setup-macos.sh runs this on Linux.
if [ "${SETUP_OS:-$(uname -s)}" = "Darwin" ]; then
    brew_packages=(openssl@3 nghttp2 pkg-config)
    pkg_config_line='export PKG_CONFIG_PATH="$(brew --prefix openssl@3)/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"'
    if ! command -v brew >/dev/null 2>&1; then
        echo "setup: Homebrew (brew) is not on PATH. Install it from https://brew.sh, then run:" >&2
        echo "  brew install ${brew_packages[*]}" >&2
        echo "  $pkg_config_line" >&2
        exit 2
    fi
    need_brew=()
    for pkg in openssl@3 nghttp2; do
        brew list --versions "$pkg" >/dev/null 2>&1 || need_brew+=("$pkg")
    done
    command -v pkg-config >/dev/null 2>&1 || need_brew+=(pkg-config)
    if [ ${#need_brew[@]} -gt 0 ]; then
        echo "setup: brew install ${need_brew[*]}"
        brew install "${need_brew[@]}"
    fi
    # openssl@3 is keg-only: pkg-config finds its openssl.pc only through PKG_CONFIG_PATH.
    echo "setup: openssl@3 is keg-only; before swift build, run (or add to your shell profile):"
    echo "  $pkg_config_line"
    if ! command -v swift >/dev/null 2>&1; then
        echo "setup: no Swift toolchain on PATH: install Xcode 26 or newer (xcode-select --install for its command line tools)," \
            "or a Swift 6.2+ toolchain from https://swift.org/install/macos, then run again" >&2
        exit 1
    fi
    swift_version="$(swift --version 2>&1 | grep -Eo 'Swift version [0-9]+\.[0-9]+' | head -n 1 | cut -d' ' -f3 || true)"
    swift_major="${swift_version%%.*}"
    swift_minor="${swift_version#*.}"
    if [ -z "$swift_version" ] || [ "$swift_major" -lt 6 ] || { [ "$swift_major" -eq 6 ] && [ "$swift_minor" -lt 2 ]; }; then
        echo "setup: Package.swift needs Swift 6.2 or newer; 'swift --version' says: $(swift --version 2>&1 | head -n 1)." \
            "Select a newer Xcode (sudo xcode-select -s /Applications/Xcode.app) or put a swift.org toolchain first on PATH" >&2
        exit 1
    fi
    echo "setup: Swift $swift_version found; macOS is ready"
    exit 0
fi

need_apt=()
# podman, runc and debootstrap build and run the images (scripts/build-images.sh, docs/containers.md).
# chromium and its driver run the dashboard's browser tests (docs/dashboard.md).
for pkg in libssl-dev libnghttp2-dev nghttp2-client nghttp2-server curl openssl pkg-config jq time wrk valgrind nginx-light \
    podman runc debootstrap binutils chromium chromium-driver; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need_apt+=("$pkg")
done
command -v python3 >/dev/null 2>&1 || need_apt+=(python3 python3-pip)
if [ ${#need_apt[@]} -gt 0 ]; then
    echo "setup: installing ${need_apt[*]}"
    export DEBIAN_FRONTEND=noninteractive
    # nginx (the gateway benchmark's HTTP/1.1 reference) would start a daemon on port 80
    # when installed: tell the package scripts not to start services, as Docker images do.
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
        trap 'rm -f /usr/sbin/policy-rc.d' EXIT
    fi
    apt-get update -qq
    apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

# Independent checks used by the tests: PyJWT + cryptography (tokens), h2 (raw HTTP/2).
if ! python3 -c "import jwt, cryptography, h2" 2>/dev/null; then
    echo "setup: installing PyJWT, cryptography and h2 for python3"
    python3 -m pip install -q pyjwt cryptography h2 2>/dev/null \
        || python3 -m pip install -q --break-system-packages pyjwt cryptography h2 2>/dev/null \
        || { apt-get update -qq && apt-get install -y -qq python3-jwt python3-cryptography python3-h2 >/dev/null; }
    python3 -c "import jwt, cryptography, h2"
fi

# Selenium drives the system chromium in the dashboard's browser tests (DashboardTests).
if ! python3 -c "import selenium" 2>/dev/null; then
    echo "setup: installing selenium for python3"
    python3 -m pip install -q selenium 2>/dev/null \
        || python3 -m pip install -q --break-system-packages selenium
    python3 -c "import selenium"
fi

# Real Python APNs clients whose snippets docs/clients.md shows and ClientSnippetTests runs.
# The module apns2 must come from apns2-up: PyPI's older "apns2" installs the same name.
clients_check='import aioapns, kalyke, apns2, importlib.metadata as m; m.version("apns2-up")'
if ! python3 -c "$clients_check" 2>/dev/null; then
    echo "setup: installing aioapns, kalyke-apns and apns2-up for python3"
    python3 -m pip install -q aioapns kalyke-apns apns2-up 2>/dev/null \
        || python3 -m pip install -q --break-system-packages aioapns kalyke-apns apns2-up
    python3 -c "$clients_check"
fi

if ! command -v swift >/dev/null 2>&1; then
    echo "setup: the Swift 6 toolchain is not on PATH; install it (https://swift.org) and run again" >&2
    exit 1
fi
