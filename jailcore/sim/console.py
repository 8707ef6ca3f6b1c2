"""How srcds reads console text: the command splitter (what one RCON packet or config line
becomes) and the tokenizer (what one command's arguments are, as `GetCmdArg` and
`GetCmdArgString` see them). Shared by the simulated server, the SourceMod host that runs
the plugin and the Python stand-in, so all three read a command alike.

From the engine's sources (`Cbuf` splitting, tier1 `CCommand::Tokenize`, `CUtlBuffer::
ParseToken`): no escape character; `"` toggles quoting; outside quotes `;` splits and `//`
starts a comment; a newline always splits; each of `{}()':` outside quotes is a token of its
own; a command of 511 bytes or more is dropped; at most 64 arguments.
"""

from __future__ import annotations

import attrs

MAX_COMMAND = 511  # COMMAND_MAX_LENGTH - 1: a longer command is skipped with a warning
MAX_ARGC = 64
BREAKS = frozenset("{}()':")


def split_commands(line: str) -> list[str]:
    """The engine's command splitter: `"` toggles quoting, `;` splits outside quotes,
    a newline always splits, `//` outside quotes starts a comment."""
    out: list[str] = []
    cur: list[str] = []
    quoted, i = False, 0
    while i < len(line):
        ch = line[i]
        if ch == "\n":
            out.append("".join(cur))
            cur, quoted = [], False
        elif ch == '"':
            quoted = not quoted
            cur.append(ch)
        elif not quoted and ch == ";":
            out.append("".join(cur))
            cur = []
        elif not quoted and line.startswith("//", i):
            j = line.find("\n", i)
            if j < 0:
                break
            i = j
            continue
        else:
            cur.append(ch)
        i += 1
    out.append("".join(cur))
    return [c.strip() for c in out if c.strip()]


@attrs.frozen
class Command:
    """One tokenized command: `argv[0]` is its name; `args` is the raw text from the first
    argument on (its opening quote kept), as `GetCmdArgString` returns it."""

    argv: tuple[str, ...]
    args: str

    @property
    def name(self) -> str:
        return self.argv[0] if self.argv else ""

    @property
    def argc(self) -> int:
        """The number of arguments after the name (a command callback's `args`)."""
        return max(len(self.argv) - 1, 0)

    def arg(self, n: int) -> str:
        return self.argv[n] if 0 <= n < len(self.argv) else ""


def _space(ch: str) -> bool:
    return ch <= " "


def parse(text: str) -> Command | None:
    """Tokenize one command as `CCommand::Tokenize` does; None for one the engine drops."""
    if len(text.encode("utf-8")) >= MAX_COMMAND:
        return None
    argv: list[str] = []
    args_at = -1
    i, n = 0, len(text)
    while len(argv) < MAX_ARGC:
        while i < n and _space(text[i]):
            i += 1
        if i >= n or text.startswith("//", i):
            break
        start = i
        if text[i] == '"':
            end = text.find('"', i + 1)
            token = text[i + 1 :] if end < 0 else text[i + 1 : end]
            i = n if end < 0 else end + 1
        elif text[i] in BREAKS:
            token, i = text[i], i + 1
        else:
            while i < n and not _space(text[i]) and text[i] not in BREAKS and text[i] != '"':
                i += 1
            token = text[start:i]
        if len(argv) == 1:
            args_at = start
        argv.append(token)
    return Command(tuple(argv), text[args_at:] if args_at >= 0 else "")


def tokenize(command: str) -> list[str]:
    """The arguments of one command, its name first."""
    parsed = parse(command)
    return list(parsed.argv) if parsed is not None else []
