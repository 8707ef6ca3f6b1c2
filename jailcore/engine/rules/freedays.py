"""Freedays (ФД): a day, or a prisoner, free of the warden's orders.

- `calendar.freeday`: 001 ФД 1 «Понедельник - всегда ФД!»: Monday is announced as a freeday;
  an order or a game on it climbs the warden's ladder, until ФД 5 lets him take it.
- `calendar.personal_freeday`: 001 ФД 8: a personal freeday at most once a week.
- `calendar.freeday_end`: 001 ФД 4 «Персональное ФД забирается, если осталось 2 и менее
  простых заключенных» and ФД 5 «Общее ФД можно забрать, если Половина/Большинство
  игроков - Мертвы»: everyone is told the moment it happens.
"""

from __future__ import annotations

import re

import attrs

from jailcore.engine.actions import Action, Say, Warn
from jailcore.engine.context import Context
from jailcore.engine.ledger import Entry, OwedFreedayGiven, RoundFreeday
from jailcore.engine.rules.base import Rule, handles, vetoes
from jailcore.engine.rules.common import half_dead
from jailcore.engine.settings import Ladder, RuleSettings, steps
from jailcore.engine.state import CT, Seat, T
from jailcore.log import events as ev

# An order that only names the freeday («ФД», «сегодня фд, не шалим», «Свободный день»): the
# warden writes the day on the HUD, he orders nothing (001 ФД 2). Unless he takes it back.
_FREEDAY_WORDS = re.compile(r"(?i)(?<![^\W\d_])(?:фд\w*|freeday|free\s*day|свободн\w*\s+день)")
_TAKEN_WORDS = re.compile(r"(?i)законч|оконч|кончил|конец|забира|отмен|стро[ий]|клетк|\bend")


class MondayFreeday(Rule["MondayFreeday.Settings", "MondayFreeday.State"]):
    """ФД 1 «Понедельник - всегда ФД!», until ФД 5 «Общее ФД можно забрать, если
    Половина/Большинство игроков - Мертвы»: from the moment half the players who began the
    round are dead, the warden may take the freeday, and his orders and games are lawful.
    «Игроков» may be read as the prisoners whose freeday it is: from the moment half of
    them are dead (and not yet half the players), an order is put to an admin."""

    key = "calendar.freeday"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "ФД 1"
        ladder: Ladder = steps("warn", "teamswap", "ctban 30m")

    @attrs.define
    class State:
        playing: int = 0  # players alive when Monday began
        prisoners: int = 0  # of them, prisoners

    def _today(self, ctx: Context) -> str:
        """"": no freeday stands; "judge": half the prisoners are dead, not half the players
        (ФД 5 read the other way, an admin's call); "freeday": it stands by either reading."""
        if not (ctx.state.freeday and ctx.day == 1):
            return ""
        of_players, of_prisoners = half_dead(ctx.state, self.state.playing, self.state.prisoners)
        return "" if of_players else "judge" if of_prisoners else "freeday"

    def _count(self, ctx: Context) -> None:
        self.state.prisoners = len(ctx.alive(T))
        self.state.playing = self.state.prisoners + len(ctx.alive(CT))

    @handles(ev.RoundStart)
    def monday(self, ctx: Context, e: ev.RoundStart) -> list[Action | Entry]:
        if ctx.day != 1:
            return []
        self._count(ctx)
        return [RoundFreeday(), ctx.announce(self.key, self.settings, ctx.text("calendar.freeday.say", day=ctx.day, week=ctx.week))]

    @handles(ev.FreezeEnded)
    def play(self, ctx: Context, e: ev.FreezeEnded) -> list[Action]:
        """Those who joined in the freeze period play Monday too."""
        if ctx.state.freeday and ctx.day == 1:
            self._count(ctx)
        return []

    def _judge(self, ctx: Context, seat: Seat) -> list[Action]:
        today = self._today(ctx)
        if not today:
            return []
        if today == "judge":
            dead = self.state.prisoners - len(ctx.alive(T))
            return ctx.punish(self.key, seat, ctx.text("calendar.freeday.half", dead=dead, prisoners=self.state.prisoners), judgement=True)
        return ctx.punish(self.key, seat, ctx.text("calendar.freeday"))

    @handles(ev.OrderGiven)
    def order(self, ctx: Context, e: ev.OrderGiven) -> list[Action]:
        if _FREEDAY_WORDS.search(e.text) and not _TAKEN_WORDS.search(e.text):
            return []  # «!order ФД»: the day written on the HUD, no order
        return self._judge(ctx, ctx.seat(e.player))

    @vetoes(ev.GameStarted)
    def game(self, ctx: Context, e: ev.GameStarted) -> list[Action] | None:
        if ctx.offered_game(e.game) is None or not self._today(ctx):
            return None
        return self._judge(ctx, ctx.seat(e.player))


class PersonalFreeday(Rule["PersonalFreeday.Settings", "PersonalFreeday.State"]):
    """001 ФД 8 «Приобретать ФД чаще, чем раз в неделю» is among what takes a freeday away
    («ФД забирается, если игрок сделал то, что ЗАПРЕЩЕНО»): the second personal freeday of
    a week is taken from the prisoner, unless he won it in a duel («Исключение: выигрыш в
    дуэли»): a prisoner who chose his last request and then killed a guard, or lived to the
    round's end, this round or the last one. A lost duel exempts nothing."""

    key = "calendar.personal_freeday"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "ФД 8"

    @attrs.define
    class State:
        granted: dict[str, int] = attrs.Factory(dict)  # player key -> the week of his freeday
        given: dict[str, int] = attrs.Factory(dict)  # player key -> the round it was given in: typed twice, one freeday
        duels: dict[str, int] = attrs.Factory(dict)  # player key -> the round of the duel he won
        fighting: dict[int, int] = attrs.Factory(dict)  # userid -> the round of his request, not yet decided

    @handles(ev.LastRequest)
    def duel(self, ctx: Context, e: ev.LastRequest) -> list[Action]:
        self.state.fighting[ctx.seat(e.player).userid] = ctx.state.round
        return []

    @handles(ev.Killed)
    def fought(self, ctx: Context, e: ev.Killed) -> list[Action]:
        mine, s = self.state, ctx.state
        if e.victim.userid in mine.fighting:
            del mine.fighting[e.victim.userid]  # he lost
        elif e.killer.userid in mine.fighting and s.players[e.victim.userid].team == CT:
            self._won(ctx, e.killer.userid)
        return []

    def _won(self, ctx: Context, userid: int) -> None:
        seat = ctx.state.players.get(userid)
        round_ = self.state.fighting.pop(userid, ctx.state.round)
        if seat is not None:
            self.state.duels[seat.key] = round_

    def round_cleared(self, ctx: Context) -> None:
        for userid in list(self.state.fighting):
            seat = ctx.state.players.get(userid)
            if seat is not None and seat.alive:
                self._won(ctx, userid)  # he outlived the duel
        self.state.fighting = {}

    @handles(ev.FreedayGranted)
    def granted(self, ctx: Context, e: ev.FreedayGranted) -> list[Action | Entry]:
        target = ctx.state.players.get(e.target) if e.scope == "personal" and e.target is not None else None
        if target is None:
            return []
        if target.userid in self.state.fighting and target.alive:
            self._won(ctx, target.userid)  # given his reward while the round still runs
        won = self.state.duels.get(target.key, -9) >= ctx.state.round - 1
        if ctx.state.owed.get(target.key, -9) >= ctx.state.round - 1:
            return [OwedFreedayGiven(target.key)]  # a freeday a rule owed him (ПЗ 1, FreeKill) is not one he acquired
        if self.state.given.get(target.key) == ctx.state.round:
            return []  # «!fd #5» typed twice in one round is one freeday
        if self.state.granted.get(target.key) == ctx.week and not won:
            # Taking it back is no punishment: everyone is told, the guards above all.
            text = ctx.quoting(self.settings, ctx.text("calendar.personal_freeday", name=target.name))
            return [ctx.everyone(Say, self.key, self.ref, text), ctx.action(Warn, target, self.key, self.ref, text)]
        if not won:
            self.state.granted[target.key] = ctx.week
            self.state.given[target.key] = ctx.state.round
        return []

    def week_started(self, ctx: Context) -> None:
        self.state.granted, self.state.given = {}, {}  # last week's freedays count for nothing now
        self.state.duels = {k: r for k, r in self.state.duels.items() if r >= ctx.state.round - 1}

    calendar_reset = week_started


class FreedayEnd(Rule["FreedayEnd.Settings", "FreedayEnd.State"]):
    key = "calendar.freeday_end"

    @attrs.frozen
    class Settings(RuleSettings):
        ref: str = "ФД 4"
        general_ref: str = "ФД 5"
        plain_left: int = 2  # «если осталось 2 и менее простых заключенных»

    @attrs.define
    class State:
        personal: list[int] = attrs.Factory(list)  # prisoners with a personal freeday this round
        playing: int = 0  # players alive when the round began
        told: list[str] = attrs.Factory(list)  # "personal", "general": said once a round

    @handles(ev.RoundStart, ev.FreezeEnded)
    def round_start(self, ctx: Context, e: ev.RoundStart | ev.FreezeEnded) -> list[Action]:
        self.state.playing = len(ctx.alive(T)) + len(ctx.alive(CT))  # again when the freeze ends: who joined in it plays
        return []

    @handles(ev.FreedayGranted)
    def granted(self, ctx: Context, e: ev.FreedayGranted) -> list[Action]:
        if e.scope == "personal" and e.target is not None and e.target not in self.state.personal:
            self.state.personal.append(e.target)
        return self._check(ctx)

    @handles(ev.Killed, ev.Suicide, ev.Disconnected, ev.JoinedTeam)
    def fewer(self, ctx: Context, e: ev.Event) -> list[Action]:
        return self._check(ctx)

    def _check(self, ctx: Context) -> list[Action]:
        s, mine, rule = ctx.state, self.state, self.settings
        if not s.round_open or (not mine.personal and not s.freeday):
            return []
        out: list[Action] = []
        alive = ctx.alive(T)
        free = [p for p in alive if p.userid in mine.personal]
        plain = len(alive) - len(free)
        if free and plain <= rule.plain_left and "personal" not in mine.told:
            mine.told.append("personal")
            text = ctx.text("calendar.freeday_end.personal", names=", ".join(p.name for p in free), left=plain)
            out.append(ctx.announce(self.key, rule, text))
        dead = mine.playing - len(alive) - len(ctx.alive(CT))
        if s.freeday and mine.playing and dead * 2 >= mine.playing and "general" not in mine.told:
            mine.told.append("general")
            text = ctx.quoting(rule.general_ref, ctx.text("calendar.freeday_end.general", dead=dead, playing=mine.playing))
            out.append(ctx.everyone(Say, self.key, rule.general_ref, text))
        return out

    def round_cleared(self, ctx: Context) -> None:
        self.state.personal, self.state.told = [], []
