"""Configs are refused with the key and line; the command line keeps protocol section 3."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from jailcore.config.config import Config, ConfigError, load
from tests.logtext import Log, P

ROOT = Path(__file__).resolve().parents[1]


def jailcore(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jailcore", *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=60)


@pytest.mark.parametrize(("name", "cap"), [("example.toml", (2, 3, False)), ("server-a.toml", (0, 3, False)),
                                           ("server-b.toml", (2, 2, True))])
def test_shipped_configs_are_valid(name, cap):
    """The prohibition cap as each rulebook has it: 004 6.3 two «во время одной игры»;
    001 none, but ФД 3 three on a freeday."""
    rule = Config.from_toml(ROOT / "configs" / name, env={}).rules["prohibitions.max"]
    assert (rule.limit, rule.freeday_limit, rule.only_during_game) == cap


def test_server_configs_differ_where_the_rulebooks_do():
    a = Config.from_toml(ROOT / "configs" / "server-a.toml", env={})
    b = Config.from_toml(ROOT / "configs" / "server-b.toml", env={})
    assert (a.rules["orders"].mode, b.rules["orders"].mode) == ("replace", "stack")
    assert not a.on("games.online_limit") and b.on("games.online_limit")


def test_errors_name_key_and_line():
    text = '[server]\nname = "x"\n\n[specialday.cooldown]\nrounds = "три"\nladder = ["slay", "ctban"]\n[nonsense]\na = 1\n'
    with pytest.raises(ConfigError) as err:
        load(text, "bad.toml", {})
    problems = err.value.problems
    assert problems[0].startswith("bad.toml:5: specialday.cooldown.rounds: expected a whole number")
    assert problems[1].startswith("bad.toml:6: specialday.cooldown.ladder: 'ctban': ctban needs a duration")
    assert problems[2].startswith("bad.toml:7: nonsense: unknown key")


def test_a_custom_games_type_names_one_of_the_catalogue():
    """`[[games.catalogue]] family`: a game's type (004 5.5) is a game of the catalogue or a
    type two of the server's games share; anything else is refused with its key and line."""
    good = load('[[games.catalogue]]\nname = "Саймон на корточках"\nfamily = "злой саймон"\n', "<t>", {})
    assert good.catalogue.find("Саймон на корточках").kind == "Саймон говорит"
    text = '[server]\nname = "x"\n\n[[games.catalogue]]\nname = "Вышибалы"\nfamily = "Баскетбол"\n[[games.catalogue]]\nname = "Тир"\nfamily = 2\n'
    with pytest.raises(ConfigError) as err:
        load(text, "bad.toml", {})
    assert [p.split(" is ")[0].split(": expected")[0] for p in err.value.problems] == [
        "bad.toml:6: games.catalogue.0.family: 'Баскетбол'", "bad.toml:9: games.catalogue.1.family"]
    assert "neither a game of the catalogue" in err.value.problems[0] and "Саймон говорит" in err.value.problems[0]


def test_toml_syntax_error_has_a_line():
    with pytest.raises(ConfigError) as err:
        load("[server]\nname = \n", "x.toml", {})
    assert err.value.problems[0].startswith("x.toml:2: not valid TOML")


def test_environment_overrides_and_hides_the_password():
    config = load('[rcon]\npassword = "file"\nport = 1', "<t>", {"JAILCORE_RCON_PASSWORD": "s3cret", "JAILCORE_RCON_PORT": "27016"})
    assert (config.rcon_password, config.rcon_port) == ("s3cret", 27016)
    assert "s3cret" not in repr(config)


def test_log_secret_must_be_a_nonzero_number():
    with pytest.raises(ConfigError, match=r"log\.secret"):
        load('[log]\nsecret = "abc"\n', "<t>", {})


def test_check_config_exit_codes(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[orders]\nmode = "sometimes"\n', encoding="utf-8")
    result = jailcore("check-config", str(bad))
    assert result.returncode == 1 and f"{bad}:2: orders.mode" in result.stderr
    good = jailcore("check-config", "configs/example.toml")
    assert good.returncode == 0, good.stderr


def test_replay_prints_actions_state_and_stats(tmp_path):
    warden = P("Начальник", 2, "STEAM_1:0:42")
    log = Log().connect(warden, "CT").rounds(1).round_start().warden(warden).game(warden, "Математика")
    log.prohibit(warden, "a").prohibit(warden, "b").prohibit(warden, "c").add("чепуха")
    path = tmp_path / "round.log"
    path.write_text(log.text() + "garbage\n", encoding="utf-8")
    result = jailcore("replay", "--config", "configs/server-b.toml", str(path), "--state", "--stats")
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    actions, state, stats = rows[:-2], rows[-2]["state"], rows[-1]["stats"]
    assert [a["action"] for a in actions] == ["warn"]  # 004 6.3 «устное предупреждение → отмена лишнего запрета»: a warning first
    warn = actions[0]
    assert set(warn) >= {"time", "round", "action", "target", "rule", "ref", "reason"}
    assert warn["target"] == {"userid": 2, "steamid": "STEAM_1:0:42", "name": "Начальник"}
    assert (warn["rule"], warn["ref"], warn["round"]) == ("prohibitions.max", "6.3", 2)
    assert state["round"] == 2 and state["day"] == 2 and state["warden"]["userid"] == 2
    assert [p["text"] for p in state["prohibitions"]] == ["a", "b", "c"]  # the warned one stands
    assert (stats["malformed"], stats["unknown"], stats["lines"]) == (1, 1, len(log.lines) + 1)
    assert stats["events"]["jb_prohibit"] == 3


def test_demo_runs_by_itself_and_enforces():
    result = jailcore("demo", "--lang", "en")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for needle in ("jb_cancel_prohibition 3", "[specialday.cooldown 6.5]", "[games.online_limit 5.17]", "refuses him at the door", "first right answer",
                   "simulated server: the real plugin" if importlib.util.find_spec("smx") else "simulated server: the Python stand-in"):
        assert needle in out
    assert " 0 delivered" not in out
    # a proposal is shown as one, with what it waits for, and the admin's answer in game (issue 28)
    assert "PROPOSE   round 5 [conduct.advertising Общие 19]" in out and "waits for an admin (ban for ever)" in out
    assert re.search(r"\[jailcore #(\d+)\] \? .* — !jcconfirm \1 / !jcdismiss \1", out), out
    assert re.search(r"entry #\d+: dismissed \(by Смотритель: ", out) and "jb_ban" not in out


@pytest.mark.parametrize(("name", "books"), [("server-a.toml", ["001", "000"]), ("server-b.toml", ["004", "000"])])
def test_a_shipped_server_enforces_exactly_its_rulebooks(name, books):
    """Every table of a shipped config is its rulebooks' rule, with their values, and every
    rule of its rulebooks has a table: the file and the preset say the same."""
    from jailcore.config.config import load

    text = (ROOT / "configs" / name).read_text(encoding="utf-8")
    shipped = Config.from_toml(ROOT / "configs" / name, env={})
    preset = load(f"[server]\nrulebook = {books!r}\n".replace("'", '"'), "<preset>", {})
    assert {k: r for k, r in shipped.rules.items() if r.enabled} == {k: r for k, r in preset.rules.items() if r.enabled}
    for key, rule in shipped.rules.items():
        assert (f"[{key}]" in text) == rule.enabled, key


def test_server_a_has_no_rule_of_004_and_server_b_none_of_001():
    a = Config.from_toml(ROOT / "configs" / "server-a.toml", env={})
    b = Config.from_toml(ROOT / "configs" / "server-b.toml", env={})
    # games.repeat is both's: 004 5.5 and 001 Начальник обязан 5 («РАЗНООБРАЗНЫЕ игры/приказы»)
    only_004 = {"games.online_limit", "games.duration", "games.gagged", "lastrequest.guard_suicide",
                "fairness.freekill", "teams.no_warden"}
    only_001 = {"teams.balance", "conduct.names", "conduct.teamkill", "conduct.advertising", "conduct.grenade_spam",
                "conduct.privileges", "calendar.personal_freeday", "warden.immortality", "calendar.freeday",
                "calendar.rebellion", "calendar.global_games", "ctban.return_block", "lastrequest.timeout"}
    assert not any(a.on(k) for k in only_004)
    assert not any(b.on(k) for k in only_001)
    assert all(a.on(k) for k in only_001) and all(b.on(k) for k in only_004)
    assert (a.rules["games.repeat"].ref, b.rules["games.repeat"].ref) == ("Начальник обязан 5", "5.5")
