# `make run` starts the dashboard; `make test` runs every test, browser tests included.
PY := .venv/bin/python

.PHONY: run test serve bench assets system-deps node-tools

run: .venv/.runtime
	$(PY) app.py

test: .venv/.dev system-deps node-tools
	$(PY) -m pytest

# A shared class server: see README, "Hosting for a class".
serve: .venv/.runtime
	.venv/bin/gunicorn --workers 2 --threads 4 --preload --bind 0.0.0.0:$${PORT:-8050} app:server

# Figures for the README and the issue notes (wrk is Debian's).
bench: .venv/.dev system-deps
	@[ -x /usr/bin/wrk ] || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y wrk)
	$(PY) bench/bench_core.py
	$(PY) bench/bench_update.py
	$(PY) bench/bench_load.py
	$(PY) bench/bench_browser.py
	$(PY) bench/bench_training.py
	$(MAKE) node-tools
	$(PY) bench/bench_lighthouse.py

# axe-core (tests/test_a11y.py) and Lighthouse (bench/bench_lighthouse.py) from npm, pinned by the lock file.
node-tools:
	@[ -x /usr/bin/npm ] || (apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y nodejs npm)
	cd tests/node && npm ci --no-audit --no-fund --ignore-scripts

# Rebuild the vendored Bootstrap, the partial plotly.js and the typeset formulas (needs node and npm).
assets:
	tools/build_assets.sh

.venv/.runtime: requirements.txt
	python3 -m venv .venv
	$(PY) -m pip install -q -r requirements.txt
	touch $@

.venv/.dev: requirements.txt requirements-dev.txt
	python3 -m venv .venv
	$(PY) -m pip install -q -r requirements-dev.txt
	touch $@ .venv/.runtime

# Debian's Chromium for the browser tests (never a downloaded browser), nginx for the load-balancer test.
system-deps:
	@if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ] || [ ! -x /usr/sbin/nginx ]; then \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-driver nginx; \
	fi
