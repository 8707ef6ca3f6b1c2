"""The fast JSON of saved states and network messages reads back as the standard library's
would, and what orjson refuses is still written (never a failed save)."""

from __future__ import annotations

import json

from jailcore.log import jsontext


def test_the_text_reads_back_as_json_writes_it_with_int_keys_and_unicode():
    value = {"map": "jb_summer", 7: {"name": "Начальник ★", "alive": True, "rounds": [1, 2]}, "seats": (1, 2), "none": None}
    text = jsontext.dumps(value)
    assert json.loads(text) == json.loads(json.dumps(value, ensure_ascii=False))
    assert "Начальник ★" in text  # UTF-8, not \\u escapes: the web page and the database read it as written


def test_an_integer_past_64_bits_is_written_not_refused():
    value = {"rounds": 2 ** 70, "ok": 1}
    assert json.loads(jsontext.dumps(value)) == value
