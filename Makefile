PYTHON ?= python3
SPCOMP ?= $(shell command -v spcomp 2>/dev/null)

.PHONY: install test bench lint plugin demo

install:
	$(PYTHON) -m pip install -e '.[dev,mqtt,web]'

test:
	$(PYTHON) -m pytest -q

bench:
	$(PYTHON) bench/replay_bench.py
	$(PYTHON) bench/memory_bench.py
	$(PYTHON) bench/story_size.py
	@if [ -f bench/live_bench.py ]; then $(PYTHON) bench/live_bench.py; fi

lint:
	$(PYTHON) -m ruff check jailcore tests bench

demo:
	$(PYTHON) -m jailcore demo

# Compiles the SourceMod shim when a SourcePawn compiler is on the PATH or in SPCOMP;
# SPINC may name SourceMod's include folder (scripting/include).
plugin:
	@if [ -z "$(SPCOMP)" ]; then echo "make plugin: no spcomp on the PATH; set SPCOMP=/path/to/spcomp"; exit 1; fi
	mkdir -p sourcemod_bridge/plugins
	$(SPCOMP) sourcemod_bridge/scripting/jailcore_bridge.sp -i sourcemod_bridge/scripting $(if $(SPINC),-i $(SPINC)) -o sourcemod_bridge/plugins/jailcore_bridge.smx -E
