# `make run` starts the dashboard; `make test` runs every test, browser tests included (Chromium, and
# Firefox through tests/test_firefox.py); `make test-fast` runs the unit tests and the JavaScript rules.
PY := .venv/bin/python
# Installs only from a lock (`make lock`): every package, transitive ones, pip and setuptools included, is
# pinned by version and hash, and pip refuses anything else. Wheels only: building an sdist would fetch
# build dependencies that no hash pins.
PIP_INSTALL := $(PY) -m pip install -q --require-hashes --only-binary :all: -r

.PHONY: run test test-fast serve bench assets content messages lock system-deps node-tools

# The tests' compiled bytecode (pytest's rewritten test modules too) is kept in .venv/pycache, out of the
# source tree, even on a machine that sets PYTHONDONTWRITEBYTECODE: each run then skips compiling (3-4 s).
test test-fast: export PYTHONDONTWRITEBYTECODE =
test test-fast: export PYTHONPYCACHEPREFIX = $(CURDIR)/.venv/pycache

run: .venv/.runtime
	$(PY) app.py

# Both cores (pytest-xdist, a test file to a worker, so a file's fixtures start once), then the JavaScript
# rules under Node's own test runner.
test: .venv/.dev system-deps node-tools
	$(PY) -m pytest -n 2 --dist loadfile
	PYTHON=$(PY) node --test tests/node/

# No browser, gunicorn or nginx, and no scale or process test: the tests marked `browser`, `server` or
# `slow` are left out. The JavaScript rules under Node need no npm package.
test-fast: .venv/.dev
	$(PY) -m pytest -n 2 -m "not browser and not server and not slow"
	PYTHON=$(PY) node --test tests/node/

# A shared class server, nginx in front of gunicorn: see README, "Hosting for a class".
serve: .venv/.runtime
	@$(call apt_missing,/usr/sbin/nginx:nginx)
	$(PY) deploy/serve.py

# Figures for the README and the issue notes (wrk is Debian's).
bench: .venv/.dev system-deps node-tools
	@$(call apt_missing,/usr/bin/wrk:wrk)
	$(PY) bench/bench_core.py
	$(PY) bench/bench_update.py
	$(PY) bench/bench_load.py
	$(PY) bench/bench_interactions.py
	$(PY) bench/bench_training.py
	$(PY) bench/bench_class_mode_store.py
	$(PY) bench/bench_class.py
	$(PY) bench/bench_class_mode.py
	$(PY) bench/bench_lighthouse.py

# axe-core (tests/test_a11y.py), Lighthouse (bench/bench_lighthouse.py) and puppeteer-core (tests/firefox/,
# which drives Debian's firefox-esr) from npm, pinned by the lock file. No browser is ever downloaded.
node-tools:
	@$(call apt_missing,/usr/bin/npm:npm)
	cd tests/node && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --ignore-scripts

# Rebuild the vendored Bootstrap, the partial plotly.js and the typeset formulas (needs node and npm).
assets:
	tools/build_assets.sh

# Typeset the seed's text again, every language, after editing dashboard/content (needs node and npm).
content:
	cd tools/assets && npm ci --no-audit --no-fund && rm -rf ../../dashboard/content/rendered && \
		node render-math.js ../../dashboard/content ../../dashboard/content/rendered

# The message catalogs (Babel): extract the marked strings, merge them into each language's .po (new ones come
# out empty, for a translator), then compile the .mo files the app reads. Commit all three.
MESSAGES := dashboard/locale
messages: .venv/.dev
	.venv/bin/pybabel extract -F babel.cfg -c Translators: --no-location -w 120 --project "Multi-Head Attention Explorer" -o $(MESSAGES)/messages.pot .
	.venv/bin/pybabel update -i $(MESSAGES)/messages.pot -d $(MESSAGES) -w 120 --ignore-obsolete --no-fuzzy-matching
	.venv/bin/pybabel compile -d $(MESSAGES) --statistics

.venv/.runtime: requirements.lock
	python3 -m venv .venv
	$(PIP_INSTALL) requirements.lock
	touch $@

.venv/.dev: requirements-dev.lock
	python3 -m venv .venv
	$(PIP_INSTALL) requirements-dev.lock
	touch $@ .venv/.runtime

# Pin the whole set again after a change to requirements*.txt: pip-compile (pip-tools) resolves
# requirements-dev.txt into requirements-dev.lock, then requirements.txt into requirements.lock constrained
# by it, so the runtime lock is the dev lock's runtime part, same versions and hashes. Pins already in a
# lock are kept; to move some, e.g. `make lock LOCK_ARGS="--upgrade-package plotly"` (or `--upgrade`).
PIP_TOOLS := pip-tools==7.6.2
LOCK_ARGS :=
PIP_COMPILE = CUSTOM_COMPILE_COMMAND="make lock" "$$venv/bin/pip-compile" --quiet --generate-hashes --allow-unsafe \
	--strip-extras --no-emit-index-url --no-emit-find-links $(LOCK_ARGS)
lock:
	@set -e; venv=$$(mktemp -d); trap 'rm -rf "$$venv"' EXIT; \
	python3 -m venv "$$venv"; "$$venv/bin/pip" install -q $(PIP_TOOLS); \
	$(PIP_COMPILE) -o requirements-dev.lock requirements-dev.txt; \
	$(PIP_COMPILE) -c requirements-dev.lock -o requirements.lock requirements.txt; \
	grep -v '^ *#' requirements.lock | sort > "$$venv/runtime"; grep -v '^ *#' requirements-dev.lock | sort > "$$venv/dev"; \
	extra=$$(comm -23 "$$venv/runtime" "$$venv/dev"); \
	if [ -n "$$extra" ]; then echo "requirements.lock disagrees with requirements-dev.lock:"; echo "$$extra"; exit 1; fi

# Debian's Chromium for the browser tests and firefox-esr for the second engine, on xvfb's display so WebGL is
# there (never a downloaded browser), nginx for the load-balancer test, PostgreSQL for the class-mode store's
# tests (started and stopped by tests/pg.py), zbarimg to read a QR code, Noto's CJK fonts for the Chinese pages.
system-deps:
	@$(call apt_missing,/usr/bin/chromium:chromium /usr/bin/chromedriver:chromium-driver /usr/sbin/nginx:nginx \
		/usr/bin/firefox-esr:firefox-esr /usr/bin/xvfb-run:xvfb \
		/usr/lib/postgresql/*/bin/initdb:postgresql /usr/bin/zbarimg:zbar-tools \
		/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc:fonts-noto-cjk)

# $(call apt_missing,FILE:PACKAGE ...): apt-get install each PACKAGE whose FILE is missing, through sudo
# when not root; nothing at all when every FILE is there.
apt_missing = missing=$$(for dep in $(1); do ls $${dep%%:*} >/dev/null 2>&1 || echo "$${dep\#\#*:}"; done); \
	if [ -n "$$missing" ]; then \
		sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$sudo apt-get update && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing; \
	fi
