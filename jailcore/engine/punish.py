"""Punishment ladders carried out, in one place.

Contract: `punish(ctx, rule key, offender, text)` climbs the offender's ladder for that
rule and turns the step he reached into actions; `STEPS` says what each step does. CT bans
(timed or counted in rounds), the return block after a rule's move to T, and autoslays
are kept here, in the shared state, because several rules give them and the door to CT
(`rules/ctban.py`), pardons and the network all read the same records.

In `observe` and `advise` modes (`Scene.observing`) every step is decided and its actions
said (advise warns the player of them), and nothing is kept: the offence counts on a ladder of
its own (`State.observed`, dropped when the server enforces), no CT ban, autoslay, return block or punishment owed
is stored, and no one is taken for slain or moved. The game was never told, so what the
engine knows of it stays what the log says; and nothing of it is there to be sent later.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, cast

import attrs

from jailcore.engine.actions import PLAIN, Action, Autoslay, Ban, CtBan, Door, Lapse, Money, Punishment, Slay, TeamSwap
from jailcore.engine.ladder import Step, parse_step
from jailcore.engine.proposals import propose
from jailcore.engine.state import CT, Owed, Seat, State, T
from jailcore.engine.state import Autoslay as AutoslayKept
from jailcore.engine.state import CtBan as CtBanKept
from jailcore.engine.vocabulary import kind_name
from jailcore.log.events import same_account
from jailcore.log.inbound import NetworkBan
from jailcore.log.logtime import plus_minutes, seconds_between

if TYPE_CHECKING:
    from jailcore.engine.scene import Scene

_WARN = (Step("warn"),)
# The rules that read nothing the shim says (the warden, orders, prohibitions, the game, the
# day, a last request): a lost shim line leaves what they see sure (`engine/sequence.py`).
SURE = frozenset({"conduct.advertising", "conduct.names", "conduct.language", "ctban", "ctban.return_block"})


class _ReturnBlock(Protocol):
    """What a move to T reads of `ctban.return_block`'s settings (its rule class sits
    above this module: the rules import punish)."""

    enabled: bool
    ref: str
    rounds: int
    after: tuple[str, ...]


def next_step(ctx: Scene, key: str, seat: Seat) -> Step:
    """The step of his ladder for this rule that the offender's next offence reaches."""
    rule = ctx.config.rules[key]
    counter = f"{key}|{seat.key}"
    reached = ctx.state.ladders.get(counter, 0)
    if ctx.observing:  # what it would reach had every observed step been given
        reached += ctx.state.observed.get(counter, 0)
    ladder = getattr(rule, "ladder", ()) or _WARN
    return ladder[min(reached, len(ladder) - 1)]


def punish(ctx: Scene, key: str, seat: Seat, text: str, ref: str | None = None, judgement: bool = False) -> list[Action]:
    """`judgement`: a finding the log cannot settle (a volley's last shot or the next one,
    whether rounds were «интересные»): put to an admin whatever the rule's `confirm`."""
    rule = ctx.config.rules[key]
    if not rule.enabled or seat.steamid == "BOT":
        return []  # a bot (`<BOT>`) breaks no rule: it has no intent, and no one answers for it
    ref = rule.ref if ref is None else ref
    step = next_step(ctx, key, seat)
    reason = ctx.quoting(ref, ctx.text("penalty", text=text, step=kind_name(ctx.lang, step.action)))
    if rule.confirm == "admin" or judgement:  # an admin's judgement: the ladder waits for his word
        return propose(ctx, key, rule, seat, ref, step, reason)
    if ctx.state.doubt and key not in SURE:  # lines of this round were lost: what it read may be a guess
        return propose(ctx, key, rule, seat, ref, step, f"{reason} {ctx.text('doubt', lost=ctx.state.lost)}")
    return carry_out(ctx, key, ref, step, seat, reason)


def carry_out(ctx: Scene, key: str, ref: str, step: Step, seat: Seat, reason: str) -> list[Action]:
    """A step decided elsewhere (an admin confirmed a proposal): the ladder climbed now."""
    counter = f"{key}|{seat.key}"
    climbed = ctx.state.observed if ctx.observing else ctx.state.ladders
    climbed[counter] = climbed.get(counter, 0) + 1
    if ctx.online(seat.key) is None:
        return _owed(ctx, key, ref, step, seat, reason)
    return STEPS[step.action](ctx, step, seat, key, ref, reason)


# -- a player who has left -------------------------------------------------------------

# Steps that need him in the game: kept for his return (a slay until he is next alive).
_ON_RETURN = frozenset({"warn", "slay", "teamswap", "kick"})


def _owed(ctx: Scene, key: str, ref: str, step: Step, seat: Seat, reason: str) -> list[Action]:
    """Leaving escapes nothing: the punishment is decided now and written (its actions
    marked `absent`: nothing is sent to a #userid nobody has). A server ban goes at once by
    his SteamID (`jb_addban`); a CT ban and an autoslay are kept by his SteamID already (the
    door, the round start); a warning, a slay, a move or a kick waits for his return."""
    s = ctx.state
    seat = Seat(seat.userid, seat.steamid, seat.name)  # not on a team: nothing to move, no warden to end
    if step.action in _ON_RETURN and not seat.key.startswith("#"):
        rule = ctx.config.rules.get(key)
        minutes = rule.return_minutes if rule is not None else 60
        if not ctx.observing:  # observed: said, never kept for his return
            s.owing.setdefault(seat.key, []).append(Owed(key, ref, str(step), reason, plus_minutes(s.time, max(1, minutes))))
        out: list[Action] = [ctx.action(TeamSwap, seat, key, ref, reason) if step.action == "teamswap" else
                             ctx.action(PLAIN[step.action], seat, key, ref, reason)]
    elif step.action in ("ban", "ctban", "autoslay"):
        out = STEPS[step.action](ctx, step, seat, key, ref, reason)
    else:
        out = []  # money, a respawn, a freeday: for this round's game only
    return [attrs.evolve(a, absent=True) if isinstance(a, Punishment) and a.target.userid == seat.userid else a for a in out]


def on_return(ctx: Scene, seat: Seat) -> list[Action]:
    """He is back: what he owes is carried out now, a slay at his next round alive. The
    ladder was climbed when it was decided."""
    s = ctx.state
    owed = _owing(s, seat.key)
    if not owed:
        return []
    out: list[Action] = []
    kept = []
    for o in owed:
        if o.expires <= s.time:
            out.append(_lapsed(ctx, seat, o))
            continue
        step = parse_step(o.step)
        if step.action == "slay":
            kept.append(o)
            continue
        if step.action == "teamswap":
            done = move_to_t(ctx, seat, o.rule, o.ref, o.reason, block=False)
        else:
            done = [ctx.action(PLAIN[step.action], seat, o.rule, o.ref, o.reason)]
        out += [attrs.evolve(a, owed=True, owed_row=o.row) if isinstance(a, Punishment) else a for a in done]
    if kept:
        s.owing[seat.key] = kept
    return out


def _lapsed(ctx: Scene, seat: Seat | None, o: Owed) -> Lapse:
    """He did not come back within the rule's `return_minutes`: its `owed` row says `expired`, and why."""
    text = ctx.text("owed.lapsed", step=kind_name(ctx.lang, parse_step(o.step).action), expires=o.expires)
    if seat is None:  # not on the server now
        return Lapse(ctx.state.time, ctx.state.round, o.rule, o.ref, text, None, step=o.step, owed_row=o.row)
    return ctx.action(Lapse, seat, o.rule, o.ref, text, step=o.step, owed_row=o.row)


def _owing(s: State, key: str) -> list[Owed]:
    owed = s.owing.pop(key, [])
    for other in same_account(key):  # owed under another form of his steamid
        owed += s.owing.pop(other, [])
    return owed


def owed_slays(ctx: Scene) -> list[Action]:
    """At a round start: the slays owed by players back and alive; what has expired goes."""
    s = ctx.state
    out: list[Action] = []
    for key, owed in list(s.owing.items()):
        seat = ctx.online(key)
        out += [_lapsed(ctx, seat, o) for o in owed if o.expires <= s.time]
        owed = [o for o in owed if o.expires > s.time]
        if seat is not None and seat.alive:
            for o in [o for o in owed if o.step == "slay"]:
                owed.remove(o)
                out.append(attrs.evolve(_slain(ctx, seat, o.rule, o.ref, o.reason), owed=True, owed_row=o.row))
        if owed:
            s.owing[key] = owed
        else:
            del s.owing[key]
    return out


# -- the steps -------------------------------------------------------------------------


def _plain(ctx: Scene, step: Step, seat: Seat, key: str, ref: str, reason: str) -> list[Action]:
    return [ctx.action(PLAIN[step.action], seat, key, ref, reason)]


def _cancel(ctx: Scene, step: Step, seat: Seat, key: str, ref: str, reason: str) -> list[Action]:
    return []  # the rule itself says what to cancel


def _slay(ctx: Scene, step: Step, seat: Seat, key: str, ref: str, reason: str) -> list[Action]:
    return [_slain(ctx, seat, key, ref, reason)]


def _slain(ctx: Scene, seat: Seat, key: str, ref: str, reason: str) -> Slay:
    if not ctx.observing:
        seat.alive = False
        ctx.state.slain.append(seat.userid)
    return ctx.action(Slay, seat, key, ref, reason)


def _teamswap(ctx: Scene, step: Step, seat: Seat, key: str, ref: str, reason: str) -> list[Action]:
    return move_to_t(ctx, seat, key, ref, reason, block=True, ladder=True)


def _ctban(ctx: Scene, step: Step, seat: Seat, key: str, ref: str, reason: str) -> list[Action]:
    return ban_from_ct(ctx, seat, key, ref, reason, minutes=step.minutes, rounds=step.rounds)


def _autoslay(ctx: Scene, step: Step, seat: Seat, key: str, ref: str, reason: str) -> list[Action]:
    rounds = step.number() or 1  # `autoslay 0` slays once
    if not ctx.observing:
        ctx.state.autoslay[seat.key] = AutoslayKept(rounds, key, ref, reason)
    return [ctx.action(Autoslay, seat, key, ref, ctx.text("autoslay.given", rounds=rounds, text=reason), rounds=rounds)]


def _ban(ctx: Scene, step: Step, seat: Seat, key: str, ref: str, reason: str) -> list[Action]:
    return [ctx.action(Ban, seat, key, ref, reason, minutes=step.number())]


def _money(ctx: Scene, step: Step, seat: Seat, key: str, ref: str, reason: str) -> list[Action]:
    return [ctx.action(Money, seat, key, ref, reason, amount=step.number())]


# What each step does: (context, step, offender, rule key, clause, reason) -> its actions.
STEPS: dict[str, Callable[[Scene, Step, Seat, str, str, str], list[Action]]] = {
    "warn": _plain,
    "kick": _plain,
    "respawn": _plain,
    "freeday": _plain,
    "cancel": _cancel,
    "slay": _slay,
    "teamswap": _teamswap,
    "ctban": _ctban,
    "autoslay": _autoslay,
    "ban": _ban,
    "money": _money,
}


# -- moves, CT bans, autoslay ----------------------------------------------------------


def move_to_t(ctx: Scene, seat: Seat, key: str, ref: str, reason: str, block: bool, ladder: bool = False) -> list[Action]:
    """Move a guard to the prisoners; a move under one of the reasons 001 guards 11 names
    (balance, not knowing the rules, bad command, bad microphone: the rule keys in
    `ctban.return_block.after`, and `"ladder"` there for any rule's ladder step, a move
    for breaking a rule) also blocks his return when the server has that rule."""
    out: list[Action] = [ctx.action(TeamSwap, seat, key, ref, reason)]
    if ctx.observing:
        return out  # never moved: he is where the log says, his command and his game his still
    was_ct = seat.team == CT
    seat.team = T  # the shim moves him with CS_SwitchTeam: alive, a prisoner now
    ctx.state.moved.append(seat.userid)
    if seat.userid == ctx.state.warden:
        ctx.warden_gone(orders_end=True)
    game = ctx.state.game
    if game is not None and game.host == seat.userid and not ctx.state.specialday_name:
        ctx.state.game = None  # a host moved to the prisoners hosts nothing: no judging him for it after
    blocker = cast(_ReturnBlock, ctx.config.rules["ctban.return_block"])
    if block and was_ct and blocker.enabled and (key in blocker.after or (ladder and "ladder" in blocker.after)) and seat.key not in ctx.state.ctbans:
        told = ctx.quoting(blocker.ref, ctx.text("ctban.return_block", left=blocker.rounds))
        ban = ctx.state.ctbans[seat.key] = ban_record(ctx, seat.steamid, seat.name, "ctban.return_block", blocker.ref, told,
                                                      rounds=blocker.rounds)
        out.append(door_action(ctx, seat, ban))  # the shim refuses his return at once
    return out


def door_action(ctx: Scene, seat: Seat, ban: CtBanKept) -> Door:
    """`door`: the shim's copy of one ban (minutes left, rounded up; none for a ban in
    rounds or for ever, which the daemon lifts itself)."""
    minutes = None
    if ban.until is not None and ban.rounds is None:
        minutes = max(1, -(-int(seconds_between(ctx.state.time, ban.until)) // 60))
    # A ban given while he was away is carried out here: the session marks its `owed` row done once the shim holds it.
    return ctx.action(Door, seat, ban.rule, ban.ref, ban.reason, minutes=minutes, rounds=ban.rounds, by=ban.by,
                      owed=ban.row is not None, owed_row=ban.row)


def ban_record(ctx: Scene, steamid: str, name: str, rule: str, ref: str, reason: str,
               until: str | None = None, rounds: int | None = None, origin: str = "") -> CtBanKept:
    # Given while a round runs: that round does not count; given between rounds: the next does.
    return CtBanKept(steamid, name, until, rounds, ctx.state.round, rule, ref, reason, origin, fresh=ctx.state.round_open)


def ban_from_ct(ctx: Scene, seat: Seat, key: str, ref: str, reason: str,
                minutes: int | None = None, rounds: int | None = None) -> list[Action]:
    until = plus_minutes(ctx.state.time, minutes) if minutes else None
    ban = ban_record(ctx, seat.steamid, seat.name, key, ref, reason, until=until, rounds=rounds)
    if not ctx.observing:
        ctx.state.ctbans[seat.key] = ban
    text = ctx.text("ctban.given", left=time_left(ctx, ban), text=reason)
    out: list[Action] = [ctx.action(CtBan, seat, key, ref, text, minutes=minutes, rounds=rounds)]
    if seat.team == CT:
        out += move_to_t(ctx, seat, key, ref, reason, block=False)
    return out


def time_left(ctx: Scene, ban: CtBanKept) -> str:
    if ban.rounds is not None:
        return ctx.text("left.rounds", n=ban.rounds)
    if ban.until is None:
        return ctx.text("left.forever")
    left = int(seconds_between(ctx.state.time, ban.until))
    return ctx.text("left.minutes", n=max(1, -(-left // 60)))


def active_ban(ctx: Scene, seat: Seat) -> CtBanKept | None:
    """The player's CT ban if it still holds; one that ran out is dropped here."""
    bans = ctx.state.ctbans
    ban = bans.get(seat.key) or _same_account_ban(bans, seat)
    if ban is None:
        return None
    if (ban.until is not None and ban.until <= ctx.state.time) or (ban.rounds is not None and ban.rounds <= 0):
        del bans[seat.key]
        return None
    return ban


def _same_account_ban(bans: dict[str, CtBanKept], seat: Seat) -> CtBanKept | None:
    """A ban kept under another form of his steamid (made on a CS:S server, seen here on
    CS:GO, or given as [U:1:N]): kept from now on as this game writes him."""
    for other in same_account(seat.key):
        ban = bans.pop(other, None)
        if ban is not None:
            ban.steamid = seat.steamid
            bans[seat.key] = ban
            return ban
    return None


def count_down_bans(ctx: Scene) -> None:
    """A round was played to its end: bans counted in rounds lose one, except in the round
    they were given. Rounds are counted as played, not by the round number, which a map
    change may start again. A round restarted, or cut short by a map change (often the
    moment it began), was not played out and counts for nothing. Timed bans that ran out are dropped, so players who never
    come back cost nothing."""
    s = ctx.state
    for key, ban in list(s.ctbans.items()):
        if ban.rounds is not None:
            if ban.fresh:
                ban.fresh = False
                continue
            ban.rounds -= 1
            if ban.rounds <= 0:
                del s.ctbans[key]
        elif ban.until is not None and ban.until <= s.time:
            del s.ctbans[key]


def autoslay_at_round_start(ctx: Scene) -> list[Action]:
    s = ctx.state
    if not s.autoslay:
        return owed_slays(ctx) if s.owing else []
    out: list[Action] = []
    by_key = {seat.key: seat for seat in s.players.values()}
    for key, entry in list(s.autoslay.items()):
        seat = by_key.get(key)
        if seat is None or not seat.alive:
            continue
        entry.rounds -= 1
        if entry.rounds <= 0:
            del s.autoslay[key]
        seat.alive = False
        reason = ctx.quoting(entry.ref, ctx.text("autoslay.slay", left=max(entry.rounds, 0)))
        slay = ctx.action(Slay, seat, entry.rule, entry.ref, reason)
        if entry.row is not None:  # given while he was away: his first slay carries it out, and names its row
            slay, entry.row = attrs.evolve(slay, owed=True, owed_row=entry.row), None
        out.append(slay)
    return out + (owed_slays(ctx) if s.owing else [])


def network_ban(ctx: Scene, ban: NetworkBan) -> CtBanKept:
    """A CT ban made on another server of the network (typed and checked by `log.inbound`), as a record of ours."""
    record = ban_record(ctx, ban.steamid, ban.name, "ctban", ban.ref, ban.reason, until=ban.until, rounds=ban.rounds, origin=ban.origin)
    record.by = ban.by
    return record

