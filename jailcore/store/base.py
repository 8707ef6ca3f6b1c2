"""The store's write side as the daemon uses it, for every backend (SQLite today, MariaDB next).

Contract: a backend takes the session's rows (`jailcore.session.effects.Row`: plain values,
no SQL) in one transaction per `write` + `commit`, hands out blocks of audit ids no one else
will use (`reserve_ids`), and gives back what a server's last process left: its snapshot, its
pending rows and proposals (`resume`), and the admins' requests not yet applied
(`admin_requests`). `jailcore.store.writer.Writer` runs one backend on a thread of its own and
commits in groups, so the event loop never waits for the disk.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from jailcore.session.effects import Row
from jailcore.session.inputs import AdminRequests, Resume


class Backend(Protocol):
    path: str  # where it is, as an admin names it (a file, a URL without its password)

    def write(self, rows: Sequence[Row]) -> None: ...
    def commit(self) -> None: ...
    def checkpoint(self) -> None: ...
    def still_there(self) -> str | None: ...
    def close(self) -> None: ...
    def reserve_ids(self, count: int, gap: int = 0) -> int: ...
    def load_state(self, server: str) -> dict[str, Any] | None: ...
    def resume(self, server: str) -> Resume: ...
    def admin_requests(self, server: str) -> AdminRequests: ...
