"""The Python stand-in for the SourceMod plugin: sourcemod_bridge/scripting/ line for line,
for when pysmx (and so the real plugin's VM) is not installed, and for engine-only tests
that want speed. tests/test_shim_vm.py runs every command through it and through the real
plugin and requires the same replies, log lines, chat and effects; when the plugin changes,
this file follows.

SourceMod's own behaviour (chat triggers, admin access, targets, replies, translations) is
`smcore`'s, shared with the host that runs the real plugin.
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import TypeGuard

import attrs

from jailcore.config import shipped
from jailcore.log.events import ADMIN_WORDS, AdminWord
from jailcore.sim import smtext
from jailcore.sim.console import Command
from jailcore.sim.smcore import (
    CHAT,
    FILTER_NO_BOTS,
    FILTER_NO_IMMUNITY,
    FILTER_NO_MULTI,
    HANDLED,
    SourceModCore,
    describe,
    read_flags,
)
from jailcore.sim.world import Client, EventFields, World

VERSION = "1.2.0"  # the plugin's JB_VERSION
TRANSLATIONS = shipped.translations()  # the plugin's phrases: the package's copy in a wheel, else the checkout's
T, CT = 2, 3
ID_RING, ID_DIGITS = 512, 15
GENERIC = 1 << 1
TARGET_ERRORS = {0: "No matching client", -1: "Target must be alive", -2: "Target must be dead", -3: "Target is not in game",
                 -4: "Unable to target", -5: "No matching clients", -6: "Cannot target bot", -7: "More than one client matched"}
ALIASES = [("к", "sm_w"), ("командир", "sm_w"), ("ук", "sm_uw"), ("приказ", "sm_order"), ("отмена", "sm_cancel"),
           ("запрет", "sm_prohibit"), ("снять", "sm_lift"), ("игра", "sm_game"), ("конец", "sm_endgame"), ("од", "sm_sd"),
           ("фд", "sm_fd"), ("пж", "sm_lr"), ("одобрить", "sm_approve"), ("фк", "sm_fk")]
STATUS_TEAMS = {T: "TERRORIST", CT: "CT", 1: "Spectator"}


def clean(text: str) -> str:
    """Emit_Clean: quotes become ', line breaks and tabs a space, control bytes go."""
    out = []
    for ch in text:
        if ch == '"':
            out.append("'")
        elif ch in "\n\r\t":
            out.append(" ")
        elif ch >= " ":
            out.append(ch)
    return "".join(out)


def same(a: str, b: str) -> bool:
    """StrEqual(a, b, false): ASCII letters only fold, as strcasecmp does."""
    return a.encode().lower() == b.encode().lower()


def whole(text: str) -> int | None:
    raw = text.encode()
    value, read = smtext.strtoul(raw)
    return value if raw and read == len(raw) else None


def json_text(text: str, size: int) -> str:
    out = b""
    for byte in text.encode():
        if len(out) >= size - 7:
            break
        if byte in b'"\\':
            out += b"\\" + bytes([byte])
        elif byte < 0x20:
            out += b"\\u%04x" % byte
        else:
            out += bytes([byte])
    return out.decode("utf-8", "replace")


@attrs.define
class CtBan:
    until: int
    reason: str
    by: str


class StandIn(SourceModCore):
    kind = "stand-in"

    def __init__(self, world: World, translations: Path | None = None, server_lang: str = "ru"):
        super().__init__(world, translations or TRANSLATIONS, server_lang)
        self.seq = 0
        self.warden: Client | None = None
        self.round = 0
        self.external_warden = False
        self.libraries: set[str] = {"basecomm"}
        self.prohibitions = 0
        self.ids: OrderedDict[str, None] = OrderedDict()
        self.pending_id = ""
        self.last_command = 0
        self.last_hud = ""
        self.note = ""
        self.ctbans: dict[int, CtBan] = {}
        self.fk_offered: set[int] = set()  # slots of prisoners choosing after a freekill (fairness.sp)

    # -- loading ------------------------------------------------------------------------------------

    def load(self) -> None:
        self.load_translations("common.phrases")
        self.load_translations("jailcore_bridge.phrases")
        self.hook("round_start", self._warden_round_start)
        self.hook("player_death", self._warden_death)
        self.hook("player_team", self._warden_team)
        chat = {"sm_w": self.cmd_warden, "sm_warden": self.cmd_warden, "sm_uw": self.cmd_unwarden, "sm_unwarden": self.cmd_unwarden,
                "sm_order": self.cmd_order, "sm_cancel": self.cmd_cancel, "sm_prohibit": self.cmd_prohibit, "sm_lift": self.cmd_lift,
                "sm_game": self.cmd_game, "sm_endgame": self.cmd_endgame, "sm_sd": self.cmd_specialday, "sm_fd": self.cmd_freeday,
                "sm_lr": self.cmd_lastrequest}
        for name, callback in chat.items():
            self.reg_console(name, callback)
        for name, callback in {"sm_removewarden": self.cmd_removewarden, "sm_approve": self.cmd_approve, "sm_fk": self.cmd_freekill}.items():
            self.reg_console(name, callback, GENERIC)
        self.hook("round_start", self._chat_round_start)
        server = {"jb_warn": self.srv_warn, "jb_slay": self.srv_slay, "jb_teamswap": self.srv_teamswap, "jb_money": self.srv_money,
                  "jb_respawn": self.srv_respawn, "jb_say": self.srv_say, "jb_hud": self.srv_hud,
                  "jb_cancel_prohibition": self.srv_cancel_prohibition, "jb_status": self.srv_status, "jb_kick": self.srv_kick,
                  "jb_ban": self.srv_ban, "jb_ctban_set": self.srv_ctban_set, "jb_ctban_clear": self.srv_ctban_clear,
                  "jb_adminfeed": self.srv_adminfeed, "jb_fk_offer": self.srv_fk_offer, "jb_unban": self.srv_unban,
                  "jb_addban": self.srv_addban,
                  "jb_note": self.srv_note}
        for name, handler in server.items():
            self.reg_server(name, handler)
        self.listen("jointeam", self.ctban_join)
        self.create_cvar("sm_jailcore_admin_flag", "b")
        # An admin's word on an audit entry: one command each, named by the shim's own line (`jb_pardon`:
        # `sm_jcpardon`, its phrases `JB_UsagePardon`, `JB_PardonSent`), as admin.sp registers them.
        for word in ADMIN_WORDS:
            self.reg_console(f"sm_jc{word.step}", functools.partial(self.admin_word, word=word))
        admin = {"sm_ctban": self.cmd_ctban, "sm_unctban": self.cmd_unctban,
                 "sm_ctbans": self.cmd_ctbans, "sm_isbanned": self.cmd_isbanned, "sm_jcstatus": self.cmd_jcstatus}
        for name, callback in admin.items():
            self.reg_console(name, callback)
        self.reg_console("sm_fkchoice", self.cmd_fk_choice)
        self.seq = 0
        self.log_to_game(f'World triggered "jb_hello" (version "{VERSION}") (seq "0")')
        self.external_warden = bool({"warden", "myjailbreak", "jwp"} & self.libraries)
        self.round, self.warden = 0, None

    # -- output helpers (the plugin's PrintToChatAll and friends) -------------------------------------

    def tell(self, client: Client, text: str) -> None:
        client.chat.append(smtext.fit(text, 254, utf8=False))

    def tell_all(self, make: Callable[[Client], str]) -> None:
        """PrintToChatAll: each player in the game, the text made in his language."""
        for client in self.world.clients():
            self.tell(client, make(client))

    def reply_tr(self, client: Client | None, key: str, *values: Client | str | int) -> None:
        self.reply(client, "[jailcore] " + self.tr(key, client, *values))

    # -- emit.sp --------------------------------------------------------------------------------------

    def emit(self, client: Client | None, trigger: str, props: str = "") -> None:
        self.seq += 1
        who = f'"{describe(client)}"' if client is not None else "World"
        self.log_to_game(f'{who} triggered "{trigger}"{props} (seq "{self.seq}")')

    @staticmethod
    def prop(props: str, size: int, key: str, value: str) -> str:
        return smtext.fit(f'{props} ({key} "{clean(smtext.fit(value, 256))}")', size, utf8=False)

    def emit_text(self, client: Client, trigger: str, key: str, value: str) -> None:
        self.emit(client, trigger, self.prop("", 300, key, value))

    def on_gag(self, client: Client) -> None:
        if client.userid in self.world.players:
            self.emit_text(client, "jb_gag", "state", "on" if client.gagged else "off")

    # -- warden.sp ------------------------------------------------------------------------------------

    def warden_claim(self, client: Client) -> str | None:
        if self.external_warden:
            return "JB_WardenExternal"
        if client.team_index != CT or not client.alive:
            return "JB_WardenOnlyAliveCT"
        if self.warden is not None:
            return "JB_WardenTaken"
        self.warden = client
        self.emit(client, "jb_warden")
        self.tell_all(lambda to: "\x04[jailcore]\x01 " + self.tr("JB_WardenNew", to, client))
        return None

    def warden_remove(self, reason: str) -> None:
        if self.warden is None:
            return
        client, self.warden = self.warden, None
        self.emit_text(client, "jb_warden_removed", "reason", reason)
        self.tell_all(lambda to: "\x04[jailcore]\x01 " + self.tr("JB_WardenGone", to))

    def _by_userid(self, fields: EventFields) -> Client | None:
        return self.world.players.get(int(fields.get("userid", 0)))

    def _warden_round_start(self, name: str, fields: EventFields) -> None:
        self.round += 1
        self.warden = None
        freeze = self.cvars.get("mp_freezetime")
        self.emit(None, "jb_round_start", f' (freeze "{max(0, int(float(freeze))) if freeze else 0}")')

    def _warden_death(self, name: str, fields: EventFields) -> None:
        if self.warden is not None and self._by_userid(fields) is self.warden:
            self.warden_remove("died")

    def _warden_team(self, name: str, fields: EventFields) -> None:
        if self.warden is not None and self._by_userid(fields) is self.warden and fields.get("team") != CT:
            self.warden_remove("resigned")

    def on_client_connected(self, client: Client) -> None:
        self.ctbans.pop(client.slot, None)

    def on_client_disconnect(self, client: Client) -> None:
        if client is self.warden:
            self.warden_remove("left")
        self.ctbans.pop(client.slot, None)
        self.fk_offered.discard(client.slot)

    # -- chat.sp --------------------------------------------------------------------------------------

    def _chat_round_start(self, name: str, fields: EventFields) -> None:
        self.prohibitions = 0

    def on_say(self, client: Client, command: str, text: str) -> int:
        if not text or text[0] not in "!/":
            return 0
        raw = text.encode()
        word, rest = smtext.break_string(raw[1:], 32)
        for alias, target in ALIASES:
            if word.lower() == alias.encode().lower():
                old, self.reply_to = self.reply_to, CHAT
                try:
                    line = target if rest == -1 else f"{target} {raw[1 + rest:].decode('utf-8', 'replace')}"
                    self.world.client_command(client, smtext.fit(line, 256, utf8=False))
                finally:
                    self.reply_to = old
                return HANDLED if text[0] == "/" else 0
        return 0

    def require_warden(self, client: Client | None) -> TypeGuard[Client]:
        if client is None or client is not self.warden:
            if client is not None:
                self.reply_tr(client, "JB_OnlyWarden")
            return False
        return True

    def chat_text(self, client: Client | None, cmd: Command, size: int, usage: str) -> str | None:
        if cmd.argc < 1:
            self.reply_tr(client, usage)
            return None
        raw = smtext.cut(cmd.args.encode(), size)
        text = clean(smtext.strip_quotes(raw).decode("utf-8", "replace")).strip(" \t\n\v\f\r")
        if not text:
            self.reply_tr(client, usage)
            return None
        return text

    def cmd_warden(self, client: Client | None, cmd: Command) -> None:
        if client is not None:
            why = self.warden_claim(client)
            if why is not None:
                self.reply_tr(client, why)

    def cmd_unwarden(self, client: Client | None, cmd: Command) -> None:
        if self.require_warden(client):
            self.warden_remove("resigned")

    def cmd_removewarden(self, client: Client | None, cmd: Command) -> None:
        self.warden_remove("admin")

    def cmd_order(self, client: Client | None, cmd: Command) -> None:
        if self.require_warden(client) and (text := self.chat_text(client, cmd, 192, "JB_UsageOrder")) is not None:
            self.emit_text(client, "jb_order", "text", text)
            self.tell_all(lambda to: "\x04[jailcore]\x01 " + self.tr("JB_Order", to, text))

    def cmd_cancel(self, client: Client | None, cmd: Command) -> None:
        if self.require_warden(client):
            self.emit(client, "jb_order_cancel")

    def cmd_prohibit(self, client: Client | None, cmd: Command) -> None:
        if self.require_warden(client) and (text := self.chat_text(client, cmd, 192, "JB_UsageProhibit")) is not None:
            self.prohibitions += 1
            self.emit_text(client, "jb_prohibit", "text", text)
            count = self.prohibitions
            self.tell_all(lambda to: "\x04[jailcore]\x01 " + self.tr("JB_Prohibit", to, count, text))

    def cmd_lift(self, client: Client | None, cmd: Command) -> None:
        if not self.require_warden(client):
            return
        index = smtext.strtoul(smtext.cut(cmd.arg(1).encode(), 12))[0]
        if index < 1 or index > self.prohibitions:
            self.reply_tr(client, "JB_UsageLift")
            return
        self.prohibitions -= 1
        self.emit(client, "jb_prohibit_lift", f' (index "{index}")')
        self.tell_all(lambda to: "\x04[jailcore]\x01 " + self.tr("JB_ProhibitLifted", to, index))

    def prohibition_void(self, index: int) -> None:
        if index <= self.prohibitions:
            self.prohibitions -= 1

    def cmd_game(self, client: Client | None, cmd: Command) -> None:
        if client is not None and (text := self.chat_text(client, cmd, 64, "JB_UsageGame")) is not None:
            self.emit_text(client, "jb_game_start", "game", text)

    def cmd_endgame(self, client: Client | None, cmd: Command) -> None:
        if self.require_warden(client):
            self.emit(client, "jb_game_end")

    def cmd_specialday(self, client: Client | None, cmd: Command) -> None:
        if self.require_warden(client) and (text := self.chat_text(client, cmd, 64, "JB_UsageSpecialDay")) is not None:
            self.emit_text(client, "jb_specialday", "day", text)

    def find_target(self, client: Client | None, pattern: str, nobots: bool, immunity: bool = True) -> Client | None:
        """FindTarget (helpers.inc): one player, or None after telling `client` why not."""
        flags = FILTER_NO_MULTI | (FILTER_NO_BOTS if nobots else 0) | (0 if immunity else FILTER_NO_IMMUNITY)
        found = self.targets(pattern, client, flags)
        if isinstance(found, int):
            self.reply(client, "[SM] " + self.tr(TARGET_ERRORS[found], client))
            return None
        return found[0]

    def cmd_freeday(self, client: Client | None, cmd: Command) -> None:
        if not self.require_warden(client):
            return
        arg = smtext.fit(cmd.arg(1), 64)
        if same(arg, "all") or same(arg, "все"):
            self.emit(client, "jb_freeday", ' (scope "all")')
            return
        target = self.find_target(client, arg, True, False)
        if target is not None:
            self.emit(client, "jb_freeday", f' (scope "personal") (target "#{target.userid}")')

    def cmd_lastrequest(self, client: Client | None, cmd: Command) -> None:
        if (client is not None and client.team_index == T and client.alive
                and (text := self.chat_text(client, cmd, 64, "JB_UsageLastRequest")) is not None):
            self.emit_text(client, "jb_lr", "choice", text)

    def cmd_approve(self, client: Client | None, cmd: Command) -> None:
        if client is not None and (text := self.chat_text(client, cmd, 64, "JB_UsageApprove")) is not None:
            self.emit_text(client, "jb_game_approve", "game", text)

    def cmd_freekill(self, client: Client | None, cmd: Command) -> None:
        arg, kind = smtext.fit(cmd.arg(1), 64), smtext.fit(cmd.arg(2), 16)
        damage = same(kind, "damage") or same(kind, "урон")
        if cmd.argc != 2 or (not damage and not same(kind, "kill") and not same(kind, "убийство")):
            self.reply_tr(client, "JB_UsageFreekill")
            return
        victim = self.find_target(client, arg, False, False)
        if victim is not None:
            self.emit(client, "jb_freekill", f' (victim "#{victim.userid}") (kind "{"damage" if damage else "kill"}")')

    # -- commands.sp ----------------------------------------------------------------------------------

    def _begin(self, cmd: Command) -> int:
        self.last_command = int(self.world.time())
        self.pending_id = ""
        args = cmd.argc
        last = smtext.fit(cmd.arg(args), 64)
        if args < 1 or not last.startswith("@") or not 1 <= len(last) - 1 <= ID_DIGITS or not last[1:].isascii() or not last[1:].isdigit():
            return args
        if last[1:] in self.ids:
            self.reply(None, "ok dup")
            return -1
        self.pending_id = last[1:]
        return args - 1

    def accept(self, cmd: Command, want: int, usage: str) -> bool:
        args = self._begin(cmd)
        if args < 0:
            return False
        if args != want:
            self.reply(None, f"error: usage: {usage}")
            return False
        return True

    def ok(self) -> None:
        if self.pending_id:
            self.ids[self.pending_id] = None
            while len(self.ids) > ID_RING:
                self.ids.popitem(last=False)
            self.pending_id = ""
        self.reply(None, "ok")

    def target(self, arg: str) -> Client | None:
        arg = smtext.fit(arg, 16)
        if not arg.startswith("#") or not arg[1:2].isascii() or not arg[1:2].isdigit():
            self.reply(None, "error: target must be #userid")
            return None
        found = self.world.players.get(smtext.strtoul(arg[1:].encode())[0])
        if found is None:
            self.reply(None, f"error: no player with userid {arg[1:]}")
        return found

    def admin_has(self, client: Client) -> bool:
        bits, _ = read_flags(self.cvars["sm_jailcore_admin_flag"][:31])
        return self.access(client, bits or GENERIC)

    def srv_warn(self, cmd: Command) -> None:
        if not self.accept(cmd, 2, 'jb_warn #userid "text"'):
            return
        text = smtext.fit(cmd.arg(2), 256)
        client = self.target(cmd.arg(1))
        if client is not None:
            self.tell(client, "\x07[jailcore]\x01 " + text)
            client.centre.append(smtext.fit(text, 254, utf8=False))
            for admin in self.world.clients():
                if admin is not client and self.admin_has(admin):
                    self.tell(admin, f"\x04[jailcore]\x01 {client.name}: {text}")
            self.ok()

    def srv_slay(self, cmd: Command) -> None:
        if not self.accept(cmd, 2, 'jb_slay #userid "reason"'):
            return
        reason = smtext.fit(cmd.arg(2), 256)
        client = self.target(cmd.arg(1))
        if client is None:
            return
        if not client.alive:
            self.reply(None, f"error: #{client.userid} is not alive")
            return
        self.actions.append(f"jailcore slayed {describe(client)}: {reason}")
        self.world.suicide(client)
        self.tell_all(lambda to: f"\x07[jailcore]\x01 {client.name}: {reason}")
        self.ok()

    def srv_teamswap(self, cmd: Command) -> None:
        if not self.accept(cmd, 3, 'jb_teamswap #userid <T|CT> "reason"'):
            return
        team, reason = smtext.fit(cmd.arg(2), 8), smtext.fit(cmd.arg(3), 256)
        to = T if same(team, "T") else CT if same(team, "CT") else 0
        if to == 0:
            self.reply(None, "error: team must be T or CT")
            return
        client = self.target(cmd.arg(1))
        if client is None:
            return
        if client.team_index != to:
            self.actions.append(f"jailcore moved {describe(client)} to {team}: {reason}")
            self.world.change_team(client, to, keep_alive=True)
            self.tell(client, "\x07[jailcore]\x01 " + reason)
        self.ok()

    def srv_money(self, cmd: Command) -> None:
        if not self.accept(cmd, 2, "jb_money #userid <delta>"):
            return
        amount = whole(smtext.fit(cmd.arg(2), 16))
        if amount is None:
            self.reply(None, "error: delta must be a whole number")
            return
        client = self.target(cmd.arg(1))
        if client is not None:
            client.money = min(max(client.money + amount, 0), 65535)
            self.tell(client, "\x04[jailcore]\x01 " + self.tr("JB_Money", client, amount))
            self.ok()

    def srv_respawn(self, cmd: Command) -> None:
        if not self.accept(cmd, 1, "jb_respawn #userid"):
            return
        client = self.target(cmd.arg(1))
        if client is None:
            return
        if client.alive:
            self.reply(None, f"error: #{client.userid} is alive")
            return
        self.world.respawn(client)
        self.ok()

    def srv_fk_offer(self, cmd: Command) -> None:
        if not self.accept(cmd, 2, 'jb_fk_offer #userid "text"'):
            return
        text = smtext.fit(cmd.arg(2), 256)
        client = self.target(cmd.arg(1))
        if client is None:
            return
        self.tell(client, "\x04[jailcore]\x01 " + text)
        self.fk_offered.add(client.slot)
        self.tell(client, "\x04[jailcore]\x01 " + self.tr("JB_FkChoose", client))
        self.ok()

    def cmd_fk_choice(self, client: Client | None, cmd: Command) -> None:
        if client is None or client.slot not in self.fk_offered:
            self.reply_tr(client, "JB_FkNoOffer")
            return
        choice = smtext.fit(cmd.arg(1), 16)
        respawn = same(choice, "respawn")
        if not respawn and not same(choice, "freeday"):
            self.reply_tr(client, "JB_FkChoose")
            return
        self.fk_offered.discard(client.slot)
        self.emit(client, "jb_fk_choice", self.prop("", 64, "choice", "respawn" if respawn else "freeday"))

    def srv_addban(self, cmd: Command) -> None:
        if not self.accept(cmd, 3, 'jb_addban "steamid" <minutes> "reason"'):
            return
        auth, minutes, reason = smtext.fit(cmd.arg(1), 64), whole(smtext.fit(cmd.arg(2), 16)), smtext.fit(cmd.arg(3), 256)
        if not auth.startswith(("STEAM_", "[U:")):
            self.reply(None, f"error: not a steamid: {auth}")
            return
        if minutes is None or minutes < 0:
            self.reply(None, "error: minutes must be a whole number from 0")
            return
        self.world.ban_identity(auth, minutes, reason, "jb_addban")
        self.actions.append(f"jailcore banned {auth} ({minutes} min): {reason}")
        self.ok()

    def srv_unban(self, cmd: Command) -> None:
        if not self.accept(cmd, 1, 'jb_unban "steamid"'):
            return
        auth = smtext.fit(cmd.arg(1), 64)
        if not auth.startswith(("STEAM_", "[U:")):
            self.reply(None, f"error: not a steamid: {auth}")
            return
        self.world.unban(auth)
        self.actions.append(f"jailcore lifted the ban of {auth}")
        self.ok()

    def srv_say(self, cmd: Command) -> None:
        if self.accept(cmd, 1, 'jb_say "text"'):
            text = smtext.fit(cmd.arg(1), 256)
            self.tell_all(lambda to: "\x04[jailcore]\x01 " + text)
            self.ok()

    def srv_note(self, cmd: Command) -> None:
        if self.accept(cmd, 1, 'jb_note "text"'):
            self.note = smtext.fit(cmd.arg(1), 256)
            self.ok()

    def srv_hud(self, cmd: Command) -> None:
        if self.accept(cmd, 1, 'jb_hud "text"'):
            text = smtext.fit(cmd.arg(1), 256)
            self.last_hud = text
            for client in self.world.clients():
                client.hint.append(smtext.fit(text, 254, utf8=False))
            self.ok()

    def srv_cancel_prohibition(self, cmd: Command) -> None:
        if not self.accept(cmd, 1, "jb_cancel_prohibition <K>"):
            return
        index = smtext.strtoul(smtext.cut(cmd.arg(1).encode(), 12))[0]
        if index < 1:
            self.reply(None, "error: K must be a prohibition number from 1")
            return
        self.prohibition_void(index)
        self.tell_all(lambda to: "\x07[jailcore]\x01 " + self.tr("JB_ProhibitionVoid", to, index))
        self.ok()

    def srv_status(self, cmd: Command) -> None:
        self.last_command = int(self.world.time())
        warden = str(self.warden.userid) if self.warden is not None and self.warden.userid in self.world.players else "null"
        self.reply(None, f'{{"round": {self.round}, "map": "{json_text(self.world.map, 512)}", "warden": {warden}, "players": [')
        first = True
        for client in self.world.clients():
            auth = client.steamid if not client.bot and client.steamid.startswith("STEAM_") and not client.steamid.startswith("STEAM_ID") else (
                "BOT" if client.bot else "STEAM_ID_PENDING")
            team = STATUS_TEAMS.get(client.team_index, "Unassigned")
            name = json_text(smtext.fit(client.name, 128), 768)
            alive, gagged = ("true" if flag else "false" for flag in (client.alive, client.gagged))
            self.reply(None, f'{"" if first else ","}{{"userid": {client.userid}, "steamid": "{auth}", "name": "{name}", '
                             f'"team": "{team}", "alive": {alive}, "gagged": {gagged}}}')
            first = False
        self.reply(None, "]}")

    def srv_kick(self, cmd: Command) -> None:
        if not self.accept(cmd, 2, 'jb_kick #userid "reason"'):
            return
        reason = smtext.fit(cmd.arg(2), 256)
        client = self.target(cmd.arg(1))
        if client is not None:
            self.actions.append(f"jailcore kicked {describe(client)}: {reason}")
            self.later(lambda: self.world.kick(client, smtext.fit(reason, 255, utf8=False)))
            self.ok()

    def srv_ban(self, cmd: Command) -> None:
        if not self.accept(cmd, 3, 'jb_ban #userid <minutes> "reason"'):
            return
        minutes, reason = whole(smtext.fit(cmd.arg(2), 16)), smtext.fit(cmd.arg(3), 256)
        if minutes is None or minutes < 0:
            self.reply(None, "error: minutes must be a whole number from 0")
            return
        client = self.target(cmd.arg(1))
        if client is None:
            return
        self.world.ban(client, minutes, reason, "jb_ban")
        self.later(lambda: self.world.kick(client, reason))
        self.ok()

    def srv_ctban_set(self, cmd: Command) -> None:
        if not self.accept(cmd, 4, 'jb_ctban_set #userid <seconds> "reason" "by"'):
            return
        seconds = whole(smtext.fit(cmd.arg(2), 16))
        reason, by = smtext.fit(cmd.arg(3), 128), smtext.fit(cmd.arg(4), 64)
        if seconds is None or seconds < 0:
            self.reply(None, "error: seconds must be a whole number from 0")
            return
        client = self.target(cmd.arg(1))
        if client is not None:
            self.ctbans[client.slot] = CtBan(0 if seconds == 0 else int(self.world.time()) + seconds, reason, by)
            self.ok()

    def srv_ctban_clear(self, cmd: Command) -> None:
        if not self.accept(cmd, 1, "jb_ctban_clear #userid"):
            return
        client = self.target(cmd.arg(1))
        if client is not None:
            self.ctbans.pop(client.slot, None)
            self.ok()

    def srv_adminfeed(self, cmd: Command) -> None:
        if self.accept(cmd, 1, 'jb_adminfeed "text"'):
            text = smtext.fit(cmd.arg(1), 256)
            for client in self.world.clients():
                if self.admin_has(client):
                    self.tell(client, "\x04[jailcore]\x01 " + text)
            self.ok()

    # -- ctban.sp -------------------------------------------------------------------------------------

    def ctban_left(self, client: Client) -> int:
        ban = self.ctbans.get(client.slot)
        if ban is None:
            return 0
        if ban.until == 0:
            return -1
        left = ban.until - int(self.world.time())
        if left <= 0:
            del self.ctbans[client.slot]
            return 0
        return left

    def ctban_describe(self, client: Client, to: Client | None) -> str:
        left, ban = self.ctban_left(client), self.ctbans[client.slot]  # described only while held
        if left < 0:
            return self.tr("JB_CtBanEntryForever", to, client, ban.reason, ban.by)
        return self.tr("JB_CtBanEntryLeft", to, client, ban.reason, ban.by, (left + 59) // 60)

    def ctban_join(self, client: Client | None, cmd: Command) -> int:
        if client is None or cmd.argc < 1 or self.ctban_left(client) == 0:
            return 0
        team = smtext.strtoul(smtext.fit(cmd.arg(1), 8).encode())[0]
        if team not in (CT, 0):
            return 0
        left, ban = self.ctban_left(client), self.ctbans[client.slot]
        if left < 0:
            self.tell(client, "\x07[jailcore]\x01 " + self.tr("JB_CtBanForever", client, ban.reason, ban.by))
        else:
            self.tell(client, "\x07[jailcore]\x01 " + self.tr("JB_CtBanLeft", client, ban.reason, ban.by, (left + 59) // 60))
        if team == 0 and client.team_index != T:
            self.world.change_team(client, T)
        return HANDLED

    # -- admin.sp -------------------------------------------------------------------------------------

    def admin_allow(self, client: Client | None) -> TypeGuard[Client]:
        if client is None:
            self.reply_tr(client, "JB_InGameOnly")
            return False
        if not self.admin_has(client):
            self.reply_tr(client, "JB_NoAccess")
            return False
        return True

    def admin_rest(self, cmd: Command, skip: int, size: int) -> str:
        raw, at = smtext.cut(cmd.args.encode(), 256), 0
        for _ in range(skip):
            _, step = smtext.break_string(raw[at:], 64)
            if step == -1:
                return ""
            at += step
        text = smtext.cut(raw[at:], size)
        return clean(smtext.strip_quotes(text).decode("utf-8", "replace")).strip(" \t\n\v\f\r")

    @staticmethod
    def digits(text: str, most: int) -> bool:
        return 0 < len(text) <= most and text.isascii() and text.isdigit()

    def length_ok(self, text: str) -> bool:
        text = smtext.fit(text, 16)
        if len(text) > 1 and text[-1] in "rR":
            return self.digits(text[:-1], 4) and int(text[:-1]) > 0
        return self.digits(text, 6)

    def admin_word(self, client: Client | None, cmd: Command, word: type[AdminWord]) -> None:
        """`!jcpardon ID [reason]`, `!jcconfirm ID`, `!jcdismiss ID [reason]`: an admin's word on one audit entry."""
        if not self.admin_allow(client):
            return
        pid = smtext.fit(cmd.arg(1), 32)
        name = word.step.capitalize()
        if not self.digits(pid, 15):
            self.reply_tr(client, f"JB_Usage{name}")
            return
        reason = self.admin_rest(cmd, 1, 192)
        self.emit(client, word.kind, self.prop(self.prop("", 320, "id", pid), 320, "reason", reason))
        self.reply_tr(client, f"JB_{name}Sent", pid)

    def cmd_ctban(self, client: Client | None, cmd: Command) -> None:
        if not self.admin_allow(client):
            return
        arg, length = smtext.fit(cmd.arg(1), 64), smtext.fit(cmd.arg(2), 16)
        if cmd.argc < 2 or not self.length_ok(length):
            self.reply_tr(client, "JB_UsageCtBan")
            return
        target = self.find_target(client, arg, True, False)
        if target is None:
            return
        length = length[:-1] + "r" if length.endswith("R") else length
        reason = self.admin_rest(cmd, 2, 192)
        props = self.prop(self.prop(f' (target "#{target.userid}")', 320, "length", length), 320, "reason", reason)
        self.emit(client, "jb_ctban", props)
        self.reply_tr(client, "JB_CtBanSent", target, length)

    def admin_target(self, client: Client | None, cmd: Command, usage: str, nobots: bool) -> Client | None:
        """Admin_Target: an admin's command naming one player; None after saying why not."""
        if not self.admin_allow(client):
            return None
        if cmd.argc < 1:
            self.reply_tr(client, usage)
            return None
        return self.find_target(client, smtext.fit(cmd.arg(1), 64), nobots, False)

    def cmd_unctban(self, client: Client | None, cmd: Command) -> None:
        target = self.admin_target(client, cmd, "JB_UsageUnCtBan", True)
        if target is not None:
            self.emit(client, "jb_unctban", f' (target "#{target.userid}")')
            self.reply_tr(client, "JB_UnCtBanSent", target)

    def reply_ban(self, client: Client | None, other: Client) -> None:
        self.reply(client, "[jailcore] " + smtext.fit(self.ctban_describe(other, client), 256, utf8=False))

    def list_bans(self, client: Client) -> bool:
        found = False
        for other in self.world.clients():
            if self.ctban_left(other) != 0:
                self.reply_ban(client, other)
                found = True
        return found

    def cmd_ctbans(self, client: Client | None, cmd: Command) -> None:
        if self.admin_allow(client) and not self.list_bans(client):
            self.reply_tr(client, "JB_CtBansNone")

    def cmd_isbanned(self, client: Client | None, cmd: Command) -> None:
        target = self.admin_target(client, cmd, "JB_UsageIsBanned", False)
        if target is None:
            return
        if self.ctban_left(target) == 0:
            self.reply_tr(client, "JB_NotCtBanned", target)
        else:
            self.reply_ban(client, target)

    def cmd_jcstatus(self, client: Client | None, cmd: Command) -> None:
        if not self.admin_allow(client):
            return
        if self.last_hud:
            self.reply_tr(client, "JB_StatusHud", self.last_hud)
        else:
            self.reply_tr(client, "JB_StatusNoHud")
        if self.last_command:
            self.reply_tr(client, "JB_StatusLink", int(self.world.time()) - self.last_command)
        else:
            self.reply_tr(client, "JB_StatusNoLink")
        if self.note:
            self.reply(client, "[jailcore] " + self.note)
        if not self.list_bans(client):
            self.reply_tr(client, "JB_CtBansNone")
