# `make run` starts the dashboard; `make test` runs every test, browser tests included.
PY := .venv/bin/python

.PHONY: run test system-deps

run: .venv/.runtime
	$(PY) app.py

test: .venv/.dev system-deps
	$(PY) -m pytest

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
