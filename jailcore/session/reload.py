"""A config file read again, as the session takes it: all of it or none of it, and either
way said (`Session.reloads`, and the log).

Contract: `reread(session, read)` gives the effects of one reading, in order: the log filter
and the RCON settings of the new config (`Refilter`, `Rearm`), then what re-judging under it
gives (`Session.reconfigure`: a command the new config would not send is marked `dropped`).
What a running daemon cannot change (its log socket, its state database, its MQTT link, its
name: `RESTART_ONLY`) is named in a warning and takes effect after a restart. A refused file
changes nothing; SIGHUP still tries the RCON password again and re-judges under the running
config, with a file or without one.
"""

from __future__ import annotations

import logging
from typing import Protocol

from jailcore.config.config import Config
from jailcore.session.effects import Effect, Rearm, Refilter
from jailcore.session.inputs import ConfigRead

log = logging.getLogger("jailcore")

RESTART_ONLY = ("log_listen", "log_file", "state_path", "mqtt_url", "server_name")  # the RCON ones apply at once


class Session(Protocol):
    config: Config
    reloads: list[str]

    def reconfigure(self, config: Config) -> list[Effect]: ...


def reread(s: Session, read: ConfigRead) -> list[Effect]:
    new, old = read.config, s.config
    if new is None:
        if read.path is not None:
            s.reloads.append(note := f"config {read.path} refused, the running config stays: " + "; ".join(read.problems))
            log.error("%s", note)
        return [Rearm(), *s.reconfigure(old)] if read.why == "SIGHUP" else []
    if fixed := [k for k in RESTART_ONLY if getattr(new, k) != getattr(old, k)]:
        log.warning("config %s: %s take effect only after a restart", read.path, ", ".join(fixed))
    changed = sorted(k for k in new.rules if new.rules[k] != old.rules.get(k))
    out: list[Effect] = [Refilter(new.log_secret, new.log_allow), Rearm(new.rcon_host, new.rcon_port, new.rcon_password, new.rcon_timeout)]
    out += s.reconfigure(new)
    s.reloads.append(note := f"config {read.path} reloaded ({read.why}): mode {new.mode}, language {new.language}; "
                             f"rules changed: {', '.join(changed) or 'none'}")
    log.info("%s", note)
    return out
