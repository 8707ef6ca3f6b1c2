"""What players and admins read: every enforcement message, in Russian and English.

Messages quote the server's own rule number (`ref`), because that is what players and
admins argue with. `say(lang, key, **values)` picks the language; Russian is the default.
"""

from __future__ import annotations

STEPS = {
    "ru": {
        "warn": "предупреждение",
        "slay": "убийство",
        "teamswap": "перевод за Т",
        "ctban": "запрет за КТ",
        "kick": "кик",
        "ban": "бан",
        "autoslay": "автослей",
        "money": "компенсация",
        "respawn": "возрождение",
        "freeday": "ФД",
        "cancel": "отмена",
    },
    "en": {
        "warn": "warning",
        "slay": "slay",
        "teamswap": "moved to T",
        "ctban": "CT ban",
        "kick": "kick",
        "ban": "ban",
        "autoslay": "autoslay",
        "money": "compensation",
        "respawn": "respawn",
        "freeday": "freeday",
        "cancel": "cancel",
    },
}

TEXT = {
    "ru": {
        "rule": "[Правило {ref}] {text}",
        "penalty": "{text} Наказание: {step}.",
        "prohibitions.max": "Запретов уже {count} из {limit}: запрет «{text}» отменён.",
        "prohibitions.cancelled": "Запрет №{index} «{text}» недействителен.",
        "specialday.cooldown": "Особые дни разрешены раз в {rounds} раунда: следующий можно через {left} р. (раунд {next}).",
        "games.online_limit": "Игра «{game}» запрещена при онлайне более {limit} заключённых (сейчас {online}).",
        "games.min_players": "Для игры «{game}» нужно не меньше {need} игроков (сейчас {have}).",
        "games.unknown": "Игры «{game}» нет в каталоге сервера: проверьте название или получите одобрение администрации.",
        "calendar.freeday": "Сегодня понедельник — всегда ФД: приказы и игры не проводятся.",
        "calendar.freeday.say": "День {day} недели {week}: понедельник — свободный день (ФД) для всех заключённых.",
        "calendar.global_games": "Глобальные игры — не больше {limit} раз в игровую неделю (уже было {count}).",
        "calendar.rebellion": "Бунт два дня подряд в одну игровую неделю запрещён.",
        "ctban": "Вам запрещено играть за КТ: осталось {left}.",
        "ctban.return_block": "Вас перевели за Т по правилам: за КТ можно через {left} р.",
        "ctban.given": "Запрет за КТ ({left}). {text}",
        "autoslay.given": "Автослей на {rounds} р. {text}",
        "autoslay.slay": "Автослей: осталось {left} р.",
        "left.minutes": "{n} мин",
        "left.rounds": "{n} р.",
        "left.forever": "навсегда",
        "hud": "Начальник: {warden} | День {day} ({dayname}) | Приказ: {orders} | Запреты: {prohibitions} | Игра: {game}",
        "none": "нет",
        "days": "Пн|Вт|Ср|Чт|Пт|Сб|Вс",
    },
    "en": {
        "rule": "[Rule {ref}] {text}",
        "penalty": "{text} Penalty: {step}.",
        "prohibitions.max": "There are already {count} of {limit} prohibitions: prohibition '{text}' is cancelled.",
        "prohibitions.cancelled": "Prohibition #{index} '{text}' is void.",
        "specialday.cooldown": "Special days are allowed once in {rounds} rounds: the next one in {left} round(s) (round {next}).",
        "games.online_limit": "Game '{game}' is forbidden with more than {limit} prisoners online (now {online}).",
        "games.min_players": "Game '{game}' needs at least {need} players (now {have}).",
        "games.unknown": "Game '{game}' is not in this server's catalogue: check the name or get an admin's approval.",
        "calendar.freeday": "Today is Monday, always a freeday: no orders and no games.",
        "calendar.freeday.say": "Day {day} of week {week}: Monday is a freeday for all prisoners.",
        "calendar.global_games": "Global games at most {limit} times a game week (already {count}).",
        "calendar.rebellion": "Rebelling two days in a row in one game week is forbidden.",
        "ctban": "You are banned from CT: {left} left.",
        "ctban.return_block": "You were moved to T under the rules: CT again in {left} round(s).",
        "ctban.given": "CT ban ({left}). {text}",
        "autoslay.given": "Autoslay for {rounds} round(s). {text}",
        "autoslay.slay": "Autoslay: {left} round(s) left.",
        "left.minutes": "{n} min",
        "left.rounds": "{n} round(s)",
        "left.forever": "permanent",
        "hud": "Warden: {warden} | Day {day} ({dayname}) | Order: {orders} | Prohibitions: {prohibitions} | Game: {game}",
        "none": "none",
        "days": "Mon|Tue|Wed|Thu|Fri|Sat|Sun",
    },
}


def say(lang: str, key: str, **values: object) -> str:
    table = TEXT.get(lang, TEXT["ru"])
    return table[key].format(**values)


def step_name(lang: str, action: str) -> str:
    return STEPS.get(lang, STEPS["ru"]).get(action, action)
