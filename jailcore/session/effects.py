"""What the session asks the driver to do, in the order it must be done: one small frozen class
each, and the rows the store writes.

Contract: the driver performs the effects `Session.handle` returns in their order and adds
nothing of its own. One ordering rule is the session's promise and the driver's duty: a
`Send` whose `audit` is set goes out only once every `Write` before it is durable (its
`pending` row above all), so a command that reached the game always has its row, and the
row's id (` @<id>`) makes a re-send after a crash run once. A `TellPeers` waits the same
way: a CT ban reaches the other servers only with its row (and the state that holds it).

The write rows are the store's whole write interface (`jailcore.store.base.Backend.write`):
plain values, no SQL, the same for every backend.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from jailcore.engine.actions import Action, AuditStatus
from jailcore.log.events import AdminStep

RequestTable = Literal["pardons", "ctban_requests", "answers", "act_requests"]

# -- rows the store writes -------------------------------------------------------------------


@attrs.frozen(slots=True)
class Record:
    """A new audit row, under the id the session gave it."""

    id: int
    server: str
    action: Action
    day: int
    command: str | None
    status: AuditStatus


@attrs.frozen(slots=True)
class Mark:
    """What became of an audit row: its status and the reply or reason."""

    id: int
    status: AuditStatus
    reply: str | None


@attrs.frozen(slots=True)
class MarkSent:
    """Pending rows whose command went out: their reply says so until the answer comes."""

    ids: tuple[int, ...]


@attrs.frozen(slots=True)
class SaveState:
    """The engine's snapshot and the standing `status` shows, for one server, as JSON text, in
    one transaction. Text, not the dicts: a tree of dicts waiting in the writer's queue would
    outlive the young generations and make the collector walk every server's state again."""

    server: str
    snapshot: str
    standing: str
    when: str


@attrs.frozen(slots=True)
class SaveLink:
    server: str
    rcon: str
    outbox: int
    last_line: str | None
    mode: str
    when: str
    daemon: str = "running"
    dropped: str = ""


@attrs.frozen(slots=True)
class KeepLines:
    """Log lines kept for the web page's round story: (server, round, time, line, newest audit id)."""

    lines: tuple[tuple[str, int, str, str, int], ...]
    keep_days: int


@attrs.frozen(slots=True)
class Applied:
    """An admin's request row carried out."""

    table: RequestTable
    id: int
    when: str


@attrs.frozen(slots=True)
class NoteAnswer:
    """Why an answer waits (the player is away): said to the admin once."""

    id: int
    note: str


@attrs.frozen(slots=True)
class InGameCtBan:
    """An admin's `!ctban` / `!unctban` in game, as the command line's request row, already applied."""

    server: str
    steamid: str
    name: str
    minutes: int | None
    rounds: int | None
    reason: str
    by: str
    lift: bool
    when: str


@attrs.frozen(slots=True)
class CloseAppeals:
    """A punishment lifted by another road (a pardon, a CT ban lifted on the command line, the
    web page, in game or by the network): its open appeals are answered with the lift, so the
    player's link says so and no admin answers them again. `action_ids` are the punishments'
    rows; `ctbans_of`, SteamIDs whose CT ban appeals (every form of the account) are closed."""

    server: str
    action_ids: tuple[int, ...]
    ctbans_of: tuple[str, ...]
    by: str
    reason: str
    when: str


Row = InGameCtBan | Record | Mark | MarkSent | SaveState | SaveLink | KeepLines | Applied | NoteAnswer | CloseAppeals

# -- effects ---------------------------------------------------------------------------------


@attrs.frozen(slots=True)
class Send:
    """One console command over RCON; its whole reply comes back as `Reply(ticket, ...)`.
    `audit` is its row's id: it waits for the rows before it to be durable, and after it is
    written its row is marked sent."""

    ticket: int
    text: str
    audit: int | None = None


@attrs.frozen(slots=True)
class Write:
    row: Row


@attrs.frozen(slots=True)
class Publish:
    """A message on MQTT (`jailcore/<server>/actions`), or the retained state (`state`)."""

    topic: str
    payload: dict[str, Any]
    state: bool = False


@attrs.frozen(slots=True)
class TellPeers:
    """A CT ban given or lifted here, for every other server of the network, once the rows
    before it are durable."""

    ban: dict[str, Any]


@attrs.frozen(slots=True)
class DropLink:
    """Give the RCON session up (a command went unanswered); it is opened again."""

    reason: str


@attrs.frozen(slots=True)
class Rearm:
    """The RCON settings of a reloaded config (None: as they are): taken at once, and a
    refused password is tried again."""

    host: str | None = None
    port: int | None = None
    password: str | None = None
    timeout: float | None = None


@attrs.frozen(slots=True)
class Refilter:
    """Which log datagrams are this server's from now on: its `sv_logsecret` and the senders allowed."""

    secret: str
    allow: tuple[str, ...]


@attrs.frozen(slots=True)
class AskedInGame:
    """An admin's word in game on one audit entry (`!jcpardon ID`, `!jcconfirm ID`, ...: `step`
    says which): the same request the command line writes; a refusal comes back as `Refused`."""

    step: AdminStep
    action_id: int
    by: str
    reason: str
    steamid: str | None = None  # the admin's, as the game authenticated it (SourceBans++ credits him by it)


@attrs.frozen(slots=True)
class Told:
    """An action decided and recorded, for whoever watches the daemon (the demo, its log)."""

    action: Action
    command: str | None
    status: AuditStatus


Effect = Send | Write | Publish | TellPeers | DropLink | Rearm | Refilter | AskedInGame | Told
