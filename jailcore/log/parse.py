"""Log bytes to events.

Contract: `LogParser(needed).parse(record)` takes one log record (a UDP payload without
its header, or one record of a log file) and returns an event, or None for a line it did
not turn into one. Every record but a blank one is counted in `stats` as an event of its
kind, as `unknown` (well-formed, of a kind not modelled) or as `malformed` (not readable
as a log line at all), whatever `needed` says. `needed` is the set of kinds the caller
reads (the `kind` of the classes in `events`, None for all): a line of any other kind is
counted and gives None, and no event is built for it. Junk never raises: what input can
get wrong is `Malformed`, counted and skipped; any other exception is a bug here and
propagates.

Names and chat are written raw by the engine, so nothing here trusts a quote. A player
line is split at the first place where a well-formed identity (`Name<uid><steamid><team>`)
is followed by a verb whose whole tail reads correctly: chat text comes after the
speaker's identity and can never move the split, so it cannot impersonate another event;
each two-player line reads its second identity from the right.

How a line is read, fast (a busy server writes thousands of lines a second, most of them
purchases, pickups, cvars and rcon echoes that no rule reads): one compiled pattern,
`master.MASTER_BYTES`, reads the record as it arrives, undecoded, and proves its whole
shape, timestamp included; the token of the alternative that matched names the kind. The
identities it found are proved through caches of the identities seen before; the timestamp
is turned into ISO once per second of log time. A line of a kind no one needs is counted
there: no text is decoded and no event built. A line the pattern does not prove is read
step by step by `lines.LineReader`, the full grammar; tests/test_parse.py holds both to
the answers of the parser as it was before the pattern (tests/reference_parse.py).
"""

from __future__ import annotations

import codecs
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator
from typing import Any

import attrs

from jailcore.log import events as ev
from jailcore.log.lines import NOTED, LineReader
from jailcore.log.master import ALL_KINDS, MASTER, MASTER_BYTES, STEPS, TOKENS
from jailcore.log.shimlines import EXTENSION_TRIGGERS, SHIM_TRIGGERS, Malformed

__all__ = ["ALL_KINDS", "EXTENSION_TRIGGERS", "SHIM_TRIGGERS", "LogParser", "Malformed", "ParseStats", "decode", "records"]


def _latin1_fallback(err: UnicodeDecodeError) -> tuple[str, int]:
    # Real logs mix UTF-8 with stray Latin-1 bytes (old clients' names): keep them
    # readable instead of turning them into replacement marks.
    return err.object[err.start : err.end].decode("latin-1"), err.end


codecs.register_error("jailcore-latin1", _latin1_fallback)  # type: ignore[arg-type]  # a decoding handler only


def decode(raw: bytes | str) -> str:
    if isinstance(raw, str):
        return raw
    return raw.decode("utf-8", "jailcore-latin1")


@attrs.define(repr=False)
class ParseStats:
    """What the parser has read so far. Lines that MASTER proves are tallied by the
    alternative that proved them (a list slot is the cheapest count there is, and this is
    paid on every line); the kinds are summed when the counts are read."""

    counts: dict[str, int] = attrs.field(factory=dict)  # lines read step by step, by kind
    tally: list[int] = attrs.field(factory=lambda: [0] * len(STEPS))  # by slot of `master.STEPS`
    unknown: int = 0
    malformed: int = 0

    @property
    def events(self) -> Counter[str]:
        events = Counter(self.counts)
        for step, n in zip(STEPS, self.tally, strict=True):
            if n:
                events[step.kind] += n
        return events

    @property
    def lines(self) -> int:
        return sum(self.counts.values()) + sum(self.tally) + self.unknown + self.malformed

    def __repr__(self) -> str:
        return f"ParseStats(lines={self.lines}, events={dict(self.events)}, unknown={self.unknown}, malformed={self.malformed})"

    def to_json(self) -> dict[str, Any]:
        events = self.events
        return {
            "lines": self.lines,
            "events": dict(sorted(events.items())),
            "unknown": self.unknown,
            "malformed": self.malformed,
        }


# By token: the slot to tally, what is left to prove, the shared Noted, the reader.
_Plan = dict[str | bytes, tuple[int, int, ev.Noted | None, Callable[..., ev.Event | ev.Noted | None] | None]]


class LogParser(LineReader):
    def __init__(self, needed: Collection[str] | None = None) -> None:
        super().__init__()
        self.stats = ParseStats()
        self._tally = self.stats.tally
        self.need(needed)

    def need(self, needed: Collection[str] | None) -> None:
        """Build the events of these kinds from now on (None: all); count the rest only.
        A config reload that switches rules on or off calls it again."""
        if needed is not None and not set(needed) <= ALL_KINDS:
            raise ValueError(f"no such event kinds: {', '.join(sorted(set(needed) - ALL_KINDS))}")
        self.needed = ALL_KINDS if needed is None else frozenset(needed)
        # By group number, then token (see `master.TOKENS`): the slot to tally, what is
        # left to prove, and for a needed kind its shared Noted or the reader that builds
        # it. Apart for text and bytes: "x" and b"x" hash alike and would share buckets.
        self._text_plan = [self._plan(tokens, str) for tokens in TOKENS]
        self._bytes_plan = [self._plan(tokens, bytes) for tokens in TOKENS]

    def _plan(self, tokens: dict[str | bytes, tuple[int, int]], keys: type) -> _Plan:
        plan: _Plan = {}
        for token, (slot, check) in tokens.items():
            if type(token) is keys:
                step = STEPS[slot]
                needed = step.kind in self.needed
                plan[token] = (slot, check, NOTED.get(step.kind) if needed else None, step.read if needed else None)
        return plan

    def parse(self, record: bytes | str) -> ev.Event | ev.Noted | None:
        """One record in, one event (or None) out; counted either way."""
        # The hot path of every log line: kept flat on purpose.
        m: Any  # a match on bytes or on text: both read alike below
        try:
            m = MASTER_BYTES(record)  # type: ignore[arg-type]  # a text record raises TypeError
            plan = self._bytes_plan
        except TypeError:  # a text record (cheaper to learn so than to ask every bytes one)
            record = record.strip("\x00\r\n\ufeff")  # type: ignore[arg-type]
            m = MASTER(record)  # type: ignore[arg-type]
            plan = self._text_plan
        if m is None:
            return self._parse_slowly(record)
        i: int = m.lastindex
        slot, check, noted, read = plan[i][m[i]]
        if check:  # a player line: the pattern proved its shape, the caches prove its names
            actor = m[2]
            try:
                if actor not in self._actors and not self._new_actor(actor):
                    return self._parse_slowly(record)
                if check > 1 and m[check] not in self._identities and not self._new_identity(m[check]):
                    return self._parse_slowly(record)
            except Malformed:  # a name or a SteamID past what a game writes: said and counted there
                return self._parse_slowly(record)
        time = self._times.get(m[1])
        if time is None:  # a new second: one the calendar lacks makes the line malformed
            try:
                time = self._new_second(m[1])
            except Malformed:
                return self._parse_slowly(record)
        self._tally[slot] += 1
        if read is None:
            return noted
        player = self._actors[actor] if check else None
        if check > 1:  # a two-player line: its groups hold all it says
            return read(self, m, time, player)
        tail = record[m.start(i) if check else m.end(1) + 2 :]
        if type(tail) is bytes:
            tail = tail.decode("utf-8", "jailcore-latin1").rstrip("\x00\r\n\ufeff")
        return read(self, time, player, tail)

    def _parse_slowly(self, record: bytes | str) -> ev.Event | ev.Noted | None:
        line = decode(record).strip("\x00\r\n\ufeff")
        if not line or line.isspace():
            return None
        try:
            event = self.read_line(line)
        except Malformed:
            self.stats.malformed += 1
            return None
        if event is None:
            self.stats.unknown += 1
            return None
        counts = self.stats.counts
        counts[event.kind] = counts.get(event.kind, 0) + 1
        return event if event.kind in self.needed else None


_MARKS: dict[type, tuple[Any, ...]] = {bytes: (b"\x00", b"\r\n", b'"', b"\n", b"L ", b"/"), str: ("\x00", "\r\n", '"', "\n", "L ", "/")}


MAX_JOINED = 8192  # a record split by newlines inside quotes is short; past this it is junk, not one record


def records(lines: Iterable[bytes | str]) -> Iterator[bytes | str]:
    """Log-file lines to records, joining a record that a newline inside quotes split.

    Linear in the input: the open quote is tracked line by line (never by counting the
    whole record again) and the parts are joined once, and a record stops growing at
    MAX_JOINED, so a stray quote followed by megabytes of lines without a timestamp costs
    what reading them costs."""
    parts: list[Any] = []
    size, quote_open = 0, False
    for line in lines:
        nul, eol, quote, newline, prefix, slash = _MARKS[type(line)]
        head = line.lstrip(nul)
        line = line.rstrip(eol)
        # A record continues only while a quote is open (a reason with a newline in it);
        # any other line without a timestamp is a record of its own, counted as junk.
        if head[:2] == prefix or head[2:3] == slash or not parts or not quote_open or size + len(line) > MAX_JOINED:
            if parts:
                yield parts[0] if len(parts) == 1 else newline.join(parts)
            parts, size, quote_open = [line], len(line), line.count(quote) % 2 == 1
        else:
            parts.append(line)
            size += len(line) + 1
            quote_open ^= line.count(quote) % 2 == 1
    if parts:
        yield parts[0] if len(parts) == 1 else newline.join(parts)
