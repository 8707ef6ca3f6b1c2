"""Lawful play as a test: a seeded generator that plays long seasons on a server the way its
rulebooks allow, as log text through the engine, and reacts to the engine's actions as the
game server would (a move to T, a slay, a kick).

What is lawful is read from the server's config, as its rulebook says it: Monday is a
freeday only where `calendar.freeday` runs (001 ФД 1) and orders and games come on it only
once half the players are dead (ФД 5); games only within 004 5.17/5.18's online limits,
Коммунизм with 7 prisoners (000), no chat game while a prisoner is gagged (004 5.16), a
warden's game not three rounds running (004 5.5), global games twice a week (001
Глобальные 1), special days once in 3 rounds (000 6.5), at most 2 prohibitions (004 6.3; 3
on 001's freeday), in Саймон and Реакция only the warden kills (rebels apart), Король and
Морской бой to half the prisoners, a warden within 30 s on 004's server (4.4), the last
prisoner left his 10 s (001 ПЗ 1, Начальник обязан 3), one personal freeday a week (ФД 8),
no rebel two days running (001 Заключённые 5), the balance kept (001 Общие 5), grenades
one at a time (Общие 22), privileges after the first order (Привилегии 1), immortality twice
a week (Начальник 8). Beside it: reconnects, spectators, guards coming and going, map
changes, ordinary Russian chat, several game weeks.

`Season(server, seed, rounds).play()` gives every action with the generator's round.
`inject` names rounds in which one violation is made instead of a lawful round
(`tests/violations.py`): the season then says, per injected round, whom it must reach.

Since issue 31: the routine orders of every round («строимся», «все в клетку»: 001
«Правила Начальника: … 5. Приказ. 6. Отсчёт») beside the day's own, never the same whole
programme three rounds running; Король and Морской бой end at their half, and the guards
kill order-breakers after a new order or the game's end; and `old_plugin`, a plugin older
than the round line (no `jb_round_start`: CS:GO's `Starting Freeze period` alone marks the
restart).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import attrs

from jailcore.config.config import Config
from jailcore.engine.actions import Action, Punishment
from jailcore.engine.engine import Engine
from jailcore.engine.vocabulary import kinds_that
from jailcore.log.parse import LogParser
from jailcore.sim.logwriter import LogWriter, Who

ROOT = Path(__file__).resolve().parents[1]
PUNISHING = kinds_that("pardonable")  # what a pardon takes back: warn, slay, moves, bans, kicks, autoslay
# and a compensation paid by a guard's fault (004 4.12), and a punishment put to an admin
# (`confirm = "admin"`): lawful play must not ask him to judge anything either
JUDGED = PUNISHING | {"money", "propose"}

NAMES = (
    "Вася", "Петя", "Колян", "Димон", "Серёга", "Лёха", "Макс", "Артём", "Игорёк", "Саня", "Жека", "Тоха",
    "Миха", "Паша", "Рома", "Костя", "Вован", "Стас", "Гоша", "Федя", "Юра", "Слава", "Егор", "Никита",
    "Denis", "Kirill", "Oleg", "Boris", "Anton", "Ilya", "Timur", "Ruslan", "Vlad", "Gleb", "Lev", "Mark",
)
CHAT = ("привет всем", "кто начальник?", "го в клетку", "ок", "я тут", "понял", "ахах", "давайте играть",
        "сколько до ФД?", "где оружейка?", "ну что, играем?", "гг", "начальник, повтори", "спасибо", "лол",
        "кто со мной в дуэль?", "опять светофор", "норм раунд", "можно выйти?", "я сижу",
        # words that begin as the word list's do, and are none of them (001 Общие 18)
        "лохматый опять в клетке", "чмоки всем", "хороший дебют", "уродливый скин у тебя", "еду в херсон", "Сукачёв лучший")
# Every round's routine (001 «Правила Начальника: … 4. Открыть клетки. 5. Приказ. 6.
# Отсчёт»): no monotony, whatever 004 5.5 says of orders (issue 31).
ROUTINE = ("строимся", "все в клетку", "стоим у стены", "всем построиться у стены", "открываю клетки", "выходим из клеток")
ORDERS = ("все в клетку", "встать у стены", "присесть", "идём в столовую", "стоять на месте", "лицом к стене",
          "идём на футбольное поле", "построиться в линию", "не двигаться", "все в бассейн")
PROHIBITIONS = ("не прыгать", "не бегать", "не подходить к оружейке", "не садиться", "запрет на нычки")
# How wardens announce games (000's own wording among them): other cases, «играем в».
FORMS = {
    "Мёртвый король": ("Играем в Мертвого Короля!", "мертвого короля"),
    "Третий лишний": ("Играем в третьего лишнего", "третьего лишнего"),
    "Американец": ("Играем в 'Американца'", "американца"),
    "Математика": ("Играем в Математику", "математику"),
    "Король": ("Играем в Короля", "короля"),
    "Реакция": ("играем в реакцию", "Реакцию"),
    "Интуиция": ("Играем в Интуицию",),
    "Первая-последняя реакция": ("Играем в Первую-последнюю реакцию",),
    "Саймон говорит": ("Саймон говорит, что игра «Саймон говорит» началась", "саймон"),
}
ATTACK = '{a} [1 2 3] attacked {v} [4 5 6] with "glock" (damage "{d}") (damage_armor "0") (health "{h}") (armor "0") (hitgroup "chest")'


Injector = Callable[["Season", "Injected"], None]


@attrs.define
class Injected:
    """One violation made on purpose: in which round, of which rule, on whom."""

    round: int
    kind: str
    expected: list[tuple[str, int]] = attrs.Factory(list)  # (rule, userid) the engine must reach


class Writer(LogWriter):
    """Each line goes through the engine as it is written; the engine's actions come back
    to the season, which answers them as the server would."""

    def __init__(self, season: Season):
        super().__init__("2026-11-02T18:00:00")
        self.season = season

    def add(self, body: str) -> Writer:
        super().add(body)
        self.season.feed(self.lines[-1])
        return self


class Season:
    def __init__(self, server: str, seed: int, rounds: int, inject: dict[int, tuple[str, Injector]] | None = None,
                 old_plugin: bool = False):
        self.cfg = Config.from_toml(ROOT / "configs" / f"{server}.toml", env={})
        self.old_plugin = old_plugin  # a plugin older than the round line: no jb_round_start
        self.rnd = random.Random(seed)
        self.rounds = rounds
        self.engine = Engine(self.cfg)
        self.parser = LogParser()
        self.log = Writer(self)
        self.actions: list[tuple[int, Action]] = []
        self.inject = dict(inject or {})
        self.injected: list[Injected] = []
        self.lines = 0
        # the server as the players know it
        self.players: dict[int, Who] = {}
        self.next_uid = 2
        self.next_name = 0
        self.joined: dict[int, int] = {}  # userid -> order of joining CT (004 4.4 asks the longest-serving)
        self.joins = 0
        self.blocked: dict[str, int] = {}  # steamid -> first round he may join CT again
        self.banned: set[str] = set()
        self.spectators: dict[int, int] = {}  # userid -> the round he comes back
        # the calendar and the counts the rulebooks keep
        self.round = 0
        self.last_special = -99
        self.globals_week: dict[int, int] = {}
        self.freedays: dict[str, int] = {}  # steamid -> week of his personal freeday
        self.duel_won: dict[str, int] = {}  # steamid -> round of his won duel
        self.rebelled: dict[str, int] = {}  # steamid -> the last round he rebelled
        self.immortal: dict[tuple[str, int], int] = {}  # (steamid, week) -> uses
        self.streak: dict[str, tuple[str, int, int]] = {}  # warden steamid -> (game's type, last round, rounds running)
        self.ordered: dict[str, list[tuple[int, str]]] = {}  # warden steamid -> his recent (round, order)
        self.map_round = 0
        self.freeze = 0  # this map's mp_freezetime: a freeze period on ~70% of maps
        self.away: dict[str, tuple[Who, int]] = {}  # steamid -> (who left mid-round, the round he comes back)
        self.forced: dict[int, Callable[[], None]] = {}  # round -> a preparation for a later injection
        self.no_special: set[int] = set()  # rounds kept free of special days for an injection's sake
        self.protected: set[str] = set()  # steamids an injection needs on the server as they are
        self.picked: dict[str, str] = {}  # what a preparation chose, for its injection
        self.played = 0
        self.owed: dict[str, int] = {}  # steamid -> round he was owed a freeday (001 ПЗ 1)
        self.last_game = ""  # the server's game of the round before, whoever ran it
        self.running = None  # the game now running, if the generator left it running
        self.admin = Who("Смотритель", 1, "STEAM_1:0:1")
        # state inside a round
        self.warden: Who | None = None
        self.gagged: set[int] = set()
        self.first_order = False
        self.playing = 0
        self.prohibitions = 0
        self.special = False

    # -- the engine ------------------------------------------------------------------------

    def feed(self, line: str) -> None:
        self.lines += 1
        event = self.parser.parse(line)
        if event is None:
            return
        for action in self.engine.handle(event):
            if action.action in ("hud", "door"):
                continue
            self.actions.append((self.played, action))
            self.answer(action)

    def answer(self, action: Action) -> None:
        """What the game server does with a command: the shim's CS_SwitchTeam, a slay, a kick."""
        who = self.players.get(action.target.userid) if action.target else None
        if who is None or (isinstance(action, Punishment) and action.absent):
            return  # (one decided for a player who has left is sent to no one: he is gone)
        if action.action == "teamswap":
            self.blocked[who.steamid] = self.round + 5
            if self.warden is who:
                self.warden = None
            alive = who.alive
            self.log.join(who, "TERRORIST")
            who.alive = alive
        elif action.action == "slay":
            self.log.suicide(who)
        elif action.action == "ctban":
            self.banned.add(who.steamid)
        elif action.action in ("kick", "ban"):
            self.leave(who, "Kicked by Console")
            if action.action == "ban":
                self.banned.add(who.steamid)

    # -- people ------------------------------------------------------------------------------

    def new_player(self, team: str) -> Who:
        name = NAMES[self.next_name % len(NAMES)] + ("" if self.next_name < len(NAMES) else str(self.next_name // len(NAMES)))
        self.next_name += 1
        who = Who(name, self.next_uid, f"STEAM_1:{self.next_uid % 2}:{90000 + self.next_uid}")
        self.next_uid += 1
        self.players[who.userid] = who
        self.log.connect(who, team)
        if team == "CT":
            self.joins += 1
            self.joined[who.userid] = self.joins
        return who

    def leave(self, who: Who, reason: str = "Disconnect") -> None:
        if self.warden is who:
            self.warden = None
        self.log.disconnect(who, reason)
        self.players.pop(who.userid, None)
        self.joined.pop(who.userid, None)

    def team(self, name: str, alive: bool = False) -> list[Who]:
        return [p for p in self.players.values() if p.team == name and (p.alive or not alive)]

    @property
    def ts(self) -> list[Who]:
        return self.team("TERRORIST")

    @property
    def cts(self) -> list[Who]:
        return self.team("CT")

    def guards_allowed(self, prisoners: int) -> int:
        """001 Общие 5 «Минимальный баланс 1 к 3»."""
        if not self.cfg.on("teams.balance"):
            return max(2, prisoners // 3)
        ratio = self.cfg.rules["teams.balance"].ratio
        return max(1, prisoners // ratio) if prisoners >= ratio else 99

    def join_ct(self, who: Who) -> None:
        self.log.join(who, "CT")
        self.joins += 1
        self.joined[who.userid] = self.joins

    def may_guard(self, who: Who) -> bool:
        return who.steamid not in self.banned and self.blocked.get(who.steamid, 0) <= self.round + 1

    # -- the calendar ------------------------------------------------------------------------

    @property
    def day(self) -> int:
        return (self.round - 1) % self.cfg.week_length + 1

    @property
    def week(self) -> int:
        return (self.round - 1) // self.cfg.week_length

    @property
    def monday(self) -> bool:
        return self.cfg.on("calendar.freeday") and self.day == 1

    def freeday_takeable(self) -> bool:
        """001 ФД 5 «Общее ФД можно забрать, если Половина/Большинство игроков - Мертвы»."""
        dead = self.playing - len(self.team("TERRORIST", True)) - len(self.team("CT", True))
        return dead * 2 >= self.playing

    # -- a season ------------------------------------------------------------------------------

    def play(self) -> Season:
        for _ in range(16):
            self.new_player("TERRORIST")
        for _ in range(4):
            self.new_player("CT")
        self.log.add('Loading map "jb_lego_v3"').add('Started map "jb_lego_v3" (CRC "1")')
        if self.old_plugin:
            self.log.hello("0.9.0")  # a plugin from before the round line
        self.freeze = self.pick_freeze()
        while self.played < self.rounds:
            self.between_rounds()
            self.play_round()
        return self

    def between_rounds(self) -> None:
        r, rnd = self.played + 1, self.rnd
        if r - self.map_round > 35 and rnd.random() < 0.1:
            self.map_round = r
            name = rnd.choice(("jb_lego_v3", "jb_summer_jail", "ba_jail_electric", "jb_undertale"))
            self.log.add(f'Loading map "{name}"').add(f'Started map "{name}" (CRC "{r}")')
            self.freeze = self.pick_freeze()
            # a warm-up round is no day of the week
            self.log.add('World triggered "Game_Commencing"').add('World triggered "Warmup_Start"')
            self.shim_round(0)
            self.log.round_start().wait(30).round_end().add('World triggered "Warmup_End"')
            if self.cfg.reset_on_map_change:
                self.round, self.last_special = 0, -99
        for steamid, (who, back) in list(self.away.items()):
            if back <= r:  # he left mid-round and comes back: a new userid, the same steamid
                del self.away[steamid]
                again = Who(who.name, self.next_uid, steamid)
                self.next_uid += 1
                self.players[again.userid] = again
                self.log.connect(again, "TERRORIST")
        for uid, back in list(self.spectators.items()):
            who = self.players.get(uid)
            if who is not None and back <= r and len(self.cts) <= self.guards_allowed(len(self.ts) + 1):
                self.log.join(who, "TERRORIST")
                del self.spectators[uid]
        ts = [t for t in self.ts if t.steamid not in self.protected]
        if rnd.random() < 0.06 and len(ts) > 8:  # a reconnect: a new userid, the same steamid
            who = rnd.choice(ts)
            self.leave(who)
            again = Who(who.name, self.next_uid, who.steamid)
            self.next_uid += 1
            self.players[again.userid] = again
            self.log.connect(again, "TERRORIST")
        ts = [t for t in self.ts if t.steamid not in self.protected]
        if rnd.random() < 0.05 and len(self.cts) <= self.guards_allowed(len(self.ts) - 1) and len(ts) > 8:
            who = rnd.choice(ts)
            self.log.join(who, "Spectator")
            self.spectators[who.userid] = r + rnd.randint(1, 3)
        if rnd.random() < 0.04 and len(self.ts) < 22:
            self.new_player("TERRORIST")
        if rnd.random() < 0.03 and len(ts) > 10:
            self.leave(rnd.choice(ts))
        cts = [c for c in self.cts if c.steamid not in self.protected]
        if len(cts) > 2 and rnd.random() < 0.05:
            who = rnd.choice(cts)
            self.log.join(who, "TERRORIST")
            self.joined.pop(who.userid, None)
        if len(self.cts) > self.guards_allowed(len(self.ts)):  # prisoners left: a guard goes back himself
            who = max(self.cts, key=lambda p: self.joined.get(p.userid, 0))
            self.log.join(who, "TERRORIST")
            self.joined.pop(who.userid, None)
        while len(self.cts) < min(4, self.guards_allowed(len(self.ts) - 1)):
            free = [p for p in self.ts if self.may_guard(p) and p.steamid not in self.protected]
            if not free:
                break
            self.join_ct(rnd.choice(free))
        if not self.cts:
            self.new_player("CT")

    def say_some(self, n: int) -> None:
        people = [p for p in self.players.values() if p.team in ("TERRORIST", "CT") and p.userid not in self.gagged]
        for _ in range(n):
            if people:
                self.log.wait(self.rnd.randint(0, 3)).say(self.rnd.choice(people), self.rnd.choice(CHAT))

    def pick_freeze(self) -> int:
        return self.rnd.choice((15, 10, 6)) if self.rnd.random() < 0.7 else 0

    def begin_round(self) -> None:
        """The round restarts: the shim's round line at SourceMod's `round_start` event, the
        freeze period, then srcds's Round_Start when it ends (15 s later in the corpus). In
        about half of the frozen rounds a guard claims the warden during the freeze. With
        `mp_freezetime 0` the two lines come together, in either order."""
        rnd, log = self.rnd, self.log
        for p in self.players.values():
            p.alive = p.team in ("TERRORIST", "CT")
        self.warden = None
        if not self.freeze:
            if rnd.random() < 0.5:
                self.shim_round(0)
                log.round_start()
            else:
                log.round_start()
                self.shim_round(0)
            return
        self.shim_round(self.freeze)
        log.add("Starting Freeze period")
        left = self.freeze - 1
        guards = self.team("CT", True)
        if guards and rnd.random() < 0.5:
            wait = rnd.randint(0, self.freeze - 3)
            self.warden = rnd.choice(guards)
            log.wait(wait).warden(self.warden)
            left -= wait + 1
            if rnd.random() < 0.3:
                log.say(self.warden, "всем стоять, сейчас открою")
                left -= 1
        log.wait(max(0, left)).round_start()

    def shim_round(self, freeze: int) -> None:
        """The plugin's round line (`jb_round_start`), which an old plugin does not write."""
        if not self.old_plugin:
            self.log.round_begins(freeze)

    def play_round(self) -> None:
        rnd, log = self.rnd, self.log
        log.wait(5)
        self.begin_round()
        if rnd.random() < 0.01:  # an admin's mp_restartgame: the day begins again
            log.wait(2).add('World triggered "Restart_Round_(1_second)"').wait(1)
            self.begin_round()
        self.round += 1
        self.played += 1
        self.first_order, self.prohibitions, self.special = False, 0, False
        self.running = None
        self.playing = len(self.team("TERRORIST", True)) + len(self.team("CT", True))
        if self.played in self.forced:
            self.forced.pop(self.played)()
            return
        planned = self.inject.get(self.played)
        if planned is not None:
            kind, make = planned
            self.injected.append(Injected(self.played, kind))
            make(self, self.injected[-1])
            log.wait(2).round_end()
            return
        if self.cfg.on("games.gagged") and rnd.random() < 0.05:
            who = rnd.choice(self.ts)
            self.gagged.add(who.userid)
            log.trig(who, "jb_gag", ' (state "on")')
        self.say_some(rnd.randint(0, 2))
        needs_warden = self.cfg.on("teams.no_warden")
        if self.warden is None and self.cts and (needs_warden or rnd.random() < 0.92):
            self.take_command(rnd.randint(2, 20))
        if rnd.random() < 0.04:
            self.someone_leaves()
        if self.warden is not None:
            if rnd.random() < 0.1 and self.special_allowed():
                self.special_day()
            else:
                self.ordinary_day()
        self.endgame()
        log.wait(rnd.randint(1, 5)).round_end()
        for uid in list(self.gagged):
            who = self.players.get(uid)
            self.gagged.discard(uid)
            if who is not None:
                log.trig(who, "jb_gag", ' (state "off")')

    def someone_leaves(self) -> None:
        """A prisoner's game crashes mid-round; he comes back a round or three later."""
        ts = [t for t in self.ts if t.steamid not in self.protected]
        if len(ts) > 8:
            who = self.rnd.choice(ts)
            self.leave(who, "Timed out")
            self.away[who.steamid] = (who, self.round + self.rnd.randint(1, 3))

    def take_command(self, after: int) -> None:
        guards = self.team("CT", True)
        if guards:
            self.warden = self.rnd.choice(guards)
            self.log.wait(after).warden(self.warden)

    def special_allowed(self) -> bool:
        if not self.cfg.on("specialday.cooldown"):
            return True
        return self.round >= self.last_special + self.cfg.rules["specialday.cooldown"].rounds and self.played not in self.no_special

    def special_day(self) -> None:
        rnd, log = self.rnd, self.log
        self.last_special = self.round
        self.special = True
        log.specialday(self.warden, rnd.choice(("Голодные игры", "Прятки", "Зомби", "Догонялки")))
        # a special day sets prisoners against guards: fights both ways, never within a team
        for _ in range(rnd.randint(2, 6)):
            ts, cts = self.team("TERRORIST", True), self.team("CT", True)
            if len(ts) <= 2 or not cts:
                break
            if rnd.random() < 0.3:
                t, g = rnd.choice(ts), rnd.choice(cts)
                log.wait(rnd.randint(2, 9)).add(ATTACK.format(a=t.ident(), v=g.ident(), d=30, h=70))
            elif rnd.random() < 0.1 and self.warden is not None and self.warden.alive:
                # the warden falls in the day's fight: the day runs on without commands (004 4.4)
                self.log.wait(rnd.randint(2, 9))
                self.warden_dies(rnd.choice(ts), self.warden)
                self.warden = None
                log.wait(rnd.randint(40, 90))
            else:
                log.wait(rnd.randint(2, 9)).kill(rnd.choice(cts), rnd.choice(ts))

    # -- an ordinary day: orders, prohibitions, a game, rebels --------------------------------

    def ordinary_day(self) -> None:
        rnd, log, w = self.rnd, self.log, self.warden
        if self.cfg.on("conduct.privileges") and rnd.random() < 0.3:
            log.trig(rnd.choice(self.ts), "jb_privilege", f' (kind "{rnd.choice(("money", "voice"))}")')
        if self.monday and rnd.random() < 0.2:
            log.trig(rnd.choice(self.ts), "jb_privilege", ' (kind "vip_gun")')  # 001 ФД 2: no order to wait for
        for who in [p for p in self.ts if self.owed.get(p.steamid, -9) >= self.round - 1]:
            self.owed.pop(who.steamid)
            log.trig(self.warden, "jb_freeday", f' (scope "personal") (target "#{who.userid}")')  # ПЗ 1's freeday, owed
        if rnd.random() < 0.02 and len(self.team("CT", True)) > 2:
            a, b = [g for g in self.team("CT", True) if g is not self.warden][:2] or (None, None)
            if a is not None and b is not None:
                log.wait(2).kill(a, b, weapon="hegrenade")  # a team mate in the blast: not «намеренно»
        if self.cfg.on("calendar.personal_freeday") and rnd.random() < 0.2:
            self.personal_freeday()
        if self.monday:
            self.freeday_monday()
            return
        for order in rnd.sample(ROUTINE, rnd.randint(0, 3)):  # every round's routine
            log.wait(rnd.randint(1, 5)).order(w, rnd.choice((order, order.capitalize(), order + "!")))
        for _ in range(rnd.randint(1, 3)):
            log.wait(rnd.randint(2, 10)).order(w, self.varied_order(w))
        self.first_order = True
        if self.cfg.on("warden.immortality") and rnd.random() < 0.15:
            key = (w.steamid, self.week)
            if self.immortal.get(key, 0) < self.cfg.rules["warden.immortality"].per_week:
                self.immortal[key] = self.immortal.get(key, 0) + 1
                log.trig(w, "jb_privilege", ' (kind "immortality")')
        if rnd.random() < 0.2:
            log.trig(rnd.choice(self.ts), "jb_privilege", ' (kind "vip_gun")')
        for _ in range(rnd.randint(0, 2)):
            self.prohibit()
        self.say_some(rnd.randint(1, 3))
        if rnd.random() < 0.12:
            self.rebellion()
        if rnd.random() < 0.06:
            self.warden_falls()
        elif rnd.random() < 0.03 and self.warden is not None and len(self.team("CT", True)) > 1:
            self.warden_leaves()
        if rnd.random() < 0.6:
            self.game()
        if self.cfg.on("conduct.grenade_spam") and rnd.random() < 0.2:
            log.add(f"{rnd.choice(self.ts).ident()} threw hegrenade [1 2 3]")
        self.kill_some(rnd.randint(0, 3))

    def freeday_monday(self) -> None:
        """001 ФД 1: no orders, no games, up to three restrictions (ФД 3); ФД 5 lets the
        warden take the freeday once half the players are dead."""
        rnd, log = self.rnd, self.log
        for _ in range(rnd.randint(0, 3)):
            self.prohibit(limit=self.cfg.rules["prohibitions.max"].freeday_limit)
        self.say_some(rnd.randint(1, 4))
        if rnd.random() < 0.5:
            while not self.freeday_takeable() and len(self.team("TERRORIST", True)) > 2:
                self.kill_some(1)
            if self.freeday_takeable() and self.warden is not None and self.warden.alive:
                log.wait(3).order(self.warden, "ФД забрано, все в клетку")
                self.first_order = True
                if rnd.random() < 0.5:
                    self.game()

    def varied_order(self, w: Who) -> str:
        """004 5.5 / 001 Начальник обязан 5: an order of the day not given in each of his last
        rounds, so his round's whole programme is never the same three rounds running (the
        routine beside it is no monotony)."""
        given = self.ordered.setdefault(w.steamid, [])
        n = self.cfg.rules["games.repeat"].in_a_row if self.cfg.on("games.repeat") else 99
        fresh = [o for o in ORDERS if not all((self.round - k, o) in given for k in range(1, n + 1))]
        text = self.rnd.choice(fresh or ORDERS)
        given[:] = [(r, t) for r, t in given if r >= self.round - n] + [(self.round, text)]
        return text

    def prohibit(self, limit: int = 2) -> None:
        if self.prohibitions < limit and self.warden is not None:
            self.prohibitions += 1
            self.log.wait(self.rnd.randint(1, 5)).prohibit(self.warden, self.rnd.choice(PROHIBITIONS))

    def personal_freeday(self) -> None:
        who = self.rnd.choice(self.ts)
        won = self.duel_won.get(who.steamid, -9) >= self.round - 1
        if self.freedays.get(who.steamid) == self.week and not won:
            return
        if not won:
            self.freedays[who.steamid] = self.week
        self.log.trig(self.warden, "jb_freeday", f' (scope "personal") (target "#{who.userid}")')

    def rebellion(self) -> None:
        """A prisoner attacks a guard (never two days running: 001 Заключённые 5); he is a
        rebel, and any guard may kill him («Исключение — Бунт»)."""
        rnd, log = self.rnd, self.log
        fresh = [t for t in self.team("TERRORIST", True) if self.rebelled.get(t.steamid, -9) < self.round - 1]
        guards = self.team("CT", True)
        if not fresh or not guards or len(self.team("TERRORIST", True)) <= 2:
            return
        t, g = rnd.choice(fresh), rnd.choice(guards)
        self.rebelled[t.steamid] = self.round
        log.wait(rnd.randint(2, 8)).add(ATTACK.format(a=t.ident(), v=g.ident(), d=25, h=75))
        if rnd.random() < 0.8:
            log.wait(1).kill(rnd.choice(guards), t)

    def handover(self) -> None:
        """The warden hands command to another guard (resigns); 001 Общие 7 ends nothing then."""
        others = [g for g in self.team("CT", True) if g is not self.warden]
        if self.warden is None or not others:
            return
        self.log.wait(self.rnd.randint(2, 6)).trig(self.warden, "jb_warden_removed", ' (reason "resigned")')
        self.warden = self.rnd.choice(others)
        self.log.wait(self.rnd.randint(1, 10)).warden(self.warden)

    def warden_falls(self) -> None:
        """A rebel kills the warden; another guard takes command within 004 4.4's time."""
        rnd, log = self.rnd, self.log
        fresh = [t for t in self.team("TERRORIST", True) if self.rebelled.get(t.steamid, -9) < self.round - 1]
        w = self.warden
        if not fresh or w is None or len(self.team("TERRORIST", True)) <= 3:
            return
        t = rnd.choice(fresh)
        self.rebelled[t.steamid] = self.round
        log.wait(rnd.randint(2, 8)).add(ATTACK.format(a=t.ident(), v=w.ident(), d=60, h=40))
        self.warden_dies(t, w)
        self.warden = None
        if self.running is not None:
            self.running = None  # 000 VI: the game ends with its host
        guards = self.team("CT", True)
        if guards:
            log.wait(rnd.randint(1, 3)).kill(rnd.choice(guards), t)
            self.take_command(rnd.randint(3, 25))

    def warden_dies(self, killer: Who, w: Who) -> None:
        """The shim writes jb_warden_removed inside the player_death event, which may come
        before srcds's `killed` line: either order."""
        if self.rnd.random() < 0.5:
            self.log.trig(w, "jb_warden_removed", ' (reason "died")').kill(killer, w)
        else:
            self.log.kill(killer, w).trig(w, "jb_warden_removed", ' (reason "died")')

    def warden_leaves(self) -> None:
        """The warden's game crashes: he reconnects (a new userid) and sits with the
        prisoners; another guard takes command in time."""
        w = self.warden
        self.leave(w, "Timed out")
        again = Who(w.name, self.next_uid, w.steamid)
        self.next_uid += 1
        self.players[again.userid] = again
        self.log.wait(5).connect(again, "TERRORIST")
        self.take_command(self.rnd.randint(3, 20))

    def killers(self) -> list[Who]:
        return self.team("CT", True)

    def kill_some(self, n: int, by: Who | None = None) -> None:
        """Guards kill prisoners who broke an order; never the last one (his request first)."""
        rnd, log = self.rnd, self.log
        for _ in range(n):
            ts, cts = self.team("TERRORIST", True), self.killers()
            if len(ts) <= 2 or not cts:
                return
            killer, victim = by or rnd.choice(cts), rnd.choice(ts)
            log.wait(rnd.randint(2, 12)).kill(killer, victim)
            # 004 4.8: he asks, the guard explains; a rebel of this round does not ask, his
            # death is «очевидная ситуация» (asking is the clause's abuse)
            if rnd.random() < 0.08 and victim.userid not in self.gagged and self.rebelled.get(victim.steamid) != self.round:
                log.wait(rnd.randint(1, 20)).say(victim, rnd.choice(("за что?", "почему???", "причина?")))
                log.wait(rnd.randint(1, 40)).say(killer, rnd.choice(("вышел из клетки", "нарушил приказ", "бегал")))

    # -- games ------------------------------------------------------------------------------

    def lawful_games(self) -> list:
        cfg, out = self.cfg, []
        prisoners, alive = len(self.ts), len(self.team("TERRORIST", True))
        for game in cfg.catalogue:
            if cfg.on("games.online_limit") and any(
                (game.named(limit.games) or (limit.tag and limit.tag in game.tags)) and prisoners > limit.more_than
                for limit in cfg.online_limits
            ):
                continue
            if game.min_players and alive < game.min_players:
                continue
            if "global" in game.tags and cfg.on("calendar.global_games") and (
                    self.globals_week.get(self.week, 0) >= cfg.rules["calendar.global_games"].per_week):
                continue
            if "chat" in game.tags and cfg.on("games.gagged") and any(self.players[u].team == "TERRORIST" for u in self.gagged if u in self.players):
                continue
            if self.too_often(game):
                continue
            out.append(game)
        return out

    def too_often(self, game) -> bool:
        """004 5.5 «однотипными» / 001 Начальник обязан 5: the warden's game of this type a
        third round running, whatever he calls it."""
        if not self.cfg.on("games.repeat") or self.warden is None:
            return False
        last = self.streak.get(self.warden.steamid)
        return bool(last and last[0] == game.kind and last[1] == self.round - 1 and last[2] >= self.cfg.rules["games.repeat"].in_a_row)

    def typed(self, name: str) -> str:
        """The same game under other names: its own, another case, «играем в», an alias."""
        game = self.cfg.catalogue.find(name)
        aliases = game.aliases if game is not None else ()
        return self.rnd.choice((name, name.lower(), f"Играем в «{name}»", f"играем в '{name}'", name.upper(),
                                f"Сейчас играем в {name.lower()}, все в линию", *FORMS.get(name, ()), *aliases))

    def start_game(self, game) -> None:
        w = self.warden
        self.log.wait(self.rnd.randint(2, 8)).game(w, self.typed(game.name))
        if "global" in game.tags:
            self.globals_week[self.week] = self.globals_week.get(self.week, 0) + 1
        last = self.streak.get(w.steamid)
        if last and last[0] == game.kind and last[1] == self.round - 1:
            self.streak[w.steamid] = (game.kind, self.round, last[2] + 1)
        elif not (last and last[0] == game.kind and last[1] == self.round):
            self.streak[w.steamid] = (game.kind, self.round, 1)

    def game(self) -> None:
        rnd, log, cfg = self.rnd, self.log, self.cfg
        w = self.warden
        if w is None or not w.alive:
            return
        maps = getattr(cfg.rules["games.unknown"], "map_games", ())
        if maps and rnd.random() < 0.08:
            log.wait(3).game(w, rnd.choice(maps))
            self.kill_some(rnd.randint(0, 1))
            log.wait(20).trig(w, "jb_game_end")
            return
        games = self.lawful_games()
        if cfg.on("calendar.global_games") and rnd.random() < 0.05:
            # 001 Глобальные 1 «Смотритель может дать разрешение на провождение более 2х игр»
            log.trig(self.admin, "jb_game_approve", ' (game "Прятки")')
            games = [g for g in cfg.catalogue if g.name == "Прятки" and not self.too_often(g)]
        if not games:
            return
        same = [g for g in games if g.name == self.last_game]
        game = same[0] if same and rnd.random() < 0.3 else rnd.choice(games)
        self.start_game(game)
        self.last_game = game.name
        ended = False
        if "host_kills" in game.tags:
            if rnd.random() < 0.2:
                self.handover()
            rebels = [t for t in self.team("TERRORIST", True) if self.rebelled.get(t.steamid) == self.round]
            if rebels and len(self.team("TERRORIST", True)) > 2:
                others = [g for g in self.team("CT", True) if g is not self.warden] or self.team("CT", True)
                log.wait(2).kill(rnd.choice(others), rebels[0])  # «Исключение — Бунт»
            self.kill_some(rnd.randint(1, 2), by=self.warden)  # «Убивает только Начальник»: the warden now
        elif "half" in game.tags:
            ended = self.half_game(game)
        elif "chat" in game.tags:
            self.chat_game(game)
        elif "global" in game.tags:
            if rnd.random() < 0.2:
                log.wait(3).game(w, self.typed(game.name))  # announced again: still one game
            log.wait(rnd.randint(20, 60))
            self.kill_some(rnd.randint(0, 2))
        else:
            self.kill_some(rnd.randint(0, 2))
        w = self.warden
        if w is None or not w.alive:
            return
        if rnd.random() < 0.1 and cfg.on("games.duration"):
            log.wait(cfg.rules["games.duration"].minutes * 60 + 5)  # a long game: past 5 minutes, winners named
            if rnd.random() < 0.5:
                self.kill_some(1, by=w)
            else:
                log.say(w, f"Победитель {rnd.choice(self.team('TERRORIST', True)).name}!")
                log.wait(rnd.randint(30, 90))
        if ended:
            if cfg.rules["prohibitions.max"].only_during_game:
                for _ in range(rnd.randint(0, 2)):  # no game runs now: 004 6.3's cap is for one game
                    self.prohibitions = 0
                    self.prohibit()
        elif rnd.random() < 0.15 and not game.tags & {"global", "host_kills", "half"}:
            self.running = game  # left running: the last request will overtake it
        else:
            log.wait(rnd.randint(5, 30)).trig(w, "jb_game_end")

    def half_game(self, game) -> bool:
        """000 Король: at most half of those who began (rounded down); Морской бой: to half,
        the last cell may take more (its volley). Either ends when half are dead («Игра
        завершается тогда, когда умрет половина заключенных»); then the warden ends it, or
        gives a new order, or sets a prohibition, and the guards kill those who break it."""
        rnd, log = self.rnd, self.log
        playing = len(self.team("TERRORIST", True))
        half = playing // 2
        if playing < 4:
            return False
        deaths = rnd.randint(0, half)
        rebels = [t for t in self.team("TERRORIST", True) if self.rebelled.get(t.steamid) == self.round]
        if rebels and deaths < half:
            log.wait(2).kill(rnd.choice(self.team("CT", True)), rebels[0])  # a rebel: not one of the game's dead
        for _ in range(deaths):  # (a rebel's death is not the game's: never one of its count)
            plain = [t for t in self.team("TERRORIST", True) if self.rebelled.get(t.steamid) != self.round]
            if not plain:
                return False
            log.wait(rnd.randint(1, 4)).kill(rnd.choice(self.team("CT", True)), rnd.choice(plain))
        if deaths < half:
            return False
        if "cells" in game.tags and rnd.random() < 0.5 and len(self.team("TERRORIST", True)) > 2:
            log.wait(0).kill(rnd.choice(self.team("CT", True)), rnd.choice(self.team("TERRORIST", True)))  # the last cell
        w = self.warden
        log.wait(rnd.randint(3, 40))
        if w is None or not w.alive:
            return True  # (the round goes on without commands: nothing more is killed here)
        then = rnd.random()
        if then < 0.35:
            log.trig(w, "jb_game_end")
        elif then < 0.85 or self.monday:
            log.order(w, rnd.choice(ROUTINE) if rnd.random() < 0.6 else self.varied_order(w))
        else:
            self.prohibitions = 0
            self.prohibit()
        if then >= 0.35 or rnd.random() < 0.5:
            self.kill_some(rnd.randint(1, 2))  # order-breakers, long after the half: not the game's
        return True

    def chat_game(self, game) -> None:
        rnd, log, w = self.rnd, self.log, self.warden
        ts = [t for t in self.team("TERRORIST", True) if t.userid not in self.gagged]
        if not ts:
            return
        if game.name == "Математика":
            a, b = rnd.randint(2, 20), rnd.randint(2, 20)
            log.wait(3).say(w, f"{a}+{b}").say(rnd.choice(self.team("CT", True)), str(a + b))
            log.say(rnd.choice(ts), str(a + b + 1)).say(rnd.choice(ts), str(a + b))
        elif game.name == "Алфавит":
            log.wait(3).say(w, "к").say(rnd.choice(ts), "л")
        else:
            log.wait(3).say(rnd.choice(ts), rnd.choice(("+", "я", "камень", "5")))
        self.kill_some(1)

    # -- the end of a round: the last prisoner ------------------------------------------------

    def endgame(self) -> None:
        """Guards bring it down to the last prisoner, who has his 10 s (001 ПЗ 1) and his
        duel; the warden never kills him before (Начальник обязан 3)."""
        rnd, log = self.rnd, self.log
        if rnd.random() < 0.35:
            return  # the round runs out with prisoners alive
        while len(self.team("TERRORIST", True)) > 1:
            ts, guards = self.team("TERRORIST", True), self.team("CT", True)
            if not guards:
                return
            killer = rnd.choice(guards)
            if len(ts) == 3 and rnd.random() < 0.3:  # one grenade, two dead, one left alive
                a, b = ts[0], ts[1]
                log.wait(3).add(ATTACK.format(a=killer.ident(), v=a.ident(), d=100, h=0))
                log.add(ATTACK.format(a=killer.ident(), v=b.ident(), d=100, h=0)).kill(killer, a).kill(killer, b)
                continue
            log.wait(rnd.randint(2, 10)).kill(killer, rnd.choice(ts))
        last = self.team("TERRORIST", True)
        guards = self.team("CT", True)
        if not last or not guards:
            return
        t = last[0]
        if rnd.random() < 0.9:
            if rnd.random() < 0.1 and self.warden is not None:
                # the warden resigns: the last request needs no commands (004 4.4)
                log.trig(self.warden, "jb_warden_removed", ' (reason "resigned")')
                self.warden = None
            log.wait(rnd.randint(1, 8)).trig(t, "jb_lr", f' (choice "{rnd.choice(("дуэль на ножах", "дуэль на диглах", "ФД"))}")')
            g = rnd.choice(guards)
            if rnd.random() < 0.1:
                log.wait(rnd.randint(60, 100))  # a long duel
            if rnd.random() < 0.5:
                log.wait(rnd.randint(5, 20)).kill(t, g)
                self.duel_won[t.steamid] = self.round
                if g is self.warden:
                    self.warden = None
            else:
                log.wait(rnd.randint(5, 20)).kill(g, t)
        else:
            log.wait(12).say(rnd.choice(guards), "время вышло")
            log.wait(2).kill(rnd.choice(guards), t)
            if t.steamid not in {p.steamid for p in self.players.values() if self.rebelled.get(p.steamid) == self.round}:
                self.owed[t.steamid] = self.round


def punishments(s: Season) -> list[tuple[int, Action]]:
    return [(r, a) for r, a in s.actions if a.action in PUNISHING or a.action == "propose"]


def judged(s: Season) -> list[tuple[int, Action]]:
    """The decisions: not the carrying out, at his return, of one decided while he was away."""
    return [(r, a) for r, a in s.actions if a.action in JUDGED and not (isinstance(a, Punishment) and a.owed)]
