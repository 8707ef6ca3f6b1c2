"""Actions the engine decides: one frozen class per kind over a shared header, as h11 types
its events; their JSON and their RCON command text.

Contract: every action carries the header (`Action`: the log's time and round, the rule that
decided it and the server's clause, the reason players read) and only the fields of its own
kind, each typed and required where the kind always has it (`Ban.minutes`, `Propose.index`).
`to_json()` writes what `jailcore replay` prints and the audit log keeps (protocol section 3:
the optional keys only where set, in one order); `Action.from_json` reads it back into the
class of its kind. `render(action)` returns the one console command that carries it out
(protocol section 2), or None for an action the daemon keeps itself. Nothing a player wrote
reaches the console unquoted: targets are `#userid`, every text goes through `clean_text`,
and every command stays under 512 bytes: each text is capped to the buffer the plugin reads
it into before it is joined into a command, so a command past the limit is a bug, refused
with a `LimitError` that the daemon records instead of sending.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal, get_args

import attrs

from jailcore.engine.vocabulary import ActionKind
from jailcore.log.errors import LimitError

if TYPE_CHECKING:  # the commands the command line reads need no parser (tests/test_startup.py)
    from jailcore.log.events import AdminStep

MAX_COMMAND = 511  # srcds's COMMAND_MAX_LENGTH (512) less its NUL
MAX_TEXT = 255  # UTF-8 bytes in one quoted argument: the plugin's `char[256]` less the NUL (cut there, it might be mid-letter)
MAX_DOOR_REASON, MAX_DOOR_BY = 127, 63  # the plugin's CT ban record (`jb_ctban_set`): char reason[128], char by[64]
DOOR_MAX_SECONDS = 366 * 86400

# The server's modes: act on the rules, advise (tell, punish nothing), or only watch.
Mode = Literal["enforce", "advise", "observe"]
MODES: tuple[Mode, ...] = get_args(Mode)

# What the audit log says became of an action. `owed`: decided for a player who had left, written, and carried
# out when he returns (its carrying out is a row of its own that names it, `owed_row`); `expired` if he does not.
AuditStatus = Literal["pending", "delivered", "failed", "expired", "unanswered", "dropped", "observed", "advised",
                      "proposed", "confirmed", "dismissed", "owed"]
AUDIT_STATUSES: tuple[AuditStatus, ...] = get_args(AuditStatus)

Team = Literal["T", "CT"]

# The keys past the header, in the order the JSON has always written them.
_OPTIONAL = ("team", "minutes", "rounds", "amount", "index", "by", "step", "absent", "owed", "owed_row")


@attrs.frozen(slots=True)
class Target:
    userid: int
    steamid: str
    name: str

    def to_json(self) -> dict[str, object]:
        return {"userid": self.userid, "steamid": self.steamid, "name": self.name}


# -- the console's text ----------------------------------------------------------------

# Control characters (chat colour bytes \x01..\x10 among them), quotes, the splitter's
# `;` and the comment marker: none of them may survive into a console command.
_UNSAFE = re.compile(r'[\x00-\x1f\x7f"\;]|//')
_SPACES = re.compile(r"\s+")


@functools.lru_cache(maxsize=1024)  # a CT ban told to 200 servers cleans its reason and giver for each of their doors
def clean_text(text: str, limit: int = MAX_TEXT) -> str:
    # Each character `_UNSAFE` takes becomes a space, so no `//` can be left or made.
    text = _SPACES.sub(" ", _UNSAFE.sub(" ", text)).strip()
    raw = text.encode("utf-8")
    if len(raw) > limit:
        text = raw[: limit - 3].decode("utf-8", "ignore").rstrip() + "..."
    return text


def _q(text: str, limit: int = MAX_TEXT) -> str:
    return f'"{clean_text(text, limit)}"'


def _door(target: Target, minutes: int | None, reason: str, by: str | None) -> str:
    """The shim's copy of a CT ban: seconds left, 0 for one in rounds or for ever. The shim keeps
    GetTime() + seconds in a 32-bit cell: a longer ban is held for a year at a time (the daemon,
    which keeps the ban, hands it over again at every connect)."""
    seconds = 0 if minutes is None else min(int(minutes) * 60, DOOR_MAX_SECONDS)
    return f"jb_ctban_set #{target.userid} {seconds} {_q(reason, MAX_DOOR_REASON)} {_q(by or 'jailcore', MAX_DOOR_BY)}"


# -- the header and the kinds ------------------------------------------------------------


@attrs.frozen(slots=True)
class Action:
    """What every action carries: when (the log's time and round), the rule that decided it
    (its config key, `admin` or `pardon` for an admin's word) and the server's own clause
    (`ref`), and the reason players read. `action` is the kind's word (the JSON's `action`)."""

    action: ClassVar[ActionKind]
    _keys: ClassVar[tuple[str, ...]] = ()  # its optional JSON keys, in `_OPTIONAL`'s order (set below)
    time: str
    round: int
    rule: str
    ref: str
    reason: str

    @property
    def target(self) -> Target | None:
        """The player it is aimed at; None for a word to everyone."""
        return None

    def command(self) -> str | None:
        """The console command that carries it out, or None: nothing is sent (the daemon keeps it)."""
        return None

    def to_json(self) -> dict[str, object]:
        target = self.target
        out: dict[str, object] = {"time": self.time, "round": self.round, "action": self.action,
                               "target": target.to_json() if target else None, "rule": self.rule, "ref": self.ref,
                               "reason": self.reason}
        for key in self._keys:
            value = getattr(self, key)
            if value is not None and value is not False:  # a mark (`absent`, `owed`) is written only when it holds
                out[key] = value
        return out

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Action:
        """An action as `to_json` wrote it (the audit log's `detail`), back in the class of its
        kind; a key its kind does not have is left out. Raises KeyError or TypeError for JSON
        that is not an action's."""
        cls = CLASSES[data["action"]]
        header = [data["time"], data["round"], data["rule"], data["ref"], data["reason"]]
        fields = attrs.fields_dict(cls)
        if "target" in fields:
            target = data.get("target")
            header.append(Target(**target) if target else None)
        own = {key: data[key] for key in _OPTIONAL if key in fields and data.get(key) is not None}
        return cls(*header, **own)


@attrs.frozen(slots=True)
class Say(Action):
    """A message to everyone (`jb_say`)."""

    action = "say"

    def command(self) -> str:
        return f"jb_say {_q(self.reason)}"


@attrs.frozen(slots=True)
class Hud(Action):
    """The standing state line shown to everyone (`jb_hud`): shown, not decided."""

    action = "hud"

    def command(self) -> str:
        return f"jb_hud {_q(self.reason)}"


@attrs.frozen(slots=True)
class ToPlayer(Action):
    """An action aimed at one player, by his #userid (his SteamID once he has left)."""

    target: Target

    def _to_player(self, template: str, **values: object) -> str | None:
        return template.format(uid=f"#{int(self.target.userid)}", reason=_q(self.reason), **values)


@attrs.frozen(slots=True)
class Punishment(ToPlayer):
    """A ladder's step given to one player, and what it may carry beside: the admin who
    confirmed or gave it (`by`); `absent`, decided for a player who has left (written to
    the audit log and carried out when he returns, `State.owing`; a server ban at once by
    his SteamID); `owed`, the carrying out at his return of one decided while he was away,
    and `owed_row`, the audit row of that decision (status `owed`), which it names."""

    by: str | None = attrs.field(default=None, kw_only=True)
    absent: bool = attrs.field(default=False, kw_only=True)
    owed: bool = attrs.field(default=False, kw_only=True)
    owed_row: int | None = attrs.field(default=None, kw_only=True)

    def _to_player(self, template: str, **values: object) -> str | None:
        if self.absent:
            return None  # he has left: carried out when he returns
        return ToPlayer._to_player(self, template, **values)


@attrs.frozen(slots=True)
class Warn(Punishment):
    action = "warn"

    def command(self) -> str | None:
        return self._to_player("jb_warn {uid} {reason}")


@attrs.frozen(slots=True)
class Slay(Punishment):
    action = "slay"

    def command(self) -> str | None:
        return self._to_player("jb_slay {uid} {reason}")


@attrs.frozen(slots=True)
class Kick(Punishment):
    action = "kick"

    def command(self) -> str | None:
        return self._to_player("jb_kick {uid} {reason}")


@attrs.frozen(slots=True)
class Respawn(Punishment):
    action = "respawn"

    def command(self) -> str | None:
        return self._to_player("jb_respawn {uid}")


@attrs.frozen(slots=True)
class Freeday(Punishment):
    """A freeday for this player, told to everyone (`jb_say`)."""

    action = "freeday"

    def command(self) -> str:
        return f"jb_say {_q(self.reason)}"


@attrs.frozen(slots=True)
class TeamSwap(Punishment):
    """Moved to a team (the engine moves guards to the prisoners: `T`)."""

    action = "teamswap"
    team: Team = attrs.field(default="T", kw_only=True)

    def command(self) -> str | None:
        return self._to_player("jb_teamswap {uid} {team} {reason}", team="CT" if self.team == "CT" else "T")


@attrs.frozen(slots=True)
class CtBan(Punishment):
    """Banned from the guards for `minutes` or `rounds`, or for ever (neither). Kept by the
    daemon; the command is the shim's copy at the door."""

    action = "ctban"
    minutes: int | None = attrs.field(default=None, kw_only=True)
    rounds: int | None = attrs.field(default=None, kw_only=True)

    def command(self) -> str | None:
        return None if self.absent else _door(self.target, self.minutes, self.reason, self.by)


@attrs.frozen(slots=True)
class Ban(Punishment):
    """A server ban of `minutes` (0: permanent)."""

    action = "ban"
    minutes: int = attrs.field(kw_only=True)

    def command(self) -> str | None:
        """By #userid through the shim while he is here; by SteamID once he has left (a #userid
        names nobody then), through the shim's `jb_addban "<steamid>" <minutes> "<reason>"`,
        which calls SourceMod's BanIdentity (BANFLAG_AUTHID). Not `sm_addban`: it is a plugin's
        admin command, not the shim's, so it cannot take the ` @<id>` token (it would be read
        as part of the reason) and its answer is not one line we can judge: basebans replies
        "[SM] Ban added.", and SourceBans++ replaces basebans with its own `sm_addban`, which
        answers later, from a database callback, nowhere in the RCON reply. Through the shim a
        ban re-sent after a lost answer is recognised and not run twice. SourceBans++'s game
        plugin (sbpp_main 1.7) hooks neither OnBanClient nor OnBanIdentity, so it records this
        ban (like `jb_ban`'s BanClient) only through protocol.md's `[sourcebans]` row that
        jailcore writes itself; SourceBans 2's plugin hooks both and records it."""
        if self.absent:
            steamid = clean_text(self.target.steamid, 40)
            return f"jb_addban \"{steamid}\" {int(self.minutes)} {_q(self.reason)}" if steamid else None
        return f"jb_ban #{int(self.target.userid)} {int(self.minutes)} {_q(self.reason)}"


@attrs.frozen(slots=True)
class Autoslay(Punishment):
    """Slain at the next `rounds` round starts (kept by the daemon; the player is warned)."""

    action = "autoslay"
    rounds: int = attrs.field(kw_only=True)

    def command(self) -> str | None:
        return self._to_player("jb_warn {uid} {reason}")


@attrs.frozen(slots=True)
class Money(Punishment):
    """Money given (a compensation) or taken back (`amount` below 0)."""

    action = "money"
    amount: int = attrs.field(kw_only=True)

    def command(self) -> str | None:
        return self._to_player("jb_money {uid} {amount}", amount=int(self.amount))


@attrs.frozen(slots=True)
class Cancel(ToPlayer):
    """Prohibition `index` (1-based, as the HUD lists them) is void; its setter is the target."""

    action = "cancel"
    index: int = attrs.field(kw_only=True)

    def command(self) -> str:
        return f"jb_cancel_prohibition {int(self.index)}"


@attrs.frozen(slots=True)
class Unctban(ToPlayer):
    """A CT ban lifted, by an admin (`by`; none in rows from before it was said). For a player who
    has left (`absent`) nothing is sent: the daemon holds the ban, the game holds nothing for him."""

    action = "unctban"
    by: str | None = attrs.field(default=None, kw_only=True)
    absent: bool = attrs.field(default=False, kw_only=True)

    def command(self) -> str | None:
        return None if self.absent else self._to_player("jb_ctban_clear {uid}")


@attrs.frozen(slots=True)
class Unban(ToPlayer):
    """A server ban lifted, by SteamID: a banned player is never on the server."""

    action = "unban"

    def command(self) -> str:
        return f"jb_unban {_q(self.target.steamid)}"


@attrs.frozen(slots=True)
class Pardon(ToPlayer):
    """A pardon told to the player: its own word, never counted as a punishment nor pardoned."""

    action = "pardon"

    def command(self) -> str | None:
        return self._to_player("jb_warn {uid} {reason}")


@attrs.frozen(slots=True)
class Offer(ToPlayer):
    """A freekilled prisoner's choice (a respawn now or a freeday next round)."""

    action = "offer"

    def command(self) -> str | None:
        return self._to_player("jb_fk_offer {uid} {reason}")


@attrs.frozen(slots=True)
class Door(ToPlayer):
    """The shim's copy of one CT ban of a player online, to refuse his join to CT at once:
    `minutes` left (rounded up), none for a ban in rounds or for ever (the daemon lifts those
    itself), and the admin who gave it (empty: a rule's). Shown, not decided: `owed` and
    `owed_row` when it carries out a ban given while he was away (its row is then done)."""

    action = "door"
    minutes: int | None = attrs.field(default=None, kw_only=True)
    rounds: int | None = attrs.field(default=None, kw_only=True)
    by: str = attrs.field(kw_only=True)
    owed: bool = attrs.field(default=False, kw_only=True)
    owed_row: int | None = attrs.field(default=None, kw_only=True)

    def command(self) -> str:
        return _door(self.target, self.minutes, self.reason, self.by)


@attrs.frozen(slots=True)
class Propose(ToPlayer):
    """A punishment waiting for an admin (`confirm = "admin"`): `index` is its number in the
    engine, `step` what it stands for, as a ladder writes it (`ban 0`). Printed by replay,
    sent to no one but the admins."""

    action = "propose"
    index: int = attrs.field(kw_only=True)
    step: str = attrs.field(kw_only=True)


@attrs.frozen(slots=True)
class Lapse(Action):
    """What waited lapsed: a proposal nobody answered in time (`index`, its number: its
    `propose` row is marked `expired`), or a punishment owed by a player who did not come
    back in time (`owed_row`, its row, once written). `step` is what it stood for. The
    player may be gone (no target)."""

    action = "lapse"
    target: Target | None
    step: str = attrs.field(kw_only=True)
    index: int | None = attrs.field(default=None, kw_only=True)
    owed_row: int | None = attrs.field(default=None, kw_only=True)


@attrs.frozen(slots=True)
class Ask(ToPlayer):
    """An admin's `!jcpardon`, `!jcconfirm`, `!jcdismiss` in game (`step` says which, `index`
    its id, `by` the admin, who is the target: his SteamID goes with a pardon). No command:
    the session writes it as the command line's request row."""

    action = "ask"
    index: int = attrs.field(kw_only=True)
    by: str = attrs.field(kw_only=True)
    step: AdminStep = attrs.field(kw_only=True)


# A ladder's steps that carry nothing but their target, by their word.
Plain = Warn | Slay | Kick | Respawn | Freeday
PLAIN: dict[str, type[Plain]] = {cls.action: cls for cls in (Warn, Slay, Kick, Respawn, Freeday)}

CLASSES: dict[str, type[Action]] = {cls.action: cls for cls in (
    Warn, Slay, TeamSwap, CtBan, Kick, Ban, Autoslay, Money, Respawn, Freeday, Cancel, Say, Hud, Unctban, Unban,
    Pardon, Offer, Door, Propose, Lapse, Ask)}
for _cls in CLASSES.values():
    _cls._keys = tuple(key for key in _OPTIONAL if key in attrs.fields_dict(_cls))


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
    command = action.command()
    return None if command is None else _fits(command, MAX_COMMAND - ID_ROOM)


def with_id(command: str, ident: int) -> str:
    """The command as sent: its audit row id last, so the shim runs it once however often
    it arrives (it answers a repeat `ok dup`). Raises LimitError past 511 bytes."""
    return _fits(f"{command} @{int(ident)}", MAX_COMMAND)
