"""What `jailcore status` says of a server, as it prints it and writes it with --json."""

from __future__ import annotations

from typing import Any, TypedDict

# A server's status: its daemon's public state (saved in the state database, or retained on a
# broker anyone may publish to: JSON, which gives no types, so `status.block` checks each value's
# type before it uses it) with what the command adds to it (its link, cooldown, age, proposals...).
Status = dict[str, Any]


class RefusedRequest(TypedDict):
    """An admin's request refused when it was replayed from this machine's queue."""

    time: str
    asked: str  # in the words of the command that asks it
    by: object  # the request's own arguments: shown as they were written
    server: object
    why: str


class RefusedRequests(TypedDict):
    """The requests of this machine's queue refused at replay in the last `days` days: how many, the newest."""

    count: int
    days: int
    queue: str
    newest: list[RefusedRequest]
