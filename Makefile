# `make run` starts the dashboard; `make test` runs every test, browser tests included.
PY := .venv/bin/python

.PHONY: run test serve bench assets system-deps

run: .venv/.runtime
	$(PY) app.py

test: .venv/.dev system-deps
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
	$(PY) bench/bench_class_mode_store.py
	$(PY) bench/bench_class_mode.py

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

# Debian's Chromium for the browser tests (never a downloaded browser), nginx for the load-balancer test,
# PostgreSQL for the class-mode store's tests (started and stopped by tests/pg.py), zbarimg to read a QR code.
system-deps:
	@if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ] || [ ! -x /usr/sbin/nginx ] \
		|| ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || [ ! -x /usr/bin/zbarimg ]; then \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-driver nginx \
			postgresql zbar-tools; \
	fi
