# The two commands a new user needs are `make run` and `make test` (see README.md).
SHELL := /bin/bash
WYCHEPROOF_DIR ?= $(abspath ../shared/vectors/wycheproof)
export WYCHEPROOF_DIR

.PHONY: setup build release run test bench clean

setup:
	@bash scripts/setup.sh

build: setup
	swift build

release: setup
	swift build -c release

# Start apns-mock on its built-in defaults (TLS on 127.0.0.1:2197, certs/ material).
run: release
	.build/release/apns-mock

# A hung test must fail the run, not hold CI until its deadline.
test: setup
	swift build --build-tests
	timeout 1800 swift test

bench: release
	bash scripts/bench-transport.sh
	bash scripts/bench-jwt.sh
	bash scripts/bench-mock.sh
	bash scripts/bench-client.sh
	bash scripts/bench-gateway.sh
	bash scripts/bench-inspect.sh

clean:
	rm -rf .build
