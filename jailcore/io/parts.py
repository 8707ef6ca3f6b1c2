"""What one server's daemon opens when it enters (`async with Daemon(...)`): the state database
(read on the loop) and the lock that makes it this process's, a block of audit ids, the session
from the saved state, the writer, the MQTT link with what it kept from the last stop, the
admins' requests, the SourceBans++ bridge (`open_parts`); and the inbox its inputs wait in.

Nothing here runs: `Daemon` (`io/daemon.py`) drives these parts, and its tasks (`io/tasks.py`)
are started over them.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

import attrs

from jailcore.config.config import Config
from jailcore.io.admins import Requests
from jailcore.io.lock import LockedError, StateLock
from jailcore.io.mqtt import MqttLink, link_for
from jailcore.session import inputs as si
from jailcore.session.session import Ids, Session
from jailcore.store import StateStore, StoreError, Writer, bridge_for, daemon_store, daemon_writer

if TYPE_CHECKING:  # its database driver is imported only by a server that has the bridge
    from jailcore.store import SourceBans

ID_BLOCK, ID_GAP = 1000, 1000  # audit ids reserved at a time; skipped at each start
Put = Callable[[si.Input], None]


@attrs.frozen
class Written:
    """The writer's news for one server: rows durable, the disk failed (`error`), or the file was
    written afresh (`note`: the store reads it again)."""

    error: BaseException | None = None
    note: str | None = None


class Inbox:
    """A server's inputs in the order they came, and the writer's news (`Writer.readers`), for
    the one task that feeds its session (`Daemon._consume`)."""

    def __init__(self) -> None:
        self.items: deque[si.Input] = deque()
        self.ready = asyncio.Event()
        self.serving = False  # that task waits on `ready`: a line may be handled at once (`Daemon.record`)
        self.failed: BaseException | None = None  # what a line handled at once raised, for that task
        self.news: list[Written] = []
        self.wants = 0  # the writer's sequence that releases the next thing of this server waiting for the disk
        # The loop's clock, that task's loop's own once it runs: asyncio.get_running_loop() asks the kernel for the pid
        # each time, 5% of a 200-server process at 10,000 lines a second (py-spy --native).
        self.clock: Callable[[], float] = lambda: asyncio.get_running_loop().time()

    def put(self, item: si.Input) -> None:
        self.items.append(item)
        self.ready.set()

    def written(self, error: BaseException | None, note: str | None) -> None:
        self.news.append(Written(error, note))
        self.ready.set()

    @property
    def waits(self) -> bool:
        """An input must queue behind what is here: inputs, a failure for the task, or news the task reads first because
        it changes the store (a file written afresh, a database error). Rows made durable hold nothing back."""
        return bool(self.items) or self.failed is not None or (bool(self.news) and any(n.note is not None or n.error is not None for n in self.news))


class Held(Protocol):
    """The hold that makes a server this process's: a file lock, or the database server's named
    lock (whose `lost` says why this process no longer holds it)."""

    @property
    def lost(self) -> str | None: ...

    def release(self) -> None: ...


@attrs.frozen
class Parts:
    store: StateStore
    lock: Held
    ids: Ids
    session: Session
    writer: Writer
    own_writer: bool  # closed at the stop; a fleet's shared one is only settled
    mqtt: MqttLink | None
    requests: Requests
    sourcebans: SourceBans | None


@attrs.frozen
class Opening:
    """How a daemon opens its parts: the database it is given (or its config's), the fleet's
    shared writer and ids (or its own), the audit ids asked for at a time (a test asks few, to
    see blocks taken), the save interval."""

    store: StateStore | None = None
    writer: Writer | None = None
    ids: Ids | None = None
    id_block: int = ID_BLOCK
    save_interval: float = 0.5
    checkpoint_interval: float = 1.0


def open_parts(config: Config, how: Opening, put: Put) -> Parts:
    """The parts of one server, opened in order: the database, then before anything is re-sent
    or written its lock (one process per server), the ids, the saved state, the writer. A
    StoreError says in one line what could not be opened."""
    server = config.server_name
    store = how.store or daemon_store(config.state_url, config.state_path)  # reads on the loop; every write goes to the writer
    try:
        lock: Held = store.claim(server) or StateLock(store.path, server)
    except (LockedError, OSError) as exc:
        if how.store is None:
            store.close()  # its own: nothing else will
        raise StoreError(str(exc)) from None
    except BaseException:
        if how.store is None:
            store.close()
        raise
    try:
        ids = how.ids or Ids(how.id_block // 2)
        if not ids.end:
            ids.give(store.reserve_ids(how.id_block, ID_GAP), how.id_block)
        try:
            session = Session(config, store.load_state(server), ids, how.save_interval)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise StoreError(f"state database {store.path}: the saved state of server {server!r} cannot be read "
                             f"({exc!r}); move the file away to start afresh") from None
        mqtt = link_for(config, lambda ban: put(si.PeerBan(ban)), store)  # an MQTT certificate that cannot be read raises here
        sourcebans = bridge_for(config, config.state_where)  # [sourcebans]: its bans beside ours, both ways
        writer = how.writer or daemon_writer(config.state_url, config.state_path, how.checkpoint_interval)
    except BaseException:
        lock.release()  # a server that could not open leaves its database free for the next try
        if how.store is None:
            store.close()
        raise
    return Parts(store, lock, ids, session, writer, how.writer is None, mqtt, Requests(store, session, put), sourcebans)
