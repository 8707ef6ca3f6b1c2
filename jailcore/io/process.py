"""`jailcore run`: the one process its configs start, and where it places their servers.

One command line (shared/protocol.md §3), three placements of the same servers:

- **one config**: the server alone in this process (`run.main_run`): its own log port, its own
  database, its signals; a config or database it cannot use stops it at once, in one line.
- **a fleet**: every server in this process (`fleet.Fleet`): the log ports shared by `[log]
  listen` (`logports.LogPorts`), one watcher for every config file (a refused one joins once it
  is fixed), CT bans relayed between the servers in the process, one writer per state file.
- **workers**: the parent (`workers.Parent`) owns the log ports and relays each record and each
  CT ban to the worker process that serves its server; each worker is a fleet of its share.

The default is the cheaper placement, measured (docs/benchmarks.md, "Where the servers go"):
with 200 servers at 50 lines/s, one process took 41-47% of a core and 141-145 MB where the
parent and two workers took 58-60% and 277 MB (the parent's look at each datagram, its relay
over a socket, the second and third interpreter with their own copies of every rule), and 1,000
servers at 10 lines/s were cheaper in one process too, and their CT bans faster. What one
process cannot keep up with is lines, not servers, and a core takes 20,000 lines a second or
more (40-50 µs each, all counted): a jail network's few hundred servers write far fewer. So the
servers of several configs go into one process up to `ONE_PROCESS_UP_TO` of them, the largest
count measured; past it, one worker a core, as before. `--workers N` places them as asked (1:
one process).
"""

from __future__ import annotations

import os

import attrs

ONE_PROCESS_UP_TO = 1000  # servers: past this many (not measured), a worker per core


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@attrs.frozen
class Placement:
    """Where the servers of one `jailcore run` go: `workers` processes beside a parent that routes
    their log (0: all in this process; `alone`: one server, by itself)."""

    workers: int
    alone: bool = False

    @classmethod
    def of(cls, configs: int, asked: int | None = None, cpus: int | None = None) -> Placement:
        if configs == 1:
            return cls(0, alone=True)
        count = asked if asked is not None else (cpus or cores()) if configs > ONE_PROCESS_UP_TO else 1
        return cls(count if count > 1 else 0)


def main(paths: list[str], asked: int | None) -> int:
    """`jailcore run` over these configs (one path or more), placed as asked or as is cheapest."""
    placement = Placement.of(len(paths), asked)
    if placement.alone:
        from jailcore.config.config import Config
        from jailcore.io.run import main_run

        return main_run(Config.from_toml(paths[0]), paths[0])
    if placement.workers:
        from jailcore.io.workers import main_workers

        return main_workers(paths, placement.workers)
    from jailcore.io.fleet import main_fleet

    return main_fleet(paths)
