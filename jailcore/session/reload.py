"""A config file read again, as the session takes it: all of it or none of it, and either
way said (`Session.reloads`, and the log).

Contract: `Reload.reread(read)` gives the effects of one reading, in order: the log filter
and the RCON settings of the new config (`Refilter`, `Rearm`), then what re-judging under it
gives (`reconfigure`: a command the new config would not send is marked `dropped`).
What a running daemon cannot change (its log socket, its state database, its MQTT link, its
name: `RESTART_ONLY`) is named in a warning and takes effect after a restart. A refused file
changes nothing; SIGHUP still tries the RCON password again and re-judges under the running
config, with a file or without one.
"""

from __future__ import annotations

import logging

from jailcore.config.config import Config
from jailcore.log.parse import LogParser
from jailcore.session.audit import Audit
from jailcore.session.commands import Commands
from jailcore.session.effects import Effect, Rearm, Refilter
from jailcore.session.inputs import ConfigRead
from jailcore.session.outbox import Item, Outbox
from jailcore.session.saver import Saver
from jailcore.session.shared import Part, Shared

log = logging.getLogger("jailcore")

RESTART_ONLY = ("log_listen", "log_file", "state_path", "mqtt_url", "server_name")  # the RCON ones apply at once


class Reload(Part):
    def __init__(self, shared: Shared, outbox: Outbox, saver: Saver, audit: Audit, commands: Commands, parser: LogParser):
        self.shared, self.outbox, self.saver, self.audit, self.commands, self.parser = shared, outbox, saver, audit, commands, parser
        self.reloads: list[str] = []  # what each reading of the config file did, for admins and tests

    def reread(self, read: ConfigRead) -> list[Effect]:
        new, old = read.config, self.config
        if new is None:
            if read.path is not None:
                self.reloads.append(note := f"config {read.path} refused, the running config stays: " + "; ".join(read.problems))
                log.error("%s", note)
            return [Rearm(), *self.reconfigure(old)] if read.why == "SIGHUP" else []
        if fixed := [k for k in RESTART_ONLY if getattr(new, k) != getattr(old, k)]:
            log.warning("config %s: %s take effect only after a restart", read.path, ", ".join(fixed))
        changed = sorted(k for k in new.rules if new.rules[k] != old.rules.get(k))
        out: list[Effect] = [Refilter(new.log_secret, new.log_allow), Rearm(new.rcon_host, new.rcon_port, new.rcon_password, new.rcon_timeout)]
        out += self.reconfigure(new)
        self.reloads.append(note := f"config {read.path} reloaded ({read.why}): mode {new.mode}, language {new.language}; "
                                    f"rules changed: {', '.join(changed) or 'none'}")
        log.info("%s", note)
        return out

    def reconfigure(self, new: Config) -> list[Effect]:
        """The config in force from now on: the engine takes its rules, and what waits is judged again."""
        self.shared.config = new
        self.engine.reconfigure(new)
        self.parser.need(self.engine.needed_kinds())

        def why(item: Item) -> str | None:
            if item.action is None:
                return None
            if item.tag is None:  # the display line and the door's copies: nothing to send in observe mode
                return "observe" if new.mode == "observe" else None
            return self.commands.not_allowed(item.action)

        out = self.audit.ended(self.outbox.sweep(why, "dropped"))
        self.commands.resync()
        self.saver.reconfigured(new)
        return out + self.commands.flush()
