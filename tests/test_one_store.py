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
