"""The two things of a session that move through states, each as named states with one table of
the steps between them: the round as the session sees it, and a command in the outbox.

The round's state is the engine's (round_open, the freeze's end, the warm-up: `engine/state.py`);
the session only names it (`round_phase`) and looks up, at each line, what the step from the phase
before to the phase after means for it (`ROUND`): nothing to save now (a plain line: the snapshot
comes within its interval), a round that changed (saved at the next tick), or a round that ended
(saved, and the commands bound to it expire). A command moves through `COMMAND` only; a step the
table does not hold is a bug of ours and raises (`PhaseError`), never a silent state.
"""

from __future__ import annotations

import enum

from jailcore.engine.state import State
from jailcore.log.errors import StateError


class Round(enum.Enum):
    RESTARTING = "restarting"  # the warm-up: the game restarts its rounds, none of them is a day
    FREEZE = "freeze"  # a round began, its freeze time runs: neither warden time nor game time
    PLAY = "play"
    ENDED = "ended"  # between two rounds (or before the first)


class Step(enum.Enum):
    DRIFT = "drift"  # only the time and who is online moved: saved within the snapshot interval
    CHANGED = "changed"  # the round changed: saved at the next tick
    ENDED = "ended"  # the round ended (or was cut short): saved, and what is bound to it expires


OPEN = frozenset({Round.FREEZE, Round.PLAY})  # a round is being played (the engine's `round_open`)


def round_phase(state: State) -> Round:
    if state.round_open:
        return Round.FREEZE if state.time < state.play_from else Round.PLAY
    return Round.RESTARTING if state.warmup else Round.ENDED


_D, _C, _E = Step.DRIFT, Step.CHANGED, Step.ENDED
# (phase before, phase after) -> the step within the same round, and the step to another round's number.
ROUND: dict[tuple[Round, Round], tuple[Step, Step]] = {
    (Round.FREEZE, Round.FREEZE): (_D, _E), (Round.FREEZE, Round.PLAY): (_D, _E),
    (Round.FREEZE, Round.ENDED): (_E, _E), (Round.FREEZE, Round.RESTARTING): (_E, _E),
    (Round.PLAY, Round.FREEZE): (_D, _E), (Round.PLAY, Round.PLAY): (_D, _E),
    (Round.PLAY, Round.ENDED): (_E, _E), (Round.PLAY, Round.RESTARTING): (_E, _E),
    (Round.ENDED, Round.FREEZE): (_C, _C), (Round.ENDED, Round.PLAY): (_C, _C),
    (Round.ENDED, Round.ENDED): (_D, _C), (Round.ENDED, Round.RESTARTING): (_D, _C),
    (Round.RESTARTING, Round.FREEZE): (_C, _C), (Round.RESTARTING, Round.PLAY): (_C, _C),
    (Round.RESTARTING, Round.ENDED): (_D, _C), (Round.RESTARTING, Round.RESTARTING): (_D, _C),
}


def round_step(before: tuple[Round, int], after: tuple[Round, int]) -> Step:
    same, other = ROUND[before[0], after[0]]
    return same if before[1] == after[1] else other


class Command(enum.Enum):
    QUEUED = "queued"  # waits for the link, or for room in the window
    FLYING = "flying"  # given to the driver, which holds it until the rows before it are durable
    SENT = "sent"  # it left for the game on this RCON session: its answer is awaited from then
    ANSWERED = "answered"  # the game answered (`delivered`, or `failed` by the shim's word)
    EXPIRED = "expired"  # ended without an answer: its moment passed, dropped, or given up after its tries


class PhaseError(StateError, RuntimeError):
    """A command asked to take a step its state does not have: a bug of ours, not of the input."""


COMMAND: dict[tuple[Command, str], Command] = {
    (Command.QUEUED, "flush"): Command.FLYING,
    (Command.QUEUED, "expire"): Command.EXPIRED,  # a flush or a sweep found its moment passed
    (Command.FLYING, "left"): Command.SENT,
    (Command.FLYING, "lost"): Command.QUEUED,  # the link went before it left: no try spent
    (Command.FLYING, "answer"): Command.ANSWERED,
    (Command.SENT, "lost"): Command.QUEUED,  # sent again on the next session (its id makes the repeat run once)
    (Command.SENT, "answer"): Command.ANSWERED,
}


def command_step(phase: Command, step: str) -> Command:
    after = COMMAND.get((phase, step))
    if after is None:
        raise PhaseError(f"a command that is {phase.value} cannot take the step {step!r}")
    return after
