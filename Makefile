# Mnemos: `make run` serves it on the embedded default, `make test` runs the suite.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup run test lint format bench docs clean

$(STAMP): requirements.txt requirements-dev.txt $(wildcard vendor/e5engine/*.py vendor/e5engine/*.toml vendor/e5engine/mnemos_e5engine/*)
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	rm -rf vendor/e5engine/build vendor/e5engine/*.egg-info
	touch $(STAMP)

setup: $(STAMP)

run: setup
	$(PY) manage.py serve

test: setup
	$(PY) -m pytest

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy .

format: setup
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: setup
	$(PY) -m bench.run

clean:
	rm -rf var/broker
