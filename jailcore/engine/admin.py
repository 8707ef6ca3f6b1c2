"""What admins do to the engine's decisions: pardon one, give or lift a CT ban, and the
list of bans the game's door must hold.

Contract: pure functions over the engine's `Context`, like the rules, returning the
actions that carry the admin's word into the game. A pardon undoes what one enforcement
did to the state (the offender's ladder step, a CT ban or return block it gave, an
autoslay) and says what must be undone in the game (`unctban`, `unban`, money back);
a slay or a kick cannot be undone and is only taken off the ladder.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from jailcore.engine import proposals
from jailcore.engine.actions import Action, Ask, Ban, CtBan, Money, Pardon, Punishment, Target, Unban, Unctban, Warn
from jailcore.engine.ladder import parse_step
from jailcore.engine.punish import active_ban, ban_from_ct, carry_out, door_action
from jailcore.engine.state import Seat
from jailcore.log import events as ev
from jailcore.log.events import player_key, same_account

if TYPE_CHECKING:
    from jailcore.engine.context import Context

PARDON = "pardon"
ADMIN = "admin"
# The longest CT ban an admin can give: the shim holds its end as a Unix time in a 32-bit
# cell (GetTime() + seconds), so years would overflow it. Longer is permanent (0 minutes).
MAX_MINUTES = 525_600  # a year
MAX_ROUNDS = 10_000


def pardon(ctx: Context, entry: dict[str, Any], by: str, reason: str) -> list[Action]:
    """Undo one enforcement; `entry` is its action as `Action.to_json()` wrote it."""
    target = entry.get("target") or {}
    steamid, userid = str(target.get("steamid", "")), int(target.get("userid", 0) or 0)
    key, rule, kind = player_key(steamid, userid), str(entry.get("rule", "")), str(entry.get("action", ""))
    s = ctx.state
    counter = f"{rule}|{key}"
    if s.ladders.get(counter, 0) > 0:
        s.ladders[counter] -= 1
        if not s.ladders[counter]:
            del s.ladders[counter]
    seat = ctx.online(key) or Seat(userid, steamid, str(target.get("name", "")))
    text = ctx.text("pardon", by=by, reason=reason or "-", what=ctx.text("pardon.what", action=kind, ref=entry.get("ref", "")))
    out: list[Action] = [ctx.action(Pardon, seat, PARDON, str(entry.get("ref", "")), text)] if ctx.online(key) else []
    ban = s.ctbans.get(key)
    gave_ban = kind == "ctban" and ban is not None and ban.rule == rule
    gave_block = kind == "teamswap" and ban is not None and ban.rule == "ctban.return_block" and ban.since == entry.get("round")
    if (gave_ban or gave_block) and ban is not None:
        del s.ctbans[key]
        out.append(ctx.action(Unctban, seat, PARDON, ban.ref, text, by=by, absent=ctx.online(key) is None))
    if kind == "autoslay":
        s.autoslay.pop(key, None)
    if kind == "ban":
        out.append(ctx.action(Unban, seat, PARDON, str(entry.get("ref", "")), text))
    amount = entry.get("amount")
    if kind == "money" and isinstance(amount, int) and amount < 0:
        out.append(ctx.action(Money, seat, PARDON, str(entry.get("ref", "")), text, amount=-amount))
    return out


def asked(ctx: Context, e: ev.AdminWord) -> list[Action]:
    """An admin's word in game (`!jcpardon ID`, `!jcconfirm ID`, `!jcdismiss ID`), routed as
    every shim line is (its seq counted, a line that came twice dropped) and handed on as an
    `ask`: the session writes it as the row the command line writes, and applies that row."""
    # The admin as his target: his SteamID (the game authenticated it) goes with a pardon, by which SourceBans++ credits him.
    admin = Target(e.player.userid, e.player.steamid, e.player.name)
    return [Ask(ctx.state.time, ctx.state.round, ADMIN, "", e.reason, admin, index=e.id, by=e.player.name, step=e.step)]


def confirm(ctx: Context, number: int, by: str) -> tuple[list[Action], str | None]:
    """An admin confirms proposal `number`: the punishment it stands for is carried out as
    it would have been, and the ladder climbed now. Returns the actions, or none and why
    not (answered or lapsed already; the player is away, and it waits for his return)."""
    p = proposals.find(ctx, number)
    if p is None:
        return [], "gone"
    step = parse_step(p.step)
    proposals.take(ctx, number)
    # One who has left is punished all the same: a ban by his SteamID at once, the rest
    # when he returns (`punish.py`).
    seat = ctx.online(p.key) or Seat(p.userid, p.steamid, p.name)
    out = carry_out(ctx, p.rule, p.ref, step, seat, p.reason)
    out = [attrs.evolve(a, by=by) if isinstance(a, Punishment) and a.rule == p.rule and a.by is None else a for a in out]
    return [a for a in out if a.target is None or a.target.userid], None


def dismiss(ctx: Context, number: int) -> bool:
    """An admin dismisses proposal `number`: nothing is done and the ladder stays."""
    return proposals.take(ctx, number) is not None


def give_ctban(ctx: Context, seat: Seat, minutes: int | None, rounds: int | None, reason: str, by: str) -> list[Action]:
    """An admin's CT ban (`!ctban`, `jailcore ctban add`): the same record a rule gives."""
    # Bounded here too: a request row may come from the web page or an older command line.
    minutes = None if minutes is None else max(0, min(int(minutes), MAX_MINUTES))
    rounds = None if rounds is None else max(1, min(int(rounds), MAX_ROUNDS))
    text = ctx.text("ctban.admin", by=by, reason=reason or "-")
    ref = ctx.config.rules["ctban"].ref  # the server's own number for CT bans ([ctban] ref)
    if not ctx.observing:  # observed, it is written and kept nowhere (`punish.py`)
        for other in same_account(seat.key):  # one account, one ban: a new one replaces any form of the old
            ctx.state.ctbans.pop(other, None)
    out = ban_from_ct(ctx, seat, ADMIN, ref, text, minutes=minutes, rounds=rounds)
    if not ctx.observing:
        ctx.state.ctbans[seat.key].by = by
    return [attrs.evolve(a, by=by) if isinstance(a, CtBan) else a for a in out]


def act(ctx: Context, steamid: str, name: str, kind: str, minutes: int | None, reason: str, by: str) -> list[Action]:
    """An admin's warning or server ban from outside the game (the web page): the same action
    a rule's step gives, under the rule `admin` with no clause (an admin's word is its own
    reason), his name on it. A warning is for a player on the server (none if he is away); a
    ban reaches one who has left by his SteamID. He is found under any form of his SteamID."""
    key = player_key(steamid, 0)
    seat = next((s for k in (key, *same_account(key)) if (s := ctx.online(k)) is not None), None) or Seat(0, steamid, name)
    text = ctx.text(f"{kind}.admin", by=by, reason=reason or "-")
    if kind == "warn":
        return [ctx.action(Warn, seat, ADMIN, "", text, by=by)] if seat.userid else []
    if kind != "ban":
        return []
    minutes = 0 if minutes is None else max(0, min(int(minutes), MAX_MINUTES))  # none said: a permanent ban
    return [ctx.action(Ban, seat, ADMIN, "", text, minutes=minutes, by=by, absent=not seat.userid)]


def lift_ctban(ctx: Context, key: str, by: str, reason: str = "") -> list[Action]:
    bans = ctx.state.ctbans
    ban = bans.pop(key, None)
    for other in same_account(key):  # the same account under another form (STEAM_0/STEAM_1/[U:1:N])
        ban = bans.pop(other, None) or ban
    if ban is None:
        return []
    seat = ctx.online(key)
    text = ctx.text("ctban.lifted", by=by, reason=reason or "-")
    if seat is None:  # he is away: lifted here all the same, and audited (and told to the admins) as given
        return [ctx.action(Unctban, Seat(0, ban.steamid, ban.name), ADMIN, ban.ref, text, by=by, absent=True)]
    return [ctx.action(Unctban, seat, ADMIN, ban.ref, text, by=by)]


def door(ctx: Context) -> list[Action]:
    """The bans of the players on the server, for the shim to refuse their join to CT even
    while the daemon is away (sent after `jb_hello` and a resync)."""
    out: list[Action] = []
    for seat in ctx.state.players.values():
        ban = active_ban(ctx, seat)
        if ban is not None:
            out.append(door_action(ctx, seat, ban))
    return out

