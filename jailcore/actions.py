"""Actions the engine decides, and their RCON command text.

Contract: `render(action)` returns the one console command that carries out an action
(protocol section 2), or None for an action the daemon keeps itself. Nothing a player
wrote reaches the console unquoted: targets are `#userid`, every text goes through
`clean_text`, and every command stays under 512 bytes.
"""

from __future__ import annotations

import re

import attrs

KINDS = ("warn", "slay", "teamswap", "ctban", "kick", "ban", "autoslay", "money", "respawn", "freeday", "cancel", "say", "hud")
MAX_COMMAND = 511
MAX_TEXT = 360  # bytes of UTF-8 in one quoted argument


@attrs.frozen(slots=True)
class Target:
    userid: int
    steamid: str
    name: str

    def to_json(self) -> dict:
        return {"userid": self.userid, "steamid": self.steamid, "name": self.name}


@attrs.frozen(slots=True)
class Action:
    time: str
    round: int
    action: str = attrs.field(validator=attrs.validators.in_(KINDS))
    target: Target | None
    rule: str
    ref: str
    reason: str
    team: str | None = None
    minutes: int | None = None
    rounds: int | None = None
    amount: int | None = None
    index: int | None = None

    def to_json(self) -> dict:
        out = {
            "time": self.time,
            "round": self.round,
            "action": self.action,
            "target": self.target.to_json() if self.target else None,
            "rule": self.rule,
            "ref": self.ref,
            "reason": self.reason,
        }
        for key in ("team", "minutes", "rounds", "amount", "index"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out

    @classmethod
    def from_json(cls, data: dict) -> Action:
        target = data.get("target")
        fields = {k: data.get(k) for k in ("team", "minutes", "rounds", "amount", "index")}
        return cls(
            data["time"], data["round"], data["action"], Target(**target) if target else None,
            data["rule"], data["ref"], data["reason"], **fields,
        )


# Control characters (chat colour bytes \x01..\x10 among them), quotes, the splitter's
# `;` and the comment marker: none of them may survive into a console command.
_UNSAFE = re.compile(r'[\x00-\x1f\x7f"\;]|//')
_SPACES = re.compile(r"\s+")


def clean_text(text: str, limit: int = MAX_TEXT) -> str:
    text = _UNSAFE.sub(" ", text)
    while "//" in text:
        text = text.replace("//", "/")
    text = _SPACES.sub(" ", text).strip()
    raw = text.encode("utf-8")
    if len(raw) > limit:
        text = raw[: limit - 3].decode("utf-8", "ignore").rstrip() + "..."
    return text


def _q(text: str) -> str:
    return f'"{clean_text(text)}"'


def render(action: Action) -> str | None:
    kind = action.action
    uid = f"#{action.target.userid}" if action.target else None
    if kind in ("say", "freeday"):
        command = f"jb_say {_q(action.reason)}"
    elif kind == "hud":
        command = f"jb_hud {_q(action.reason)}"
    elif kind == "cancel":
        if action.index is None:
            return None
        command = f"jb_cancel_prohibition {int(action.index)}"
    elif uid is None:
        return None
    elif kind in ("warn", "ctban", "autoslay"):
        # CT bans and autoslay are kept by the daemon; the player is told by a warning.
        command = f"jb_warn {uid} {_q(action.reason)}"
    elif kind == "slay":
        command = f"jb_slay {uid} {_q(action.reason)}"
    elif kind == "teamswap":
        team = "CT" if action.team == "CT" else "T"
        command = f"jb_teamswap {uid} {team} {_q(action.reason)}"
    elif kind == "money":
        command = f"jb_money {uid} {int(action.amount or 0)}"
    elif kind == "respawn":
        command = f"jb_respawn {uid}"
    elif kind == "kick":
        command = f"jb_kick {uid} {_q(action.reason)}"
    elif kind == "ban":
        command = f"jb_ban {uid} {int(action.minutes or 0)} {_q(action.reason)}"
    else:
        return None
    assert len(command.encode("utf-8")) <= MAX_COMMAND, command
    return command


def with_id(command: str, ident: int) -> str:
    """The command as sent: its audit row id last, so the shim runs it once however often
    it arrives (it answers a repeat `ok dup`)."""
    command = f"{command} @{int(ident)}"
    assert len(command.encode("utf-8")) <= MAX_COMMAND, command
    return command
