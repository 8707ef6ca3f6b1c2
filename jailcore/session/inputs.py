"""What can happen to a server, as the session takes it: one small frozen class each.

Contract: the driver builds these at the edge (a datagram already checked for its secret and
sender, a store row already read, the clock already read) and hands them to
`Session.handle` in the order they happened. Nothing here does anything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Literal

import attrs

from jailcore.log.inbound import NetworkBan, NetworkLift

if TYPE_CHECKING:  # the command line reads rows through these classes without loading any rule
    from jailcore.config.config import Config


@attrs.frozen(slots=True)
class LogRecord:
    """One log record of this server (the bytes after the remote-log header); `place`, its number
    in the relay of a `run --workers` parent (0: it came straight from the socket)."""

    data: bytes
    place: int = 0


@attrs.frozen(slots=True)
class Tick:
    """The clock: `now` monotonic seconds, `wall` the local time (ISO, for rows), `drops`
    the log datagrams dropped so far by cause (`secret 3`), as the edge counts them."""

    now: float
    wall: str
    drops: str = ""


@attrs.frozen(slots=True)
class LinkOpened:
    """The RCON session is open: what waits may go out."""


@attrs.frozen(slots=True)
class LinkLost:
    """The RCON session is gone (or not there yet); `state` as `status` shows it."""

    state: str
    reason: str = ""


@attrs.frozen(slots=True)
class LinkState:
    """The RCON link's state changed without opening or losing a session (refused, stopped)."""

    state: str


@attrs.frozen(slots=True)
class Reply:
    """The whole reply to the command the session sent under `ticket`."""

    ticket: int
    text: str


@attrs.frozen(slots=True)
class Sent:
    """The commands under these tickets left for RCON now: their answer is awaited from this
    moment, not from their flush (the driver holds a command until its rows are durable, which
    a database server that hangs can make seconds, and that wait is not the game's silence)."""

    tickets: tuple[int, ...]


@attrs.frozen(slots=True)
class PeerBan:
    """A CT ban or its lift another server of the network made: typed by the MQTT link
    (`log.inbound`), or as a server of this process told it (plain JSON, typed here)."""

    ban: NetworkBan | NetworkLift | dict[str, Any]
    place: int = 0  # its number in the relay of a `run --workers` parent, as a `LogRecord`'s
    doors_first: bool = False  # one of many servers told in one turn: its door now, the rest at `Settle`


@attrs.frozen(slots=True)
class Settle:
    """After a CT ban was told to every server of the process (`PeerBan.doors_first`): what each
    server decided beyond its door (the rows, the state saved with them, the commands that wait
    for them), carried out now. Told in the same turn, so no other input comes between."""


@attrs.frozen(slots=True)
class ConfigRead:
    """The config file read again (`why`: it changed, or SIGHUP): `config` is what it holds,
    read whole, or None and the `problems` that refused it. `path` None: the daemon has no
    file (a config given in code), and SIGHUP applies the running one again."""

    path: str | None
    why: str = "changed"
    config: Config | None = None
    problems: tuple[str, ...] = ()


@attrs.frozen(slots=True)
class Pending:
    """A `pending` audit row left by the last process (or this one before a restart)."""

    id: int
    command: str
    detail: dict[str, Any]
    sent: bool  # its command went out and no answer came


@attrs.frozen(slots=True)
class Resume:
    """The session starts: what the last process left waiting, re-judged under the config in
    force; `proposals` maps the engine's proposal numbers to their audit ids."""

    pending: tuple[Pending, ...] = ()
    proposals: tuple[tuple[int, int], ...] = ()


# The table each admin's row waits in: the store marks it applied there (`Applied`).
RequestTable = Literal["pardons", "ctban_requests", "answers", "act_requests"]


@attrs.frozen(slots=True)
class PardonRow:
    table: ClassVar[RequestTable] = "pardons"

    id: int
    action_id: int
    by: str
    reason: str
    detail: Any  # the enforcement's JSON as the store holds it: typed by the session (`log.shapes`)


@attrs.frozen(slots=True)
class CtBanRow:
    """As the store holds it: checked by the session (`log.shapes.ctban_row`) before it is applied."""

    table: ClassVar[RequestTable] = "ctban_requests"

    id: int
    steamid: str
    name: str
    minutes: int | None
    rounds: int | None
    lift: bool
    reason: str
    by: str


@attrs.frozen(slots=True)
class AnswerRow:
    table: ClassVar[RequestTable] = "answers"

    id: int
    action_id: int
    answer: str  # confirm | dismiss
    by: str
    reason: str
    note: str | None
    detail: Any  # the proposal's JSON as the store holds it


@attrs.frozen(slots=True)
class ActRow:
    """An admin's warning or server ban (the web page), as the store holds it: checked by the
    session (`log.shapes.act_row`) before it is applied."""

    table: ClassVar[RequestTable] = "act_requests"

    id: int
    steamid: str
    name: str
    act: str  # warn | ban
    minutes: int | None  # a ban's length; 0 is permanent
    reason: str
    by: str


@attrs.frozen(slots=True)
class AdminRequests:
    """The admins' rows not yet applied (web page, command line, MQTT, `!jc...` in game), as
    the store holds them; the session applies each once, in order."""

    pardons: tuple[PardonRow, ...] = ()
    ctbans: tuple[CtBanRow, ...] = ()
    answers: tuple[AnswerRow, ...] = ()
    acts: tuple[ActRow, ...] = ()


@attrs.frozen(slots=True)
class Refused:
    """A request an admin made in game that the store refused (unknown id, answered twice)."""

    text: str


@attrs.frozen(slots=True)
class TellAdmins:
    """Something the admins online should hear of (an appeal filed on the web page): their feed."""

    text: str


@attrs.frozen(slots=True)
class Stopping:
    """A clean stop: the session says so in its link row and saves what changed."""

    wall: str


Input = (LogRecord | Tick | LinkOpened | LinkLost | LinkState | Reply | Sent | PeerBan | Settle | ConfigRead | Resume
         | AdminRequests | Refused | TellAdmins | Stopping)
