"""The audit rows of a store under a condition of the test's own SQL: the store itself takes a
`Filter` (an admin's question, never SQL text: issue 35), and a test asks more than an admin
would (a status, an id, `command IS NOT NULL`). Either backend: its own connection's read."""

from __future__ import annotations

from typing import Any


def entries(store: Any, where: str = "1 = 1", params: tuple[Any, ...] = ()) -> list[Any]:
    """The audit rows of `store` (SQLite or MariaDB) that `where` takes, in the order of their ids."""
    return list(store._rows(f"SELECT * FROM audit WHERE {where} ORDER BY id", params))
