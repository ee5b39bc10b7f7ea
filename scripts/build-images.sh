#!/usr/bin/env bash
# `make image`: builds the binaries the images hold and the two images, with podman.
#
#   localhost/apns-mock:latest     apns-mock and push-inspect, the test keys and certificates
#   localhost/push-gateway:latest  push-gateway
#
# The Dockerfile (containers/Dockerfile) is plain Docker; what is podman's here is only how
# it is run: chroot isolation and the host's network for apt-get, because this machine's
# runtimes cannot set up the default ones, and the base made by scripts/container-base.sh
# (docs/containers.md, "What is tested here").
set -euo pipefail
cd "$(dirname "$0")/.."

command -v podman >/dev/null || { echo "build-images: podman is missing (scripts/setup.sh installs it)" >&2; exit 1; }

bash scripts/container-base.sh
context=.build/container/context
bash scripts/stage-image-context.sh "$context"

build() {
    podman build --quiet --format docker --isolation chroot --network host --pull=never \
        --build-arg BASE_IMAGE=localhost/debian:bookworm-slim --build-arg RUNTIME_PACKAGES=localhost/apns-runtime-packages:latest \
        -f containers/Dockerfile "$@" "$context" >/dev/null
}
# The Debian packages the binaries load, tagged so that their layer is reused (the Dockerfile says why).
build --target runtime-packages -t localhost/apns-runtime-packages:latest
for target in apns-mock push-gateway; do
    previous=$(podman image inspect --format '{{.Id}}' "localhost/$target:latest" 2>/dev/null || true)
    build --target "$target" -t "localhost/$target:latest"
    # The image this build replaced, unless a container still uses it.
    current=$(podman image inspect --format '{{.Id}}' "localhost/$target:latest")
    if [ -n "$previous" ] && [ "$previous" != "$current" ]; then podman rmi "$previous" >/dev/null 2>&1 || true; fi
done
# The stage that gathers the runtime files holds a copy of the binaries: 180 MB per build.
podman image prune --force --filter label=io.github.swift-apns-mock.stage=runtime-files >/dev/null
podman image ls --format '{{.Repository}}:{{.Tag}}  {{.Size}}' --filter reference=localhost/apns-mock:latest \
    --filter reference=localhost/push-gateway:latest
