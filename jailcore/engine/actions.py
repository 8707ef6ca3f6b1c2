"""Actions the engine decides, and their RCON command text.

Contract: `render(action)` returns the one console command that carries out an action
(protocol section 2), or None for an action the daemon keeps itself. Nothing a player
wrote reaches the console unquoted: targets are `#userid`, every text goes through
`clean_text`, and every command stays under 512 bytes: each text is capped to the buffer
the plugin reads it into before it is joined into a command, so a command past the limit
is a bug, refused with a `LimitError` that the daemon records instead of sending.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Literal, cast, get_args

import attrs

from jailcore.log.errors import LimitError

MAX_COMMAND = 511  # srcds's COMMAND_MAX_LENGTH (512) less its NUL
# Bytes of UTF-8 in one quoted argument: the plugin reads each into a `char[256]` (255 bytes
# and the NUL); a longer text would be cut there, mid-letter perhaps, instead of here.
MAX_TEXT = 255
# The plugin's CT ban record (`jb_ctban_set`) holds a shorter reason and admin name.
MAX_DOOR_REASON = 127  # char reason[128]
MAX_DOOR_BY = 63  # char by[64]
DOOR_MAX_SECONDS = 366 * 86400

# The server's modes: act on the rules, advise (tell, punish nothing), or only watch.
Mode = Literal["enforce", "advise", "observe"]
MODES: tuple[Mode, ...] = get_args(Mode)

# What the audit log says became of an action.
# `owed`: decided for a player who had left, written, and carried out when he returns (its
# carrying out is a row of its own that names it, `owed_row`); `expired` if he does not.
AuditStatus = Literal["pending", "delivered", "failed", "expired", "unanswered", "dropped", "observed", "advised",
                      "proposed", "confirmed", "dismissed", "owed"]
AUDIT_STATUSES: tuple[AuditStatus, ...] = get_args(AuditStatus)

# The words of VOCABULARY below, for the type checker; a test holds the two equal.
ActionKind = Literal[
    "warn", "slay", "teamswap", "ctban", "kick", "ban", "autoslay", "money", "respawn", "freeday",
    "cancel", "say", "hud", "unctban", "unban", "pardon", "offer", "door", "propose", "lapse", "ask",
]


_OPTIONAL = ("team", "minutes", "rounds", "amount", "index", "by", "step", "absent", "owed", "owed_row")


@attrs.frozen(slots=True)
class Target:
    userid: int
    steamid: str
    name: str

    def to_json(self) -> dict[str, Any]:
        return {"userid": self.userid, "steamid": self.steamid, "name": self.name}


@attrs.frozen(slots=True)
class Action:
    time: str
    round: int
    action: ActionKind
    target: Target | None
    rule: str
    ref: str
    reason: str
    team: str | None = None
    minutes: int | None = None
    rounds: int | None = None
    amount: int | None = None
    index: int | None = None
    by: str | None = None  # the admin behind it, for a CT ban an admin gave
    step: str | None = None  # a proposal's punishment, as a ladder writes it ("ban 0")
    # Decided for a player who has left: written to the audit log and carried out when he
    # returns (`State.owing`), a server ban at once by his SteamID (`jb_addban`).
    absent: bool | None = None
    owed: bool | None = None  # the carrying out, at his return, of one decided while he was away
    # The audit row of that decision (its status `owed`): the carrying out names it, and a
    # `lapse` with it marks it `expired` when he did not come back in time.
    owed_row: int | None = None

    def to_json(self) -> dict[str, Any]:
        out = {
            "time": self.time,
            "round": self.round,
            "action": self.action,
            "target": self.target.to_json() if self.target else None,
            "rule": self.rule,
            "ref": self.ref,
            "reason": self.reason,
        }
        for key in _OPTIONAL:
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Action:
        target = data.get("target")
        fields = {k: data.get(k) for k in _OPTIONAL}
        return cls(
            data["time"], data["round"], data["action"], Target(**target) if target else None,
            data["rule"], data["ref"], data["reason"], **fields,
        )


# Control characters (chat colour bytes \x01..\x10 among them), quotes, the splitter's
# `;` and the comment marker: none of them may survive into a console command.
_UNSAFE = re.compile(r'[\x00-\x1f\x7f"\;]|//')
_SPACES = re.compile(r"\s+")


def clean_text(text: str, limit: int = MAX_TEXT) -> str:
    # Each character `_UNSAFE` takes becomes a space, so no `//` can be left or made.
    text = _SPACES.sub(" ", _UNSAFE.sub(" ", text)).strip()
    raw = text.encode("utf-8")
    if len(raw) > limit:
        text = raw[: limit - 3].decode("utf-8", "ignore").rstrip() + "..."
    return text


def _q(text: str, limit: int = MAX_TEXT) -> str:
    return f'"{clean_text(text, limit)}"'


def _words(words: str) -> frozenset[str]:
    return frozenset(words.split())


@attrs.frozen
class Kind:
    """One word of the action vocabulary: what admins and players call it, how `tail`
    colours it, the console command that carries it out (None: the daemon keeps it, or
    nothing is sent), and its traits, the one place each use of the vocabulary reads:
    `step` a ladder may use it; `enforcement` one of protocol section 3's actions (what
    `replay` prints); `audited` written to the audit log (the rest is only shown);
    `round` it makes sense only in the round it was decided (the outbox expires it after);
    `pardonable` a punishment a pardon takes back; `advisory` advise mode sends it as it
    is; `feed` the admins online are told of it; `offline` it acts on a steamid, not on a
    player online, so his absence does not expire it (an unban: a banned player is never
    on the server)."""

    ru: str
    en: str
    colour: str
    command: Callable[[Action], str | None]
    traits: frozenset[str] = attrs.field(converter=_words)


def _target(action: Action) -> str:
    return f"#{action.target.userid}" if action.target else ""


def _to_player(template: str) -> Callable[[Action], str | None]:
    """A command aimed at one player; without a target there is nothing to send."""

    def command(action: Action) -> str | None:
        if action.target is None or action.absent:
            return None  # (a player who has left: carried out when he returns)
        return template.format(
            uid=_target(action), reason=_q(action.reason), team="CT" if action.team == "CT" else "T",
            amount=int(action.amount or 0), minutes=int(action.minutes or 0),
        )

    return command


def _to_everyone(template: str) -> Callable[[Action], str | None]:
    return lambda action: template.format(reason=_q(action.reason))


def _door(action: Action) -> str | None:
    """The shim's copy of a CT ban: seconds left, 0 for one in rounds or for ever."""
    if action.target is None or action.absent:
        return None  # he has left: the door holds it when he connects again
    # The shim keeps GetTime() + seconds in a 32-bit cell: a longer ban is held for a year
    # at a time (the daemon, which keeps the ban, hands it over again at every connect).
    seconds = min(int(action.minutes or 0) * 60, DOOR_MAX_SECONDS)
    return f"jb_ctban_set #{action.target.userid} {seconds} {_q(action.reason, MAX_DOOR_REASON)} {_q(action.by or 'jailcore', MAX_DOOR_BY)}"


def _ban(action: Action) -> str | None:
    """A server ban: by #userid through the shim while he is here; by SteamID once he has
    left (a #userid names nobody then), through the shim's `jb_addban "<steamid>" <minutes>
    "<reason>"`, which calls SourceMod's BanIdentity (BANFLAG_AUTHID). Not `sm_addban`: it is
    a plugin's admin command, not the shim's, so it cannot take the ` @<id>` token (it would
    be read as part of the reason) and its answer is not one line we can judge: basebans
    replies "[SM] Ban added.", and SourceBans++ replaces basebans with its own `sm_addban`,
    which answers later, from a database callback, nowhere in the RCON reply. Through the
    shim a ban re-sent after a lost answer is recognised and not run twice. SourceBans++'s
    game plugin (sbpp_main 1.7) hooks neither OnBanClient nor OnBanIdentity, so it records
    this ban (like `jb_ban`'s BanClient) only through protocol.md's `[sourcebans]` row that
    jailcore writes itself; SourceBans 2's plugin hooks both and records it."""
    if action.target is None:
        return None
    if action.absent:
        steamid = clean_text(action.target.steamid, 40)
        return f"jb_addban \"{steamid}\" {int(action.minutes or 0)} {_q(action.reason)}" if steamid else None
    return f"jb_ban #{action.target.userid} {int(action.minutes or 0)} {_q(action.reason)}"


def _cancel(action: Action) -> str | None:
    return None if action.index is None else f"jb_cancel_prohibition {int(action.index)}"


# CT bans are kept by the daemon and pushed to the shim, which refuses a banned join at
# the door; autoslay is kept by the daemon and the player told by a warning.
VOCABULARY: dict[ActionKind, Kind] = {
    "warn": Kind("предупреждение", "warning", "33", _to_player("jb_warn {uid} {reason}"), "step enforcement audited round pardonable advisory feed"),
    "slay": Kind("убийство", "slay", "31", _to_player("jb_slay {uid} {reason}"), "step enforcement audited round pardonable feed"),
    "teamswap": Kind("перевод за Т", "moved to T", "35", _to_player("jb_teamswap {uid} {team} {reason}"), "step enforcement audited round pardonable feed"),
    "ctban": Kind("запрет за КТ", "CT ban", "35", _door, "step enforcement audited pardonable feed"),
    "kick": Kind("кик", "kick", "31", _to_player("jb_kick {uid} {reason}"), "step enforcement audited pardonable feed"),
    "ban": Kind("бан", "ban", "31;1", _ban, "step enforcement audited pardonable feed"),
    "autoslay": Kind("автослей", "autoslay", "31", _to_player("jb_warn {uid} {reason}"), "step enforcement audited pardonable feed"),
    "money": Kind("компенсация", "compensation", "32", _to_player("jb_money {uid} {amount}"), "step enforcement audited round feed"),
    "respawn": Kind("возрождение", "respawn", "32", _to_player("jb_respawn {uid}"), "step enforcement audited round feed"),
    "freeday": Kind("ФД", "freeday", "32", _to_everyone("jb_say {reason}"), "step enforcement audited round feed"),
    "cancel": Kind("отмена", "cancel", "36", _cancel, "step enforcement audited round advisory"),
    "say": Kind("объявление", "announcement", "32", _to_everyone("jb_say {reason}"), "enforcement audited round advisory"),
    "hud": Kind("табло", "display", "0", _to_everyone("jb_hud {reason}"), "round advisory"),
    # What admins and the door need: not enforcements themselves.
    "unctban": Kind("снятие запрета за КТ", "CT ban lifted", "32", _to_player("jb_ctban_clear {uid}"), "audited"),
    "unban": Kind("разбан", "unban", "32", lambda a: f"jb_unban {_q(a.target.steamid)}" if a.target else None, "audited offline"),
    # A pardon told to the player: its own word, never counted as a punishment nor pardoned.
    "pardon": Kind("помилование", "pardon", "32", _to_player("jb_warn {uid} {reason}"), "audited"),
    "offer": Kind("выбор", "choice", "36", _to_player("jb_fk_offer {uid} {reason}"), "audited round"),
    "door": Kind("запрет за КТ в игре", "CT ban at the door", "0", _door, ""),
    # A punishment waiting for an admin (`confirm = "admin"`): `index` is its number in the
    # engine, `step` what it stands for. Printed by replay, sent to no one but the admins.
    "propose": Kind("на решение админа", "proposed", "36;1", lambda a: None, "enforcement audited"),
    # A proposal nobody answered in time: its `propose` row is marked `expired`.
    "lapse": Kind("предложение истекло", "proposal lapsed", "2", lambda a: None, ""),
    # An admin's `!jcpardon`, `!jcconfirm`, `!jcdismiss` in game (`step` says which, `index` its
    # id, `by` the admin): no command; the session writes it as the command line's request row.
    "ask": Kind("запрос админа", "admin's request", "36", lambda a: None, ""),
}
KINDS: tuple[ActionKind, ...] = tuple(VOCABULARY)


def kinds_that(trait: str) -> frozenset[ActionKind]:
    """The kinds of action with this trait (see `Kind`)."""
    return frozenset(k for k, kind in VOCABULARY.items() if trait in kind.traits)


STEPS = tuple(k for k, kind in VOCABULARY.items() if "step" in kind.traits)


def kind_name(lang: str, kind: str) -> str:
    entry = VOCABULARY.get(cast(ActionKind, kind))  # any word: an unknown one is shown as it is
    if entry is None:
        return kind
    return entry.en if lang == "en" else entry.ru


# Room `with_id` needs after a rendered command: " @" and a row id of up to 20 digits.
ID_ROOM = 22


def _fits(command: str, limit: int) -> str:
    size = len(command.encode("utf-8"))
    if size > limit:
        raise LimitError(f"a console command of {size} bytes (at most {limit}): {command[:80]}...")
    return command


def render(action: Action) -> str | None:
    """Raises LimitError for a command that would leave `with_id` no room under 512 bytes
    (the texts are capped, so only a bug in a template can make one)."""
    command = VOCABULARY[action.action].command(action)
    return None if command is None else _fits(command, MAX_COMMAND - ID_ROOM)


def with_id(command: str, ident: int) -> str:
    """The command as sent: its audit row id last, so the shim runs it once however often
    it arrives (it answers a repeat `ok dup`). Raises LimitError past 511 bytes."""
    return _fits(f"{command} @{int(ident)}", MAX_COMMAND)
