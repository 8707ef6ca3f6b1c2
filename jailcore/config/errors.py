"""The config's one error, apart from the config itself, so a command can catch it without
loading every rule (the command line starts in a few milliseconds for `--help`)."""

from __future__ import annotations


class ConfigError(ValueError):
    """The config file is wrong; `problems` lists each as `file:line: key: why`."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems
