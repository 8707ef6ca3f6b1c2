"""The engine's shape: a restore at any moment changes nothing, the modules import one way,
and every rule is a small class that declares what it reads."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from jailcore.config.config import Config
from jailcore.engine.engine import Engine
from jailcore.engine.rules import ORDER
from jailcore.log.parse import LogParser, records
from tests import corpus
from tests.logtext import restored

ROOT = Path(__file__).resolve().parents[1]
EVERY = 97  # a prime, so the restores fall on every kind of line sooner or later


def test_the_corpus_is_there():
    """Without it the restore test below would be an empty parameter set, silently green."""
    assert corpus.require()


@pytest.mark.parametrize("path", corpus.files(), ids=lambda p: p.name[:40])
def test_a_restore_every_nth_line_of_the_corpus_changes_no_decision(path: Path):
    config = Config.from_toml(ROOT / "configs" / "example.toml", env={})
    parser = LogParser()
    with path.open("rb") as fh:
        events = [e for e in map(parser.parse, records(fh)) if e is not None]
    straight = Engine(config)
    expected = [a for e in events for a in straight.handle(e)]
    engine, got = Engine(config), []
    for i, event in enumerate(events):
        if i % EVERY == 0:
            engine = restored(engine)
        got += engine.handle(event)
    assert got == expected
    assert json.dumps(engine.snapshot(), sort_keys=True) == json.dumps(straight.snapshot(), sort_keys=True)


def _runtime_imports(path: Path) -> set[str]:
    """The jailcore modules a module imports when it runs (not those for type checking)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    out: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            return
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            if name.startswith("jailcore"):
                targets = [f"{name}.{a.name}" for a in node.names]
                out.update(t if (ROOT / (t.replace(".", "/") + ".py")).exists() else name for t in targets)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("jailcore"))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return {m.removesuffix(".__init__") for m in out}


def test_no_module_imports_back_into_one_that_imports_it():
    modules = {".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): p for p in (ROOT / "jailcore").rglob("*.py")}
    graph = {name: {m for m in _runtime_imports(path) if m in modules and m != name} for name, path in modules.items()}
    state: dict[str, int] = {}

    def walk(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                raise AssertionError("import cycle: " + " -> ".join([*trail[trail.index(nxt):], nxt]) if nxt in trail else nxt)
            if nxt not in state:
                walk(nxt, [*trail, nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            walk(name, [name])


def test_the_engine_is_a_dispatcher_and_no_module_is_a_monolith():
    """The pure core (not sim/, where the simulator mirrors the whole plugin, nor web/)."""
    assert len((ROOT / "jailcore" / "engine" / "engine.py").read_text(encoding="utf-8").splitlines()) <= 250
    core = [ROOT / "jailcore" / folder for folder in ("log", "engine", "engine/rules", "config", "cli")]
    for path in [p for folder in core for p in folder.glob("*.py")]:
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 450, path


def test_every_rule_declares_its_key_settings_and_events_and_is_configurable():
    keys = [rule.key for rule in ORDER]
    assert len(keys) == len(set(keys))
    config = Config.default()
    for rule in ORDER:
        assert rule.handlers or rule.vetoers or rule.ticks, rule.key
        assert isinstance(config.rules[rule.key], rule.Settings)


def test_a_typo_in_a_rule_table_is_refused_at_load():
    from jailcore.config.config import ConfigError, load

    with pytest.raises(ConfigError, match=r"<t>:2: specialday\.cooldown\.round: unknown key"):
        load("[specialday.cooldown]\nround = 2\n", "<t>", {})


def test_a_foreign_snapshot_is_refused_with_what_is_wrong():
    import pytest as _pytest

    with _pytest.raises(ValueError, match=r"not a jailcore state snapshot: .*\$\.round"):
        Engine(Config.default(), {"version": 2, "round": "вторник"})


def test_a_snapshot_of_the_first_layout_is_read():
    """A daemon upgraded in place keeps its round, bans, ladders and the rules' counts."""
    old = {"round": 9, "round_open": True, "time": "2026-11-30T20:00:00", "players": [{"userid": 2, "steamid": "STEAM_1:0:42",
           "name": "W", "team": "CT", "alive": True}], "ladders": {"specialday.cooldown|STEAM_1:0:42": 2},
           "ctbans": {"STEAM_1:0:7": {"steamid": "STEAM_1:0:7", "name": "x", "until": None, "rounds": 2, "since": 9, "rule": "ctban",
                                      "ref": "", "reason": "r"}},
           "global_games": 1, "rebels": {"STEAM_1:0:5": 8}, "game": {"name": "Король", "key": "Король", "host": 2,
           "started": "2026-11-30T19:59:00", "tags": ["chat"]}, "lr": {"start": "2026-11-30T19:59:30", "uid": 5, "name": "p", "done": False}}
    engine = Engine(Config.default(), old)
    s = engine.state
    assert (s.round, s.players[2].name, s.ladders, s.ctbans["STEAM_1:0:7"].rounds, s.ctbans["STEAM_1:0:7"].fresh) == (
        9, "W", {"specialday.cooldown|STEAM_1:0:42": 2}, 2, True)
    assert s.rules["calendar.global_games"].played == 1 and s.rules["calendar.rebellion"].rebels == {"STEAM_1:0:5": 8}
    assert s.game.name == "Король" and s.last_prisoner.uid == 5
