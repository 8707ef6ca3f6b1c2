"""What a rule is: a small class with its config key, its typed settings, its own state,
and the events it handles.

A rule reads the server through `Context` (players, teams, round, day, warden, game) and
changes only its own `state` and what `Context` lets it do (punish, announce): what it
finds about the shared facts (an order that stands, a game decided or over, a freeday
owed) it returns beside its actions as `ledger.py`'s entries, which the engine writes. Its
settings class is also the config schema: `config.py` validates a rule's TOML table
against the same declaration, so a key the rule does not read is refused at load time.

    class GrenadeSpam(Rule["GrenadeSpam.Settings", None]):
        key = "conduct.grenade_spam"

        @attrs.frozen
        class Settings(RuleSettings):
            ref: str = "Общие 22"
            count: int = 3
            ladder: Ladder = steps("slay", "ban 10m")

        @handles(ev.Threw)
        def threw(self, ctx, e): ...

`Rule[SettingsT, StateT]` names the rule's own settings and state classes (strings: they
are nested in the class being defined), so `self.settings.count` is checked by mypy.
`@handles(EventType)` marks a method `(ctx, event) -> list[Action | Entry]` called after
the shared bookkeeping of that event; `@vetoes(EventType)` marks one that may refuse a
proposal (a game, a prohibition) before it is recorded: it returns the refusal's actions,
or None to let it pass. `tick(ctx, now)` is for rules with a clock.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from jailcore.engine.settings import RuleSettings

if TYPE_CHECKING:
    from jailcore.engine.actions import Action
    from jailcore.engine.context import Context
    from jailcore.engine.ledger import Entry

SettingsT = TypeVar("SettingsT", bound=RuleSettings)
StateT = TypeVar("StateT")
Method = TypeVar("Method", bound=Callable[..., Any])


def handles(*types: type) -> Callable[[Method], Method]:
    def mark(method: Method) -> Method:
        method.__handles__ = types  # type: ignore[attr-defined]
        return method

    return mark


def vetoes(*types: type) -> Callable[[Method], Method]:
    def mark(method: Method) -> Method:
        method.__vetoes__ = types  # type: ignore[attr-defined]
        return method

    return mark


class Rule(Generic[SettingsT, StateT]):
    key: ClassVar[str]
    Settings: ClassVar[type[RuleSettings]] = RuleSettings
    State: ClassVar[type[Any] | None] = None
    ticks: ClassVar[bool] = False
    handlers: ClassVar[dict[type, list[str]]]
    vetoers: ClassVar[dict[type, list[str]]]

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        cls.handlers, cls.vetoers = {}, {}
        members: dict[str, Any] = {}
        for klass in reversed(cls.__mro__):  # a subclass inherits its parent's handlers
            members.update(vars(klass))
        for name, member in members.items():
            for t in getattr(member, "__handles__", ()):
                cls.handlers.setdefault(t, []).append(name)
            for t in getattr(member, "__vetoes__", ()):
                cls.vetoers.setdefault(t, []).append(name)
        cls.ticks = cls.tick is not Rule.tick

    def __init__(self, settings: SettingsT, state: StateT):
        self.settings = settings
        self.state = state

    @property
    def ref(self) -> str:
        return self.settings.ref

    # Moments of the calendar every rule may care about; the engine tells every rule,
    # switched on or not, so a rule switched on again does not start from stale state.
    def round_cleared(self, ctx: Context) -> None:
        """The round is over (ended, restarted or cut by a map change)."""

    def week_started(self, ctx: Context) -> None:
        """Monday of a new game week."""

    def calendar_reset(self, ctx: Context) -> None:
        """A map change that starts the round count again (`reset_on_map_change`)."""

    def tick(self, ctx: Context, now: str) -> Sequence[Action | Entry]:
        return []
