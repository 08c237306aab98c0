# Two commands for a newcomer: `make run` and `make test`. Both create .venv when it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m bot run

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy games scheduler data bot
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m bot bench

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
