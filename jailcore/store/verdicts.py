"""Which audit rows are punishments at all (what the web page offers to pardon, what a pardon
may take back), and whether one was done. A request's own checks are its class's
(store/request_kinds.py)."""

from __future__ import annotations

from typing import Any

from jailcore.engine.vocabulary import kinds_that

# What a pardon can take back: the ladder step, the CT ban, the ban. Announcements,
# compensation and cancelled prohibitions are not punishments.
PARDONABLE = tuple(sorted(kinds_that("pardonable")))


def done(row: Any) -> bool:
    """Whether an audit row's decision was done at all: one `observe` or `advise` mode decided
    was only written (advise warned the player of it, a row of its own): no ladder counts it,
    no ban stands, so no pardon is offered or taken for it."""
    return row["status"] not in ("observed", "advised")
