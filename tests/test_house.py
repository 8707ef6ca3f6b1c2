"""The shape of the upper floors (issue 35): no class of the daemon's floors is a monolith, and
`jailcore run` places its servers the cheaper way unless asked otherwise."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

from jailcore.io.process import ONE_PROCESS_UP_TO, Placement
from tests.test_fleet import server_config

ROOT = Path(__file__).resolve().parents[1]
MAX_CLASS = 250  # lines, docstrings and comments included


def classes(folder: str) -> list[tuple[int, str]]:
    out = []
    for path in sorted((ROOT / "jailcore" / folder).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                out.append(((node.end_lineno or node.lineno) - node.lineno + 1, f"{path.relative_to(ROOT)} {node.name}"))
    return out


def test_no_class_of_the_session_or_the_driver_is_over_250_lines():
    for folder in ("session", "io"):
        found = classes(folder)
        assert len(found) > 20, folder  # the walk saw the floor
        assert [c for c in found if c[0] > MAX_CLASS] == [], folder


def test_the_session_is_a_dispatcher_of_parts_none_calling_back():
    """A part of the session imports the parts below it, never the dispatcher (`session.py`) nor a
    Protocol of it: each is called one way."""
    folder = ROOT / "jailcore" / "session"
    for path in folder.glob("*.py"):
        if path.name == "session.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert "jailcore.session.session" not in imported, path.name
        protocols = [n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and any(ast.unparse(b) == "Protocol" for b in n.bases)]
        assert "Session" not in protocols, path.name


def test_the_default_placement_is_one_process_up_to_the_measured_count():
    assert Placement.of(1) == Placement(0, alone=True)
    assert Placement.of(1, asked=4) == Placement(0, alone=True)  # one server is one process, as ever
    assert Placement.of(200, cpus=2) == Placement(0)  # the cheaper one (docs/benchmarks.md)
    assert Placement.of(ONE_PROCESS_UP_TO, cpus=8) == Placement(0)
    assert Placement.of(ONE_PROCESS_UP_TO + 1, cpus=8) == Placement(8)
    assert Placement.of(ONE_PROCESS_UP_TO + 1, cpus=1) == Placement(0)
    assert Placement.of(200, asked=2, cpus=8) == Placement(2)  # --workers N as asked
    assert Placement.of(200, asked=1, cpus=8) == Placement(0)


def test_jailcore_run_with_a_folder_and_no_workers_serves_them_in_one_process(tmp_path):
    folder = tmp_path / "servers"
    folder.mkdir()
    for name in "xy":  # no server behind either: RCON unreachable is waited for, not fatal
        server_config(folder / f"{name}.toml", name, 1, tmp_path / "s.sqlite3", "127.0.0.1:0", "")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "jailcore", "run", "--config-dir", str(folder)], cwd=tmp_path, env=env,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        lines: list[str] = []
        while not any("2 server(s) in one process, 0 refused" in line for line in lines):
            lines.append(proc.stderr.readline())
            assert lines[-1], "".join(lines)
        children = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
        assert children == []  # no worker processes beside it
    finally:
        proc.terminate()
        rest = proc.communicate(timeout=30)[1]
    assert proc.returncode == 0, rest


def test_the_round_and_a_command_move_only_by_their_tables():
    import pytest

    from jailcore.session.phases import ROUND, Command, PhaseError, Round, Step, command_step, round_step

    assert len(ROUND) == len(Round) ** 2  # every step from every phase is named
    assert round_step((Round.FREEZE, 4), (Round.PLAY, 4)) is Step.DRIFT  # the freeze ends: the same round
    assert round_step((Round.PLAY, 4), (Round.ENDED, 4)) is Step.ENDED
    assert round_step((Round.PLAY, 4), (Round.FREEZE, 5)) is Step.ENDED  # cut short by the next one (a lost Round_End)
    assert round_step((Round.ENDED, 4), (Round.FREEZE, 5)) is Step.CHANGED
    assert round_step((Round.RESTARTING, 1), (Round.RESTARTING, 1)) is Step.DRIFT  # the warm-up goes on
    phase = Command.QUEUED
    for step, after in (("flush", Command.FLYING), ("left", Command.SENT), ("lost", Command.QUEUED), ("flush", Command.FLYING),
                        ("answer", Command.ANSWERED)):
        phase = command_step(phase, step)
        assert phase is after, step
    with pytest.raises(PhaseError, match="answered cannot take the step 'flush'"):
        command_step(phase, "flush")
