"""The standing a server's panel shows is worked out once, by its daemon under its own config,
saved beside its snapshot, and read by the command line and the web page alike (issue 35: four
places rebuilt it, and the web page's took the special-day cooldown of a config whose rule was
off). A real SQLite file written through the store, read through `jailcore.store`."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from jailcore.config.config import load
from jailcore.engine.engine import Engine
from jailcore.session.effects import SaveState
from jailcore.session.saver import standing
from jailcore.store import open_reader, open_store

SERVER = "jail"


def saved(tmp_path, cooldown: str):
    """A state file holding one server's snapshot and standing, in the 7th round, its last special day in the 5th."""
    text = f'[server]\nname = "{SERVER}"\nrulebook = "all"\n[state]\npath = "{tmp_path / "state.sqlite3"}"\n{cooldown}'
    config = load(text, "<test>", {})
    engine = Engine(config, None)
    engine.state.round, engine.state.specialday = 7, 5
    store = open_store(str(tmp_path / "state.sqlite3"))
    try:
        store.write([SaveState(SERVER, json.dumps(engine.snapshot()), json.dumps(standing(engine, config)), "2026-12-01T20:00:00")])
        store.commit()
    finally:
        store.close()
    return config


@pytest.mark.parametrize(("cooldown", "expected"), [
    ("[specialday.cooldown]\nrounds = 3\n", {"rounds": 3, "next": 8, "left": 1}),
    ("[specialday.cooldown]\nenabled = false\nrounds = 3\n", None),
])
def test_the_command_line_and_the_web_page_read_one_standing(tmp_path, cooldown, expected):
    pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
    from jailcore.cli.status import from_database
    from jailcore.web.data import Sources, servers

    config = saved(tmp_path, cooldown)
    reader = open_reader(str(tmp_path / "state.sqlite3"))
    try:
        (kept,) = reader.standings()
    finally:
        reader.close()
    assert kept.server == SERVER and kept.state["round"] == 7
    assert (None if kept.cooldown is None else {"rounds": kept.cooldown.rounds, "next": kept.cooldown.next, "left": kept.cooldown.left}) == expected

    (status,) = from_database(str(tmp_path / "state.sqlite3"), {}, None)  # no config given: the daemon's saved standing
    assert status["cooldown"] == expected and status["round"] == 7

    (shown,) = servers(Sources([config]), datetime(2026, 12, 1, 20, 0, 5))
    assert shown["round"] == 7
    assert (shown["next_specialday"], shown["cooldown_left"]) == ((expected["next"], expected["left"]) if expected else (None, 0))
