"""How big the kept log lines (a round's story, `[web] story_days`) grow for a busy server.

Feeds the real CS:GO logs of the corpus through the parser and keeps the lines the
daemon keeps (every line that is an event; not the `Noted` purchases and cvar dumps) in
a real state database, the way the daemon does: the session's `KeepLines` rows, written as its writer writes them.
Prints bytes per kept line on disk (table and indexes), kept lines per player-hour of
play (a player counts in each 5-minute window in which a line names him), and what that
makes for a busy jail server over the default 14 days.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from jailcore.log import events as ev
from jailcore.log.parse import LogParser, records
from jailcore.session.effects import KeepLines
from jailcore.store.sqlite import Store

ROOT = Path(__file__).resolve().parents[1]
BUSY_PLAYERS, BUSY_HOURS, DAYS = 64, 12, 14  # a full 64-slot jail server, 12 hours a day of play


def main() -> None:
    base = next((b for b in (ROOT.parent / "shared" / "corpus", ROOT / "shared" / "corpus") if b.is_dir()), None)
    if base is None:
        sys.exit("bench: no shared/corpus beside the checkout")
    files = sorted(p for p in base.glob("*.log") if "csgo" in p.name and "wenbreak" not in p.name)
    kept = player_hours = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "story.sqlite3"
        store = Store(path)
        store.save_state("bench", {}, "")
        empty = _size(store, path)
        batch: list[tuple[str, int, str, str, int]] = []
        for log in files:
            parser = LogParser()
            seen: dict[str, set[int]] = {}  # players seen in each 5-minute window of play
            round_no = 0
            with log.open("rb") as fh:
                for record in records(fh):
                    event = parser.parse(record)
                    if event is None or not event.time:
                        continue
                    if isinstance(event, ev.RoundStart):
                        round_no += 1
                    who = getattr(event, "player", None) or getattr(event, "killer", None)
                    window = seen.setdefault(event.time[:15] + str(int(event.time[15]) // 5), set())
                    if who is not None and who.steamid != "BOT":
                        window.add(who.userid)
                    text = record.decode("utf-8", "replace") if isinstance(record, bytes) else record
                    batch.append(("bench", round_no, event.time, text.strip("\x00\r\n"), 0))
                    kept += 1
                    if len(batch) >= 2000:  # as often as a busy session hands its lines over
                        store.write([KeepLines(tuple(batch), 100000)])
                        store.commit()
                        batch = []
            store.write([KeepLines(tuple(batch), 100000)])
            store.commit()
            batch = []
            player_hours += sum(len(w) for w in seen.values()) * 5 / 60
        size = _size(store, path) - empty
        store.close()
    per_line = size / kept
    per_player_hour = kept / player_hours
    busy = per_player_hour * BUSY_PLAYERS * BUSY_HOURS * DAYS
    print(f"corpus: {len(files)} CS:GO logs, {kept:,.0f} kept lines, {player_hours:,.1f} player-hours of play")
    print(f"on disk: {per_line:.0f} bytes per kept line (row and both indexes)")
    print(f"rate: {per_player_hour:,.0f} kept lines per player-hour")
    print(f"busy server ({BUSY_PLAYERS} players, {BUSY_HOURS} h a day, {DAYS} days): {busy:,.0f} lines, {busy * per_line / 2**20:,.0f} MiB")


def _size(store: Store, path: Path) -> int:
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path.stat().st_size


if __name__ == "__main__":
    main()
