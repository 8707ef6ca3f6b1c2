"""The engine's shape: a restore at any moment changes nothing, the modules import one way,
every rule is a small class that declares what it reads, and no rule writes the shared state."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from jailcore.config.config import Config
from jailcore.engine.engine import Engine
from jailcore.engine.rules import ORDER
from jailcore.engine.rules.calendar import GlobalGames, Rebellion
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
    assert s.rule(GlobalGames).played == 1 and s.rule(Rebellion).rebels == {"STEAM_1:0:5": 8}
    assert s.game.name == "Король" and s.last_prisoner.uid == 5


# What a rule reads of the server and may not assign to: the shared state (`ctx.state` and all
# that hangs from it) and the seats `Context` hands out. Its own state (`self.state`) is its own.
SHARED = {"state", "seat", "player", "online", "alive", "warden"}
MUTATORS = {"append", "extend", "insert", "remove", "pop", "popitem", "clear", "setdefault", "update", "add", "discard", "sort",
            "reverse"}


def _chain(node: ast.AST) -> list[str]:
    """`ctx.state.players.get(uid).alive` -> ["ctx", "state", "players", "get", "alive"]: the
    names from the root (a call's arguments and a subscript's key are not on the way)."""
    names: list[str] = []
    while True:
        if isinstance(node, ast.Attribute):
            names.append(node.attr)
            node = node.value
        elif isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        else:
            break
    if isinstance(node, ast.Name):
        names.append(node.id)
    return names[::-1]


def _values(node: ast.AST) -> list[ast.AST]:
    """What an expression may evaluate to: each branch of `a if c else b` and of `a or b`."""
    if isinstance(node, ast.IfExp):
        return _values(node.body) + _values(node.orelse)
    if isinstance(node, ast.BoolOp):
        return [v for value in node.values for v in _values(value)]
    return [node]


def _shared(node: ast.AST, aliases: set[str]) -> bool:
    chain = _chain(node)
    return bool(chain) and ((chain[0] == "ctx" and len(chain) > 1 and chain[1] in SHARED) or chain[0] in aliases)


def _shared_writes(tree: ast.AST) -> list[tuple[int, str]]:
    """Each assignment, deletion or mutating call whose target is the shared state, reached
    from `ctx` directly or through a local name bound to it (`s = ctx.state`, `game =
    ctx.state.game`, `for p in ctx.alive(T)`), as (line, target)."""
    found: list[tuple[int, str]] = []
    for fn in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]:
        aliases: set[str] = set()
        grew = True
        while grew:  # an alias of an alias is one too
            grew = False
            for node in ast.walk(fn):
                pairs: list[tuple[ast.AST, ast.AST]] = []
                if isinstance(node, ast.Assign):
                    for target in node.targets:
                        if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                            pairs += zip(target.elts, node.value.elts, strict=False)
                        else:
                            pairs.append((target, node.value))
                elif isinstance(node, ast.For | ast.comprehension):
                    pairs.append((node.target, node.iter))
                elif isinstance(node, ast.NamedExpr):
                    pairs.append((node.target, node.value))
                for target, value in pairs:
                    names = [target] if isinstance(target, ast.Name) else target.elts if isinstance(target, ast.Tuple) else []
                    if any(_shared(v, aliases) for v in _values(value)):
                        for name in names:
                            if isinstance(name, ast.Name) and name.id not in aliases:
                                aliases.add(name.id)
                                grew = True
        for node in ast.walk(fn):
            targets: list[ast.AST] = []
            if isinstance(node, ast.Assign | ast.Delete):
                targets = list(node.targets)
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets = [node.target]
            for target in targets:
                for one in target.elts if isinstance(target, ast.Tuple) else [target]:
                    if isinstance(one, ast.Attribute | ast.Subscript) and _shared(one, aliases):
                        found.append((node.lineno, ast.unparse(one)))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS and _shared(node.func.value, aliases):
                found.append((node.lineno, ast.unparse(node.func)))
    return sorted(found)


def test_no_rule_writes_the_shared_state():
    """Every write to the facts the rules share (the round's orders, the game, the freedays
    owed, who is alive...) is the bookkeeping's or the ledger's: a rule returns what it found
    as `engine/ledger.py`'s entries, written before the next rule runs."""
    found = [f"{path.name}:{line}: {target}" for path in sorted((ROOT / "jailcore" / "engine" / "rules").glob("*.py"))
             for line, target in _shared_writes(ast.parse(path.read_text(encoding="utf-8")))]
    assert found == []


def test_the_check_of_the_rules_finds_a_write_however_it_is_reached():
    sample = """
def judged(self, ctx, e):
    s = ctx.state
    s.first_order = True
    victim = ctx.state.players.get(e.victim)
    victim.alive = True
    ctx.state.owed[e.key] = 1
    for p in ctx.alive(T):
        p.team = "CT"
    game, mine = ctx.state.game, self.state
    game.result = True
    s.orders.append(e.order)
    del ctx.state.owed[e.key]
    ctx.seat(e.player).name = e.name
    mine.count += 1
    self.state.seen.append(e.key)
    out = self.decide(ctx.state.round)
    out.append(e)
"""
    assert [line for line, _ in _shared_writes(ast.parse(sample))] == [4, 6, 7, 9, 11, 12, 13, 14]
