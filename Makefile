# The two commands: `make demo` (a tour on 8 virtual devices, then training an example network)
# and `make test`.
# Everything runs from a local virtualenv that these targets create on first use.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.stamp-install
EXAMPLES_STAMP := $(VENV)/.stamp-examples

# Real JAX, only to regenerate golden files (tests never need it).
JAX_VENV := .venv-jax
JAX_PYTHON ?= $(JAX_VENV)/bin/python
JAX_PACKAGES ?= jax==0.10.2 numpy ml_dtypes optree

LINT_PATHS := $(wildcard spmd tests bench examples)

.PHONY: venv test demo bench lint golden clean-venv

venv: $(STAMP)

# Re-installs whenever pyproject.toml changes.
$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV) || \
		{ echo "could not create $(VENV): install Python's venv module (Debian: python3-venv)"; exit 1; }
	$(PY) -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

test: venv
	$(PY) -m pytest -n 2 tests

# The examples' extra dependencies (scikit-learn's bundled data sets), on top of the venv.
$(EXAMPLES_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e '.[examples]'
	@touch $(EXAMPLES_STAMP)

demo: venv $(EXAMPLES_STAMP)
	$(PY) -m spmd.demo
	$(PY) examples/mlp_digits.py
	$(PY) examples/data_parallel.py
	$(PY) examples/multiprocess_training.py
	$(PY) -m spmd run -n 2 --devices 4 examples/multiprocess_training.py

bench: venv
	$(PY) bench/run.py

lint: venv
	@$(PY) -m ruff --version >/dev/null 2>&1 || $(PY) -m pip install --quiet ruff
	$(PY) -m ruff check $(LINT_PATHS)
	$(PY) -m ruff format --check $(LINT_PATHS)

golden:
	@if [ "$(JAX_PYTHON)" = "$(JAX_VENV)/bin/python" ] && [ ! -x "$(JAX_PYTHON)" ]; then \
		$(PYTHON) -m venv $(JAX_VENV) && $(JAX_VENV)/bin/pip install --quiet $(JAX_PACKAGES); \
	fi
	XLA_FLAGS=--xla_force_host_platform_device_count=8 $(JAX_PYTHON) tests/gen_golden.py

clean-venv:
	rm -rf $(VENV) $(JAX_VENV)
