"""The commands of one server waiting for RCON, in decision order: sans-IO.

Contract: `put` queues a command; `flush(now, expired)` gives the ones that may go out now
(the link open, at most `window` in flight), dropping on the way those whose moment passed
(`expired(item)` gives why); `answered(ticket, reply)` and `lost()` take the link's news
back. A command sent and not answered when its session was lost is sent again on the next
one, at most `tries` times (its audit id makes the repeat run once: the shim answers `ok
dup`); `overdue(now)` names the oldest command in flight past the timeout, so the driver
drops the session. Each command ends once, as a `Done` the session turns into its row. A
command's state is one of `phases.Command`, moved only by that module's table.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator

import attrs

from jailcore.engine.actions import Action, AuditStatus
from jailcore.session.phases import Command, command_step


@attrs.define(slots=True, eq=False)
class Item:
    ticket: int
    tag: int | None  # the audit row's id; None for what is only shown (the display, a note)
    command: str
    key: str | None  # a queued, unsent command with the same key is replaced (only the newest display counts)
    action: Action | None = None
    epoch: int = 0  # round ends the session had seen when it was decided
    attempts: int = 0
    sent_at: float = 0.0  # when it last left for the game: 0 never; -1 sent by the last process, never answered
    phase: Command = Command.QUEUED

    @property
    def flying(self) -> bool:
        """Given to the driver on this session (it may still wait for its rows to be durable)."""
        return self.phase is Command.FLYING or self.phase is Command.SENT

    @property
    def left(self) -> bool:
        """... and it left for the game on this session (`Sent`): its timeout runs from then."""
        return self.phase is Command.SENT

    def step(self, step: str) -> None:
        self.phase = command_step(self.phase, step)


@attrs.frozen(slots=True)
class Done:
    item: Item
    status: AuditStatus
    reply: str | None


def is_shim_reply(reply: str) -> bool:
    """The shim answers every command `ok`, `ok dup` (an id it has run) or `error: why`."""
    return reply in ("ok", "ok dup") or reply.startswith("error:")


def lapsed(item: Item) -> AuditStatus:
    """`expired` if it never left, `unanswered` if it was sent and its answer never came (the
    server may have run it; it is not re-sent late)."""
    return "unanswered" if item.sent_at else "expired"


class Outbox:
    def __init__(self, tries: int = 3, window: int = 64):
        self.tries = tries
        self.window = window
        self.open = False
        self.items: deque[Item] = deque()
        self._tickets = 0

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[Item]:
        return iter(self.items)

    def put(self, tag: int | None, command: str, key: str | None = None, action: Action | None = None, epoch: int = 0) -> Item:
        if key is not None:
            for item in self.items:
                if item.key == key and not item.flying and not item.attempts:
                    item.tag, item.command, item.action, item.epoch = tag, command, action, epoch
                    return item
        self._tickets += 1
        item = Item(self._tickets, tag, command, key, action, epoch)
        self.items.append(item)
        return item

    def flush(self, now: float, expired: Callable[[Item], str | None]) -> tuple[list[Item], list[Done]]:
        """What goes out now, and what ended instead (its moment passed)."""
        if not self.open:
            return [], []
        room = self.window - sum(1 for i in self.items if i.flying)
        batch: list[Item] = []
        done: list[Done] = []
        for item in list(self.items):
            if len(batch) >= room:
                break
            if item.flying:
                continue
            reason = expired(item)
            if reason is not None:
                done.append(self._finish(item, lapsed(item), reason))
                continue
            item.step("flush")
            batch.append(item)
        return batch, done

    def sweep(self, why: Callable[[Item], str | None], status: AuditStatus | None = None) -> list[Done]:
        """The waiting commands `why` gives a reason for, taken out (those in flight stay):
        with `status`, or as lapsed (expired / unanswered) without."""
        out = []
        for item in list(self.items):
            if not item.flying:
                reason = why(item)
                if reason is not None:
                    out.append(self._finish(item, status or lapsed(item), reason))
        return out

    def left_now(self, tickets: set[int], now: float) -> None:
        """These commands left for the game now (the driver wrote them once their rows were durable)."""
        for item in self.items:
            if item.phase is Command.FLYING and item.ticket in tickets:
                item.step("left")
                item.sent_at = now

    def answered(self, ticket: int) -> Item | None:
        for item in self.items:
            if item.ticket == ticket:
                return item if item.flying else None
        return None

    def finish(self, item: Item, status: AuditStatus, reply: str | None) -> Done:
        """A command in flight answered by the game."""
        return self._finish(item, status, reply, "answer")

    def lost(self) -> list[Done]:
        """The session is gone: what was in flight is sent again on the next; the oldest of it
        is the one whose answer never came, and after `tries` it fails so it cannot block the rest."""
        self.open = False
        flying = [i for i in self.items if i.flying]
        head_left = bool(flying) and flying[0].left
        for item in flying:
            item.step("lost")
        if not head_left:
            return []  # still waiting for its rows when the session went: it never reached the game, no try spent
        head = flying[0]
        head.attempts += 1
        if head.attempts >= self.tries:
            return [self._finish(head, "failed", f"no answer after {head.attempts} tries")]
        return []

    def overdue(self, now: float, timeout: float) -> Item | None:
        """The oldest command in flight whose answer is `timeout` late, counted from when it left for the
        game: one still held for its rows (a slow disk, a database away) has not been asked anything yet."""
        head = next((i for i in self.items if i.flying), None)
        return head if head is not None and head.left and head.sent_at + timeout <= now else None

    def deadline(self, timeout: float) -> float | None:
        head = next((i for i in self.items if i.flying), None)
        return None if head is None or not head.left else head.sent_at + timeout

    def _finish(self, item: Item, status: AuditStatus, reply: str | None, step: str = "expire") -> Done:
        item.step(step)
        self.items.remove(item)
        return Done(item, status, reply)
