"""What every rule may read and do.

Contract: a rule sees the server only through a `Context`: the players and teams, the
round, day and week, the warden, the round's orders, prohibitions and game (`state`, read
only for rules), the config, and the few things it may do: build an action, announce,
punish (climb the offender's ladder, in `punish.py`), end the warden's term. The engine
owns one `Context` and updates it; rules never keep it. Everything but punishing lives in
`Scene` (`scene.py`), which is all `punish.py` needs.
"""

from __future__ import annotations

from jailcore.engine.actions import Action
from jailcore.engine.ladder import Step
from jailcore.engine.punish import next_step, punish
from jailcore.engine.scene import Scene
from jailcore.engine.state import Seat


class Context(Scene):
    def punish(self, key: str, seat: Seat, text: str, ref: str | None = None, judgement: bool = False) -> list[Action]:
        """Climb the offender's ladder for this rule and carry out the step he reached (or,
        for a `judgement` or a rule with `confirm = "admin"`, put that step to an admin)."""
        return punish(self, key, seat, text, ref, judgement)

    def next_step(self, key: str, seat: Seat) -> Step:
        """The step his next offence against this rule would reach (the ladder unclimbed)."""
        return next_step(self, key, seat)
