"""The rules beyond the design card (N1 to N19 in shared/rules-map.md), as a part of the
engine: the same state, the same ladders, the same sans-IO contract. `Engine` calls these
from its handlers; each rule has its config key and can be switched off.

Time-based rules (a game past 5 minutes, the last prisoner's 10 seconds, no warden some
seconds into the round) are checked by `tick` on every event, against the events' own
timestamps: a jail server's log never stays quiet for long.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from . import events as ev
from .actions import Action
from .catalogue import fold
from .logtime import seconds_between
from .messages import say
from .referee import JUDGED, Round

if TYPE_CHECKING:
    from .engine import Seat

CT, T = ev.CT, ev.T


class NextRules:
    """Mixed into `Engine`; relies on its state, `punish`, `_action`, `_seat`, `_text`."""

    state: Any
    config: Any
    lang: str
    _referee: Round | None

    # -- timers ----------------------------------------------------------------------------

    def tick(self, now: str) -> list[Action]:
        s = self.state
        out: list[Action] = []
        if s.game and self.config.on("games.duration") and not s.game.get("punished"):
            out += self._game_clock(now)
        if s.lr and not s.lr.get("done") and self.config.on("lastrequest.timeout"):
            rule = self.config.rules["lastrequest.timeout"]
            if seconds_between(s.lr["start"], now) > rule["seconds"]:
                s.lr["done"] = True
                text = say(self.lang, "lastrequest.timeout", name=s.lr["name"], seconds=rule["seconds"])
                out.append(self._action("say", None, rule.key, rule.ref, self._text("rule", ref=rule.ref, text=text)))
        if s.warden is None and not s.warden_punished and s.round_started and not s.freeday and self.config.on("teams.no_warden"):
            out += self._no_warden(now)
        return out

    def _game_clock(self, now: str) -> list[Action]:
        s = self.state
        rule = self.config.rules["games.duration"]
        elapsed = seconds_between(s.game["started"], now)
        limit = rule["minutes"] * 60
        if elapsed > limit + rule["grace_seconds"] and s.game.get("reminded"):
            s.game["punished"] = True
            host = s.players.get(s.game["host"])
            if host is not None:
                text = say(self.lang, "games.duration", game=s.game["name"], minutes=rule["minutes"])
                return self.punish(rule.key, host, text)
        elif elapsed > limit and not s.game.get("reminded"):
            s.game["reminded"] = True
            text = say(self.lang, "games.duration.remind", game=s.game["name"], minutes=rule["minutes"])
            return [self._action("say", None, rule.key, rule.ref, self._text("rule", ref=rule.ref, text=text))]
        return []

    def _no_warden(self, now: str) -> list[Action]:
        s = self.state
        rule = self.config.rules["teams.no_warden"]
        elapsed = seconds_between(s.round_started, now)
        if elapsed <= rule["ask_seconds"] or (s.warden_asked and elapsed <= rule["punish_seconds"]):
            return []
        guards = sorted(self.alive(CT), key=lambda p: p.joined)
        if not guards:
            return []
        if elapsed > rule["punish_seconds"] and s.warden_asked and not s.warden_punished:
            s.warden_punished = True
            text = say(self.lang, "teams.no_warden", seconds=rule["punish_seconds"], name=guards[0].name)
            return self.punish(rule.key, guards[0], text)
        if elapsed > rule["ask_seconds"] and not s.warden_asked:
            s.warden_asked = True
            text = say(self.lang, "teams.no_warden.ask", seconds=rule["ask_seconds"])
            return [self._action("say", None, rule.key, rule.ref, self._text("rule", ref=rule.ref, text=text))]
        return []

    # -- games: N1, N3, N4, N5, N18 ----------------------------------------------------------

    def game_refusal(self, seat: Seat, name: str, tags: frozenset[str]) -> list[Action] | None:
        """The N rules that refuse a game about to start; None when they all allow it."""
        s = self.state
        if self.config.on("games.host") and seat.userid != s.warden:
            return self.punish("games.host", seat, say(self.lang, "games.host", game=name))
        if "chat" in tags and self.config.on("games.gagged"):
            gagged = [p.name for p in self.alive(T) if p.gagged]
            if gagged:
                return self.punish("games.gagged", seat, say(self.lang, "games.gagged", game=name, names=", ".join(gagged)))
        if self.config.on("games.repeat"):
            rule = self.config.rules["games.repeat"]
            played = {tuple(x) for x in s.game_history}
            streak = 0
            while (s.round - streak - 1, name) in played:
                streak += 1
            if streak >= rule["in_a_row"]:
                return self.punish(rule.key, seat, say(self.lang, "games.repeat", game=name, rounds=streak + 1))
        return None

    def game_started(self, name: str, host: int) -> None:
        s = self.state
        s.game_history = [h for h in s.game_history if h[0] > s.round - 20] + [[s.round, name]]
        self._referee = Round(name, host) if name in JUDGED and self.config.on("referee") else None

    def approved(self, typed: str) -> bool:
        return fold(typed) in self.state.approved

    def _game_approved(self, e: ev.GameApproved) -> None:
        self.state.approved.append(fold(e.game))

    def host_died(self, uid: int) -> list[Action]:
        """N4: a game ends when its host dies, special days excepted."""
        s = self.state
        if s.game and s.game["host"] == uid and not s.specialday_name and self.config.on("games.host_death"):
            s.game = None
            self._referee = None
            return [self._hud()]
        return []

    def referee_chat(self, seat: Seat, text: str) -> list[Action]:
        ref = self._referee
        if ref is None or ref.done:
            return []
        verdict = ref.host_says(text) if seat.userid == ref.host else ref.player_says(seat.userid, seat.name, text)
        if verdict is None:
            return []
        rule = self.config.rules["referee"]
        summary = say(self.lang, "referee", game=ref.game, text=say(self.lang, f"referee.{verdict.kind}", **verdict.values))
        return [self._action("say", None, rule.key, rule.ref, self._text("rule", ref=rule.ref, text=summary))]

    # -- last prisoner and fairness: N6, N7, N8 -----------------------------------------------

    def check_last_prisoner(self) -> None:
        """N6: the moment one prisoner is left, his 10 seconds start."""
        s = self.state
        if not s.round_open or s.lr is not None:
            return
        alive = self.alive(T)
        if len(alive) == 1:
            s.lr = {"start": s.time, "uid": alive[0].userid, "name": alive[0].name, "done": False}

    def guard_suicide(self, seat: Seat) -> list[Action]:
        """N7: a guard who dies on purpose while one prisoner is left pays him."""
        s = self.state
        if seat.team != CT or not s.round_open or not self.config.on("lastrequest.guard_suicide"):
            return []
        alive = self.alive(T)
        if len(alive) != 1:
            return []
        rule = self.config.rules["lastrequest.guard_suicide"]
        text = say(self.lang, "lastrequest.guard_suicide", guard=seat.name, amount=rule["amount"])
        reason = self._text("rule", ref=rule.ref, text=text)
        return [self._action("money", alive[0], rule.key, rule.ref, reason, amount=rule["amount"])]

    def _freekill(self, e: ev.FreekillConfirmed) -> list[Action]:
        """N8: a confirmed FreeKill pays 100$ and gives a respawn (or a freeday next round
        when the round is over); a FreeDamage pays 50$."""
        s = self.state
        rule = self.config.rules["fairness.freekill"]
        victim = s.players.get(e.victim)
        if victim is None or not rule.enabled:
            return []
        amount = rule["damage_amount"] if e.damage_only else rule["kill_amount"]
        text = say(self.lang, "fairness.freedamage" if e.damage_only else "fairness.freekill", amount=amount)
        reason = self._text("rule", ref=rule.ref, text=text)
        out = [self._action("money", victim, rule.key, rule.ref, reason, amount=amount)]
        if not e.damage_only:
            if s.round_open and not victim.alive:
                victim.alive = True
                out.append(self._action("respawn", victim, rule.key, rule.ref, reason))
            else:
                s.next_freedays.append(victim.key)
                out.append(self._action("freeday", victim, rule.key, rule.ref, say(self.lang, "freeday.next", name=victim.name)))
        return out

    # -- teams: N10 ----------------------------------------------------------------------------

    def balance(self, joined: Seat | None = None) -> list[Action]:
        """N10: at most 1 guard per `ratio` prisoners; the surplus goes back to T, the
        newest first, never the warden. On a join only the one who joined is moved."""
        s = self.state
        if not self.config.on("teams.balance"):
            return []
        rule = self.config.rules["teams.balance"]
        prisoners = sum(1 for p in s.players.values() if p.team == T)
        if prisoners < rule["ratio"]:
            return []  # an emptying or filling server: nothing to balance yet
        guards = sorted((p for p in s.players.values() if p.team == CT), key=lambda p: p.joined, reverse=True)
        surplus = len(guards) - max(1, prisoners // rule["ratio"])
        movable = [g for g in guards if g.userid != s.warden]
        if joined is not None:
            movable = [g for g in movable if g is joined]
        out: list[Action] = []
        for seat in movable[: max(0, surplus)]:
            text = say(self.lang, "teams.balance", guards=len(guards), prisoners=prisoners, ratio=rule["ratio"])
            out += self._move_to_t(seat, rule.key, rule.ref, self._text("rule", ref=rule.ref, text=text), block=True)
        return out

    # -- conduct: N12, N13, N14, N15, N16, N17 --------------------------------------------------

    def _privilege(self, e: ev.PrivilegeUsed) -> list[Action]:
        s = self.state
        seat = self._seat(e.player)
        out: list[Action] = []
        rule = self.config.rules["conduct.privileges"]
        if rule.enabled and s.round_open and not s.first_order and e.privilege not in rule["allowed"]:
            out += self.punish(rule.key, seat, say(self.lang, "conduct.privileges", kind=e.privilege))
        rule = self.config.rules["warden.immortality"]
        if rule.enabled and seat.userid == s.warden and e.privilege in rule["kinds"]:
            week, count = s.immortality.get(seat.key, [self.week, 0])
            count = count + 1 if week == self.week else 1
            s.immortality[seat.key] = [self.week, count]
            if count > rule["per_week"]:
                out += self.punish(rule.key, seat, say(self.lang, "warden.immortality", limit=rule["per_week"], count=count))
        return out

    def teamkill(self, killer: Seat, victim: Seat) -> list[Action]:
        s = self.state
        if killer.userid == victim.userid or killer.team != victim.team or killer.team not in (CT, T):
            return []
        if s.specialday_name or (s.game and "global" in s.game.get("tags", [])) or not self.config.on("conduct.teamkill"):
            return []  # whole-map games and special days may set teammates against each other
        return self.punish("conduct.teamkill", killer, say(self.lang, "conduct.teamkill", victim=victim.name))

    def advertising(self, seat: Seat, text: str) -> list[Action]:
        rule = self.config.rules["conduct.advertising"]
        if seat.userid == 0 or not rule.enabled:
            return []
        for pattern in rule["patterns"]:
            m = re.search(pattern, text)
            if m:
                return self.punish(rule.key, seat, say(self.lang, "conduct.advertising", text=m.group(0)))
        return []

    def check_name(self, seat: Seat) -> list[Action]:
        """N14: names that impersonate an admin or another player, or cannot be read."""
        rule = self.config.rules["conduct.names"]
        if seat.userid == 0 or seat.steamid == "BOT" or not rule.enabled:
            return []
        name = seat.name
        why = None
        if not any(ch.isalnum() for ch in name):
            why = say(self.lang, "conduct.names.unreadable", name=name)
        elif any(re.search(p, name) for p in rule["patterns"]):
            why = say(self.lang, "conduct.names.admin", name=name)
        else:
            folded = name.casefold().strip()
            others = (p for p in self.state.players.values() if p.userid != seat.userid and p.steamid != seat.steamid)
            if any(p.name.casefold().strip() == folded for p in others):
                why = say(self.lang, "conduct.names.copy", name=name)
        return self.punish(rule.key, seat, why) if why else []

    def _threw(self, e: ev.Threw) -> list[Action]:
        seat = self._seat(e.player)
        rule = self.config.rules["conduct.grenade_spam"]
        if not rule.enabled:
            return []
        times = [t for t in self.state.grenades.get(seat.key, []) if seconds_between(t, e.time) <= rule["seconds"]]
        times.append(e.time)
        if len(times) > rule["count"]:
            self.state.grenades.pop(seat.key, None)
            return self.punish(rule.key, seat, say(self.lang, "conduct.grenade_spam", count=len(times), seconds=rule["seconds"]))
        self.state.grenades[seat.key] = times
        return []

    def personal_freeday(self, granter: Seat, target_uid: int | None) -> list[Action]:
        """N16: a personal freeday at most once a game week."""
        s = self.state
        target = s.players.get(target_uid) if target_uid is not None else None
        if target is None or not self.config.on("calendar.personal_freeday"):
            return []
        if s.personal_freedays.get(target.key) == self.week:
            text = say(self.lang, "calendar.personal_freeday", name=target.name)
            return self.punish("calendar.personal_freeday", granter, text)
        s.personal_freedays[target.key] = self.week
        return []
