"""What one server's daemon is made of, built from its config: the state database (read on
the loop) and the lock that makes it this process's, a block of audit ids, the session from
the saved state, the writer, the RCON client, the log's filter, the MQTT link with what it
kept from the last stop, the admins' requests, the SourceBans++ bridge; and the process's word
on it (the other servers, the fleet's check of a reloaded config, its turn on the clock).

`Daemon` (`io/daemon.py`) is these parts and drives them; the tasks (`io/tasks.py`) are
started over them. Nothing here runs.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Any

from jailcore.config.config import Config
from jailcore.engine.engine import Engine
from jailcore.io.admins import Requests
from jailcore.io.lock import LockedError, StateLock
from jailcore.io.logsource import UdpLog
from jailcore.io.mqtt import link_for
from jailcore.io.rcon import RconClient
from jailcore.session import inputs as si
from jailcore.session.session import Ids, Session
from jailcore.store import StateStore, StoreError, Writer, bridge_for, daemon_store, daemon_writer

ID_BLOCK, ID_GAP = 1000, 1000  # audit ids reserved at a time; skipped at each start
Put = Callable[[Any], None]


class Inbox:
    """A server's inputs in the order they came, and the writer's news (`Writer.readers`), for
    the one task that feeds its session (`Daemon._consume`)."""

    def __init__(self) -> None:
        self.items: deque[Any] = deque()
        self.ready = asyncio.Event()
        self.serving = False  # that task waits on `ready`: a line may be handled at once (`Daemon.record`)
        self.failed: BaseException | None = None  # what a line handled at once raised, for that task
        self.news: list[tuple[BaseException | None, str | None]] = []
        self.wants = 0  # the writer's sequence that releases the next thing of this server waiting for the disk

    def put(self, item: Any) -> None:
        self.items.append(item)
        self.ready.set()

    def written(self, error: BaseException | None, note: str | None) -> None:
        self.news.append((error, note))
        self.ready.set()


class Parts:
    def __init__(self, config: Config, store: StateStore | None, put: Put, record: Callable[[bytes], None],
                 rcon_backoff: tuple[float, float], auth_backoff: float, save_interval: float, checkpoint_interval: float,
                 writer: Writer | None, ids: Ids | None, id_block: int = ID_BLOCK):
        self.server = config.server_name
        self.store = store or daemon_store(config.state_url, config.state_path)  # reads on the loop; every write goes to the writer
        try:
            # before anything is re-sent or written: one process per server (a file lock, or the database server's named lock)
            self.lock = self.store.claim(self.server) or StateLock(self.store.path, self.server)
        except (LockedError, OSError) as exc:
            raise StoreError(str(exc)) from None
        self.id_block = id_block  # the audit ids asked of the database at a time (a test asks few, to see blocks taken)
        self.ids = ids or Ids(id_block // 2)
        if not self.ids.end:
            self.ids.give(self.store.reserve_ids(id_block, ID_GAP), id_block)
        try:
            self.session = Session(config, self.store.load_state(self.server), self.ids, save_interval)
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise StoreError(f"state database {self.store.path}: the saved state of server {self.server!r} cannot be read "
                             f"({exc!r}); move the file away to start afresh") from None
        self.own_writer = writer is None
        self.writer = writer or daemon_writer(config.state_url, config.state_path, checkpoint_interval)
        self.sourcebans = bridge_for(config, config.state_where)  # [sourcebans]: its bans beside ours, both ways
        self.client = RconClient(config.rcon_host, config.rcon_port, config.rcon_password, config.rcon_timeout, rcon_backoff, auth_backoff)
        self.udp = UdpLog(record, config.log_secret, config.log_allow)
        self.log_at = (config.log_listen, config.log_file)  # the log's place as it started: a reload changes it only at a restart
        self.mqtt = link_for(config, lambda ban: put(si.PeerBan(ban)), self.store)
        self.requests = Requests(self.store, self.session, put)
        self.peers: Callable[[dict[str, Any]], None] | None = None  # the other servers of this process, for CT bans
        self.vet: Callable[[Config], str | None] | None = None  # the fleet's word on a reloaded config
        self.phase = 0.0  # when in the save interval this server's clock ticks: a fleet spreads them

    @property
    def engine(self) -> Engine:
        return self.session.engine

    @property
    def config(self) -> Config:
        """The config in force: a reload replaces it."""
        return self.session.config

    @property
    def reloads(self) -> list[str]:
        """What each reading of the config file did, for admins and tests."""
        return self.session.reloads

    @property
    def save_interval(self) -> float:
        return self.session.save_interval

    @save_interval.setter
    def save_interval(self, value: float) -> None:
        self.session.save_interval = value

    @property
    def requests_interval(self) -> float:
        return self.requests.interval

    @requests_interval.setter
    def requests_interval(self, value: float) -> None:
        self.requests.interval = value
