"""The one root of jailcore's errors, and its families.

It lives on the lowest floor (it imports nothing) so every layer can raise and catch the
same classes without an upward import. A concrete error stays in the module that raises
it and names its family here; a caller that only needs to know "jailcore refused this"
catches `JailcoreError`. Families that stood in for a built-in before keep it as a second
base (`ValueError`...), so no existing `except` changes meaning.

    JailcoreError
    ├── ConfigError        a config file or a setting (config.ConfigError is this one; LadderError,
    │                      the web page's SourceError and EditError)
    ├── StateError         the state database or a snapshot (StoreError, LockedError, SnapshotError)
    ├── AuditError         the audit log cannot be read as asked
    ├── ProtocolError      what a peer sent is not what the protocol says (Malformed log lines,
    │                      RconProtocolError, LogFileError)
    ├── LinkError          a peer is not there (RconUnavailable, RconAuthError, NetworkError)
    ├── LimitError         a value past a hard limit (a console command over 511 bytes, a
    │                      web form too large: TooLarge)
    ├── AdminRequestError  an admin's request refused (PardonError, CtbanError, the web
    │                      page's Forbidden and NotAllowed)
    ├── InputError         what a player typed is not what was asked (NotArithmetic)
    └── PluginError        the SourceMod plugin in the simulated host (BuildError, NativeError,
                           PhraseError)
"""

from __future__ import annotations


class JailcoreError(Exception):
    """Anything jailcore refuses or fails at on purpose."""


class ConfigError(JailcoreError, ValueError):
    """A config is wrong; `problems` lists each as `file:line: key: why`."""

    def __init__(self, problems: list[str] | str):
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        super().__init__("\n".join(self.problems))


class StateError(JailcoreError):
    """The state database or a state snapshot cannot be used."""


class AuditError(JailcoreError):
    """The audit log cannot be read as asked: the message says why, for an admin."""


class ProtocolError(JailcoreError):
    """A peer (the game server, the shim, whoever wrote a log file) sent something that is
    not what the protocol says."""


class LinkError(JailcoreError):
    """A peer (the game server's RCON, the MQTT broker) cannot be reached or refused us."""


class LimitError(JailcoreError, ValueError):
    """A value past a hard limit. Texts are capped before this can happen: it is the last
    word, and the caller refuses the one thing rather than fail on."""


class AdminRequestError(JailcoreError):
    """An admin's request (a pardon, a CT ban, a page) is refused: the message says why."""


class InputError(JailcoreError, ValueError):
    """What a player typed is not what was asked for."""


class PluginError(JailcoreError):
    """The SourceMod plugin, as the simulated host builds, loads or runs it, failed."""
