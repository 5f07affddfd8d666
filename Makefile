# The two README commands: `make demo` (set up, then run on examples/icml2026) and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
# Extras installed with the package: `make test` for a user installs dev only; CI (.ci/run) adds ray.
EXTRAS ?= dev
comma := ,
# The default keeps its old stamp name, so an installed checkout is not installed again.
STAMP := $(VENV)/.installed$(if $(filter-out dev,$(EXTRAS)),-$(subst $(comma),-,$(EXTRAS)))

.PHONY: install browser demo test check clean

install: $(STAMP)

# pyproject.toml declares compatible ranges; constraints.txt pins the exact versions we test.
$(STAMP): pyproject.toml constraints.txt Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q -c constraints.txt -e ".[$(EXTRAS)]"
	touch $(STAMP)

demo: install
	$(BIN)/paperscope demo

# Browser tests drive Debian's Chromium (never a downloaded browser), and the export tests read
# the exports back with Debian's pandoc --citeproc, biber --validate-datamodel and bibutils' ris2xml
# (tests/test_title_source.py, tests/test_export_clients.py); installed when missing and root.
browser:
	@{ test -x /usr/bin/chromium && test -x /usr/bin/pandoc && test -x /usr/bin/biber && test -x /usr/bin/ris2xml; } || \
		{ test "$$(id -u)" = 0 && apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium pandoc >/dev/null && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends biber bibutils >/dev/null; }

test: install browser
	$(BIN)/python -m pytest -q

check: install
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

clean:
	rm -rf $(VENV) build src/*.egg-info
