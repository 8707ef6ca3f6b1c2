"""Every kind of action reads back from its JSON and writes exactly the JSON it was read from:
the keys, their order and their values, as `jailcore replay` prints them (protocol section 3)
and as the audit log keeps them (its `detail` column), whatever class carries them inside."""

from __future__ import annotations

import json

import pytest

from jailcore.engine.actions import CLASSES, Action
from jailcore.engine.vocabulary import KINDS

T = {"userid": 7, "steamid": "STEAM_1:0:42", "name": "Вася \"<ник>\""}
HEAD = {"time": "2026-11-30T21:04:05", "round": 7}


def case(action: str, target: dict[str, object] | None, rule: str, ref: str, reason: str, **rest: object) -> dict[str, object]:
    return {**HEAD, "action": action, "target": target, "rule": rule, "ref": ref, "reason": reason, **rest}


# Every shape today's engine writes, one per way of building it (punish.py, admin.py,
# proposals.py, the rules): the optional keys only where they are set, in this order.
CASES = [
    case("warn", T, "orders", "3", "[Правило 3] предупреждение"),
    case("warn", T, "admin", "", "предупреждение от админа", by="Админ"),
    case("warn", T, "conduct.names", "Общие 20", "ушёл", absent=True),
    case("warn", T, "conduct.names", "Общие 20", "вернулся", owed=True, owed_row=5012),
    case("slay", T, "specialday.cooldown", "6.5", "особый день"),
    case("slay", T, "specialday.cooldown", "6.5", "confirmed", by="Админ"),
    case("slay", T, "games.host", "VI", "autoslay", owed=True),
    case("slay", T, "games.host", "VI", "ушёл", absent=True),
    case("teamswap", T, "teams.balance", "Общие 5", "баланс", team="T"),
    case("teamswap", T, "games.host", "VI", "ушёл", team="T", absent=True),
    case("teamswap", T, "games.host", "VI", "вернулся", team="T", owed=True, owed_row=17),
    case("ctban", T, "specialday.cooldown", "6.5", "30 минут", minutes=30),
    case("ctban", T, "ctban.return_block", "Охрана 11", "3 раунда", rounds=3),
    case("ctban", T, "admin", "CT", "навсегда", by="Админ"),
    case("ctban", T, "admin", "CT", "навсегда", minutes=0, by="Админ"),
    case("ctban", T, "games.host", "VI", "ушёл", minutes=30, absent=True),
    case("kick", T, "conduct.names", "Общие 20", "ник"),
    case("kick", T, "conduct.names", "Общие 20", "ник", absent=True),
    case("ban", T, "conduct.advertising", "Общие 19", "реклама", minutes=0),
    case("ban", T, "admin", "", "бан от админа", minutes=60, by="Админ"),
    case("ban", T, "admin", "", "бан от админа", minutes=0, by="Админ", absent=True),
    case("autoslay", T, "conduct.teamkill", "Общие 9", "2 раунда", rounds=2),
    case("autoslay", T, "conduct.teamkill", "Общие 9", "ушёл", rounds=1, absent=True),
    case("money", T, "fairness.freekill", "Охрана 11", "компенсация", amount=1000),
    case("money", T, "pardon", "Общие 9", "назад", amount=-100),
    case("respawn", T, "fairness.freekill", "Охрана 11", "возрождение"),
    case("freeday", T, "lastrequest.timeout", "ПЗ 1", "ФД"),
    case("cancel", T, "prohibitions.max", "6.3", "запрет 3 отменён", index=3),
    case("say", None, "calendar.freeday", "ФД 1", "Понедельник"),
    case("hud", None, "hud", "", "Начальник: —"),
    case("unctban", T, "pardon", "6.5", "помилован"),
    case("unctban", T, "admin", "CT", "снят", by="Админ"),
    case("unctban", {**T, "userid": 0}, "pardon", "6.5", "помилован", by="Админ", absent=True),
    case("unban", T, "pardon", "Общие 19", "помилован"),
    case("pardon", T, "pardon", "6.5", "помилован"),
    case("offer", T, "fairness.freekill", "Охрана 11", "выбор"),
    case("door", T, "ctban.return_block", "Охрана 11", "3 раунда", rounds=3, by=""),
    case("door", T, "admin", "CT", "30 минут", minutes=30, by="Админ"),
    case("door", T, "admin", "CT", "навсегда", by="Админ", owed=True, owed_row=5013),
    case("propose", T, "games.unknown", "VI", "неизвестная игра", index=4, step="ban 0"),
    case("lapse", T, "games.unknown", "VI", "предложение 4 истекло", index=4, step="slay"),
    case("lapse", T, "conduct.names", "Общие 20", "не вернулся", step="warn", owed_row=5012),
    case("lapse", None, "conduct.names", "Общие 20", "не вернулся", step="slay"),
    case("ask", T, "admin", "", "по ошибке", index=5012, by="Админ", step="pardon"),
]


def test_every_kind_of_action_has_a_case_and_a_class_of_its_own():
    assert {c["action"] for c in CASES} == set(KINDS)
    assert set(CLASSES) == set(KINDS)
    assert all(cls.action == kind for kind, cls in CLASSES.items())


def _name(c: dict[str, object]) -> str:
    return f"{c['action']}:{'+'.join(k for k in c if k not in (*HEAD, 'action', 'target', 'rule', 'ref', 'reason'))}"


@pytest.mark.parametrize("data", CASES, ids=_name)
def test_an_action_writes_exactly_the_json_it_was_read_from(data: dict[str, object]):
    text = json.dumps(data, ensure_ascii=False)
    action = Action.from_json(json.loads(text))
    assert json.dumps(action.to_json(), ensure_ascii=False) == text
    assert type(action) is CLASSES[str(data["action"])] and action.action == data["action"]
