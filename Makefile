# The two entry points: `make demo` and `make test` (see README.md).
# The distribution's CPython when it is 3.11 or newer: Debian's is built with PGO and
# LTO and runs `template` ~10% faster than a default source (pyenv) build. Any other
# interpreter: make PYTHON=/path/to/python3.
PYTHON ?= $(shell for p in /usr/bin/python3 python3; do \
	$$p -c 'import sys, venv; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && { echo $$p; break; }; done)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install test lint unit e2e conformance demo clean testbed fuzz reliability lock lambda-zip

# The lock: uv.lock, resolved by uv from pyproject.toml for every platform and Python >= 3.11,
# and its exports with hashes, which pip installs (the Action, the image, the Lambda zip, this
# venv): base.txt (the CLI), aws.txt (with the aws extra), test.txt (aws and test extras).
# After a change to pyproject.toml's dependencies: `make lock`, then commit the four files.
UV_EXPORT := $(VENV)/bin/uv export --quiet --frozen --no-dev --no-emit-project --format requirements-txt
LOCKS := requirements/base.txt requirements/aws.txt requirements/test.txt

$(STAMP): pyproject.toml Makefile $(LOCKS)
	$(PYTHON) -m venv --clear $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --require-hashes --no-deps -r requirements/test.txt
	# compat: a plain path in a .pth; the default finder costs ~10 ms at every start
	$(PY) -m pip install --quiet --no-deps -e . --config-settings editable_mode=compat
	# setuptools builds in pip's isolated env; left in the venv, its distutils-precedence.pth
	# runs at every Python start (~0.5 ms per deploy-runner run)
	$(PY) -m pip uninstall --quiet --yes setuptools
	# our modules' bytecode, as pip compiles an installed wheel's: a process that finds none
	# compiles every module it imports (~100 ms a `template` run), and under
	# PYTHONDONTWRITEBYTECODE (CI images set it) every CLI process the tests start would
	$(PY) -m compileall -q -j 0 runner
	touch $(STAMP)

install: $(STAMP)

lock:
	$(VENV)/bin/uv lock
	$(UV_EXPORT) -o requirements/base.txt
	$(UV_EXPORT) --extra aws -o requirements/aws.txt
	$(UV_EXPORT) --extra aws --extra test -o requirements/test.txt

# ruff, then the import contracts of pyproject.toml (the layers of docs/architecture.md)
lint: $(STAMP)
	$(VENV)/bin/ruff check runner testbed tests benchmarks lambda action
	$(VENV)/bin/lint-imports --no-logo

# The suite's parallel workers (pytest-xdist; docs/testing.md): each worker process runs its
# own testbed and servers. The default, 2, is the CPUs of the 2-core machine CI runs on (the
# suite is bound by CPU there); PYTEST_WORKERS=0 runs everything in the pytest process itself,
# one test at a time (docs/testing.md says what was measured).
PYTEST_WORKERS ?= 2
WORKERS := -n $(PYTEST_WORKERS)
# More pytest options for `make test` and `make e2e`, e.g. where the CPU goes (tests/cpu.py):
# make test PYTEST_ARGS="--cpu-per-module 40 --durations=40"
PYTEST_ARGS ?=

unit: $(STAMP)
	$(PY) -m pytest -q tests/unit

e2e: $(STAMP) testbed
	$(PY) -m pytest -q $(WORKERS) $(PYTEST_ARGS) -m e2e tests/e2e

conformance: $(STAMP)
	$(PY) -m tests.conformance.harness
	$(PY) -m pytest -q tests/conformance

test: $(STAMP) lint testbed
	$(PY) -m pytest -q $(WORKERS) $(PYTEST_ARGS) tests

# The parsers of untrusted input under hypothesis, FUZZ_SECONDS a target (`make test`
# gives each 3 s). pytest -s prints the examples run per target.
FUZZ_SECONDS ?= 600
fuzz: $(STAMP)
	FUZZ_SECONDS=$(FUZZ_SECONDS) $(PY) -m pytest -q -s -p no:cacheprovider -o timeout=0 tests/fuzz

# The reliability campaign's full profile (tests/reliability; `make test` runs the quick one)
# with the damaged-records tests widened to every kind x every write; prints the figures.
reliability: $(STAMP) testbed
	RELIABILITY=full $(PY) -m pytest -q -p no:cacheprovider -o timeout=3600 tests/reliability tests/e2e/test_corrupt_records.py

# The Lambda function's zips, x86_64 and arm64, for the python3.12 runtime (docs/lambda.md):
# dist/lambda/deploy-runner-lambda-3.12-<arch>.zip from the lock (requirements/aws.txt), each
# size reported (the build fails above Lambda's 250 MB unzipped). A Python 3.12 on the
# machine (LAMBDA_PYTHON) adds the modules' bytecode, which Lambda cannot write itself.
LAMBDA_PYTHON ?= $(shell command -v python3.12)
lambda-zip: $(STAMP)
	$(PY) lambda/build.py --python-version 3.12 $(if $(LAMBDA_PYTHON),--compile-with $(LAMBDA_PYTHON))

# Builds (first time only) the testbed binaries, outside pytest's per-test timeout.
testbed: $(STAMP)
	$(PY) -m testbed build
	$(PY) -c 'from testbed.registry import registry_binary; print("registry:", registry_binary())'

# The product on the testbed: install, upgrade across a major chart version with
# .Release.History, roll back with history (a down-migration; examples/migrating-app), each CLI command printed before it runs.
# A testbed that stays up for your own commands: python -m testbed up
demo: $(STAMP) testbed
	$(PY) -m testbed.demo

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .import_linter_cache dist
