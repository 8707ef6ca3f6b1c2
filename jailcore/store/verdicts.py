"""An admin's request judged before it is written, the same on both backends: whether an audit
row may be pardoned or a proposal answered, what an admin may ask from the web page, and which
actions are punishments at all (what the web page offers to pardon)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from jailcore.engine.vocabulary import kinds_that
from jailcore.log.errors import AdminRequestError
from jailcore.store.errors import PardonError, ProposalError

REQUEST_TABLES = ("pardons", "ctban_requests", "answers", "act_requests")
ACTS = ("warn", "ban")  # what an admin asks of a player from the web page (`act_requests`)


def check_act(act: str, minutes: int | None) -> None:
    """An admin's act as a tool may write it: a warning, or a ban of 0 (permanent) or more minutes."""
    if act not in ACTS:
        raise AdminRequestError(f"no admin act {act!r}: give one of {', '.join(ACTS)}")
    if act == "ban" and (minutes is None or minutes < 0):
        raise AdminRequestError("a ban needs its length in minutes (0 is permanent)")


# What a pardon can take back: the ladder step, the CT ban, the ban. Announcements,
# compensation and cancelled prohibitions are not punishments.
PARDONABLE = tuple(sorted(kinds_that("pardonable")))


def done(row: Any) -> bool:
    """Whether an audit row's decision was done at all: one `observe` or `advise` mode decided
    was only written (advise warned the player of it, a row of its own): no ladder counts it,
    no ban stands, so no pardon is offered or taken for it."""
    return row["status"] not in ("observed", "advised")


def check_pardon(row: Any, given: Callable[[], Any], action_id: int, where: str, server: str | None, may_ban: bool) -> Any:
    """The row if it may be pardoned, else why not (PardonError), for both backends: an unknown
    id or another server's, a server ban unless `may_ban`, what is no punishment, one already
    pardoned (`given()`: its pardon, asked only when the rest holds)."""
    if row is None or (server is not None and row["server"] != server):
        raise PardonError(f"no enforcement with id {action_id} in {where}" + (f" for server {server}" if server else ""))
    if row["action"] == "ban" and not may_ban:
        raise PardonError(f"enforcement {action_id} is a server ban: lifting it is an admin's")
    if row["action"] not in PARDONABLE:
        raise PardonError(f"enforcement {action_id} is a {row['action']}, not a punishment: there is nothing to pardon")
    if not done(row):
        mode = "observe" if row["status"] == "observed" else "advise"
        raise PardonError(f"enforcement {action_id} was only {row['status']} (its server was in {mode} mode): nothing was done to "
                          "the player and nothing counts against him, so there is nothing to pardon")
    if (had := given()) is not None:
        raise PardonError(f"enforcement {action_id} was already pardoned by {had['by']} at {had['time']}: {had['reason']}")
    return row


def check_answer(row: Any, given: Callable[[], Any], action_id: int, answer: str, where: str, server: str | None,
                 may_ban: bool) -> Any:
    """The row if it may be answered, else why not (ProposalError), for both backends: no
    proposal (or another server's), a server ban to confirm unless `may_ban`, one answered
    already (`given()`: its answer), one no longer waiting."""
    if row is None or (server is not None and row["server"] != server):
        raise ProposalError(f"no proposal with id {action_id} in {where}" + (f" for server {server}" if server else ""))
    if row["action"] != "propose":
        raise ProposalError(f"entry {action_id} is a {row['action']}, not a proposal")
    if answer == "confirm" and not may_ban and str(json.loads(row["detail"]).get("step") or "").startswith("ban"):
        raise ProposalError(f"proposal {action_id} is a server ban: carrying it out is an admin's")
    if (had := given()) is not None:
        raise ProposalError(f"proposal {action_id} was already answered ({had['answer']}) by {had['by']} at {had['time']}")
    if row["status"] != "proposed":
        raise ProposalError(f"proposal {action_id} is {row['status']}: {row['reply'] or ''}".rstrip(": "))
    return row
