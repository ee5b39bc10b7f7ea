#!/usr/bin/env bash
# `make image`: builds the binaries the images hold and the two images, with podman.
#
#   localhost/apns-mock:latest     apns-mock and push-inspect, the test keys and certificates
#   localhost/push-gateway:latest  push-gateway
#
# Only the three products are built, in release with the Swift runtime linked in
# (--static-swift-stdlib), so the images need no Swift libraries; they share .build/release
# with `make release`. The Dockerfile (containers/Dockerfile) is plain Docker; what is
# podman's here is only how it is run: chroot isolation and the host's network for apt-get,
# because this machine's runtimes cannot set up the default ones (docs/containers.md).
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in podman swift strip; do
    command -v "$tool" >/dev/null || { echo "build-images: $tool is missing (scripts/setup.sh installs podman)" >&2; exit 1; }
done

bash scripts/container-base.sh

products=(apns-mock push-inspect push-gateway)
for product in "${products[@]}"; do
    swift build -c release --static-swift-stdlib --product "$product"
done
bin=$(swift build -c release --show-bin-path)

context=.build/container/context
rm -rf "$context"
mkdir -p "$context/bin" "$context/certs"
for product in "${products[@]}"; do
    strip -o "$context/bin/$product" "$bin/$product"
done
cp certs/*.pem certs/*.key certs/*.p8 "$context/certs/"

for target in apns-mock push-gateway; do
    previous=$(podman image inspect --format '{{.Id}}' "localhost/$target:latest" 2>/dev/null || true)
    podman build --quiet --format docker --isolation chroot --network host --pull=never \
        --build-arg BASE_IMAGE=localhost/debian:bookworm-slim \
        -f containers/Dockerfile --target "$target" -t "localhost/$target:latest" "$context" >/dev/null
    # The image this build replaced, unless a container still uses it.
    current=$(podman image inspect --format '{{.Id}}' "localhost/$target:latest")
    if [ -n "$previous" ] && [ "$previous" != "$current" ]; then podman rmi "$previous" >/dev/null 2>&1 || true; fi
done
# The outdated copies of the stage that gathers the runtime files (each holds the binaries).
podman image prune --force --filter label=io.github.swift-apns-mock.stage=runtime-files >/dev/null
podman image ls --format '{{.Repository}}:{{.Tag}}  {{.Size}}' --filter reference=localhost/apns-mock:latest \
    --filter reference=localhost/push-gateway:latest
