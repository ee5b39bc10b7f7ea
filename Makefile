# The two commands a new user needs are `make run` and `make test` (see README.md).
SHELL := /bin/bash
WYCHEPROOF_DIR ?= $(abspath ../shared/vectors/wycheproof)
export WYCHEPROOF_DIR

.PHONY: setup build release run test image bench fuzz demo clean

setup:
	@bash scripts/setup.sh

build: setup
	swift build

release: setup
	swift build -c release

# Start apns-mock on its built-in defaults (TLS on 127.0.0.1:2197, certs/ material).
run: setup
	swift build -c release --product apns-mock
	.build/release/apns-mock

# One test target at a time (each runs its own tests in parallel): the whole suite at once
# starved the two-core CI machine until liveness bounds expired. A hung test must fail the
# run, not hold CI until its deadline.
TEST_TARGETS = $(notdir $(wildcard Tests/*Tests))
POLL_TEST_TARGETS = HTTPTransportTests MockAPNsTests APNsClientTests
test: setup
	@# Only the system module and the event-loop backends name the C library (docs/ARCHITECTURE.md).
	bash scripts/check-os-seam.sh
	swift build --build-tests
	@set -e; for target in $(TEST_TARGETS); do \
	    echo "== $$target"; \
	    timeout 1200 swift test --skip-build --filter "^$$target\\."; \
	done
	@# The transport, mock and client targets again on the portable poll(2) backend, the one
	@# macOS runs (docs/transport.md); EventLoopBackendTests fails if the variable is ignored.
	@set -e; for target in $(POLL_TEST_TARGETS); do \
	    echo "== $$target (APNS_MOCK_EVENT_LOOP=poll)"; \
	    APNS_MOCK_EVENT_LOOP=poll timeout 1200 swift test --skip-build --filter "^$$target\\."; \
	done
	@# The README's first push and its mistakes, and make demo's script, on the debug builds.
	timeout 300 bash scripts/readme-bar.sh
	timeout 600 bash scripts/test-demo.sh
	@# setup.sh's macOS branch, with fake uname, brew and swift (docs/macos.md).
	timeout 120 bash scripts/test-setup-macos.sh
	@# A package depending on this one by version tag builds and embeds the mock.
	timeout 900 bash scripts/check-consumer.sh
	@# Every libFuzzer target, a few thousand inputs each (docs/fuzzing.md).
	timeout 1800 bash scripts/fuzz.sh --smoke
	@# Both images, built and run with podman as a CI job runs them (docs/containers.md).
	timeout 900 bash scripts/test-images.sh

# The apns-mock and push-gateway images (docs/containers.md), with podman.
image: setup
	bash scripts/build-images.sh

# The libFuzzer campaign: FUZZ_RUNS executions per target (default 10 M), one target at a
# time; FUZZ_TARGETS picks some (docs/fuzzing.md).
FUZZ_RUNS ?= 10000000
fuzz: setup
	FUZZ_RUNS=$(FUZZ_RUNS) bash scripts/fuzz.sh $(FUZZ_TARGETS)

bench: release
	bash scripts/bench-transport.sh
	bash scripts/bench-http1-parser.sh
	bash scripts/bench-jwt.sh
	bash scripts/bench-mock.sh
	bash scripts/bench-push-cpu.sh
	bash scripts/bench-event-loop.sh
	bash scripts/bench-broadcast.sh
	bash scripts/bench-delivery.sh
	bash scripts/bench-control.sh
	bash scripts/bench-dashboard.sh
	bash scripts/bench-client.sh
	bash scripts/bench-gateway.sh
	bash scripts/bench-inspect.sh
	bash scripts/bench-hermes.sh

# The whole Hermes chain on one machine: agent -> gateway -> mock -> virtual device (docs/hermes.md).
demo: setup
	bash scripts/demo-hermes.sh

# .build holds the images' cached Debian base too (.build/container); the images made from
# it go with it, so that the next `make image` starts from debootstrap.
clean:
	rm -rf .build
	@if command -v podman >/dev/null; then podman rmi localhost/apns-mock:latest localhost/push-gateway:latest \
	    localhost/apns-runtime-packages:latest localhost/debian:bookworm-slim >/dev/null 2>&1 || true; fi
