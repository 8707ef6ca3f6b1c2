"""The shared facts every rule reads, kept up to date from the log before the rules run.

Contract: for each event type, `before` brings players, teams, the round, the warden and
the round's orders, prohibitions, game and special day up to date; `after` does what must
wait until the rules have seen the event as it was (the warden's death ends his game only
after the teamkill rule looked at that game; an autoslay comes after the round's
announcements). A `before` that returns `STOP` swallows the event (warm-up rounds).
Calendar moments (a round cleared, a new week, a calendar reset) are passed on to every
rule through the hooks of `rules.base.Rule`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from jailcore.engine import admin, sequence
from jailcore.engine.actions import Action
from jailcore.engine.context import Context
from jailcore.engine.punish import autoslay_at_round_start, count_down_bans, on_return
from jailcore.engine.roundlines import FREEZE_AT_MOST, SAME_RESTART, RoundLines
from jailcore.engine.rules.base import Rule
from jailcore.engine.state import CT, PLAYING, VOLLEY_SECONDS, GameRun, HalfReached, LastPrisoner, Prohibition, Seat, T
from jailcore.log import events as ev
from jailcore.log.logtime import plus_seconds, seconds_between

STOP = object()


class Bookkeeping:
    def __init__(self, ctx: Context, rules: Iterable[Rule[Any, Any]]):
        self.ctx = ctx
        self.rules = list(rules)
        self.lines = RoundLines(ctx)  # what each round line means, in the game's order
        self.before: dict[type, Callable[[Any], Any]] = {
            ev.Connected: self._connected,
            ev.Validated: self._seen,
            ev.Entered: self._seen,
            ev.NameChanged: self._name_changed,
            ev.Chat: self._seen,
            ev.Threw: self._seen,
            ev.PrivilegeUsed: self._seen,
            ev.Disconnected: self._disconnected,
            ev.JoinedTeam: self._joined_team,
            ev.Killed: self._killed,
            ev.Attacked: self._attacked,
            ev.Suicide: self._suicide,
            ev.GagChanged: self._gag,
            ev.RoundStart: self._round_start,
            ev.FreezeEnded: self._freeze_ended,
            ev.RoundBegins: self._ignored,
            ev.FreezeStarted: self._ignored,
            ev.RoundEnd: self._round_end,
            ev.RestartRound: self._restart,
            ev.GameCommencing: self._restart,
            ev.WarmupStart: self._warmup,
            ev.WarmupEnd: self._warmup,
            ev.MapLoading: self._map,
            ev.MapStarted: self._map,
            ev.WorldTriggered: self._world,
            ev.WardenSet: self._warden_set,
            ev.WardenRemoved: self._warden_removed,
            ev.ProhibitionSet: self._prohibit,
            ev.ProhibitionLifted: self._prohibit_lift,
            ev.GameStarted: self._game_start,
            ev.GameEnded: self._game_end,
            ev.SpecialDay: self._specialday,
            ev.FreedayGranted: self._freeday,
            ev.LastRequest: self._last_request,
            ev.OrderGiven: self._order,
            ev.OrdersCancelled: self._something_else,
        }
        self.after: dict[type, Callable[[Any], list[Action] | None]] = {
            ev.Killed: self._killed_after,
            ev.Suicide: self._suicide_after,
            ev.RoundStart: self._round_start_after,
            ev.Entered: self._entered_after,
            ev.CtBanGiven: self._ctban_given,
            ev.CtBanLifted: self._ctban_lifted,
            ev.SpecialDay: self._day_played,
        }

    def _ignored(self, e: object) -> object:
        return STOP

    def _freeze_ended(self, e: ev.FreezeEnded) -> None:
        s = self.ctx.state
        s.play_from = e.time
        if s.game is not None and s.game.started < e.time:
            s.game.started = e.time  # a game announced in the freeze is played from its end

    # -- players -------------------------------------------------------------------------

    def _seen(self, e: ev.Validated | ev.Entered | ev.Chat | ev.Threw | ev.PrivilegeUsed) -> None:
        self.ctx.seat(e.player)

    def _connected(self, e: ev.Connected) -> None:
        seat = self.ctx.seat(e.player)
        seat.team, seat.alive = ev.UNASSIGNED, False

    def _name_changed(self, e: ev.NameChanged) -> None:
        self.ctx.seat(e.player).name = e.new_name

    def _disconnected(self, e: ev.Disconnected) -> None:
        s = self.ctx.state
        if e.player.userid == s.warden:
            self.ctx.warden_gone(orders_end=True)
        seat = s.players.pop(e.player.userid, None)
        if seat is not None and s.round_open:  # still answerable for this round (004 5.11's host, a proposal)
            s.left[seat.userid] = Seat(seat.userid, seat.steamid, seat.name)
        self._one_left()

    def _one_left(self) -> None:
        """The moment one prisoner is left (001 ПЗ 1), however the one before him went:
        killed, slain, gone from the server or moved to another team."""
        s = self.ctx.state
        if s.round_open and s.last_prisoner is None:
            alive = self.ctx.alive(T)
            if len(alive) == 1:
                s.last_prisoner = LastPrisoner(alive[0].userid, alive[0].name, s.time)

    def _rebel(self, attacker: ev.Player, victim: ev.Player) -> None:
        """000 «Исключение — Бунт»: a prisoner who attacked a guard is a rebel for the rest
        of the round, in any game that follows too."""
        s = self.ctx.state
        if s.players[attacker.userid].team != T or s.players[victim.userid].team != CT:
            return
        fight = s.specialday_name or s.last_request or (s.game is not None and "global" in s.game.tags)
        if attacker.userid not in s.rebels and not fight:  # a special day's, a global game's, a duel's fight is no бунт
            s.rebels.append(attacker.userid)
        last = s.last_prisoner
        if last is not None and attacker.userid == last.uid:
            last.rebelled = True

    def _joined_team(self, e: ev.JoinedTeam) -> None:
        s = self.ctx.state
        before = s.players.get(e.player.userid)
        already = before is not None and before.team == e.new  # the engine moved him there itself
        seat = self.ctx.seat(e.player)
        if seat.userid in s.moved or already:  # our CS_SwitchTeam: he keeps his life
            if seat.userid in s.moved:
                s.moved.remove(seat.userid)
            seat.team = e.new
        else:
            # A player who joins a team in the freeze period spawns with the round.
            seat.team, seat.alive = e.new, e.new in PLAYING and self.ctx.in_freeze
        if e.new != CT and (seat.userid == s.warden or self._resigned_now(seat.userid, e.time)):
            self.ctx.warden_gone(orders_end=True)
        if e.new == CT:
            s.joins += 1
            seat.joined = s.joins
        self._one_left()

    def _resigned_now(self, userid: int, time: str) -> bool:
        """The shim's `jb_warden_removed (resigned)` of this player was this move's own: both lines
        come from the one player_team event, in either order, within a second. A hand-over
        (`!uw`) seconds before a move is not undone by it."""
        s = self.ctx.state
        if s.resigned != userid or s.warden is not None:
            return False
        if seconds_between(s.resigned_at, time) > 1:
            s.resigned = None
            return False
        s.dying = userid  # warden_gone ends his command as at a death: orders and game with it
        return True

    def _killed(self, e: ev.Killed) -> None:
        self.ctx.seat(e.killer)
        victim = self.ctx.seat(e.victim)
        victim.alive = False
        self._rebel(e.killer, e.victim)
        self._one_left()

    def _killed_after(self, e: ev.Killed) -> None:
        s = self.ctx.state
        game, killer, victim = s.game, s.players.get(e.killer.userid), s.players.get(e.victim.userid)
        if game is not None and victim is not None and victim.team == T:
            game.result = True  # 004 5.12 «Проигравшие … погибают»: a loser is a result
        guards_kill = killer is not None and victim is not None and killer.team == CT and victim.team == T and victim.userid not in s.rebels
        if s.half is not None and guards_kill:
            s.half.died += 1
            if s.half.cells and seconds_between(s.half.at, e.time) <= VOLLEY_SECONDS:
                s.half.at = e.time  # the last cell's volley goes on
        if game is not None and guards_kill:
            game.died += 1
            # 000 Король «Игра завершается тогда, когда умрет половина заключенных (при обоих
            # королях)», Морской бой «до уничтожения половины заключенных» (rounded down):
            # the game is over; what a guard's kill past it is, `games.deaths` asks an admin.
            if "half" in game.tags and game.playing >= 2 and game.died >= game.playing // 2 and not s.specialday_name:
                s.half = HalfReached(game.name, game.host, game.started, game.playing, game.died, e.time, "cells" in game.tags)
                s.game = None
        if e.victim.userid in (s.warden, s.dying):
            self.ctx.warden_gone(orders_end=True)

    def _attacked(self, e: ev.Attacked) -> None:
        self.ctx.seat(e.attacker)
        victim = self.ctx.seat(e.victim)
        self._rebel(e.attacker, e.victim)
        if e.health <= 0:
            victim.alive = False
            self._one_left()  # two killed at once: the last one is left between the two lines

    def _suicide(self, e: ev.Suicide) -> None:
        self.ctx.seat(e.player).alive = False
        self._one_left()

    def _suicide_after(self, e: ev.Suicide) -> None:
        s = self.ctx.state
        seat = s.players.get(e.player.userid)
        if s.game is not None and seat is not None and seat.team == T and e.player.userid not in s.slain:
            s.game.result = True  # a prisoner who lost (a fall in Светофор) is a result too
        if e.player.userid in s.slain:
            s.slain.remove(e.player.userid)  # our own slay has been seen through
        if e.player.userid in (s.warden, s.dying):
            self.ctx.warden_gone(orders_end=True)

    def _gag(self, e: ev.GagChanged) -> None:
        self.ctx.seat(e.player).gagged = e.gagged

    # -- rounds, days, maps --------------------------------------------------------------

    def _clear_round(self) -> None:
        s = self.ctx.state
        s.orders, s.prohibitions, s.game, s.half = [], [], None, None
        s.warden, s.last_request, s.freeday, s.specialday_name, s.before_freeday, s.dying = None, False, False, None, 0, None
        s.first_order, s.slain, s.moved, s.last_prisoner, s.rebels, s.resigned = False, [], [], None, [], None
        for rule in self.rules:
            rule.round_cleared(self.ctx)

    def _round_start(self, e: ev.RoundStart) -> object:
        s = self.ctx.state
        shim, freeze = self.lines.taken()
        if s.warmup:
            return STOP
        if s.round_open:
            count_down_bans(self.ctx)  # a Round_End line was lost: close the day before opening one
        s.cut_short = s.round_open
        sequence.round_begins(self.ctx, by_shim=shim is not None, shim_expected=s.round_by_shim)
        s.round += 1
        s.round_open = True
        s.left = {}
        s.owed = {k: r for k, r in s.owed.items() if r >= s.round - 1}
        self._clear_round()
        s.round_started = s.play_from = e.time
        s.round_by_shim, s.round_by_freeze, s.round_line_seen = False, False, True
        if shim is not None:  # begun by the shim's line: play begins when the freeze ends
            s.round_by_shim, s.round_line_seen = True, False
            s.play_from = plus_seconds(e.time, shim.freeze)
        elif freeze is not None:  # by the game's freeze line: its end is srcds's Round_Start, its length unsaid
            s.round_by_freeze, s.round_line_seen = True, False
            s.play_from = plus_seconds(e.time, FREEZE_AT_MOST)
        for seat in s.players.values():
            seat.alive = seat.team in PLAYING
        if self.ctx.day == 1 and s.round > 1:
            if self.ctx.config.ladder_reset == "week":
                s.ladders, s.observed = {}, {}
            for rule in self.rules:
                rule.week_started(self.ctx)
        return None

    def _entered_after(self, e: ev.Entered) -> list[Action]:
        seat = self.ctx.state.players.get(e.player.userid)
        return on_return(self.ctx, seat) if seat is not None and self.ctx.state.owing else []

    def _round_start_after(self, e: ev.RoundStart) -> list[Action]:
        return autoslay_at_round_start(self.ctx)

    def _round_end(self, e: ev.RoundEnd) -> None:
        s = self.ctx.state
        if s.round_open:
            s.round_open = False
            count_down_bans(self.ctx)
            self._clear_round()

    def _restart(self, e: object) -> None:
        """`Restart_Round` and `Game_Commencing` void the round in progress: not a day."""
        s = self.ctx.state
        if s.round_open:
            s.round -= 1
            s.round_open = False
            if s.specialday is not None and s.specialday > s.round:
                s.specialday = None
            for ban in s.ctbans.values():
                ban.fresh = False  # the round it was given in is void: the next one counts
        self._clear_round()

    def _world(self, e: ev.WorldTriggered) -> None:
        """CS:GO's `Match_Start`, at the restart that ends the warm-up: the round still open was
        warm-up, no day; where a line of this restart (CS:GO's freeze line, the shim's) began a
        round first, the round it cut short was the warm-up, and the new one takes its number."""
        s = self.ctx.state
        if e.trigger != "Match_Start" or not s.round_open:
            return
        if seconds_between(s.round_started, e.time) > SAME_RESTART:
            self._restart(e)
        elif s.cut_short and s.round > 1:
            s.round, s.cut_short = s.round - 1, False
            if s.specialday is not None and s.specialday > s.round:
                s.specialday = None

    def _warmup(self, e: ev.WarmupStart | ev.WarmupEnd) -> None:
        if isinstance(e, ev.WarmupStart):
            self._restart(e)
        self.ctx.state.warmup = isinstance(e, ev.WarmupStart)

    def _map(self, e: ev.MapLoading | ev.MapStarted) -> object:
        s = self.ctx.state
        if isinstance(e, ev.MapStarted) and s.map == e.map:
            return STOP
        s.map = e.map
        s.round_open = False  # a round cut short by the map change was not played out: bans do not count it
        s.warmup = False
        self._clear_round()
        for seat in s.players.values():
            seat.alive = False
        if self.ctx.config.reset_on_map_change:
            s.round, s.specialday = 0, None
            for rule in self.rules:
                rule.calendar_reset(self.ctx)
        if self.ctx.config.ladder_reset == "map":
            s.ladders, s.observed = {}, {}
        return None

    # -- the shim: warden, prohibitions, games, special days -----------------------------

    def _warden_set(self, e: ev.WardenSet) -> None:
        self.ctx.state.half = None
        seat = self.ctx.seat(e.player)
        seat.team = CT
        self.ctx.state.warden = seat.userid
        self.ctx.state.resigned = None  # the orders from now are the new warden's

    def _warden_removed(self, e: ev.WardenRemoved) -> None:
        s = self.ctx.state
        if e.reason == "died" and s.warden == e.player.userid:
            # The shim writes this inside the player_death event, before srcds's `killed`
            # line: his command ends now, his orders and game with the death line, which
            # the rules must still see as it was (a fight in his global game is no бунт).
            s.warden, s.dying = None, e.player.userid
            return
        if s.warden in (None, e.player.userid):
            if e.reason == "resigned" and s.warden == e.player.userid:
                s.resigned, s.resigned_at = e.player.userid, e.time  # a hand-over, or a move off CT whose line is next
            self.ctx.warden_gone(orders_end=e.reason in ("died", "left"))

    def _something_else(self, e: object) -> None:
        """Something new in the round (an order, a prohibition, a game, its end, a special day,
        a freeday, a last request, a new warden): a game of half that is over is behind it."""
        self.ctx.state.half = None

    def _order(self, e: ev.OrderGiven) -> None:
        """An order while a game runs that is not the game's own («Саймон говорит: …» is) may
        come after the game ended by voice (000 Саймон «Начальник завершает игру фразой…»): the
        game's rules ask an admin from here on (`GameRun.after`)."""
        s, game = self.ctx.state, self.ctx.state.game
        s.half = None
        if game is not None and not game.after and "global" not in game.tags and not self.ctx.config.catalogue.mentions(e.text, game.name):
            game.after = e.text

    def _prohibit(self, e: ev.ProhibitionSet) -> None:
        self.ctx.seat(e.player)
        self.ctx.state.half = None
        self.ctx.state.prohibitions.append(Prohibition(e.text, e.time))

    def _prohibit_lift(self, e: ev.ProhibitionLifted) -> None:
        s = self.ctx.state
        if 1 <= e.index <= len(s.prohibitions):
            del s.prohibitions[e.index - 1]
            if e.index <= s.before_freeday:
                s.before_freeday -= 1

    def _game_start(self, e: ev.GameStarted) -> None:
        self.ctx.state.half = None
        seat = self.ctx.seat(e.player)
        game = self.ctx.offered_game(e.game)
        name, tags = (game.name, tuple(sorted(game.tags))) if game else (e.game, ())
        if game is None and self.ctx.map_game(e.game):
            tags = ("map",)  # 000 6.0 «Игры на картах не в счет»: played, never judged
        self.ctx.state.game = GameRun(name, seat.userid, self.ctx.state.time, tags, playing=len(self.ctx.alive(T)))

    def _game_end(self, e: ev.GameEnded) -> object:
        self.ctx.state.half = None
        if self.ctx.state.game is None:
            return STOP
        self.ctx.state.game = None
        return None

    def _specialday(self, e: ev.SpecialDay) -> None:
        s = self.ctx.state
        s.half = None
        self.ctx.seat(e.player)
        s.specialday_name = e.day

    def _day_played(self, e: ev.SpecialDay) -> None:
        """Its round, once the rules have seen the line: the cooldown counts from the day before."""
        self.ctx.state.specialday = self.ctx.state.round

    def _freeday(self, e: ev.FreedayGranted) -> None:
        self.ctx.state.half = None
        self.ctx.seat(e.player)
        if self.ctx.state.game is not None:
            self.ctx.state.game.result = True  # a winner's reward
        if e.scope == "all" and not self.ctx.state.freeday:
            self.ctx.state.freeday = True
            self.ctx.state.before_freeday = len(self.ctx.state.prohibitions)

    def _last_request(self, e: ev.LastRequest) -> object:
        s = self.ctx.state
        last = s.last_prisoner
        if s.round_open and len(self.ctx.alive(T)) > 2 and (last is None or last.uid != e.player.userid):
            return STOP  # the plugin reports any prisoner's !lr: with others alive it is no request yet (001 ПЗ)
        s.half = None
        s.last_request = True
        if s.game is not None and not s.specialday_name:
            s.game = None  # the last request is the round's game now
        return None

    def reconcile(self, status: dict[str, Any]) -> None:
        """The players, teams and warden as the shim's `jb_status` reply has them (after a
        restart or lost lines)."""
        s = self.ctx.state
        seen = {}
        for p in status.get("players", []):
            uid = int(p["userid"])
            team = {"TERRORIST": T, "CT": CT}.get(p.get("team"), p.get("team") or ev.UNASSIGNED)
            seat = s.players.get(uid) or Seat(uid, str(p.get("steamid", "")), str(p.get("name", "")))
            seat.steamid = str(p.get("steamid", seat.steamid))
            seat.name = str(p.get("name", seat.name))
            seat.team, seat.alive, seat.gagged = team, bool(p.get("alive")), bool(p.get("gagged"))
            seen[uid] = seat
        s.players = seen
        warden, known = status.get("warden"), s.warden
        s.warden = int(warden) if warden is not None and int(warden) in seen else None
        if s.warden is not None and s.warden != known and s.round_open:
            s.doubt = True  # his `jb_warden` was lost and no later line showed it (the last before a silence)
        if status.get("map"):
            s.map = str(status["map"])

    # -- admins in game --------------------------------------------------------------------

    def _ctban_given(self, e: ev.CtBanGiven) -> list[Action]:
        target = self.ctx.state.players.get(e.target)
        if target is None:
            return []
        return admin.give_ctban(self.ctx, target, e.minutes, e.rounds, e.reason, self.ctx.seat(e.player).name)

    def _ctban_lifted(self, e: ev.CtBanLifted) -> list[Action]:
        target = self.ctx.state.players.get(e.target)
        return admin.lift_ctban(self.ctx, target.key, self.ctx.seat(e.player).name) if target else []
