"""One store for all SQL (issue 24): no module outside jailcore/store imports a database
driver, and none outside it writes a SQL statement of its own. Read from the source, as
tests/test_layers.py reads the floors."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "jailcore"
DRIVERS = {"sqlite3", "pymysql", "aiomysql", "asyncmy", "sqlalchemy", "MySQLdb", "mariadb"}
# A statement as the code would hand it to a driver: a verb at the start and its keyword after it.
SQL = re.compile(r"^\s*(SELECT\b.*\bFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(TABLE|INDEX))\b", re.S)


def outside_the_store() -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py")) if "store" not in p.relative_to(PACKAGE).parts[:1]]


def drivers_of(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return found & DRIVERS


def test_no_database_driver_is_imported_outside_the_store():
    offenders = {str(p.relative_to(PACKAGE.parent)): sorted(drivers_of(p)) for p in outside_the_store() if drivers_of(p)}
    assert not offenders, f"database drivers imported outside jailcore/store: {offenders}"


def test_no_sql_is_written_outside_the_store():
    offenders = []
    for path in outside_the_store():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and SQL.match(node.value):
                offenders.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {node.value[:60]!r}")
    assert not offenders, "SQL outside jailcore/store:\n" + "\n".join(offenders)


def test_the_store_does_import_its_drivers():
    """The check above looks at the right tree: the store itself does use sqlite3."""
    assert "sqlite3" in drivers_of(PACKAGE / "store" / "sqlite.py")
    assert outside_the_store() and all("store" not in p.parts[-2:-1] for p in outside_the_store())


# -- issue 35: the store is reached only as `jailcore.store`, and each statement is written once ---------


def inside_imports(root: Path = PACKAGE) -> list[str]:
    """Every import of a module inside jailcore/store (`jailcore.store.x`, or `from jailcore.store
    import x` where x is a module of it) from a module of jailcore outside jailcore/store,
    type-checking imports and those inside functions included."""
    inside = {p.stem for p in (root / "store").glob("*.py")} - {"__init__"}
    found = []
    for path in sorted(root.rglob("*.py")):
        if "store" in path.relative_to(root).parts[:1]:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                module = node.module if not node.level else _absolute(path, root, node.module, node.level)
                names = [module] + [f"{module}.{a.name}" for a in node.names if f"{module}.{a.name}".removeprefix("jailcore.store.") in inside]
            for name in names:
                if name.startswith("jailcore.store."):
                    found.append(f"{path.relative_to(root.parent)}:{node.lineno}: {name}")
    return found


def _absolute(path: Path, root: Path, module: str, level: int) -> str:
    package = list(path.relative_to(root.parent).parent.parts)
    return ".".join([*package[: len(package) - level + 1], module])


def test_the_rest_reaches_the_store_only_as_jailcore_store():
    """io, web, cli (and every other floor) import `jailcore.store` and nothing inside it: the
    store's modules are its own business (issue 35 counted 67 such imports from 13 of them)."""
    found = inside_imports()
    assert not found, f"{len(found)} import(s) of the store's inside from outside it:\n" + "\n".join(found)


_SPELLING = re.compile(r"\s+")


def statements(path: Path) -> set[str]:
    """The SQL statements a module writes, as text (an f-string's holes as `{}`), spelled alike
    whatever the backend: no backquotes, `?` for a placeholder, one space, lower case."""
    out = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    pieces = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}  # an f-string's parts: read whole
    for node in ast.walk(tree):
        if id(node) in pieces:
            continue
        if isinstance(node, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "{}" for v in node.values)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        else:
            continue
        if SQL.match(text):
            out.add(_SPELLING.sub(" ", text.replace("`", "").replace("%s", "?")).strip().rstrip(";").lower())
    return out


def written_twice(root: Path = PACKAGE) -> dict[str, list[str]]:
    where: dict[str, list[str]] = {}
    for path in sorted((root / "store").glob("*.py")):
        for text in statements(path):
            where.setdefault(text, []).append(path.name)
    return {text: files for text, files in where.items() if len(files) > 1}


def test_no_sql_statement_is_written_in_two_store_modules():
    """Each statement is written once, whichever backend runs it (issue 35: 21 were written in
    both store/sqlite.py and store/mariadb.py, differing mostly in backquotes)."""
    twice = written_twice()
    assert not twice, f"{len(twice)} statement(s) written in two store modules:\n" + "\n".join(
        f"{', '.join(files)}: {text[:100]}" for text, files in sorted(twice.items()))


def test_the_counts_look_at_the_right_tree():
    """The two checks above would find what they look for: a module of the store names its own
    statements, and an import of a store module from outside is recognised as one."""
    assert any(s.startswith("insert into audit") for s in statements(PACKAGE / "store" / "rows.py"))
    tree = ast.parse("from jailcore.store import sqlite\nimport jailcore.store.reader\nfrom ..store.errors import X")
    assert tree and _absolute(PACKAGE / "cli" / "x.py", PACKAGE, "store.errors", 2) == "jailcore.store.errors"


def test_every_name_the_store_offers_is_there_and_no_module_hides_one():
    """`jailcore.store` gives each name it lists (imported at its first use), and none of its
    modules is named like one of those names: importing that module would take the name's place."""
    import importlib

    store = importlib.import_module("jailcore.store")
    modules = {p.stem for p in (PACKAGE / "store").glob("*.py")}
    assert not modules & set(store.__all__)
    missing = [name for name in store.__all__ if getattr(store, name, None) is None]
    assert not missing, f"jailcore.store lists names it cannot give: {missing}"
    assert store.standing.__module__ == "jailcore.store.audit" and callable(store.submit)


def test_a_queued_request_reads_back_as_it_was_kept_and_a_bad_one_is_a_refusal():
    """A request waits in a queue file as its kind and its fields (the words and keys the queue
    held before the classes: a queue written by an older jailcore replays), and one that cannot be
    read is refused as an admin's request is, never a traceback in the replay."""
    import pytest

    from jailcore.log.errors import AdminRequestError
    from jailcore.store import AnswerRequest, CtBanRequest, PardonRequest
    from jailcore.store.request_kinds import from_queue, queued

    kept = {"action_id": 7, "by": "Админ", "reason": "ошибся", "when": "2026-12-01T10:00:00", "server": "jail", "may_ban": False,
            "steamid": None}
    assert from_queue("pardon", kept) == PardonRequest(7, "Админ", "ошибся", "2026-12-01T10:00:00", "jail", False)
    ban = CtBanRequest("jail", "STEAM_1:0:5", "Вася", None, 3, "", "kolya", lift=False, when="2026-12-01T10:00:00")
    assert from_queue(ban.kind, queued(ban)) == ban and queued(ban)["rounds"] == 3
    for kind, args in (("answer", {"action_id": 9, "answer": "maybe", "by": "mod"}), ("pardon", {"action_id": 7}), ("undo", {})):
        with pytest.raises(AdminRequestError):
            from_queue(kind, args)
    with pytest.raises(ValueError):
        AnswerRequest(9, "maybe", "mod")
