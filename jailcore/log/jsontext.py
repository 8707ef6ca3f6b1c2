"""JSON text for what jailcore writes all the time: a server's saved state at each change, the
status copy beside it and the network's messages.

orjson encodes them about five times faster than the standard library, and that is the cost that
counts when one CT ban told to 200 servers makes each of them save its state before its command
goes out. The text is plain JSON (UTF-8, not ASCII-escaped, no spaces) that `json` reads back;
what must be byte-exact between daemons (the signature's canonical form) stays with `json`,
and so does reading: orjson reads an integer past 64 bits as a float.

What orjson refuses is written by `json`, never a failed save: an integer past 64 bits, nesting
past orjson's limit, and a lone surrogate. A text from outside may hold one (`"\\ud83d"` in a
peer's CT ban or the shim's reply is valid JSON that `json` reads); orjson raised on it, which
stopped the server's session at its next save for one message of a broker anyone may publish
to. Such a character becomes U+FFFD, so the text is UTF-8 that SQLite, MariaDB, the broker and
the web pages take (as `json` writes it, every save and state was refused further on).
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS  # a dict keyed by userid is written with string keys, as `json` writes it
SURROGATE = re.compile("[\ud800-\udfff]")  # a lone one: json.loads joins every pair into one character


def dumps(value: Any) -> str:
    try:
        return orjson.dumps(value, option=_OPTIONS).decode("utf-8")
    except orjson.JSONEncodeError:  # what orjson refuses (see above); what json refuses too (a set, an object) still raises
        return SURROGATE.sub("\ufffd", json.dumps(value, ensure_ascii=False))
