# The front door: `make build`, `make test`; see README.md.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
S8F    ?= ../shared/s8f

# make build: freeze RAW (default: the hand-written demo dump) into OUT.
RAW    ?= experiments/demo/gh-issues-demo.json
SOURCE ?= github.com/demo/widgets/issues?state=all (hand-written demo dump)
OUT    ?= experiments/demo/out

S8F_SOURCE := github.com/anthony-chaudhary/fak/issues?state=all&limit=1000
S8F_OUT    := experiments/s8f/out

.PHONY: install build test s8f clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -c 'import sys; sys.exit("s8f-duck needs Python 3.11 or newer" if sys.version_info < (3, 11) else 0)'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $@

build: install
	mkdir -p $(OUT)
	$(BIN)/s8f-duck freeze $(RAW) --source '$(SOURCE)' --db $(OUT)/corpus.duckdb \
	  --public $(OUT)/public.json --answers $(OUT)/answers.json --report $(OUT)/report.json

test: install
	$(BIN)/python -m pytest -q

# Reproduce the published S8f artifacts from ../shared/s8f and check their digests.
s8f: install
	@test -f $(S8F)/gh-issues-s8f-2026-08-09.json || { echo "make s8f: $(S8F) not found"; exit 2; }
	mkdir -p $(S8F_OUT)
	$(BIN)/s8f-duck freeze $(S8F)/gh-issues-s8f-2026-08-09.json --source '$(S8F_SOURCE)' \
	  --db $(S8F_OUT)/corpus.duckdb --public $(S8F_OUT)/public.json \
	  --answers $(S8F_OUT)/answers.json --report $(S8F_OUT)/report.json
	cd $(S8F_OUT) && printf '%s  %s\n' \
	  0740c911815eba7e44c63a14e021f418b66e8a42556d40f14b8b4cd58f173827 public.json \
	  af827ddca1063c602153f80b14523bda8d07e1a7e909a5c487616f2702eda05d answers.json | sha256sum -c -
	@echo "report differs from the published one only in scrubbed_matches (the raw dump is already scrubbed):"
	-diff $(S8F_OUT)/report.json $(S8F)/s8f-github-issues-report-2026-08-09.json

clean:
	rm -rf $(VENV) experiments/*/out
