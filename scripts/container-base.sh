#!/usr/bin/env bash
# Makes the images' base, localhost/debian:bookworm-slim, without a registry: a minbase
# debootstrap of bookworm from the Debian mirror apt already uses, imported into podman.
# The root file system is kept as a tarball in .build/container/ (which `make clean`
# removes), so a second run only imports it, and a run with the image present does nothing.
#
# Docker users do not need this: `FROM debian:bookworm-slim` pulls the same release from
# Docker Hub (docs/containers.md).
set -euo pipefail
cd "$(dirname "$0")/.."

image=localhost/debian:bookworm-slim
cache=.build/container
tarball=$cache/debian-bookworm-minbase.tar

if podman image exists "$image"; then
    exit 0
fi

# The first deb822 or one-line source of plain Debian (not -security, not a third party).
debian_mirror() {
    local uri
    uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null \
        | grep -Eo '(URIs:[[:space:]]*|^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?)[a-z]+://[^[:space:]]+/debian/?([[:space:]]|$)' \
        | grep -Eo '[a-z]+://[^[:space:]]+' | head -n 1 || true)
    echo "${uri:-http://deb.debian.org/debian}"
}

if [ ! -s "$tarball" ]; then
    command -v debootstrap >/dev/null || { echo "container-base: debootstrap is missing (scripts/setup.sh installs it)" >&2; exit 1; }
    mirror=$(debian_mirror)
    root=$(mktemp -d /tmp/bookworm-minbase.XXXXXX)
    trap 'rm -rf "$root"' EXIT
    echo "container-base: debootstrap --variant=minbase bookworm from $mirror"
    debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1 \
        || { tail -n 20 "$root.log" >&2; rm -f "$root.log"; echo "container-base: debootstrap failed" >&2; exit 1; }
    rm -f "$root.log"
    # What debian:bookworm-slim leaves out too: package lists, caches, documentation and
    # translations, now and in what the images install later.
    rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
        "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/usr/share/locale/*
    printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-include /usr/share/doc/*/copyright' \
        'path-exclude /usr/share/man/*' 'path-exclude /usr/share/info/*' 'path-exclude /usr/share/locale/*' \
        > "$root/etc/dpkg/dpkg.cfg.d/slim"
    mkdir -p "$cache"
    tar --numeric-owner -C "$root" -cf "$tarball.partial" .
    mv "$tarball.partial" "$tarball"
fi

echo "container-base: importing $tarball as $image"
podman import --quiet --change 'CMD ["/bin/bash"]' "$tarball" "$image" >/dev/null
