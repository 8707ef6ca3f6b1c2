"""The rulebooks jailcore knows, as presets: which rules each one has, under its own
clause numbers and punishments.

`[server] rulebook = ["001", "000"]` switches on the rules of those rulebooks with these
values; a table written in the config file switches its rule on too and wins over the
preset. A rule that neither names stays off: a server is never punished by a rule its
rulebook does not have. `all` is every rule with its defaults (the documented example).

Sources: shared/seeds/000 (section VI, mini-games), 001 (server A's whole rulebook),
004 (server B's sections 4 to 6).
"""

from __future__ import annotations

from typing import Any

PRESETS: dict[str, dict[str, dict[str, Any]]] = {
    "000": {
        "games.host": {"ref": "VI", "ladder": ["warn"]},  # «Любую игру проводит только Начальник Тюрьмы»
        "games.host_death": {"ref": "VI"},  # «Любая игра заканчивается тогда, когда умирает ведущий игры.(Искл. Особые дни)»
        # «…одобрение Администрации (Игры на картах не в счет)» |Kill/Warn|
        "games.unknown": {"ref": "6.0", "ladder": ["warn"], "map_games": ["Футбол", "Баскетбол"]},
        "specialday.cooldown": {"ref": "6.5", "ladder": ["slay", "ctban 30m"]},  # |Kill/BanGuard(10-60)|
        "games.min_players": {"ref": "Коммунизм", "ladder": ["warn"]},  # «Минимальное количество игроков: 7»
        "games.only_warden_kills": {"ref": "Саймон а", "ladder": ["warn", "teamswap"]},  # «Убивает только Начальник (Исключение — Бунт)»
        "games.deaths": {"ref": "Король", "ladder": ["warn", "teamswap"]},  # «запрещено убивать больше половины от играющих»
        "referee": {"ref": "VI"},
        "ctban": {"ref": ""},
    },
    "001": {
        "orders": {"ref": "Общие 3", "mode": "replace"},  # «Каждый новый приказ Начальника отменяет предыдущий»
        # «может добавить 3 ограничения»: three added in the freeday; a fourth is refused
        "prohibitions.max": {"ref": "ФД 3", "limit": 0, "freeday_limit": 3, "freeday_added": True, "ladder": ["warn"]},
        "calendar.freeday": {"ref": "ФД 1", "ladder": ["teamswap", "ctban 30m"]},  # [Охрана: Перевод за Т, Запрет за Кт]
        "calendar.global_games": {"ref": "Глобальные 1", "ladder": ["teamswap", "ctban 30m"]},
        "calendar.rebellion": {"ref": "Заключённые 5", "ladder": ["ban 10m"]},
        "calendar.personal_freeday": {"ref": "ФД 8"},
        "calendar.freeday_end": {"ref": "ФД 4", "general_ref": "ФД 5"},
        "lastrequest.timeout": {"ref": "ПЗ 1"},
        "teams.balance": {"ref": "Общие 5", "ratio": 3},
        "conduct.privileges": {"ref": "Привилегии 1", "allowed": ["money", "voice", "freeday"], "ladder": ["slay"]},
        "conduct.teamkill": {"ref": "Общие 17", "ladder": ["slay", "kick", "ban 15m"]},
        # A ban for ever and «оскорбительные» / «выдавать себя за администратора» are
        # judgements: an admin confirms them.
        "conduct.advertising": {"ref": "Общие 19", "ladder": ["ban 0"], "confirm": "admin",
                                "allowed_domains": ["steamcommunity.com", "s.team", "steampowered.com"]},
        "conduct.names": {"ref": "Общие 16", "ladder": ["kick", "ban 30m"], "confirm": "admin"},
        "conduct.grenade_spam": {"ref": "Общие 22", "ladder": ["slay", "ban 10m"]},
        "warden.immortality": {"ref": "Начальник 8", "ladder": ["slay", "teamswap"]},
        "warden.last_prisoner": {"ref": "Начальник обязан 3", "ladder": ["warn", "teamswap"]},
        # «Давать/Проводить интересные и РАЗНООБРАЗНЫЕ игры/приказы»
        "games.repeat": {"ref": "Начальник обязан 5", "orders": True, "ladder": ["warn", "teamswap"]},
        "games.global_suicide": {"ref": "Глобальные 4", "ladder": ["kick", "ctban 30m"]},
        "ctban": {"ref": ""},
        "ctban.return_block": {"ref": "Охрана 11", "rounds": 3, "after": ["teams.balance", "ladder"]},
        "conduct.game_privileges": {"ref": "Привилегии 3", "hook_ref": "Хук 7", "ladder": ["warn", "slay"]},
        "lastrequest.one_wish": {"ref": "ПЗ 2", "ladder": ["warn"]},
        "lastrequest.duel_stakes": {"ref": "Дуэли 4", "ladder": ["warn"]},
        "games.head_start": {"ref": "Глобальные 2", "seconds": 15, "ladder": ["teamswap", "ctban 30m"]},
        "conduct.language": {"ref": "Общие 18", "ladder": ["kick", "ban 180m"], "confirm": "admin"},  # [Кик/Бан до 3 часов]
        # Охрана 11 «Убивать, Ранить игроков и выдать ФД без причины. [Кик, Бан до 30 минут, Запрет за Кт]»
        "fairness.guard_freekill": {"ref": "Охрана 11", "ladder": ["kick", "ban 30m", "ctban 30m"]},
    },
    "004": {
        # «…отменяет предыдущий только в том случае, если они противоречат»; no clause ends
        # orders at the warden's death (001 Общие 7 does)
        "orders": {"ref": "5.3", "mode": "stack", "end_with_warden": False},
        # «Наказание: устное предупреждение → отмена лишнего запрета»
        "prohibitions.max": {"ref": "6.3", "limit": 2, "freeday_limit": 2, "only_during_game": True, "ladder": ["warn", "cancel"]},
        "games.online_limit": {"ref": "5.17", "ladder": ["warn", "teamswap"]},
        "games.duration": {"ref": "5.11", "ladder": ["warn", "teamswap"]},
        "games.gagged": {"ref": "5.16", "ladder": ["warn", "teamswap"]},
        "games.repeat": {"ref": "5.5", "orders": True, "ladder": ["warn", "teamswap"]},  # «…однотипными играми и приказами»
        "lastrequest.guard_suicide": {"ref": "4.12", "amount": 100},
        "fairness.freekill": {"ref": "4.5"},
        "teams.no_warden": {"ref": "4.4", "ladder": ["teamswap"]},
        # 4.8 «Наказание за отказ: перевод за ТТ → блокировка входа за КТ на 30 минут»
        "killing.explain": {"ref": "4.8", "ladder": ["teamswap", "ctban 30m"], "confirm": "admin"},
        # 4.8 «…запрещается злоупотреблять данным правилом и требовать объяснений в очевидных
        # ситуациях. … Наказание за злоупотребление: устное предупреждение → бан до 30 минут»
        "killing.explain_abuse": {"ref": "4.8", "ladder": ["warn", "ban 30m"], "confirm": "admin"},
        "ctban": {"ref": ""},
    },
}


def preset(names: list[str], every_rule: list[str]) -> dict[str, dict[str, Any]]:
    """The rule tables the named rulebooks give; `all` gives every rule its defaults."""
    out: dict[str, dict[str, Any]] = {}
    for name in names:
        tables = {key: {} for key in every_rule} if name == "all" else PRESETS[name]
        for key, values in tables.items():
            out.setdefault(key, {}).update(values)
    return out
