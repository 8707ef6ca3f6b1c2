"""The rule engine: events in, actions out. Sans-IO.

Contract: `Engine.handle(event) -> list[Action]`. Everything that affects a decision
lives in `State`, which `snapshot()` turns into JSON and `Engine(config, snapshot)` takes
back exactly; time comes only from the events' own timestamps. No sockets, no clock, no
globals: the same engine serves `run`, `replay` and the tests.

The rules are the core of the design card (C1 to C6 in shared/rules-map.md): orders,
prohibitions, the round counter and game week, special-day cooldown, online-based game
limits, punishment ladders, CT bans and the return block.
"""

from __future__ import annotations

from typing import Any

import attrs

from . import events as ev
from .actions import Action, Target
from .config import Config
from .ladder import Step
from .logtime import plus_minutes, seconds_between
from .messages import say, step_name
from .referee import Round
from .rules_next import NextRules

CT, T = ev.CT, ev.T
PLAYING = (CT, T)
SEQ_WINDOW = 256


@attrs.define(slots=True)
class Seat:
    """A player as the engine knows him now."""

    userid: int
    steamid: str
    name: str
    team: str = ev.UNASSIGNED
    alive: bool = False
    gagged: bool = False
    joined: int = 0  # order of joining CT: the newest guard is the first moved for balance

    @property
    def key(self) -> str:
        return ev.player_key(self.steamid, self.userid)

    def target(self) -> Target:
        return Target(self.userid, self.steamid, self.name)


@attrs.define
class State:
    map: str = ""
    round: int = 0
    round_open: bool = False
    warmup: bool = False
    time: str = ""
    players: dict[int, Seat] = attrs.field(factory=dict)
    warden: int | None = None
    orders: list[dict] = attrs.field(factory=list)
    prohibitions: list[dict] = attrs.field(factory=list)
    game: dict | None = None
    freeday: bool = False
    specialday: int | None = None
    specialday_name: str | None = None
    global_games: int = 0
    ladders: dict[str, int] = attrs.field(factory=dict)
    ctbans: dict[str, dict] = attrs.field(factory=dict)
    autoslay: dict[str, dict] = attrs.field(factory=dict)
    rebels: dict[str, int] = attrs.field(factory=dict)
    last_request: bool = False
    seq: int | None = None
    # beyond the design card
    round_started: str = ""
    first_order: bool = False
    warden_asked: bool = False
    warden_punished: bool = False
    lr: dict | None = None
    approved: list[str] = attrs.field(factory=list)
    game_history: list[list] = attrs.field(factory=list)
    next_freedays: list[str] = attrs.field(factory=list)
    personal_freedays: dict[str, int] = attrs.field(factory=dict)
    immortality: dict[str, list] = attrs.field(factory=dict)
    grenades: dict[str, list] = attrs.field(factory=dict)
    slain: list[int] = attrs.field(factory=list)
    joins: int = 0

    def to_json(self) -> dict:
        data = attrs.asdict(self, recurse=True)
        data["players"] = [attrs.asdict(p) for p in self.players.values()]
        return data

    @classmethod
    def from_json(cls, data: dict) -> State:
        data = dict(data)
        players = {p["userid"]: Seat(**p) for p in data.pop("players", [])}
        known = {a.name for a in attrs.fields(cls)}
        return cls(players=players, **{k: v for k, v in data.items() if k in known})


class Engine(NextRules):
    def __init__(self, config: Config, snapshot: dict | None = None):
        self.config = config
        self.lang = config.language
        self.state = State.from_json(snapshot) if snapshot else State()
        # Set when the shim's seq jumps or it says hello: the daemon asks `jb_status`.
        self.resync_wanted = False
        self._last: Any = None
        self._recent: dict[int, ev.ShimEvent] = {}
        self._referee: Round | None = None
        self._handlers = {
            ev.Connected: self._connected,
            ev.Validated: self._seen,
            ev.Entered: self._seen,
            ev.JoinedTeam: self._joined_team,
            ev.NameChanged: self._name_changed,
            ev.Disconnected: self._disconnected,
            ev.Killed: self._killed,
            ev.Attacked: self._attacked,
            ev.Suicide: self._suicide,
            ev.Chat: self._chat,
            ev.Threw: self._threw,
            ev.PrivilegeUsed: self._privilege,
            ev.GameApproved: self._game_approved,
            ev.FreekillConfirmed: self._freekill,
            ev.RoundStart: self._round_start,
            ev.RoundEnd: self._round_end,
            ev.RestartRound: self._restart,
            ev.GameCommencing: self._restart,
            ev.WarmupStart: self._warmup,
            ev.WarmupEnd: self._warmup,
            ev.MapLoading: self._map,
            ev.MapStarted: self._map,
            ev.ShimHello: self._hello,
            ev.WardenSet: self._warden_set,
            ev.WardenRemoved: self._warden_removed,
            ev.OrderGiven: self._order,
            ev.OrdersCancelled: self._orders_cancelled,
            ev.ProhibitionSet: self._prohibit,
            ev.ProhibitionLifted: self._prohibit_lift,
            ev.GameStarted: self._game_start,
            ev.GameEnded: self._game_end,
            ev.SpecialDay: self._specialday,
            ev.FreedayGranted: self._freeday,
            ev.LastRequest: self._last_request,
            ev.GagChanged: self._gag,
        }

    # -- public --------------------------------------------------------------------------

    def handle(self, event: Any) -> list[Action]:
        handler = self._handlers.get(type(event))
        if handler is None:
            return []
        # A line that arrives twice (UDP may duplicate, a restart may replay) must not
        # punish twice: an event equal to the one before it is the same line again.
        if event == self._last:
            return []
        self._last = event
        if isinstance(event, ev.ShimEvent) and self._already_handled(event):
            return []
        self.state.time = event.time
        if self.state.round_open:
            early = self.tick(event.time)
            if early:
                return early + (handler(event) or [])
        return handler(event) or []

    def reconfigure(self, config: Config) -> None:
        """A new rule set for the same server; the state (calendar, ladders, bans) stays."""
        self.config = config
        self.lang = config.language

    def snapshot(self) -> dict:
        return self.state.to_json()

    @property
    def day(self) -> int:
        return (max(self.state.round, 1) - 1) % self.config.week_length + 1

    @property
    def week(self) -> int:
        return (max(self.state.round, 1) - 1) // self.config.week_length + 1

    def public_state(self) -> dict:
        s = self.state
        warden = s.players.get(s.warden) if s.warden is not None else None
        return {
            "map": s.map,
            "round": s.round,
            "day": self.day,
            "week": self.week,
            "freeday": s.freeday,
            "warden": warden.target().to_json() if warden else None,
            "orders": [{"text": o["text"]} for o in s.orders],
            "prohibitions": [{"text": p["text"]} for p in s.prohibitions],
            "game": {"name": s.game["name"], "host": s.game["host"]} if s.game else None,
            "specialday": s.specialday,
            "global_games": s.global_games,
            "ctbans": [
                {"key": k, **{f: b[f] for f in ("steamid", "name", "until", "rounds", "rule", "ref")}}
                for k, b in sorted(s.ctbans.items())
            ],
            "online": {"T": self._count(T), "CT": self._count(CT)},
        }

    def apply_status(self, status: dict) -> list[Action]:
        """Reconcile with the shim's `jb_status` reply (after a restart or lost lines)."""
        s = self.state
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
        warden = status.get("warden")
        s.warden = int(warden) if warden is not None and int(warden) in seen else None
        if status.get("map"):
            s.map = str(status["map"])
        self.resync_wanted = False
        return [self._hud()]

    # -- helpers -------------------------------------------------------------------------

    def _seat(self, p: ev.Player) -> Seat:
        seat = self.state.players.get(p.userid)
        if seat is None or (seat.steamid != p.steamid and p.steamid not in ("", "STEAM_ID_PENDING")):
            seat = self.state.players[p.userid] = Seat(p.userid, p.steamid, p.name)
        if p.team:
            seat.team = p.team
        seat.name = p.name
        if p.steamid not in ("", "STEAM_ID_PENDING"):
            seat.steamid = p.steamid
        return seat

    def _count(self, team: str, alive_only: bool = False) -> int:
        return sum(1 for p in self.state.players.values() if p.team == team and (p.alive or not alive_only))

    def alive(self, team: str) -> list[Seat]:
        return [p for p in self.state.players.values() if p.team == team and p.alive]

    def _already_handled(self, event: ev.ShimEvent) -> bool:
        """True for a shim line already handled (the same seq with the same content). A
        gap in seq means lines were lost, and a seq that goes back with new content means
        the plugin reloaded without its hello reaching us: both ask for a resync."""
        if self._recent.get(event.seq) == event:
            return True
        last = self.state.seq
        if last is not None and event.seq <= last and event.time < self.state.time:
            return True  # an old line again (a log read twice across a restart), not a reload
        if last is not None and event.seq != last + 1:
            self.resync_wanted = True
        self.state.seq = event.seq
        self._recent[event.seq] = event
        if len(self._recent) > SEQ_WINDOW:
            del self._recent[next(iter(self._recent))]
        return False

    def _action(self, kind: str, seat: Seat | None, rule: str, ref: str, reason: str, **extra: Any) -> Action:
        target = seat.target() if seat else None
        return Action(self.state.time, self.state.round, kind, target, rule, ref, reason, **extra)

    def _text(self, key: str, **values: Any) -> str:
        return say(self.lang, key, **values)

    def _left(self, ban: dict) -> str:
        if ban.get("rounds") is not None:
            return self._text("left.rounds", n=ban["rounds"])
        if ban.get("until") is None:
            return self._text("left.forever")
        left = int(seconds_between(self.state.time, ban["until"]))
        return self._text("left.minutes", n=max(1, -(-left // 60)))

    def _hud(self) -> Action:
        s = self.state
        none = self._text("none")
        warden = s.players.get(s.warden) if s.warden is not None else None
        text = self._text(
            "hud",
            warden=warden.name if warden else none,
            day=self.day,
            dayname=self._text("days").split("|")[self.day - 1] if self.config.week_length == 7 else self.day,
            orders=", ".join(o["text"] for o in s.orders) or none,
            prohibitions=", ".join(p["text"] for p in s.prohibitions) or none,
            game=s.game["name"] if s.game else none,
        )
        return self._action("hud", None, "hud", "", text)

    # -- punishment ----------------------------------------------------------------------

    def punish(self, key: str, seat: Seat, text: str, ref: str | None = None) -> list[Action]:
        """Climb the offender's ladder for this rule and carry out the step he reached."""
        rule = self.config.rules[key]
        if not rule.enabled:
            return []
        ref = rule.ref if ref is None else ref
        counter = f"{key}|{seat.key}"
        reached = self.state.ladders.get(counter, 0)
        self.state.ladders[counter] = reached + 1
        ladder = rule.ladder or (Step("warn"),)
        step = ladder[min(reached, len(ladder) - 1)]
        reason = self._text("rule", ref=ref, text=self._text("penalty", text=text, step=step_name(self.lang, step.action)))
        return self._carry_out(step, seat, key, ref, reason)

    def _carry_out(self, step: Step, seat: Seat, key: str, ref: str, reason: str) -> list[Action]:
        kind = step.action
        if kind == "cancel":
            return []  # the rule itself says what to cancel
        if kind == "teamswap":
            return self._move_to_t(seat, key, ref, reason, block=True)
        if kind == "ctban":
            return self.ban_from_ct(seat, key, ref, reason, minutes=step.minutes, rounds=step.rounds)
        if kind == "autoslay":
            rounds = step.amount or 1
            self.state.autoslay[seat.key] = {"rounds": rounds, "rule": key, "ref": ref, "reason": reason}
            return [self._action("autoslay", seat, key, ref, self._text("autoslay.given", rounds=rounds, text=reason), rounds=rounds)]
        if kind == "ban":
            return [self._action("ban", seat, key, ref, reason, minutes=step.minutes)]
        if kind == "money":
            return [self._action("money", seat, key, ref, reason, amount=step.amount)]
        if kind == "slay":
            seat.alive = False
            self.state.slain.append(seat.userid)
        return [self._action(kind, seat, key, ref, reason)]

    def _move_to_t(self, seat: Seat, key: str, ref: str, reason: str, block: bool) -> list[Action]:
        out = [self._action("teamswap", seat, key, ref, reason, team="T")]
        was_ct = seat.team == CT
        seat.team, seat.alive = T, False
        if seat.userid == self.state.warden:
            out += self._warden_gone(died=False)
        blocker = self.config.rules["ctban.return_block"]
        if block and was_ct and blocker.enabled and seat.key not in self.state.ctbans:
            self.state.ctbans[seat.key] = self._ban_record(seat.steamid, seat.name, blocker.key, blocker.ref, reason,
                                                           rounds=blocker["rounds"])
        return out

    def _ban_record(self, steamid: str, name: str, rule: str, ref: str, reason: str,
                    until: str | None = None, rounds: int | None = None, **more: str) -> dict:
        return {"steamid": steamid, "name": name, "until": until, "rounds": rounds, "since": self.state.round,
                "rule": rule, "ref": ref, "reason": reason, **more}

    def ban_from_ct(self, seat: Seat, key: str, ref: str, reason: str, minutes: int | None = None, rounds: int | None = None) -> list[Action]:
        until = plus_minutes(self.state.time, minutes) if minutes else None
        ban = self._ban_record(seat.steamid, seat.name, key, ref, reason, until=until, rounds=rounds)
        self.state.ctbans[seat.key] = ban
        out = [self._action("ctban", seat, key, ref, self._text("ctban.given", left=self._left(ban), text=reason), minutes=minutes, rounds=rounds)]
        if seat.team == CT:
            out += self._move_to_t(seat, key, ref, reason, block=False)
        return out

    def import_ctban(self, ban: dict) -> list[Action]:
        """A CT ban made on another server of the network: kept here too."""
        steamid = str(ban.get("steamid", ""))
        key = ev.player_key(steamid, 0)
        if key.startswith("#"):
            return []
        record = self._ban_record(steamid, str(ban.get("name", "")), "ctban", str(ban.get("ref", "")), str(ban.get("reason", "")),
                                  until=ban.get("until"), rounds=ban.get("rounds"), origin=str(ban.get("origin", "")))
        self.state.ctbans[key] = record
        for seat in self.state.players.values():
            if seat.key == key and seat.team == CT and self.config.on("ctban"):
                text = self._text("ctban", left=self._left(record))
                return self._move_to_t(seat, "ctban", record["ref"], self._text("rule", ref=record["ref"], text=text), block=False)
        return []

    def _active_ban(self, seat: Seat) -> dict | None:
        ban = self.state.ctbans.get(seat.key)
        if ban is None:
            return None
        if ban["until"] is not None and ban["until"] <= self.state.time:
            del self.state.ctbans[seat.key]
            return None
        if ban["rounds"] is not None and ban["rounds"] <= 0:
            del self.state.ctbans[seat.key]
            return None
        return ban

    # -- players -------------------------------------------------------------------------

    def _seen(self, e) -> None:
        self._seat(e.player)

    def _connected(self, e: ev.Connected) -> list[Action]:
        seat = self._seat(e.player)
        seat.team, seat.alive = ev.UNASSIGNED, False
        return self.check_name(seat)

    def _name_changed(self, e: ev.NameChanged) -> list[Action]:
        seat = self._seat(e.player)
        seat.name = e.new_name
        return self.check_name(seat)

    def _chat(self, e: ev.Chat) -> list[Action]:
        seat = self._seat(e.player)
        return self.advertising(seat, e.text) + self.referee_chat(seat, e.text)

    def _disconnected(self, e: ev.Disconnected) -> list[Action]:
        out: list[Action] = []
        if e.player.userid == self.state.warden:
            out = self._warden_gone(died=False)
        out += self.host_died(e.player.userid)
        self.state.players.pop(e.player.userid, None)
        self.check_last_prisoner()
        return out

    def _joined_team(self, e: ev.JoinedTeam) -> list[Action]:
        seat = self._seat(e.player)
        seat.team, seat.alive = e.new, False
        out: list[Action] = []
        if seat.userid == self.state.warden and e.new != CT:
            out += self._warden_gone(died=False)
        if e.new == CT:
            self.state.joins += 1
            seat.joined = self.state.joins
            ban = self._active_ban(seat)
            if ban is not None:
                blocked = ban["rule"] == "ctban.return_block"
                key = "ctban.return_block" if blocked else "ctban"
                if self.config.on(key):
                    text = self._text(key, left=ban["rounds"] if blocked else self._left(ban))
                    reason = self._text("rule", ref=ban["ref"], text=text)
                    out += self._move_to_t(seat, key, ban["ref"], reason, block=False)
            if seat.team == CT:
                out += self.balance(joined=seat)
        return out

    def _killed(self, e: ev.Killed) -> list[Action]:
        killer, victim = self._seat(e.killer), self._seat(e.victim)
        victim.alive = False
        out: list[Action] = []
        if killer.team == T and victim.team == CT and killer.userid != victim.userid:
            out += self._rebellion(killer)
        out += self.teamkill(killer, victim)
        if victim.userid == self.state.warden:
            out += self._warden_gone(died=True)
        out += self.host_died(victim.userid)
        self.check_last_prisoner()
        return out

    def _attacked(self, e: ev.Attacked) -> list[Action]:
        attacker, victim = self._seat(e.attacker), self._seat(e.victim)
        if e.health <= 0:
            victim.alive = False
        if attacker.team == T and victim.team == CT:
            return self._rebellion(attacker)
        return []

    def _suicide(self, e: ev.Suicide) -> list[Action]:
        seat = self._seat(e.player)
        out: list[Action] = []
        if seat.userid in self.state.slain:
            self.state.slain.remove(seat.userid)  # our own slay, not a guard dying on purpose
        else:
            out += self.guard_suicide(seat)
        seat.alive = False
        if seat.userid == self.state.warden:
            out += self._warden_gone(died=True)
        out += self.host_died(seat.userid)
        self.check_last_prisoner()
        return out

    def _gag(self, e: ev.GagChanged) -> None:
        self._seat(e.player).gagged = e.gagged

    def _rebellion(self, seat: Seat) -> list[Action]:
        """C3: a prisoner who rebels on two days in a row of one game week."""
        s = self.state
        if s.last_request or not s.round_open or not self.config.on("calendar.rebellion"):
            return []
        last = s.rebels.get(seat.key)
        s.rebels[seat.key] = s.round
        if last is None or last == s.round:
            return []
        week = self.config.week_length
        if last == s.round - 1 and (last - 1) // week == (s.round - 1) // week:
            return self.punish("calendar.rebellion", seat, self._text("calendar.rebellion"))
        return []

    # -- rounds, days, maps --------------------------------------------------------------

    def _clear_round(self) -> None:
        s = self.state
        s.orders, s.prohibitions, s.game = [], [], None
        s.warden, s.last_request, s.freeday, s.specialday_name = None, False, False, None
        s.lr, s.approved, s.first_order, s.slain = None, [], False, []
        self._referee = None

    def _round_start(self, e: ev.RoundStart) -> list[Action]:
        s = self.state
        if s.warmup:
            return []
        if s.round_open:
            self._end_of_round()  # a Round_End line was lost: close the day before opening one
        s.round += 1
        s.round_open = True
        self._clear_round()
        s.round_started, s.warden_asked, s.warden_punished = e.time, False, False
        for seat in s.players.values():
            seat.alive = seat.team in PLAYING
        out: list[Action] = self.balance()
        if s.next_freedays:
            names = [p.name for p in s.players.values() if p.key in s.next_freedays]
            s.next_freedays = []
            if names:
                rule = self.config.rules["fairness.freekill"]
                out.append(self._action("say", None, rule.key, rule.ref, say(self.lang, "freeday.today", names=", ".join(names))))
        if self.day == 1 and s.round > 1:
            s.global_games = 0
            s.rebels = {}
            if self.config.ladder_reset == "week":
                s.ladders = {}
        if self.day == 1 and self.config.on("calendar.freeday"):
            s.freeday = True
            rule = self.config.rules["calendar.freeday"]
            text = self._text("calendar.freeday.say", day=self.day, week=self.week)
            out.append(self._action("say", None, rule.key, rule.ref, self._text("rule", ref=rule.ref, text=text)))
        out += self._autoslay()
        out.append(self._hud())
        return out

    def _autoslay(self) -> list[Action]:
        out = []
        by_key = {seat.key: seat for seat in self.state.players.values()}
        for key, entry in list(self.state.autoslay.items()):
            seat = by_key.get(key)
            if seat is None or not seat.alive:
                continue
            entry["rounds"] -= 1
            if entry["rounds"] <= 0:
                del self.state.autoslay[key]
            seat.alive = False
            text = self._text("autoslay.slay", left=max(entry["rounds"], 0))
            reason = self._text("rule", ref=entry["ref"], text=text)
            out.append(self._action("slay", seat, entry["rule"], entry["ref"], reason))
        return out

    def _end_of_round(self) -> None:
        s = self.state
        s.round_open = False
        for key, ban in list(s.ctbans.items()):
            if ban["rounds"] is not None and ban["since"] < s.round:
                ban["rounds"] -= 1
                if ban["rounds"] <= 0:
                    del s.ctbans[key]

    def _round_end(self, e: ev.RoundEnd) -> list[Action]:
        if not self.state.round_open:
            return []
        self._end_of_round()
        self._clear_round()
        return []

    def _restart(self, e) -> list[Action]:
        """`Restart_Round` and `Game_Commencing` void the round in progress: not a day."""
        s = self.state
        if s.round_open:
            s.round -= 1
            s.round_open = False
            if s.specialday is not None and s.specialday > s.round:
                s.specialday = None
        self._clear_round()
        return []

    def _warmup(self, e) -> list[Action]:
        out = self._restart(e) if isinstance(e, ev.WarmupStart) else []
        self.state.warmup = isinstance(e, ev.WarmupStart)
        return out

    def _map(self, e) -> list[Action]:
        s = self.state
        if isinstance(e, ev.MapStarted) and s.map == e.map:
            return []
        s.map = e.map
        s.round_open = False
        s.warmup = False
        self._clear_round()
        for seat in s.players.values():
            seat.alive = False
        if self.config.reset_on_map_change:
            s.round, s.specialday, s.global_games, s.rebels = 0, None, 0, {}
        if self.config.ladder_reset == "map":
            s.ladders = {}
        return []

    # -- the shim: warden, orders, prohibitions ------------------------------------------

    def _hello(self, e: ev.ShimHello) -> list[Action]:
        self.state.seq = e.seq
        self.resync_wanted = True
        return []

    def _warden_set(self, e: ev.WardenSet) -> list[Action]:
        seat = self._seat(e.player)
        seat.team = CT
        self.state.warden = seat.userid
        return [self._hud()]

    def _warden_removed(self, e: ev.WardenRemoved) -> list[Action]:
        if self.state.warden not in (None, e.player.userid):
            return []
        return self._warden_gone(died=e.reason == "died")

    def _warden_gone(self, died: bool) -> list[Action]:
        """C1: the warden's death cancels every order and ends the game (not a special day's)."""
        s = self.state
        if s.warden is None:
            return []
        s.warden = None
        if died:
            s.orders = []
            if s.game is not None and not s.specialday_name:
                s.game = None
        return [self._hud()]

    def _order(self, e: ev.OrderGiven) -> list[Action]:
        seat = self._seat(e.player)
        s = self.state
        out: list[Action] = []
        if s.freeday and self.day == 1 and self.config.on("calendar.freeday"):
            out += self.punish("calendar.freeday", seat, self._text("calendar.freeday"))
        if not self.config.on("orders"):
            return out
        s.first_order = True
        order = {"text": e.text, "time": e.time, "by": seat.userid}
        if self.config.rules["orders"]["mode"] == "replace":
            s.orders = [order]
        else:
            s.orders.append(order)
        return [*out, self._hud()]

    def _orders_cancelled(self, e: ev.OrdersCancelled) -> list[Action]:
        self.state.orders = []
        return [self._hud()]

    def _prohibit(self, e: ev.ProhibitionSet) -> list[Action]:
        """C2: at most `limit` prohibitions (3 on a freeday); the extra one is refused."""
        s = self.state
        rule = self.config.rules["prohibitions.max"]
        limit = rule["freeday_limit"] if s.freeday else rule["limit"]
        if rule.enabled and len(s.prohibitions) >= limit:
            seat = self._seat(e.player)
            text = self._text("prohibitions.max", count=len(s.prohibitions), limit=limit, text=e.text)
            out = self.punish(rule.key, seat, text)
            index = len(s.prohibitions) + 1
            void = self._text("rule", ref=rule.ref, text=self._text("prohibitions.cancelled", index=index, text=e.text))
            out.append(self._action("cancel", seat, rule.key, rule.ref, void, index=index))
            return out
        s.prohibitions.append({"text": e.text, "time": e.time})
        return [self._hud()]

    def _prohibit_lift(self, e: ev.ProhibitionLifted) -> list[Action]:
        if 1 <= e.index <= len(self.state.prohibitions):
            del self.state.prohibitions[e.index - 1]
            return [self._hud()]
        return []

    # -- games, special days, freedays ---------------------------------------------------

    def _game_start(self, e: ev.GameStarted) -> list[Action]:
        """The core limits first (C3, C5), then the rules beyond the card (N1, N3, N5)."""
        s = self.state
        seat = self._seat(e.player)
        game = self.config.catalogue.find(e.game)
        if game is None:
            if self.config.on("games.unknown") and not self.approved(e.game):
                return self.punish("games.unknown", seat, self._text("games.unknown", game=e.game))
            return self.game_refusal(seat, e.game, frozenset()) or self._start_game(e.game, seat, ())
        refused = self._core_refusal(seat, game)
        if refused is None:
            refused = self.game_refusal(seat, game.name, game.tags)
        if refused is not None:
            return refused
        if "global" in game.tags and self.config.on("calendar.global_games"):
            s.global_games += 1
        return self._start_game(game.name, seat, game.tags)

    def _core_refusal(self, seat: Seat, game) -> list[Action] | None:
        s = self.state
        if s.freeday and self.day == 1 and self.config.on("calendar.freeday"):
            return self.punish("calendar.freeday", seat, self._text("calendar.freeday"))
        prisoners = self._count(T)
        if self.config.on("games.online_limit"):
            for limit in self.config.online_limits:
                hit = game.name in limit.games or (limit.tag and limit.tag in game.tags)
                if hit and prisoners > limit.more_than:
                    text = self._text("games.online_limit", game=game.name, limit=limit.more_than, online=prisoners)
                    return self.punish("games.online_limit", seat, text, ref=limit.ref or None)
        if game.min_players and self.config.on("games.min_players"):
            playing = self._count(T, alive_only=s.round_open)
            if playing < game.min_players:
                text = self._text("games.min_players", game=game.name, need=game.min_players, have=playing)
                return self.punish("games.min_players", seat, text)
        if "global" in game.tags and self.config.on("calendar.global_games"):
            rule = self.config.rules["calendar.global_games"]
            if s.global_games >= rule["per_week"]:
                text = self._text("calendar.global_games", limit=rule["per_week"], count=s.global_games)
                return self.punish(rule.key, seat, text)
        return None

    def _start_game(self, name: str, seat: Seat, tags) -> list[Action]:
        self.state.game = {"name": name, "key": name, "host": seat.userid, "started": self.state.time, "tags": sorted(tags)}
        self.game_started(name, seat.userid)
        return [self._hud()]

    def _game_end(self, e: ev.GameEnded) -> list[Action]:
        if self.state.game is None:
            return []
        self.state.game = None
        self._referee = None
        return [self._hud()]

    def _specialday(self, e: ev.SpecialDay) -> list[Action]:
        """C4: a special day on round R allows the next one on round R+N at the earliest."""
        s = self.state
        rule = self.config.rules["specialday.cooldown"]
        seat = self._seat(e.player)
        last = s.specialday
        if rule.enabled and last is not None and s.round < last + rule["rounds"]:
            nxt = last + rule["rounds"]
            text = self._text("specialday.cooldown", rounds=rule["rounds"], left=nxt - s.round, next=nxt)
            return self.punish(rule.key, seat, text)
        s.specialday = s.round
        s.specialday_name = e.day
        return [self._hud()]

    def _freeday(self, e: ev.FreedayGranted) -> list[Action]:
        if e.scope == "all":
            self.state.freeday = True
            return [self._hud()]
        return self.personal_freeday(self._seat(e.player), e.target)

    def _last_request(self, e: ev.LastRequest) -> None:
        self.state.last_request = True
        if self.state.lr is not None:
            self.state.lr["done"] = True  # chosen in time: the clock stops

