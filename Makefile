PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: install test test-fast run bench bench-local lint docs docs-serve clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

install: $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'

test: install
	$(BIN)/python -m pytest -q -n auto --dist loadfile

test-fast: install
	$(BIN)/python -m pytest -q -n auto --dist loadfile -m "not slow"

run: install
	$(BIN)/planfilter run

bench: install
	$(BIN)/planfilter bench

# The paper's six methods with a real model on the CPU, in process (not part of the tests or
# CI): installs the [local] extra, then runs a stratified sample; interrupted, it resumes.
LOCAL_EXTRA ?= local
LOCAL_MODELS ?= llamacpp/qwen2.5-coder-0.5b
SAMPLE ?= 18
LOCAL_OUT ?= runs/local
# Without AMX: GCC 12 miscompiles llama.cpp's AMX kernels (see docs/guides/benchmark.md, A real model).
LLAMA_CMAKE_ARGS ?= -DCMAKE_C_FLAGS="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16" -DCMAKE_CXX_FLAGS="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
bench-local: install
	CMAKE_ARGS='$(LLAMA_CMAKE_ARGS)' $(BIN)/pip install --quiet -e '.[$(LOCAL_EXTRA)]'
	$(BIN)/planfilter run --models $(LOCAL_MODELS) --sample $(SAMPLE) --out $(LOCAL_OUT) --resume

lint: install
	$(BIN)/ruff check planfilter tests
	$(BIN)/mypy planfilter

# The documentation site: built into site/ (strict: a broken link or a missing page fails),
# or served with live reload on http://127.0.0.1:8000.
docs: install
	$(BIN)/mkdocs build --strict

docs-serve: install
	$(BIN)/mkdocs serve

clean:
	rm -rf $(VENV) build dist runs site .pytest_cache .hypothesis .mypy_cache .ruff_cache
