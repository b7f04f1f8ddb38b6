# VRAM Ledger — every command installs what it needs first (.ci/setup.sh, idempotent).
#   make serve   build the release bundle and serve it (ADDRESS=127.0.0.1 PORT=8080)
#   make test    every test: native, wasm in headless Chromium, end to end with playwright-core
#   make dist    the static bundle in dist/ (relative URLs: works under any sub-path)
#   make bench   speed and size figures (not pass/fail)
#   make card    the chapter's speed card regenerated from the ledger
#   make accuracy  docs/accuracy.md: the ledger against published measurements (tests/data/measured.toml)

ADDRESS ?= 127.0.0.1
PORT ?= 8080
export PATH := $(CURDIR)/node_modules/.bin:$(HOME)/.cargo/bin:$(PATH)
export CHROMEDRIVER ?= /usr/bin/chromedriver

.PHONY: serve test dist bench card links accuracy setup-app setup-test test-lint test-native test-python test-wasm test-e2e

setup-app:
	@.ci/setup.sh app

setup-test:
	@.ci/setup.sh test

dist: setup-app
	trunk build --release --offline
	@echo "dist/ is ready: $$(du -sh dist | cut -f1)"

serve: dist
	@echo "Serving VRAM Ledger on http://$(ADDRESS):$(PORT)/  (Ctrl-C stops)"
	node tests/e2e/serve.mjs dist --host $(ADDRESS) --port $(PORT)

test: setup-test
	$(MAKE) --no-print-directory test-lint test-native test-python test-wasm dist test-e2e

# Formatting (rustfmt.toml) and clippy with warnings as errors: native, wasm32, and the web app
# compiled for the host (the `prerender` feature the build's server-side render uses).
test-lint:
	cargo fmt --check
	cargo clippy --locked --all-targets -- -D warnings
	cargo clippy --locked --target wasm32-unknown-unknown --lib --bins --test browser -- -D warnings
	cargo clippy --locked --target wasm32-unknown-unknown --features page --bin vram-ledger-web -- -D warnings
	CARGO_TARGET_DIR=target/prerender cargo clippy --locked --features prerender --lib --bins -- -D warnings

test-native:
	cargo test --locked

# The Python tools' tests. tools/test_measure_gpu.py needs neither torch nor a GPU and always runs;
# tools/test_mem_report.py needs torch, which the CI machines do not have (PyPI's wheel pulls ~3 GB of
# CUDA libraries): it is skipped there, and this says so.
test-python:
	python3 -m unittest discover -s tools -p 'test_*.py'
	@python3 -c 'import torch' 2>/dev/null || \
		echo "torch is not installed: the mem_report.py demo, measure_gpu.py CPU-model, measure_saved.py count and measure_loss.py bytes-per-logit tests were skipped (the comparison is tested with the recorded tests/data/mem_report/recorded-cpu-torch-2.5.1.json)"

test-wasm:
	cargo test --locked --target wasm32-unknown-unknown --test browser

test-e2e:
	node --test --test-concurrency=1 tests/e2e/

bench: setup-test dist
	cargo bench --locked --bench ledger -- --noplot
	node tests/e2e/bench.mjs

card:
	cargo run --quiet --bin vram-ledger -- --card
	cargo run --quiet --bin vram-ledger -- --card-table > target/speed_card.rs.new && mv target/speed_card.rs.new src/ledger/speed_card.rs

# The accuracy report (issue 6). Writes the report even when it misses the bar, then fails.
accuracy:
	cargo run --quiet --locked --bin vram-ledger -- --accuracy tests/data/measured.toml > docs/accuracy.md.tmp; \
		status=$$?; mv docs/accuracy.md.tmp docs/accuracy.md; echo "docs/accuracy.md written"; exit $$status

# Regenerate the pinned totals of the fixed share links (tests/data/links.tsv).
links:
	cargo run --quiet --bin vram-ledger -- --links tests/data/links.txt > tests/data/links.tsv
