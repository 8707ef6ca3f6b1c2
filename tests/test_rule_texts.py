"""Every rule the engine consults is documented in configs/example.toml and speaks both
languages: a rule added to `rules.ORDER` without its table or its texts fails here."""

from __future__ import annotations

import ast
import inspect
import textwrap
import tomllib
from pathlib import Path

import pytest

from jailcore.config.config import load
from jailcore.engine.messages import TEXT
from jailcore.engine.rules import ORDER

EXAMPLE = Path(__file__).resolve().parents[1] / "configs" / "example.toml"
# Rules that keep state or end a game but never tell anyone anything themselves.
SILENT = {"orders", "games.host_death"}


def table(data: dict, key: str) -> dict | None:
    for part in key.split("."):
        if not isinstance(data, dict) or part not in data:
            return None
        data = data[part]
    return data if isinstance(data, dict) else None


def texts_used(rule: type) -> set[str]:
    """The message keys a rule names in `ctx.text("...")`."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(rule)))
    return {
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "text"
        and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
    }


def test_the_example_config_loads_and_has_a_table_for_every_rule():
    data = tomllib.loads(EXAMPLE.read_text(encoding="utf-8"))
    missing = [rule.key for rule in ORDER if table(data, rule.key) is None]
    assert not missing, f"rules without a table in configs/example.toml: {missing}"
    config = load(EXAMPLE.read_text(encoding="utf-8"), str(EXAMPLE), {})
    assert set(config.rules) == {rule.key for rule in ORDER}


@pytest.mark.parametrize("rule", ORDER, ids=lambda rule: rule.key)
def test_every_rule_speaks_russian_and_english(rule):
    used = texts_used(rule)
    own = {key for key in TEXT["ru"] if key == rule.key or key.startswith(rule.key + ".")}
    if rule.key in SILENT:
        assert not used and not own, f"{rule.key} speaks now: take it out of SILENT"
        return
    assert used or own, f"{rule.key} has no message of its own"
    for lang in ("ru", "en"):
        lacking = sorted((used | own) - set(TEXT[lang]))
        assert not lacking, f"{rule.key}: no {lang} text for {lacking}"
        assert all(TEXT[lang][key].strip() for key in used | own)


def test_both_languages_have_the_same_messages():
    assert set(TEXT["ru"]) == set(TEXT["en"])
