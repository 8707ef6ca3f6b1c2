"""JSON text for what jailcore writes all the time: a server's saved state at each change, the
status copy beside it and the network's messages.

orjson encodes them about five times faster than the standard library, and that is the cost that
counts when one CT ban told to 200 servers makes each of them save its state before its command
goes out. The text is plain JSON (UTF-8, not ASCII-escaped, no spaces) that `json` reads back;
what must be byte-exact between daemons (the signature's canonical form) stays with `json`,
and so does reading: orjson reads an integer past 64 bits as a float.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS  # a dict keyed by userid is written with string keys, as `json` writes it


def dumps(value: Any) -> str:
    try:
        return orjson.dumps(value, option=_OPTIONS).decode("utf-8")
    except orjson.JSONEncodeError:  # what orjson refuses and json takes (an integer past 64 bits): never a failed save
        return json.dumps(value, ensure_ascii=False)
