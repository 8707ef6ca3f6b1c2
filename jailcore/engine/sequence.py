"""The shim's own lines in their order, and what the engine may no longer take for known.

Contract: every shim line carries `(seq "N")`, a count that rises by one per line since the
plugin loaded (protocol section 1). `seen(ctx, event)` says whether a line was handled
already (the same seq and content again: a datagram that came twice, a log read again), and
notes what was lost: a gap in the count is lines UDP lost (counted in `State.lost`, for
`status`), and a count that goes back with new content is a reload whose hello did not come.
Either way the daemon asks the game for its state (`jb_status`: players, teams, the warden),
and until the round's state is known again (`State.doubt`) no punishment that reads the
warden, the orders, the prohibitions, the game or the day is decided from a guess: `punish.py`
puts it to an admin. The reply cannot say what was lost of the orders or the game (`jb_status`
has neither), so the doubt lasts until a round begins in order: at the shim's own round line,
or at srcds's where the plugin writes none; a round begun without the shim's line where it
writes one asks the game again. `hello(ctx, event)` is a plugin (re)load (`seq "0"`): no gap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jailcore.log import events as ev
from jailcore.log.plugin import PLUGIN_VERSION, older_plugin

if TYPE_CHECKING:
    from jailcore.engine.scene import Scene

SEQ_WINDOW = 256  # shim lines remembered to recognise one that arrives twice

AGAIN, NEXT, LOST = "again", "next", "lost"


def seen(ctx: Scene, event: ev.ShimEvent) -> str:
    """AGAIN for a line already handled; LOST when lines before it were lost; else NEXT."""
    s = ctx.state
    text = repr(event)
    if s.recent.get(event.seq) == text:
        return AGAIN
    last = s.seq
    if last is not None and event.seq <= last and event.time < s.time:
        return AGAIN  # an old line again (a log read twice across a restart), not a reload
    said = NEXT
    if last is not None and event.seq != last + 1:
        said = LOST
        # Past its last: the lines between were lost. Back: the plugin reloaded and its hello
        # was lost, and the lines it wrote before this one since.
        missing = event.seq - last - 1 if event.seq > last else event.seq - 1
        if missing > 0:
            s.lost += missing
            s.lost_at = event.time
            doubt(ctx)
        else:
            ctx.ask_state()
    s.seq = event.seq
    s.recent[event.seq] = text
    if len(s.recent) > SEQ_WINDOW:
        del s.recent[next(iter(s.recent))]
    return said


def hello(ctx: Scene, event: ev.ShimHello) -> None:
    """The plugin (re)loaded: its count starts again, and its version is what `status` shows."""
    ctx.state.seq = event.seq
    ctx.state.plugin = event.version
    ctx.ask_state()


def doubt(ctx: Scene) -> None:
    """What the shim said of this round may be missing a line: ask the game, and decide
    nothing from a guess until the round's state is known again."""
    ctx.state.doubt = True
    ctx.ask_state()


def round_begins(ctx: Scene, by_shim: bool, shim_expected: bool) -> None:
    """A round begins: its state is known again when the shim's own line began it, or when
    the plugin writes none (an old one); else the shim's line of it was lost: ask again."""
    if ctx.state.doubt:
        if by_shim or not shim_expected:
            ctx.state.doubt = False
        else:
            ctx.ask_state()


def public(ctx: Scene) -> dict[str, object]:
    """The plugin and the lost lines, as `status` and the web page show them."""
    s = ctx.state
    plugin = None if s.plugin is None else {"version": s.plugin, "expected": PLUGIN_VERSION, "old": older_plugin(s.plugin)}
    return {"plugin": plugin, "lost_lines": s.lost, "lost_at": s.lost_at or None, "doubt": s.doubt}
