#!/usr/bin/env bash
# Builds what the images hold and stages it as containers/Dockerfile's build context, in
# .build/container/context (or the folder given): bin/apns-mock, bin/push-inspect and
# bin/push-gateway, stripped, and certs/. No container tool is needed, so a Docker user runs
# this, then `docker build` (docs/containers.md); scripts/build-images.sh runs it for podman.
#
# Only the three products are built, in release with the Swift runtime linked in
# (--static-swift-stdlib), so that the images need no Swift libraries; they share
# .build/release with `make release`.
set -euo pipefail
cd "$(dirname "$0")/.."
context=${1:-.build/container/context}

for tool in swift strip; do
    command -v "$tool" >/dev/null || { echo "stage-image-context: $tool is missing" >&2; exit 1; }
done

products=(apns-mock push-inspect push-gateway)
for product in "${products[@]}"; do
    swift build -c release --static-swift-stdlib --product "$product"
done
bin=$(swift build -c release --show-bin-path)

rm -rf "$context"
mkdir -p "$context/bin" "$context/certs"
for product in "${products[@]}"; do
    strip -o "$context/bin/$product" "$bin/$product"
done
cp certs/*.pem certs/*.key certs/*.p8 "$context/certs/"
echo "stage-image-context: $context holds the binaries and certificates"
