# Trawl — developer entry points. `make run` and `make test` work on a fresh machine.
SHELL := /bin/bash
.DEFAULT_GOAL := help
NODE_MODULES_STAMP := node_modules/.install-stamp

.PHONY: help setup services build migrate run test test-unit test-integration test-e2e typecheck lint lint-code lint-format format bench scale-out image-proof cluster-proof sdk clean

help:
	@echo "make run    - set up and run the whole platform locally (Ctrl-C stops it)"
	@echo "make test   - typecheck, lint and run every test (unit, integration, e2e)"
	@echo "make bench  - benchmarks (crawl: Trawl vs. Crawlee and the one-process limit, 5,000 and 100,000 pages; fetch: gateway overhead, js_render vs. puppeteer-core; batch: 100k tasks vs. undici, webhook latency; stealth: detectors and TLS fingerprints vs. puppeteer-core and Chromium)"
	@echo "make scale-out - two crawl coordinators, schedulers and fetch workers run a 100,000-page crawl and a 100,000-task batch exactly (make test runs it at 10,000)"
	@echo "make migrate - apply database migrations to DATABASE_URL"
	@echo "make sdk    - build the publishable TypeScript SDK into dist/packages/sdk (npm publish dist/packages/sdk)"
	@echo "make image-proof - build the Dockerfile on a local bookworm base with podman and run the gateway and a worker from it (root)"
	@echo "make cluster-proof - helm install the chart on a real single-node Kubernetes and prove it under deletions, upgrade, rollback and scaling (root)"

services:
	@./tools/ensure-services.sh

$(NODE_MODULES_STAMP): package.json package-lock.json
	# npm install, not npm ci: npm 11 leaves @swc/core's other-platform binaries out of the lock
	# file and then refuses `npm ci`; install still follows the lock for every package it has.
	npm install --no-audit --no-fund
	@touch $@

setup: services $(NODE_MODULES_STAMP)

build: $(NODE_MODULES_STAMP)
	rm -rf dist
	npx tsc -p tsconfig.build.json

typecheck: $(NODE_MODULES_STAMP)
	npx tsc -p tsconfig.json --noEmit

# One formatter for all code (Prettier, .prettierrc.json): lint fails on a file it would change;
# `make format` changes them.
PRETTIER_FILES := "**/*.{ts,js,mjs,cjs}"

lint: lint-code lint-format

lint-code: $(NODE_MODULES_STAMP)
	npx eslint .

lint-format: $(NODE_MODULES_STAMP)
	npx prettier --check --log-level warn $(PRETTIER_FILES)

format: $(NODE_MODULES_STAMP)
	npx prettier --write --log-level warn $(PRETTIER_FILES)

sdk: $(NODE_MODULES_STAMP)
	node libs/sdk/scripts/build-package.js

migrate: setup build
	node -r ./tools/register-aliases.js dist/libs/persistence/src/cli/migrate.js

run: migrate
	node -r ./tools/register-aliases.js dist/tools/run-local.js

test-unit: $(NODE_MODULES_STAMP)
	npx jest --selectProjects unit

# Some suites run what `build` compiles (npm scripts, the CLI).
test-integration: setup build
	npx jest --selectProjects integration

test-e2e: setup build
	npx jest --selectProjects e2e --runInBand

# The checks before the tests share no files (eslint and prettier skip dist/), so they run side by
# side: each is one process on one core (106 s one after another here, 80 s together). Two jest
# workers even on two cores: jest's default (cores − 1) runs one suite at a time, and most
# integration suites wait on Postgres, NATS or Chromium rather than use a core (463 s → 270 s here).
test: setup
	$(MAKE) --no-print-directory --output-sync=target -j4 typecheck lint-code lint-format build
	npx jest --selectProjects unit integration --maxWorkers=2
	npx jest --selectProjects e2e --runInBand

bench: setup build
	node -r ./tools/register-aliases.js dist/bench/crawl-bench.js
	node -r ./tools/register-aliases.js dist/bench/crawl-bench.js --pages 5000 --concurrency 32 --only trawl,limit --filler-bytes 7500 --links 21
	node -r ./tools/register-aliases.js dist/bench/crawl-bench.js --pages 100000 --concurrency 32 --only trawl,limit --rounds 1 --timeout 1800 --filler-bytes 7500 --links 21
	node -r ./tools/register-aliases.js dist/bench/fetch-bench.js
	node -r ./tools/register-aliases.js dist/bench/batch-bench.js
	node -r ./tools/register-aliases.js dist/bench/batch-bench.js --only tasks --tasks 20000 --latency-ms 0
	node -r ./tools/register-aliases.js dist/bench/extract-bench.js
	node -r ./tools/register-aliases.js dist/bench/stealth-bench.js
	node -r ./tools/register-aliases.js dist/bench/map-bench.js
	node -r ./tools/register-aliases.js dist/bench/politeness-bench.js

# The scale-out e2e suite at the issue's size (make test runs it at 10,000 to stay in its budget).
scale-out: setup build
	TRAWL_SCALE_OUT_SIZE=100000 npx jest test/e2e/scale-out.e2e-spec.ts --selectProjects e2e --runInBand

# The container image, proven without an image registry: deploy/image/README.md.
image-proof: services
	bash deploy/image/proof.sh

# The chart on a real node, pods running the images built here: deploy/cluster/README.md.
cluster-proof: build
	bash deploy/cluster/proof.sh

clean:
	rm -rf dist test-output
