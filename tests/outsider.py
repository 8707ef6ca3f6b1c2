"""An outsider's lawful seasons: log files written from the rulebooks alone, read by
`jailcore replay` as the acceptance testers read them.

Written apart from `tests/lawful.py` (which plays against the engine and answers its
actions): nothing here imports the engine. It writes what a real server's log holds: the
plugin's lines as protocol section 1 has them (`jb_hello`, `jb_round_start`, `(seq "N")`),
srcds's own lines for CS:GO (positions, `Starting Freeze period`, `switched from team`,
`threw`) or CS:S (`joined team`), warm-up and `Game_Commencing` on a new map, admins'
`mp_restartgame`, bots, spectators, players who leave and come back under a new userid,
names with emoji, quotes and Latin look-alikes, chat with typos, and wardens who type orders
and games the many ways wardens do (cases, quotes, «играем в», English, a missing
`!endgame`, orders given by voice alone).

What is lawful comes from the rulebooks, each clause where it is played:

- 001 ФД 1 «Понедельник - всегда ФД!»: on server A Monday's warden gives no order or game
  until half the players are dead (ФД 5), and at most three restrictions (ФД 3);
- 000 6.5 «Особые дни разрешены раз в 3 раунда»: a special day three rounds after the last;
- 001 Глобальные 1, 2: two global games a week, 15 s (here 17 to 40 s) before a guard kills;
- 000 VI: only the warden hosts; Саймон and Реакция: only the host kills (rebels apart);
  Король and Морской бой: at most half the prisoners, and the game ends there; Коммунизм
  with 7 players (here 8 prisoners alive at least);
- 004 5.17, 5.18: on server B the limited games only with 8 (13) prisoners online or fewer;
  5.16 no chat game while a prisoner is gagged; 5.11 a game ends within 5 minutes or has a
  loser; 6.3 at most two prohibitions stand while a game runs; 4.4 a warden within 30 s;
  4.8 a killer asked why answers in chat; 4.12 no guard dies on purpose with one prisoner left;
- 001 Начальник обязан 5, 004 5.5: a warden's game type never three of his rounds running;
- 001 ПЗ 1, 2, Дуэли 4: the last prisoner chooses within 10 s, one wish a duel, a duel's
  stake only a personal freeday, voice, money or nothing; Начальник обязан 3: the warden
  never kills him before his request, his 10 s or his rebellion;
- 001 ФД 8: a prisoner's personal freeday once a week; Привилегии 1, 3: privileges (money,
  voice, freeday apart) after the warden's first order and never in a game; Начальник 8:
  immortality twice a week; Общие 5: never more than one guard per three prisoners; Общие
  22: at most three grenades in 10 s; Заключённые 5: no prisoner rebels two days running.

`python3 tests/outsider.py [--rounds N] [--seed S] [--server server-a|server-b|example]`
writes the season and replays it, and prints every punishment with its rule, its round
and the line before it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import attrs

ROOT = Path(__file__).resolve().parents[1]
PUNISHMENTS = {"warn", "slay", "teamswap", "ctban", "kick", "ban", "money", "autoslay"}

# -- names, as real players write them ------------------------------------------------------

NAMES = [
    "Вася Пупкин", "xX_Killer_Xx", "ZloY", "Мурзик", "[VIP] Артём", "kotik 🐱", "Дед Максим", "Sanya_2010",
    "Лёха ツ", "Ghost", "Тёма", "Shadow™", 'Ник "Кибер" Котлета', "Кибер;котлета", "<<Бандит>>", "Cаня",
    "Dimon4ik", "Марк", "♛ Король ♛", "Egor", "Пельмень", "noob", "Санёк из 5Б", "Pro100Vova", "ШКОЛЬНИК",
    "Игорь", "Mr. Bean", "Степан", "Лис", "Kakashi", "Валера", "Ванька-встанька", "Серый", "Alex",
    "Жора", "Dark Angel", "Коля", "Stalker", "Андрюха", "Макс Пэйн", "Бублик", "Тимур", "unnamed", "Player",
]
BOTS = ["Bot Ivan", "Bot Oleg", "Bot Gleb"]

CHAT = [
    "привет всем", "ку", "кто начальник?", "го играть", "ок", "понял", "ахахах", "лол", ")))", "норм", "гг",
    "начальник повтори пж", "не слышно", "микро у тебя шипит", "я афк 1 мин", "сори", "спс", "пасиб",
    "можно в туалет?)", "я не понял что делать", "а чё за игра", "оп", "хехе", "жиза", "кек", "ору 😂",
    "го в короля", "давайте математику", "скоро фд?", "сегодня какой день?", "чет лагает", "пинг 200",
    "блин", "капец", "жесть", "ну ты даешь", "хорош", "красава", "изи", "лучший командир", "👍", "🔥🔥🔥",
    "хлебать не будем", "оскорблять нельзя", "с корабля на бал", "сто рублей", "у меня скипидар дома",
    "подстрахуй меня", "сабля крутая", "мандарин хочу", "не колебаться", "небось опять в клетку",
    "лохматый кот", "чмокнул", "хулиган", "тупик", "хуже некуда", "употреблять нельзя", "ансамбль",
    "rly?", "wtf", "omg", "ty", "np", "gl hf", "Сукачёв топ", "сучок на дереве",
    "ghbdtn", "rnj yfxfkmybr", "ytn", "прив))", "ЗАЧЕМ", "жду фд", "поскорее бы выходные",
]

ROUTINE = ["строимся", "все в клетку", "стоим у стены", "всем построиться у стены", "открываю клетки",
           "выходим из клеток", "идём за мной", "все в ряд", "Строимся в линию!", "ЗЕКИ В КЛЕТКУ",
           "всем сесть", "стоять", "идем в столовую гуськом", "все на футбольное поле", "лицом к стене",
           "присели все", "за мной на корточках", "zeki v kletku", "стоим не двигаемся 3..2..1",
           "прыгаем на месте", "kletki otkryty", "идем медленно за КТ", "выходите по одному"]
PROHIBITIONS = ["не прыгать", "не бегать", "не подходить к оружейке", "запрет на нычки", "не садиться",
                "не трогать кнопки", "не стрелять", "без ножей", "не заходить в бассейн", "молчать в чате"]
FREEDAY_ORDERS = ["ФД всем!", "Свободный день, гуляем", "фд", "сегодня фд, не шалим", "!фд"]

# A game: (the catalogue's name, how wardens type it, its kind, the kinds of kills it ends with).
GAMES = {
    "Саймон говорит": ["Саймон говорит", "саймон", "Саймон говорит, что игра «Саймон говорит» началась", "simon says",
                       "Играем в Саймона"],
    "Злой Саймон говорит": ["Злой Саймон говорит", "злой саймон", "evil simon"],
    "А-б": ["А-б", "Играем в \"а-б\"", "аб"],
    "Алфавит": ["Алфавит", "Играем в 'Алфавит'", "алфавит"],
    "Математика": ["Математика", "Играем в Математику", "математику", "math", "МАТЕМАТИКА"],
    "Светофор": ["Светофор", "Играем в \"Светофор\"", "светофор", "светафор"],
    "Накорми надзирателей": ["Накорми надзирателей", "накорми КТ"],
    "Король": ["Король", "Играем в \"Короля\"", "короля", "king", "Играем в злого короля", "добрый король", "кароль", "Кoроль"],
    "Шарады": ["Шарады", "шарады"],
    "Реакция": ["Реакция", "Играем в \"Реакцию\"", "реакцию"],
    "Интуиция": ["Интуиция", "Играем в Интуицию"],
    "Третий лишний": ["Третий лишний", "третьего лишнего", "играем в третьего лишнего", "3 лишний"],
    "Первая-последняя реакция": ["Первая-последняя реакция", "Играем в Первую-последнюю реакцию"],
    "Сталин": ["Сталин", "сталина"],
    "Камень-ножницы-бумага": ["Камень-ножницы-бумага", "кнб", "камень ножницы бумага", "rps"],
    "Метание дигла": ["Метание дигла", "метание дигла"],
    "Мёртвый король": ["Мёртвый король", "Играем в Мертвого Короля!", "мертвый король"],
    "Американец": ["Американец", "Играем в 'Американца'", "американца", "в американца"],
    "Коммунизм": ["Коммунизм", "коммунизм", "комунизм"],
    "Морской бой": ["Морской бой", "морской бой", "Играем в морской бой"],
    "Диктант": ["Диктант", "диктант"],
    "Футбол": ["Футбол", "футбол"],
    "Баскетбол": ["Баскетбол", "баскетбол"],
}
FAMILY = {"Злой Саймон говорит": "Саймон говорит", "Первая-последняя реакция": "Реакция"}
CHAT_GAMES = {"А-б", "Алфавит", "Математика", "Шарады", "Интуиция", "Третий лишний", "Камень-ножницы-бумага", "Диктант",
              "Король"}
HOST_KILLS = {"Саймон говорит", "Злой Саймон говорит", "Реакция"}
HALF = {"Король", "Морской бой"}
LIMIT8 = {"Король", "Первая-последняя реакция"}  # 004 5.17's names that the catalogue has
TURN_BASED = {"Метание дигла"}  # 004 5.18
GLOBAL = {"Прятки": ["Прятки", "прятки", "hide and seek"], "Оборона": ["Оборона", "оборона"],
          "Голодные игры": ["Голодные игры"], "Чай-чай выручай": ["Чай-чай выручай", "чай чай выручай"]}
SPECIAL_DAYS = ["Зомби", "Война", "Снежки", "Ниндзя", "Гравитация", "HE battle", "Knife day", "Вышибалы", "Охота",
                "Катастрофа", "Duck hunt", "Ковбои"]
DUELS = [
    "дуэль на диглах на фд", "Дуэль на awp на голос", "дуэль на ножах", "дуэль на ножах просто так",
    "Дуэль на дробовиках", "дуэль на скаутах на 5000$", "дуэль на калашах на деньги", "дуэль на usp на фд другу",
    "дуэль на диглах, честно, на голос", "дуэль на ножах нечестно", "дуэль", "дуэль на m4 на 16000",
    "дуэль на пистолетах на ФД себе", "dueль на дигл", "Дуэль на скаутах ноускоп на фд", "дуэль на ножах на голос Пете",
    "дуэль на диглах на фд на следующий раунд", "дуэль на awp на бабки", "дуэль на ножах на 10к", "duel deagle fd",
    "дуэль на кулаках на микро", "дуэль на калашах на фдшку", "дуэль на ножах на лавэ", "дуэль на ножах на размут",
    "дуэль на скаутах на 500 баксов", "дуэль на зевсах", "дуэль на ножах до первой крови", "дуэль на выживание",
    "дуэль на ножах на крыше на фд", "дуэль на диглах, на кону фд", "дуэль на фд, оружие дигл", "Дуэль на AWP на ФД",
]
WISHES = ["фд", "ФД на следующий раунд", "голос", "хочу фд", "freeday", "бунт"]
ASKS = ["за что?", "за что убил?", "почему?", "причина?", "эй за что", "а за что меня", "объясни за что"]
ANSWERS = ["ты вышел из строя", "нарушил приказ", "ты прыгал", "за нычку", "ты был в оружейке", "проиграл в игре",
           "не выполнил приказ", "ты бежал"]
PRIVILEGES = ["hook", "speed", "gravity", "respawn", "skin", "hp"]
FREE_PRIVILEGES = ["money", "voice", "freeday"]
WEAPONS_CT = ["m4a1", "usp", "deagle", "ak47", "awp", "p90", "famas"]
WEAPONS_T = ["knife", "glock", "deagle", "ak47"]
MAPS = ["jb_summer_jail_v3", "jb_obama_v5_beta", "ba_jail_electric_vip", "jb_lego_jail_v8", "jb_minecraft_final"]


@attrs.define(eq=False)
class Who:
    name: str
    uid: int
    steamid: str
    team: str = "Unassigned"
    alive: bool = False
    bot: bool = False
    gagged: bool = False


# -- violations, as wardens and players really commit them ----------------------------------------


class Violations:
    """Mixed into Season: each `violate_<kind>` makes one violation in the round it is
    asked for (the warden is in command) and returns (the rule that must answer, on whom),
    or None when the round cannot hold it."""

    def others(self):
        return [g for g in self.team("CT", alive=True, bots=False) if g is not self.warden]

    def violate_monday_order(self):
        if not self.a or self.weekday != 1:
            return None
        self.order(self.rnd.choice(["все в клетку", "строимся у стены", "Зеки, присели!", "идем в столовую"]))
        return "calendar.freeday", self.warden

    def violate_special_cooldown(self):
        if self.round - self.last_special >= 3 or self.round - self.last_special < 1:
            return None
        day = self.rnd.choice(["Зомби", "Война", "Снежки", "ниндзя"])
        self.say(self.warden, f"!sd {day}")
        self.shim(self.warden, "jb_specialday", f' (day "{day}")')
        self.last_special = self.round
        return "specialday.cooldown", self.warden

    def violate_host(self):
        guards = self.others()
        if not guards:
            return None
        g = self.rnd.choice(guards)
        typed = self.rnd.choice(["Математика", "играем в алфавит", "кнб"])
        self.tick(3, 10)
        self.say(g, f"!game {typed}")
        self.shim(g, "jb_game_start", f' (game "{typed}")')
        return "games.host", g

    def violate_unknown(self):
        typed = self.rnd.choice(["Бой подушками", "Мафия", "Крокодил", "Горячая картошка", "Кто последний тот лох"])
        self.tick(3, 10)
        self.say(self.warden, f"!game {typed}")
        self.shim(self.warden, "jb_game_start", f' (game "{typed}")')
        return "games.unknown", self.warden

    def violate_only_warden_kills(self):
        guards, ps = self.others(), self.prisoners()
        if not guards or len(ps) < 4:
            return None
        typed = self.rnd.choice(["Саймон говорит", "Злой саймон", "реакцию", "Играем в Саймона"])
        self.say(self.warden, f"!game {typed}")
        self.shim(self.warden, "jb_game_start", f' (game "{typed}")')
        self.tick(10, 40)
        if self.rnd.random() < 0.5:
            self.order("Саймон говорит: присесть")
        g = self.rnd.choice(guards)
        self.kill(g, self.rnd.choice(ps))
        return "games.only_warden_kills", g

    def violate_king_half(self):
        ps = self.prisoners()
        if len(ps) < 6 or (self.b and len(self.team("TERRORIST")) > 8):
            return None
        typed = self.rnd.choice(["Король", "Играем в злого короля", "короля"])
        self.say(self.warden, f"!game {typed}")
        self.shim(self.warden, "jb_game_start", f' (game "{typed}")')
        for p in ps[: len(ps) // 2 + 1]:
            self.tick(4, 10)
            self.kill(self.rnd.choice(self.guards()), p)
        return "games.deaths", self.warden

    def violate_privileges(self):
        if not self.a:
            return None
        vips = [p for p in self.prisoners() if not p.bot]
        if not vips:
            return None
        p = self.rnd.choice(vips)
        self.tick(1, 4)
        self.shim(p, "jb_privilege", f' (kind "{self.rnd.choice(["hook", "speed", "gravity"])}")')
        return "conduct.privileges", p

    def violate_game_privileges(self):
        if not self.a:
            return None
        self.order("строимся")
        self.say(self.warden, "!game Математика")
        self.shim(self.warden, "jb_game_start", ' (game "Математика")')
        p = self.rnd.choice([p for p in self.prisoners() if not p.bot] or [self.warden])
        self.tick(5, 20)
        self.shim(p, "jb_privilege", f' (kind "{self.rnd.choice(["hook", "speed", "money"])}")')
        return "conduct.game_privileges", p

    def violate_last_prisoner(self):
        if not self.a:
            return None
        while len(self.prisoners()) > 1:
            self.tick(2, 6)
            self.kill(self.rnd.choice([g for g in self.guards() if g is not self.warden] or self.guards()), self.prisoners()[0])
        if not self.prisoners():
            return None
        self.tick(2, 5)
        self.kill(self.warden, self.prisoners()[0])
        return "warden.last_prisoner", self.warden

    def violate_duel_stakes(self):
        if not self.a:
            return None
        while len(self.prisoners()) > 1:
            self.tick(2, 6)
            self.kill(self.rnd.choice([g for g in self.guards() if g is not self.warden] or self.guards()), self.prisoners()[0])
        if not self.prisoners() or self.prisoners()[0].bot:
            return None
        last = self.prisoners()[0]
        choice = self.rnd.choice(["дуэль на ножах на респ", "дуэль на диглах на общее фд", "дуэль за кт", "дуэль на дробовиках на фд",
                                  "дуэль на awp на скин", "дуэль на ножах на вип", "дуэль на ножах на бессмертие"])
        self.tick(2, 5)
        self.say(last, f"!lr {choice}")
        self.shim(last, "jb_lr", f' (choice "{choice}")')
        return "lastrequest.duel_stakes", last

    def violate_grenade_spam(self):
        if not self.a or not self.csgo:
            return None
        p = self.rnd.choice([p for p in self.prisoners() if not p.bot] or self.prisoners())
        self.order("все в клетку")
        for _ in range(4):
            self.tick(1.1, 2.5)
            self.w(f'{self.who(p)} threw {self.rnd.choice(["flashbang", "smokegrenade", "decoy", "hegrenade"])}{self.pos()}')
        return "conduct.grenade_spam", p

    def violate_online_limit(self):
        if not self.b or len(self.team("TERRORIST")) <= 8 or len(self.prisoners()) < 3:
            return None
        typed = self.rnd.choice(["Король", "Играем в короля", "первую реакцию", "Первая и последняя реакция", "кароль"])
        self.say(self.warden, f"!game {typed}")
        self.shim(self.warden, "jb_game_start", f' (game "{typed}")')
        return "games.online_limit", self.warden

    def violate_gagged(self):
        if not self.b:
            return None
        ps = [p for p in self.prisoners() if not p.bot]
        if len(ps) < 3:
            return None
        self.shim(ps[0], "jb_gag", ' (state "on")')
        ps[0].gagged = True
        self.tick(10, 30)
        typed = self.rnd.choice(["Математика", "алфавит", "а-б", "кнб"])
        self.say(self.warden, f"!game {typed}")
        self.shim(self.warden, "jb_game_start", f' (game "{typed}")')
        return "games.gagged", self.warden

    def violate_prohibitions(self):
        if not self.b:
            return None
        self.say(self.warden, "!game Светофор")
        self.shim(self.warden, "jb_game_start", ' (game "Светофор")')
        for text in ("не прыгать", "не бегать", "не садиться"):
            self.tick(3, 10)
            self.shim(self.warden, "jb_prohibit", f' (text "{text}")')
        return "prohibitions.max", self.warden

    def violate_no_warden(self):
        if not self.b:
            return None
        w = self.warden
        self.say(w, "!uw")
        self.shim(w, "jb_warden_removed", ' (reason "resigned")')
        self.warden = None
        for _ in range(9):  # a round that goes on without command: chat, a kill now and then
            self.tick(9, 11)
            self.chatter(1)
        return "teams.no_warden", w  # (the longest-serving guard: checked by rule only)


class Season(Violations):
    """One server's season, written as a log file."""

    def __init__(self, server: str, seed: int, rounds: int, game: str = "csgo", inject: dict[int, str] | None = None):
        self.server = server
        self.inject = dict(inject or {})  # round -> a violation made in it instead of lawful play
        self.injected: list[tuple[str, str, str, dt.datetime, dt.datetime]] = []  # (kind, rule, steamid, from, to)
        self.a = server in ("server-a", "example")  # rulebook 001's clauses
        self.b = server in ("server-b", "example")  # rulebook 004's clauses
        self.csgo = game == "csgo"
        self.rnd = random.Random(seed)
        self.rounds = rounds
        self.t = dt.datetime(2026, 11, 2, 18, 0, 0)
        self.lines: list[str] = []
        self.seq = 0
        self.uid = 1
        self.players: list[Who] = []  # on the server now
        self.away: list[tuple[Who, int]] = []  # who left, and the round he comes back
        self.names = list(NAMES)
        self.rnd.shuffle(self.names)
        self.day = 0  # days played: Monday is day % 7 == 1 (a played round is a day)
        self.round = 0
        self.marks: list[tuple[int, int, str]] = []  # (line index, round, what was played)
        self.last_special = -99
        self.globals_week: Counter[int] = Counter()
        self.immortal_week: Counter[tuple[str, int]] = Counter()
        self.freeday_week: dict[str, int] = {}
        self.rebel_day: dict[str, int] = {}
        self.history: dict[str, list[tuple[int, set[str]]]] = {}  # warden steamid -> [(round, kinds)]
        self.server_kinds: list[set[str]] = []
        self.programmes: dict[str, list[tuple[str, ...]]] = {}
        self.map = ""
        self.match_start = False  # the restart's freeze line and Match_Start are written: the round line follows
        self.freeze = 0
        self.map_rounds = 0
        self.warden: Who | None = None
        self.game: str | None = None
        self.prohibitions = 0
        self.first_order = False
        self.special = False
        self.global_game = False
        self.gamed = False  # a game was played this round (privileges after a game only after !endgame)
        self.last_done = False

    # -- writing ----------------------------------------------------------------------------

    def tick(self, lo: float, hi: float | None = None) -> None:
        self.t += dt.timedelta(seconds=lo if hi is None else self.rnd.uniform(lo, hi))

    def w(self, body: str) -> None:
        self.lines.append(self.t.strftime("L %m/%d/%Y - %H:%M:%S: ") + body)

    def who(self, p: Who, team: str | None = None) -> str:
        tm = p.team if team is None else team
        tm = {"Unassigned": "Unassigned", "Spectator": "Spectator"}.get(tm, tm)
        return f'"{p.name}<{p.uid}><{p.steamid}><{tm}>"'

    def pos(self) -> str:
        return f" [{self.rnd.randint(-2000, 2000)} {self.rnd.randint(-2000, 2000)} {self.rnd.randint(-100, 300)}]" if self.csgo else ""

    def shim(self, p: Who | None, name: str, props: str = "") -> None:
        self.seq += 1
        who = "World" if p is None else f'"{p.name}<{p.uid}><{p.steamid}><>"'
        self.w(f'{who} triggered "{name}"{props} (seq "{self.seq}")')

    def mark(self, what: str) -> None:
        self.marks.append((len(self.lines), self.round, what))

    # -- people -----------------------------------------------------------------------------

    def new_player(self, bot: bool = False) -> Who:
        self.uid += 1
        if bot:
            name = BOTS[self.uid % len(BOTS)]
            return Who(name, self.uid, "BOT", bot=True)
        name = self.names.pop() if self.names else f"Игрок{self.uid}"
        prefix = "STEAM_1" if self.csgo else "STEAM_0"
        return Who(name, self.uid, f"{prefix}:{self.uid % 2}:{4000000 + self.uid * 7}")

    def connect(self, p: Who, team: str) -> None:
        p.team, p.alive = "Unassigned", False
        if p.bot:
            self.w(f'"{p.name}<{p.uid}><BOT><>" connected, address "none"')
            self.w(f'"{p.name}<{p.uid}><BOT><>" entered the game')
        else:
            pending = f'"{p.name}<{p.uid}><STEAM_ID_PENDING><>"'
            self.w(f'{pending} connected, address "{self.rnd.randint(5, 220)}.{self.rnd.randint(0, 255)}.1.{self.rnd.randint(2, 250)}:27005"')
            self.tick(0, 2)
            self.w(f'"{p.name}<{p.uid}><{p.steamid}><>" STEAM USERID validated')
            self.tick(1, 6)
            self.w(f'"{p.name}<{p.uid}><{p.steamid}><>" entered the game')
        self.players.append(p)
        self.tick(0, 3)
        self.join(p, team)

    def join(self, p: Who, team: str) -> None:
        if self.csgo:
            self.w(f'"{p.name}<{p.uid}><{p.steamid}>" switched from team <{p.team}> to <{team}>')
        else:
            self.w(f'{self.who(p)} joined team "{team}"')
        p.team, p.alive = team, False

    def leave(self, p: Who, back_in: int | None) -> None:
        if p is self.warden:
            self.shim(p, "jb_warden_removed", ' (reason "left")')
            self.warden = None
        self.w(f'{self.who(p)} disconnected (reason "{self.rnd.choice(["Disconnect", "Disconnect by user.", "timed out", "Client left game"])}")')
        self.players.remove(p)
        p.alive = False
        if back_in is not None:
            self.away.append((p, self.round + back_in))

    def team(self, team: str, alive: bool | None = None, bots: bool = True) -> list[Who]:
        return [p for p in self.players if p.team == team and (alive is None or p.alive == alive) and (bots or not p.bot)]

    def say(self, p: Who, text: str, team_only: bool = False) -> None:
        dead = "" if p.alive or p.team not in ("TERRORIST", "CT") or self.csgo else " (dead)"
        self.w(f'{self.who(p)} {"say_team" if team_only else "say"} "{text}"{dead}')

    def kill(self, killer: Who, victim: Who, weapon: str | None = None, hits: int = 1) -> None:
        weapon = weapon or self.rnd.choice(WEAPONS_CT if killer.team == "CT" else WEAPONS_T)
        hp = 100
        for i in range(hits):
            dmg = self.rnd.randint(20, 60) if i < hits - 1 else hp
            hp = max(0, hp - dmg)
            self.w(f'{self.who(killer)}{self.pos()} attacked {self.who(victim)}{self.pos()} with "{weapon}" (damage "{dmg}") '
                   f'(damage_armor "0") (health "{hp}") (armor "0") (hitgroup "{self.rnd.choice(["chest", "head", "stomach", "left leg"])}")')
        if victim is self.warden:
            self.shim(victim, "jb_warden_removed", ' (reason "died")')
            self.warden = None
        hs = " (headshot)" if self.rnd.random() < 0.3 else ""
        self.w(f'{self.who(killer)}{self.pos()} killed {self.who(victim)}{self.pos()} with "{weapon}"{hs}')
        victim.alive = False

    def hurt(self, attacker: Who, victim: Who, dmg: int = 15) -> None:
        self.w(f'{self.who(attacker)}{self.pos()} attacked {self.who(victim)}{self.pos()} with "{self.rnd.choice(WEAPONS_T)}" '
               f'(damage "{dmg}") (damage_armor "0") (health "{100 - dmg}") (armor "0") (hitgroup "chest")')

    def noise(self, n: int = 1) -> None:
        """What a CS:GO server writes all round: money, pick-ups, buyzone, a purchase."""
        for _ in range(n):
            if not self.players:
                return
            p = self.rnd.choice(self.players)
            if not self.csgo or p.team not in ("TERRORIST", "CT"):
                continue
            self.w(self.rnd.choice([
                f'{self.who(p)} money change {800}+{300} = ${1100} (tracked)',
                f'{self.who(p)} picked up "knife"',
                f'{self.who(p)} left buyzone with [ weapon_knife weapon_glock ]',
                f'{self.who(p)} purchased "vesthelm"',
                f'{self.who(p)} dropped "knife"',
            ]))

    def chatter(self, n: int = 1) -> None:
        for _ in range(n):
            p = self.rnd.choice(self.players) if self.players else None
            if p is None or p.bot:
                continue
            self.tick(1, 5)
            self.say(p, self.rnd.choice(CHAT), team_only=self.rnd.random() < 0.1)

    # -- the calendar -----------------------------------------------------------------------

    @property
    def weekday(self) -> int:
        return (self.day - 1) % 7 + 1  # 1 = Monday

    @property
    def week(self) -> int:
        return (self.day - 1) // 7

    # -- the season -------------------------------------------------------------------------

    def play(self) -> str:
        self.w('Log file started (file "logs/L1102000.log") (game "/home/jail/csgo") (version "7777")')
        self.change_map(first=True)
        for n in range(self.rounds):
            if self.map_rounds >= self.rnd.randint(18, 40):
                self.change_map()
            if self.rnd.random() < 0.04:
                self.restart_game()
            self.round_of_play(n)
        return "\n".join(self.lines) + "\n"

    def change_map(self, first: bool = False) -> None:
        self.map = self.rnd.choice(MAPS)
        if not first:
            self.w(f'rcon from "10.0.0.2:51544": command "changelevel {self.map}"' if self.rnd.random() < 0.5
                   else 'World triggered "Round_End"')
            self.tick(1, 4)
        self.w(f'Loading map "{self.map}"')
        self.w('server cvars start')
        self.w('"mp_freezetime" = "5"')
        self.w('server cvars end')
        self.tick(2, 6)
        self.w(f'Started map "{self.map}" (CRC "{self.rnd.randint(-2**31, 2**31)}")')
        if first or self.rnd.random() < 0.3:
            self.seq = 0
            self.w('World triggered "jb_hello" (version "1.1.0") (seq "0")')
        self.freeze = self.rnd.choice([0, 3, 5, 5, 10, 15])
        for p in self.players:
            p.alive = False
        self.warden = None
        if first:
            for _ in range(self.rnd.choice([7, 9, 11, 16, 20, 24])):  # a small evening server, or a full one
                self.connect(self.new_player(), "TERRORIST")
            for _ in range(self.rnd.randint(3, 5)):
                if len(self.team("CT")) * 3 + 3 <= len(self.team("TERRORIST")):
                    self.connect(self.new_player(), "CT")
            if self.rnd.random() < 0.5:
                self.connect(self.new_player(bot=True), "TERRORIST")
            if self.a and self.rnd.random() < 0.3 and (len(self.team("CT")) + 1) * 3 <= len(self.team("TERRORIST")):
                self.connect(self.new_player(bot=True), "CT")  # 001 has no clause for the guards' bots
        # CS:GO: a warm-up round (mp_warmuptime), not a day: its end restarts the round and
        # srcds writes Match_Start (or, on a server that was empty, Game_Commencing)
        if self.csgo:
            self.restart_line()
            self.tick(self.freeze)
            self.w('World triggered "Round_Start"')
            self.tick(20, 60)
            self.chatter(2)
            if self.rnd.random() < 0.3:
                self.w('World triggered "Game_Commencing"')
                self.tick(1)
            else:
                self.tick(1)
                self.w("Starting Freeze period")
                self.w(f'World triggered "Match_Start" on "{self.map}"')
                self.match_start = True
        self.map_rounds = 0

    def restart_line(self) -> None:
        lines = [f'World triggered "jb_round_start" (freeze "{self.freeze}")']
        if self.csgo and not self.match_start:
            lines.append("Starting Freeze period")
        self.match_start = False
        self.rnd.shuffle(lines)
        for line in lines:
            if line.startswith("World"):
                self.shim(None, "jb_round_start", f' (freeze "{self.freeze}")')
            else:
                self.w(line)

    def restart_game(self) -> None:
        """An admin's mp_restartgame in the middle of a round: that round is no day, and what
        was played in it (a game, a global game, a special day) is played again or not."""
        self.restart_line()
        for p in self.players:
            p.alive = p.team in ("TERRORIST", "CT")
        self.tick(self.freeze)
        self.w('World triggered "Round_Start"')
        self.tick(5, 20)
        cts = self.team("CT", alive=True, bots=False)
        monday = self.a and self.day % 7 == 0  # the round played again is the next day
        if cts and self.rnd.random() < 0.7 and not monday:
            w = self.rnd.choice(cts)
            self.shim(w, "jb_warden")
            self.tick(3, 10)
            games = ["Саймон говорит", "simon says"] + ([] if any(p.gagged for p in self.players) else ["Математика"])
            if not self.a or self.globals_week[(self.day) // 7] < 2:
                games.append("Прятки")
            if not self.b or len(self.team("TERRORIST")) <= 8:
                games.append("Король")
            self.shim(w, "jb_game_start", f' (game "{self.rnd.choice(games)}")')
            self.tick(5, 20)
            if self.rnd.random() < 0.3 and self.round + 1 - self.last_special >= 3:
                self.shim(w, "jb_specialday", ' (day "Зомби")')
        self.chatter(2)
        self.w('rcon from "10.0.0.2:51544": command "mp_restartgame 1"')
        self.w('World triggered "Restart_Round_(1_second)"')
        self.tick(1)

    # -- a round ----------------------------------------------------------------------------

    def come_and_go(self) -> None:
        """Between rounds: who comes back (under a new userid), who joins, who goes to CT."""
        for p, back in list(self.away):
            if back <= self.round:
                self.away.remove((p, back))
                self.uid += 1
                p.uid = self.uid
                self.connect(p, "TERRORIST")
        if len(self.players) < 14 and self.rnd.random() < 0.5:
            self.connect(self.new_player(), "TERRORIST")
        while len(self.players) > 30:  # a full server: some leave for good
            p = self.rnd.choice(self.team("TERRORIST"))
            self.leave(p, None)
        ts, cts = len(self.team("TERRORIST")), len(self.team("CT"))
        if cts < 2 or (self.rnd.random() < 0.3 and (cts + 1) * 3 <= ts and cts < 6):
            movers = [p for p in self.team("TERRORIST", bots=False)]
            if movers and (cts + 1) * 3 <= ts - 1:
                p = self.rnd.choice(movers)
                self.join(p, "CT")
        elif cts > 2 and self.rnd.random() < 0.15:
            p = self.rnd.choice(self.team("CT", bots=False))
            self.join(p, self.rnd.choice(["TERRORIST", "Spectator"]))
        for p in self.team("Spectator"):
            if self.rnd.random() < 0.4:
                self.join(p, "TERRORIST")
        # guard against a broken balance (001 Общие 5): never more than one guard per three prisoners
        while len(self.team("CT")) * 3 > len(self.team("TERRORIST")) and len(self.team("CT")) > 1:
            self.join(self.team("CT", bots=False)[-1], "TERRORIST")

    def round_of_play(self, n: int) -> None:
        self.come_and_go()
        self.tick(2, 5)
        self.restart_line()
        self.round += 1
        self.day += 1
        self.map_rounds += 1
        for p in self.players:
            p.alive = p.team in ("TERRORIST", "CT")
        self.warden, self.game, self.prohibitions, self.first_order = None, None, 0, False
        self.special = self.global_game = self.gamed = self.last_done = self.freeday = False
        self.ordered: list[str] = []
        self.kinds: set[str] = set()
        self.noise(3)
        if self.freeze >= 3 and self.rnd.random() < 0.2 and len(self.players) < 32:  # who joins in the freeze spawns with the round
            self.tick(0.5, 2)
            p = self.new_player()
            self.connect(p, "TERRORIST")
            p.alive = True
        monday = self.a and self.weekday == 1
        cts = self.team("CT", alive=True, bots=False)
        if self.freeze >= 3 and cts and self.rnd.random() < 0.4:
            self.tick(0.5, self.freeze - 1)
            self.claim(self.rnd.choice(cts))
        self.t = max(self.t, self.t)  # (the freeze)
        self.tick(max(0.0, self.freeze - 1), self.freeze)
        self.w('World triggered "Round_Start"')
        self.noise(4)
        if self.warden is None:
            self.tick(2, 20)
            cts = self.team("CT", alive=True, bots=False)
            if cts:
                self.claim(self.rnd.choice(cts))
        if self.warden is not None:
            self.say(self.warden, self.rnd.choice(["всем привет, я командир", "Всем ку, я нач", "здарова зеки", "привет",
                                                   "hi all"]))
        if self.round in self.inject and self.warden is not None and (monday == (self.inject[self.round] == "monday_order")):
            start = self.t.replace(microsecond=0)
            what = self.inject[self.round]
            expected = getattr(self, f"violate_{what.replace('.', '_')}")()
            if expected is not None:
                self.mark(f"violation {what}")
                self.chatter(2)
                self.end_round()
                self.injected.append((what, expected[0], expected[1].steamid, start, self.t))
                return
        kind = "plain"
        r = self.rnd.random()
        if monday:
            kind = "monday"
        elif self.round - self.last_special >= 3 and r < 0.15:
            kind = "special"
        elif r < 0.25 and (not self.a or self.globals_week[self.week] < 2) and self.weekday != 1:
            kind = "global"
        elif r < 0.30 and self.weekday != 1:
            kind = "freeday"
        self.mark(kind)
        getattr(self, f"round_{kind}")()
        self.end_round()

    def claim(self, p: Who) -> None:
        if self.rnd.random() < 0.5:
            self.say(p, self.rnd.choice(["!w", "!к", "!warden", "!командир"]))
        self.shim(p, "jb_warden")
        self.warden = p

    def handover(self) -> None:
        """001 Охрана обязан 2: another guard takes over (a hand-over, `!uw` then `!w`)."""
        assert self.warden is not None
        others = [p for p in self.team("CT", alive=True, bots=False) if p is not self.warden]
        if not others:
            return
        self.say(self.warden, "!uw")
        self.shim(self.warden, "jb_warden_removed", ' (reason "resigned")')
        self.warden = None
        self.tick(2, 12)
        self.claim(self.rnd.choice(others))

    def order(self, text: str, voice_only: bool = False) -> None:
        if self.warden is None:
            return
        self.tick(3, 15)
        self.ordered.append(text)
        if voice_only:
            return
        self.say(self.warden, self.rnd.choice(["!order ", "!приказ ", "/order "]) + text)
        self.shim(self.warden, "jb_order", f' (text "{text}")')
        self.first_order = True

    def prohibit(self) -> bool:
        # the example preset caps the standing prohibitions at 2 always, 3 on a freeday
        if self.warden is None or (self.server == "example" and self.prohibitions >= (3 if self.freeday else 2)):
            return False
        self.tick(2, 10)
        text = self.rnd.choice(PROHIBITIONS)
        self.say(self.warden, "!запрет " + text)
        self.shim(self.warden, "jb_prohibit", f' (text "{text}")')
        self.prohibitions += 1
        return True

    def lift(self) -> None:
        if self.warden is None or not self.prohibitions:
            return
        k = self.rnd.randint(1, self.prohibitions)
        self.say(self.warden, f"!снять {k}")
        self.shim(self.warden, "jb_prohibit_lift", f' (index "{k}")')
        self.prohibitions -= 1

    def prisoners(self) -> list[Who]:
        return self.team("TERRORIST", alive=True)

    def guards(self, but: Who | None = None) -> list[Who]:
        return [p for p in self.team("CT", alive=True) if p is not but]

    def guard_kills(self, victim: Who, by_warden_only: bool = False) -> None:
        guards = [self.warden] if by_warden_only and self.warden and self.warden.alive else self.guards()
        if not guards or not victim.alive:
            return
        if self.a and len(self.prisoners()) <= 1:
            return  # the last prisoner's request first (ПЗ 1)
        killer = self.rnd.choice(guards)
        if self.a and killer is self.warden and len(self.prisoners()) == 2:
            others = [g for g in guards if g is not self.warden]
            if not others:
                return
            killer = self.rnd.choice(others)  # (Начальник обязан 3: to be safe, not the warden)
        self.tick(1, 6)
        self.kill(killer, victim, hits=self.rnd.choice([1, 1, 2, 3]))
        self.asked(victim, killer)

    def asked(self, victim: Who, killer: Who) -> None:
        """004 4.8: a killed prisoner asks why; his killer answers in chat."""
        if self.rnd.random() < 0.2 and not victim.bot:
            self.tick(1, 20)
            self.say(victim, self.rnd.choice(ASKS))
            if not killer.bot and killer in self.players:
                self.tick(2, 30)
                self.say(killer, self.rnd.choice(ANSWERS), team_only=self.rnd.random() < 0.2)

    def breakers(self, k: int) -> None:
        """Prisoners who break the standing order die by a guard's hand (001 Охрана 7)."""
        for _ in range(k):
            ps = self.prisoners()
            if len(ps) <= 2:
                return
            self.guard_kills(self.rnd.choice(ps))

    def rebellion(self, at_warden: bool = False) -> None:
        """A prisoner attacks a guard and is shot (a rebel; 001 Заключённые 5: not two days
        running); now and then he kills the warden first (the guards then take command)."""
        ps = [p for p in self.prisoners() if self.rebel_day.get(p.steamid, -99) < self.day - 1]
        gs = self.guards()
        if len(self.prisoners()) <= 3 or not ps or len(gs) < 2:
            return
        rebel = self.rnd.choice(ps)
        victim = self.warden if at_warden and self.warden is not None and self.warden.alive else self.rnd.choice(gs)
        self.rebel_day[rebel.steamid] = self.day
        self.tick(2, 10)
        if self.csgo and self.rnd.random() < 0.3:  # Общие 9: his grenades at the guards are his rebellion
            self.hurt(rebel, victim, 5)
            for _ in range(self.rnd.randint(2, 5)):
                self.tick(1.1, 2)
                self.w(f'{self.who(rebel)} threw {self.rnd.choice(["hegrenade", "flashbang", "molotov"])}{self.pos()}')
        if at_warden and victim is self.warden:
            self.game = None
            self.kill(rebel, victim, weapon="knife", hits=3)
        else:
            self.hurt(rebel, victim, self.rnd.randint(10, 40))
        self.tick(0, 2)
        shooters = [g for g in self.guards() if g.alive]
        if shooters:
            self.kill(self.rnd.choice(shooters), rebel, hits=2)

    def new_warden(self) -> None:
        """004 4.4: with the warden gone, another guard takes command within 30 s."""
        if self.warden is not None or len(self.prisoners()) <= 1:
            return
        cts = self.team("CT", alive=True, bots=False)
        if cts and (self.b or self.rnd.random() < 0.7):
            self.tick(3, 25)
            self.claim(self.rnd.choice(cts))
            self.say(self.warden, self.rnd.choice(["я нач", "беру командира", "я командир теперь"]))

    def warden_leaves(self) -> None:
        """The warden leaves the server mid-round (001 Общие 7: his orders and game end)."""
        assert self.warden is not None
        w = self.warden
        self.game = None
        self.tick(2, 10)
        self.leave(w, self.rnd.choice([None, 1, 3]))

    def warden_moved(self) -> None:
        """An admin moves the warden to T (sm_team; the plugin's player_team hook says «resigned»
        and srcds's team line comes in either order)."""
        assert self.warden is not None
        w = self.warden
        self.game = None
        self.tick(2, 10)
        self.w(f'rcon from "10.0.0.2:51544": command "sm_team #{w.uid} 2"')
        first = self.rnd.random() < 0.5
        if first:
            self.shim(w, "jb_warden_removed", ' (reason "resigned")')
        self.join(w, "TERRORIST")
        if not first:
            self.shim(w, "jb_warden_removed", ' (reason "resigned")')
        self.warden = None
        w.alive = True

    def gag(self) -> None:
        """An admin gags a prisoner (basecomm); sometimes lifts it; a gag is gone after a reconnect."""
        ps = [p for p in self.team("TERRORIST", bots=False) if not p.gagged]
        if not ps:
            return
        p = self.rnd.choice(ps)
        self.tick(1, 5)
        self.shim(p, "jb_gag", ' (state "on")')
        p.gagged = True
        if self.rnd.random() < 0.5:
            self.tick(5, 30)
            self.shim(p, "jb_gag", ' (state "off")')
            p.gagged = False
        elif self.rnd.random() < 0.5 and p is not self.warden:
            self.leave(p, 1)
            p.gagged = False  # basecomm's gag does not outlive the connection

    def rename(self) -> None:
        ps = [p for p in self.players if not p.bot]
        if not ps:
            return
        p = self.rnd.choice(ps)
        new = self.rnd.choice(["Вася 2", "kotik 🐱🐱", 'Ник "Новый"', "Бандит;", "[JB] " + p.name.split()[0], "Чел в маске"])
        if any(q.name == new for q in self.players):
            return
        self.tick(1, 5)
        self.w(f'{self.who(p)} changed name to "{new}"')
        p.name = new

    def privilege(self) -> None:
        """VIPs use their privileges after the warden's first order, never in a game (Привилегии 1, 3)."""
        vips = [p for p in self.players if p.alive and not p.bot and p.team in ("TERRORIST", "CT") and p.uid % 4 == 0]
        if not vips:
            return
        p = self.rnd.choice(vips)
        self.tick(1, 8)
        if self.first_order and self.game is None and not self.special and not self.global_game:
            kind = self.rnd.choice(PRIVILEGES + FREE_PRIVILEGES)
        else:
            kind = self.rnd.choice(FREE_PRIVILEGES) if self.game is None and not self.special and not self.global_game else None
        if kind is None:
            return
        self.shim(p, "jb_privilege", f' (kind "{kind}")')

    def grenades(self, p: Who, k: int) -> None:
        for _ in range(k):
            if not self.csgo:
                return
            self.tick(3.5, 8)
            self.w(f'{self.who(p)} threw {self.rnd.choice(["hegrenade", "flashbang", "smokegrenade", "decoy", "molotov"])}{self.pos()}')

    # -- kinds of rounds --------------------------------------------------------------------

    def routine(self) -> None:
        for _ in range(self.rnd.randint(1, 3)):
            self.order(self.rnd.choice(ROUTINE), voice_only=self.rnd.random() < 0.25)

    def round_plain(self) -> None:
        if self.warden is None:
            self.chatter(3)
            self.breakers(1)
            self.last_prisoner()
            return
        self.routine()
        self.chatter(2)
        if self.rnd.random() < 0.5:
            self.prohibit()
        self.privilege()
        if self.rnd.random() < 0.3:
            self.immortality()
        games = self.rnd.choice([0, 1, 1, 2, 2, 3])
        for _ in range(games):
            if self.warden is None or len(self.prisoners()) < 3:
                break
            self.minigame()
            self.chatter(1)
            if self.rnd.random() < 0.3 and self.warden is not None:
                self.order(self.rnd.choice(ROUTINE), voice_only=self.rnd.random() < 0.2)
            if self.rnd.random() < 0.2:
                self.privilege()
        if self.rnd.random() < 0.15:
            self.rebellion(at_warden=self.rnd.random() < 0.3)
        if self.rnd.random() < 0.1 and self.warden is not None:
            self.handover()
        if self.rnd.random() < 0.04 and self.warden is not None:
            self.warden_leaves()
        if self.rnd.random() < 0.02 and self.warden is not None and len(self.team("CT")) > 2:
            self.warden_moved()
        if self.rnd.random() < 0.08:
            self.gag()
        if self.rnd.random() < 0.05:
            self.rename()
        self.new_warden()
        if self.rnd.random() < 0.3:
            self.personal_freeday()
        self.breakers(self.rnd.randint(0, 3))
        self.last_prisoner()

    def immortality(self) -> None:
        if self.warden is None or not self.first_order or self.game is not None:
            return
        key = (self.warden.steamid, self.week)
        if self.immortal_week[key] >= 2:
            return
        self.immortal_week[key] += 1
        self.tick(2, 6)
        self.shim(self.warden, "jb_privilege", f' (kind "{self.rnd.choice(["immortality", "invisibility"])}")')

    def personal_freeday(self) -> None:
        if self.warden is None:
            return
        ps = [p for p in self.prisoners() if self.freeday_week.get(p.steamid) != self.week]
        if not ps or len(self.prisoners()) <= 4:
            return
        p = self.rnd.choice(ps)
        self.freeday_week[p.steamid] = self.week
        for _ in range(2 if self.rnd.random() < 0.1 else 1):  # typed twice
            self.tick(2, 6)
            self.say(self.warden, f"!fd #{p.uid}")
            self.shim(self.warden, "jb_freeday", f' (scope "personal") (target "#{p.uid}")')

    def round_monday(self) -> None:
        """001 ФД 1: Monday is a freeday: no order, no game until half the players are dead."""
        self.freeday = True
        if self.warden is not None:
            if self.rnd.random() < 0.6:
                self.tick(2, 8)
                self.say(self.warden, "!fd all")
                self.shim(self.warden, "jb_freeday", ' (scope "all")')
            for _ in range(self.rnd.randint(0, 3)):  # ФД 3: three restrictions
                self.prohibit()
            if self.rnd.random() < 0.15:
                self.order(self.rnd.choice(FREEDAY_ORDERS))  # the HUD says it is a freeday: no order at all
        self.chatter(4)
        self.privilege()
        # prisoners die for breaking the standard restrictions (armoury, rebellion), until half
        # are dead (ФД 5 «Половина/Большинство игроков - Мертвы»: of the prisoners, or of all)
        of_prisoners = self.rnd.random() < 0.5
        start = len(self.team("TERRORIST", alive=True)) + (0 if of_prisoners else len(self.team("CT", alive=True)))
        while True:
            dead = start - (len(self.team("TERRORIST", alive=True)) + (0 if of_prisoners else len(self.team("CT", alive=True))))
            if dead * 2 >= start + 1 or len(self.prisoners()) <= 2:
                break
            self.tick(5, 25)
            ps = self.prisoners()
            if self.rnd.random() < 0.3:
                self.rebellion()
            else:
                self.guard_kills(self.rnd.choice(ps))
        if self.warden is not None and len(self.prisoners()) > 2 and self.rnd.random() < 0.5:
            self.routine()  # ФД 5: the freeday taken, an ordinary round: prohibitions as he likes
            for _ in range(self.rnd.randint(0, 2)):
                self.prohibit()
            if self.rnd.random() < 0.5 and len(self.prisoners()) >= 3:
                self.minigame()
        self.last_prisoner()

    def round_freeday(self) -> None:
        """A general freeday the warden gives (a reward): no orders bind (001 ФД 2)."""
        if self.warden is None:
            return self.round_plain()
        self.tick(3, 10)
        self.say(self.warden, self.rnd.choice(["!fd all", "!фд всем"]))
        self.shim(self.warden, "jb_freeday", ' (scope "all")')
        self.freeday = True
        if self.rnd.random() < 0.5:
            self.order(self.rnd.choice(FREEDAY_ORDERS))
        for _ in range(self.rnd.randint(0, 3 if self.a else 2)):
            self.prohibit()
        self.chatter(5)
        self.privilege()
        self.breakers(self.rnd.randint(0, 2))
        self.last_prisoner()

    def round_special(self) -> None:
        """000 6.5: a special day, free for all."""
        if self.warden is None:
            return self.round_plain()
        self.tick(3, 12)
        day = self.rnd.choice(SPECIAL_DAYS)
        self.say(self.warden, f"!sd {day}")
        self.shim(self.warden, "jb_specialday", f' (day "{day}")')
        if self.rnd.random() < 0.1:
            self.tick(1, 3)
            self.shim(self.warden, "jb_specialday", f' (day "{day}")')  # typed twice
        self.special = True
        self.last_special = self.round
        self.tick(10, 30)
        flood = day in ("HE battle", "Снежки", "Вышибалы")
        for _ in range(self.rnd.randint(4, 30)):
            everyone = [p for p in self.players if p.alive and p.team in ("TERRORIST", "CT")]
            if len(everyone) < 2 or not self.prisoners():
                break
            a, b = self.rnd.sample(everyone, 2)
            if len(self.prisoners()) == 1 and self.warden is not None and self.warden.alive and self.rnd.random() < 0.5:
                a, b = self.warden, self.prisoners()[0]  # the day's last prisoner: no last request on a special day
            self.tick(2, 15)
            if flood and self.csgo:
                for _ in range(self.rnd.randint(3, 6)):
                    self.tick(1.1, 2)
                    self.w(f'{self.who(a)} threw {"hegrenade" if day == "HE battle" else "snowball" if day == "Снежки" else "decoy"}{self.pos()}')
            if a.team == "TERRORIST" and b.team == "CT":
                self.hurt(a, b, 20)
            self.kill(a, b, weapon="hegrenade" if flood else None, hits=self.rnd.choice([1, 2]))
            if self.rnd.random() < 0.3:
                self.grenades(a, 2)
        self.chatter(2)

    def round_global(self) -> None:
        """001 Глобальные: a whole-map game, twice a week on A; the prisoners get 15 s and more."""
        if self.warden is None:
            return self.round_plain()
        self.routine()
        name = self.rnd.choice(list(GLOBAL))
        self.tick(3, 10)
        typed = self.rnd.choice(GLOBAL[name])
        self.say(self.warden, f"!game {typed}")
        self.shim(self.warden, "jb_game_start", f' (game "{typed}")')
        if self.rnd.random() < 0.15:  # typed again, as he meant it
            self.tick(3, 8)
            self.shim(self.warden, "jb_game_start", f' (game "{name}")')
        self.globals_week[self.week] += 1
        self.global_game = True
        self.game = name
        self.tick(17, 40)
        to_the_last = self.rnd.random() < 0.4  # Прятки: the guards find every hider, the warden may find the last
        for _ in range(self.rnd.randint(2, 30)):
            ps = self.prisoners()
            if (len(ps) <= 2 and not to_the_last) or not ps or not self.guards():
                break
            self.tick(5, 30)
            self.kill(self.rnd.choice(self.guards()), self.rnd.choice(ps))
        self.chatter(2)
        if self.warden is not None and self.rnd.random() < 0.7:
            self.say(self.warden, "!endgame")
            self.shim(self.warden, "jb_game_end")
            self.game = None
            self.global_game = False
        self.last_prisoner()

    # -- mini-games ---------------------------------------------------------------------------

    def may_play(self, name: str) -> bool:
        if self.warden is None:
            return False
        kind = FAMILY.get(name, name)
        mine = self.history.get(self.warden.steamid, [])
        # 004 5.5, 001 Начальник обязан 5: never the same kind a third of his rounds running, nor of the server's
        if sum(1 for _, ks in mine[-2:] if kind in ks) == 2:
            return False
        if len(self.server_kinds) >= 2 and all(kind in ks for ks in self.server_kinds[-2:]):
            return False
        if kind in self.kinds:
            return False
        t_online = len(self.team("TERRORIST"))
        if self.b and name in LIMIT8 and t_online > 8:
            return False
        if self.b and name in TURN_BASED and t_online > 13:
            return False
        if name == "Коммунизм" and len(self.prisoners()) < 8:
            return False
        if self.b and name in CHAT_GAMES and any(p.gagged for p in self.players):
            return False
        return not (name in HALF and len(self.prisoners()) < 4)

    def minigame(self) -> None:
        names = [n for n in GAMES if self.may_play(n)]
        if not names or self.warden is None:
            return
        name = self.rnd.choice(names)
        host = self.warden
        if self.b and self.prohibitions > 2 and self.rnd.random() < 0.7:  # 004 6.3: two at most while a game runs
            while self.prohibitions > 2:
                self.lift()
        before = self.prohibitions
        typed = self.rnd.choice(GAMES[name])
        self.tick(3, 12)
        self.say(host, f"!game {typed}")
        self.shim(host, "jb_game_start", f' (game "{typed}")')
        self.game = name
        self.gamed = True
        self.kinds.add(FAMILY.get(name, name))
        started = self.t
        playing = len(self.prisoners())
        if self.b and self.prohibitions < 2 and self.rnd.random() < 0.3:
            self.prohibit()
        elif self.b and self.prohibitions >= 2 and self.prohibitions - before < 2 and self.rnd.random() < 0.3:
            self.prohibit()  # 6.3 «установить»: the ones set in this game are two at most
        if name in CHAT_GAMES:
            for _ in range(self.rnd.randint(2, 6)):
                ps = self.prisoners()
                if ps:
                    self.tick(1, 4)
                    self.say(self.rnd.choice(ps), self.rnd.choice(["б", "ааб", "42", "камень", "ножницы", "+", "-", "король",
                                                                   "Король.", "я", "17", "д", "ё"]))
        losers = 1 if name not in HALF else self.rnd.randint(1, playing // 2)
        if name in ("Светофор", "Накорми надзирателей", "Футбол", "Баскетбол") and self.rnd.random() < 0.5:
            losers = 0
        by_host = name in HOST_KILLS
        for _ in range(losers):
            ps = self.prisoners()
            if len(ps) <= 2 or self.warden is not host or not host.alive:
                break
            self.tick(3, 40)
            if (self.t - started).total_seconds() > 270:
                break
            if by_host:
                if self.a and len(ps) == 2:
                    break
                self.tick(0, 2)
                self.kill(host, self.rnd.choice(ps))
            else:
                self.guard_kills(self.rnd.choice(ps))
        if self.warden is not host:
            self.game = None
            return
        self.tick(2, 20)
        if self.b and (self.t - started).total_seconds() > 280:
            self.t = started + dt.timedelta(seconds=self.rnd.uniform(200, 280))
        if self.rnd.random() < 0.8 or name in HALF:
            self.say(host, self.rnd.choice(["!endgame", "!конец", "/endgame"]))
            self.shim(host, "jb_game_end")
            self.game = None
        else:
            # the warden forgets !endgame: he ends it by voice and gives a new order at once (one
            # that is plainly not the game's: «все на футбольное поле» after «футбол» would be)
            stem = name.casefold()[:5]
            self.order(self.rnd.choice([o for o in ROUTINE if stem not in o.casefold()]))
            self.game = None  # (by voice: the privileges wait for the round's end all the same)
            self.first_order = False

    # -- the end of a round ---------------------------------------------------------------------

    def last_prisoner(self) -> None:
        """001 ПЗ: the last prisoner has 10 s to choose; one duel, one wish."""
        ps = self.prisoners()
        if len(ps) > 2 and self.rnd.random() < 0.1 and not ps[0].bot:  # an impatient prisoner's !lr, others still alive
            self.say(ps[0], "!lr дуэль")
            self.shim(ps[0], "jb_lr", ' (choice "дуэль")')
        while len(ps) > 1 and self.guards() and self.rnd.random() < 0.7 and not self.special:
            victim = self.rnd.choice(ps)
            guards = [g for g in self.guards() if g is not self.warden] or self.guards()
            if len(ps) == 2 and self.a:
                guards = [g for g in self.guards() if g is not self.warden]
                if not guards:
                    return
            self.tick(3, 15)
            self.kill(self.rnd.choice(guards), victim)
            ps = self.prisoners()
        if len(ps) != 1 or not self.guards() or self.special:
            return
        last = ps[0]
        self.tick(1, 7)
        self.game = None
        if last.bot or self.rnd.random() < 0.1:
            # no choice: after his 10 s a guard (not the warden) kills him
            self.tick(11, 20)
            others = [g for g in self.guards() if g is not self.warden] or ([] if self.a else self.guards())
            if others:
                self.kill(self.rnd.choice(others), last)
            return
        choice = self.rnd.choice(DUELS if self.rnd.random() < 0.7 else WISHES)
        if self.csgo and self.rnd.random() < 0.1:
            choice = self.rnd.choice(["дуэль на гранатах", "Вышибалы на флешках"])
        self.say(last, f"!lr {choice}")
        self.shim(last, "jb_lr", f' (choice "{choice}")')
        self.tick(5, 30)
        opponent = self.rnd.choice(self.guards())
        if "гранат" in choice or "флеш" in choice:  # the duel's own grenades, as fast as they come
            for _ in range(self.rnd.randint(4, 8)):
                for who in (last, opponent):
                    self.tick(0.6, 1.5)
                    self.w(f'{self.who(who)} threw {"hegrenade" if "гранат" in choice else "flashbang"}{self.pos()}')
            choice = "дуэль"
        if choice.startswith("бунт"):
            self.hurt(last, opponent, 30)
            self.kill(self.rnd.choice(self.guards()), last)
            return
        if "дуэль" in choice.lower() or "dueль" in choice.lower():
            if self.rnd.random() < 0.4:
                self.kill(last, opponent, hits=2)  # he won: one more wish
                if self.guards() and self.rnd.random() < 0.5:
                    self.tick(2, 6)
                    choice = self.rnd.choice(DUELS)
                    self.say(last, f"!lr {choice}")
                    self.shim(last, "jb_lr", f' (choice "{choice}")')
                    self.tick(5, 20)
                    if self.guards():
                        self.kill(self.rnd.choice(self.guards()), last, hits=2)
                return
            self.kill(opponent, last, hits=2)
            return
        self.tick(3, 10)
        self.kill(opponent, last)

    def end_round(self) -> None:
        self.chatter(self.rnd.randint(0, 3))
        if self.rnd.random() < 0.05 and self.players:
            p = self.rnd.choice([p for p in self.players if p is not self.warden] or self.players)
            if p.team != "TERRORIST" or len(self.team("CT")) * 3 <= len(self.team("TERRORIST")) - 1:
                self.leave(p, self.rnd.choice([None, 1, 2, 5]))  # (001 Общие 5: never leaving a guard too many)
        self.tick(5, 60)
        ts, cs = self.prisoners(), self.guards()
        who = "CTs_Win" if not ts else ("Terrorists_Win" if not cs else "Target_Saved")
        if self.csgo:
            self.w(f'Team "{"CT" if who != "Terrorists_Win" else "TERRORIST"}" triggered "SFUI_Notice_{who}" (CT "1") (T "0")')
        else:
            self.w(f'Team "{"CT" if who != "Terrorists_Win" else "TERRORIST"}" triggered "{who}" (CT "1") (T "0")')
        self.w('World triggered "Round_End"')
        self.noise(2)
        if self.warden is not None:
            kinds = self.kinds
            self.history.setdefault(self.warden.steamid, []).append((self.round, set(kinds)))
        self.server_kinds.append(set(self.kinds))
        self.warden = None
        self.tick(3, 7)


# -- reading the replay ---------------------------------------------------------------------------


def replay(config: Path, log: str, state: bool = False) -> list[dict[str, object]]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "season.log"
        path.write_text(log, encoding="utf-8")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        out = subprocess.run([sys.executable, "-m", "jailcore", "replay", "--config", str(config), str(path)]
                             + (["--state"] if state else []),
                             capture_output=True, text=True, env=env, check=True, cwd=tmp)
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def config_of(server: str) -> Path:
    return ROOT / "configs" / f"{server}.toml"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", default="server-a")
    ap.add_argument("--rounds", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--game", default="csgo")
    ap.add_argument("--keep", default="")
    ap.add_argument("--show", type=int, default=8)
    ap.add_argument("--context", type=int, default=10)
    ap.add_argument("--rule", default="")
    ap.add_argument("--inject", default="", help="kinds of violation, comma-separated: one every 7th round, in turn")
    args = ap.parse_args()
    kinds = [k for k in args.inject.split(",") if k]
    inject = {r: kinds[(r // 7) % len(kinds)] for r in range(5, args.rounds, 7)} if kinds else {}
    season = Season(args.server, args.seed, args.rounds, args.game, inject)
    log = season.play()
    if args.keep:
        Path(args.keep).write_text(log, encoding="utf-8")
    actions = replay(config_of(args.server), log)
    punished = [a for a in actions if a.get("action") in PUNISHMENTS]
    proposed = [a for a in actions if a.get("action") == "propose"]
    print(f"{args.server} seed {args.seed}: {season.round} rounds, {len(season.lines)} lines, "
          f"{len(punished)} punishments, {len(proposed)} proposals")
    if kinds:
        print(recall(season, actions))
    by_rule = Counter(f"{a['rule']}:{a['action']}" for a in punished + proposed)
    for rule, n in by_rule.most_common():
        print(f"  {n:5d} {rule}")
    for a in [a for a in punished + proposed if args.rule in str(a["rule"])][: args.show]:
        print(json.dumps({k: a.get(k) for k in ("time", "round", "action", "rule", "reason", "target")}, ensure_ascii=False))
        print("\n".join("      " + line[25:200] for line in context(season, str(a["time"]), args.context)))


def recall(season: Season, actions: list[dict[str, object]]) -> str:
    """Per kind of violation made: how many the rule that must answer reached (a punishment
    or a question to an admin, on the offender, within his round), and which it missed."""
    caught: Counter[str] = Counter()
    made: Counter[str] = Counter()
    missed: list[str] = []
    for kind, rule, steamid, start, end in season.injected:
        made[kind] += 1
        hit = any(a["rule"] == rule and a["action"] in PUNISHMENTS | {"propose"}
                  and (rule == "teams.no_warden" or (a.get("target") or {}).get("steamid") == steamid)  # type: ignore[union-attr]
                  and start <= dt.datetime.fromisoformat(str(a["time"])) <= end for a in actions)
        if hit:
            caught[kind] += 1
        else:
            missed.append(f"{kind}@{start:%H:%M:%S}")
    lines = [f"  recall {kind}: {caught[kind]}/{made[kind]}" for kind in sorted(made)]
    return "\n".join(lines + ([f"  missed: {' '.join(missed[:12])}"] if missed else []))


def context(season: Season, time: str, n: int) -> list[str]:
    """The season's lines up to the action's second (noise left out), and what the round was."""
    stamp = dt.datetime.fromisoformat(time).strftime("L %m/%d/%Y - %H:%M:%S: ")
    last = max((i for i, line in enumerate(season.lines) if line.startswith(stamp)), default=0)
    kind = next((what for at, _, what in reversed(season.marks) if at <= last), "?")
    skip = ("money change", "picked up", "left buyzone", "purchased", "dropped", "attacked")
    lines = [line for line in season.lines[max(0, last - 6 * n): last + 1] if not any(x in line for x in skip)]
    return [f"(a {kind} round)", *lines[-n:]]


if __name__ == "__main__":
    main()
