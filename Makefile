# Two commands for a newcomer: `make run` and `make test`. Both create .venv when it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test check lint typecheck bench browser postgres clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m bot run

# The tests run on both engines: .ci/with-postgres starts a throwaway PostgreSQL for them (installing
# Debian's package first when there is none, as root) and stops it at the end, whatever the outcome.
test: $(STAMP)
	.ci/with-postgres $(MAKE) --no-print-directory check

check: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy games scheduler data bot
	$(BIN)/python -m pytest

# A shell with a throwaway PostgreSQL and TEST_DATABASE_URL set, for running single tests on both
# engines (`.venv/bin/python -m pytest tests/test_store.py`); the server stops when the shell exits.
postgres:
	.ci/with-postgres $${SHELL:-bash}

bench: $(STAMP)
	$(BIN)/python -m bot bench

# The browser test (tests/test_web_browser.py) drives Debian's Chromium with Playwright; Playwright never
# downloads a browser. Installs the package when it is missing (as root); elsewhere the test is skipped.
browser:
	@if command -v chromium >/dev/null 2>&1; then echo "chromium: $$(command -v chromium)"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			chromium fonts-dejavu-core >/dev/null) \
		|| echo "chromium could not be installed: the browser test will be skipped"; \
	else echo "no chromium: install Debian's chromium package (as root: make browser); the browser test is skipped"; fi

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
