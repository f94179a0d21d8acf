# The two commands of the README: `make run` and `make test`. Both create .venv when needed.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cksum requirements.txt | cut -d' ' -f1)
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: setup run test test-production lint test-only bench loadtest browsers clean

setup: $(STAMP)

$(STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

# DEBUG is off unless set (guandan_tourney/settings.py); a laptop run turns it on.
run: setup
	DEBUG=$${DEBUG:-1} $(PY) manage.py migrate --noinput
	DEBUG=$${DEBUG:-1} $(PY) manage.py demo --if-empty
	DEBUG=$${DEBUG:-1} $(PY) manage.py runserver $(HOST):$(PORT)

browsers:
	@bash scripts/ensure_chromium.sh

lint: setup
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

# The suite runs on every core (pytest-xdist); the browser flows share one worker, in order.
# `make test XDIST=` runs it in one process.
XDIST ?= -n auto --dist loadgroup

test: setup browsers lint
	DEBUG=1 $(PY) manage.py makemigrations --check --dry-run
	$(PY) -m pytest $(XDIST) $(PYTEST_ARGS)
	bash scripts/test_production.sh

# The DEBUG=0 leg (~40 s): production's settings, collectstatic and the manifest storage; /sw.js,
# the web manifest, every static file a page names, the offline sheet in Chromium.
test-production: setup browsers
	bash scripts/test_production.sh $(PYTEST_ARGS)

bench: setup
	DEBUG=$${DEBUG:-1} $(PY) -m benchmarks.run

# The load test runs gunicorn against PostgreSQL on this machine (started here if it is not up).
loadtest: setup
	@pg_isready -h 127.0.0.1 -p 5432 -q || pg_ctlcluster --skip-systemctl-redirect "$$(ls /etc/postgresql)" main start
	$(PY) -m benchmarks.loadtest

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
