"""An admin's answer to an appeal, whichever door it comes by (the web page, `jailcore appeals
grant|uphold`): a grant is a pardon through the one pardon road (store.requests.ask), an upheld
appeal keeps the reason the player reads. Apart from store/appeals.py: it reaches the admins'
request queue, which the backends' own modules reach too."""

from __future__ import annotations

from typing import Any

from jailcore.log.errors import AdminRequestError
from jailcore.store.appeals import REASON_MAX, AppealError, Appeals
from jailcore.store.spelling import Row


def settle(store: Any, queue: str | None, why_away: str, appeals: Appeals, appeal_id: int, verdict: str, by: str, reason: str,
           may_ban: bool = True) -> tuple[Row, object]:
    """An admin's answer to an open appeal: `grant` is a pardon of the punishment through the one
    pardon road (store.requests.ask: the `pardons` row the server's daemon applies, lifting it
    in the game, here and in SourceBans++; queued while a database server is away); `uphold`
    needs a reason, which the player reads on his link. Returns the answered appeal and the
    pardon's row id (or Queued; None when it was pardoned already, or upheld)."""
    from jailcore.store.requests import ask

    row = appeals.still_open(appeal_id)
    reason = " ".join(reason.split())[:REASON_MAX]
    if verdict == "uphold":
        if not reason:
            raise AppealError("an upheld appeal needs a reason: the player reads it")
        return appeals.answer(appeal_id, "upheld", by, reason), None
    if verdict != "grant":
        raise AppealError(f"grant or uphold, not {verdict[:20]!r}")
    pardon: object = None
    try:
        pardon = ask(store, queue, why_away, "pardon", action_id=int(row["action_id"]), by=by,
                     reason=reason or f"appeal #{appeal_id}", server=row["server"], may_ban=may_ban)
    except AdminRequestError as exc:
        if "already pardoned" not in str(exc):
            raise
    try:
        return appeals.answer(appeal_id, "granted", by, reason), pardon
    except AppealError:
        # The daemon applied the pardon first and answered the appeal with it (session/effects.py
        # CloseAppeals): granted all the same, by this pardon.
        got = appeals.get(appeal_id)
        if got is None or got["status"] != "granted":
            raise
        return got, pardon
