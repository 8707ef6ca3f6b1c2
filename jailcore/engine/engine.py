"""The rule engine: events in, actions out. Sans-IO.

Contract: `Engine.handle(event) -> list[Action]`. Everything that affects a decision lives
in `State` (`state.py`), which `snapshot()` turns into JSON and `Engine(config, snapshot)`
takes back exactly; time comes only from the events' own timestamps. No sockets, no
clock, no globals: the same engine serves `run`, `replay` and the tests.

For each event the engine, in this order:
1. drops a line it has already handled (UDP duplicates, a log read twice);
2. lets the rules with a clock tick to the event's time;
3. offers a proposal (a game, a prohibition, a special day) to the rules that may refuse
   it: the first refusal is the answer, and the proposal is not recorded;
4. brings the shared facts up to date (`bookkeeping.py`);
5. passes the event to the enabled rules that handle its type, in `rules.ORDER`;
6. finishes the bookkeeping that must wait for the rules, and shows the HUD again when
   what it shows has changed.
The table of who handles what is built at construction and on every reload.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from jailcore.engine import admin, ledger, proposals, sequence
from jailcore.engine.actions import Action, Hud
from jailcore.engine.bookkeeping import STOP, Bookkeeping
from jailcore.engine.context import Context
from jailcore.engine.public import public
from jailcore.engine.punish import door_action, move_to_t, network_ban, time_left
from jailcore.engine.rules import ORDER
from jailcore.engine.settings import ServerRules
from jailcore.engine.state import CT, Seat, State, dump, restore
from jailcore.log import events as ev
from jailcore.log.inbound import NetworkBan, Refusals, ctban_message, strict, typed
from jailcore.log.shapes import ShimStatus

# Events that never change what the HUD shows unless a rule acted on them.
QUIET = frozenset({ev.Attacked, ev.Chat, ev.Threw, ev.Validated, ev.Entered, ev.Connected, ev.GagChanged})

ROUND_LINES = (ev.RoundBegins, ev.RoundStart, ev.FreezeStarted)

Handler = Callable[[Context, Any], Sequence[Action | ledger.Entry]]
Veto = Callable[[Context, Any], "list[Action] | None"]


class Engine:
    def __init__(self, config: ServerRules, snapshot: dict[str, Any] | None = None):
        states = {rule.key: rule.State for rule in ORDER if rule.State is not None}
        self.refused, self.refused_status = Refusals("a network CT ban"), Refusals("the shim's jb_status reply")  # from outside, did not fit
        self.state = restore(snapshot, states, Refusals("a saved CT ban (the rest of the state is kept)")) if snapshot else State()
        for key, cls in states.items():
            self.state.rules.setdefault(key, cls())
        self.ctx = Context(config, self.state)
        self._last: ev.Parsed | None = None
        self._hud_key: tuple[object, ...] | None = None  # what the HUD showed, cheaper to compare than its text
        self.reconfigure(config)

    # -- public --------------------------------------------------------------------------

    def reconfigure(self, config: ServerRules) -> None:
        """A new rule set for the same server; the state (calendar, ladders, bans) stays."""
        self.config = config
        self.ctx.take(config)
        self.rules = [rule(config.rules[rule.key], self.state.rules.get(rule.key)) for rule in ORDER]
        self.books = Bookkeeping(self.ctx, self.rules)
        enabled = [rule for rule in self.rules if rule.settings.enabled]
        self._tickers = [rule.tick for rule in enabled if rule.ticks]
        routes: dict[type, tuple[list[Veto], Callable[..., Any] | None, list[Handler], Callable[..., Any] | None]] = {}
        types = {t for rule in enabled for t in (*rule.handlers, *rule.vetoers)} | set(self.books.before) | set(self.books.after)
        types |= {ev.ShimHello, *ev.shim_events()}  # every shim line, for its seq: a gap is a lost line
        for t in types:  # an admin's word in game (`ev.ADMIN_WORDS`) travels the table like any line
            vetoes = [getattr(r, name) for r in enabled for name in r.vetoers.get(t, ())]
            handlers = [getattr(r, name) for r in enabled for name in r.handlers.get(t, ())]
            if t in ev.ADMIN_WORDS:
                handlers.append(admin.asked)
            routes[t] = (vetoes, self.books.before.get(t), handlers, self.books.after.get(t))
        self._routes = routes

    def needed_kinds(self) -> frozenset[str]:
        """The event kinds that some enabled rule or the bookkeeping reads: the parser
        need not build the others."""
        return frozenset(t.kind for t in self._routes if issubclass(t, ev.Event))

    def handle(self, event: ev.Parsed) -> list[Action]:
        route = self._routes.get(type(event))
        if route is None:
            return []
        # A line that arrives twice (UDP may duplicate, a restart may replay) must not
        # punish twice: an event equal to the one before it is the same line again.
        if event == self._last or (self._last is None and self.state.last_line is not None and self._same_as_saved(event)):
            return []
        self._last = event
        s = self.state
        if isinstance(event, ev.ShimEvent) and sequence.seen(self.ctx, event) == sequence.AGAIN:
            return []
        s.time = event.time
        out: list[Action] = proposals.lapse_due(self.ctx) if s.proposals else []
        if s.round_open:
            for tick in self._tickers:
                out += ledger.take(s, tick(self.ctx, event.time))
        if type(event) is ev.ShimHello:
            sequence.hello(self.ctx, event)
            return out
        if type(event) in ROUND_LINES:  # read in the game's order: the round, or its freeze's end
            event = self.books.lines.read(event)  # type: ignore[arg-type,assignment]
            if event is None:
                return out
            route = self._routes[type(event)]
        vetoes, before, handlers, after = route
        if type(event) is ev.GameStarted and self._map_game(event.game):
            vetoes = []  # 000 6.0 «Игры на картах не в счет»
        for veto in vetoes:
            refused = veto(self.ctx, event)
            if refused is not None:
                return self._shown(out + refused)
        if before is not None and before(event) is STOP:
            return out
        for handler in handlers:
            out += ledger.take(s, handler(self.ctx, event))  # what it found of the shared facts written before the next rule
        if after is not None:
            out += after(event) or []
        if not out and type(event) in QUIET:
            return out
        return self._shown(out)

    def snapshot(self) -> dict[str, Any]:
        self.state.last_line = repr(self._last) if self._last is not None else self.state.last_line
        return dump(self.state)

    @property
    def day(self) -> int:
        return self.ctx.day

    @property
    def week(self) -> int:
        return self.ctx.week

    def public_state(self) -> dict[str, Any]:
        """The standing state as `replay --state`, MQTT and the web page show it."""
        return public(self.ctx)

    def shim_state(self) -> dict[str, Any]:
        """The plugin's version and its lost lines, as `status` and the web page show them."""
        return sequence.public(self.ctx)

    @property
    def resync_wanted(self) -> bool:
        """Set when the shim's seq jumps, it says hello, or a rule asks: the daemon asks `jb_status`."""
        return self.ctx.resync_wanted

    @resync_wanted.setter
    def resync_wanted(self, wanted: bool) -> None:
        self.ctx.resync_wanted = wanted

    def apply_status(self, status: ShimStatus | Mapping[str, Any]) -> list[Action]:
        """Reconcile with the shim's `jb_status` reply (after a restart or lost lines); a misfit changes nothing."""
        checked = status if isinstance(status, ShimStatus) else typed(ShimStatus, status, self.refused_status, "jb_status")
        if checked is None:
            return []
        self.books.reconcile(strict.unstructure(checked))
        self.resync_wanted = False
        self.state.hud, self._hud_key = "", None
        return self._shown([])

    def pardon(self, entry: dict[str, Any], by: str, reason: str) -> list[Action]:
        """An admin undoes one enforcement (`entry`: its action's JSON)."""
        self.state.time = max(self.state.time, str(entry.get("time", "")))
        return self._shown(admin.pardon(self.ctx, entry, by, reason))

    def confirm(self, number: int, by: str) -> tuple[list[Action], str | None]:
        """An admin confirms proposal `number` (see `admin.confirm`)."""
        out, why = admin.confirm(self.ctx, number, by)
        return self._shown(out) if out else out, why

    def dismiss(self, number: int) -> bool:
        return admin.dismiss(self.ctx, number)

    def give_ctban(self, steamid: str, name: str, minutes: int | None, rounds: int | None, reason: str, by: str) -> list[Action]:
        """An admin's CT ban from outside the game (`jailcore ctban add`)."""
        key = ev.player_key(steamid, 0)
        seat = self.ctx.online(key) or Seat(0, steamid, name)
        out = admin.give_ctban(self.ctx, seat, minutes, rounds, reason, by)
        return self._shown([a for a in out if a.target is None or a.target.userid])

    def lift_ctban(self, steamid: str, by: str, reason: str = "") -> list[Action]:
        return admin.lift_ctban(self.ctx, ev.player_key(steamid, 0), by, reason)

    def door(self) -> list[Action]:
        """The CT bans of the players online, for the shim to hold (after hello and resync)."""
        return admin.door(self.ctx)

    def import_ctban(self, ban: NetworkBan | Mapping[str, Any]) -> list[Action]:
        """A CT ban made on another server of the network: kept here too, and a guard it names is moved
        off CT at once. Plain JSON is typed first (`log.inbound`): a misfit is refused, never stored."""
        ban = ban if isinstance(ban, NetworkBan) else ctban_message(ban, self.refused, "network CT ban")  # type: ignore[assignment]
        if not isinstance(ban, NetworkBan):
            return []
        record = network_ban(self.ctx, ban)
        key = ev.player_key(record.steamid, 0)
        # One account, one ban, under the form this game writes (a CS:S ban seen on CS:GO).
        for other in ev.same_account(key):
            self.state.ctbans.pop(other, None)
        seat = self.ctx.online(key)
        if seat is not None:
            key, record.steamid = seat.key, seat.steamid
        self.state.ctbans[key] = record
        if seat is None:
            return []
        out: list[Action] = [door_action(self.ctx, seat, record)]  # online here: the shim holds it at the door
        if seat.team == CT and self.config.on("ctban"):
            reason = self.ctx.quoting(record.ref, self.ctx.text("ctban", left=time_left(self.ctx, record)))
            out += move_to_t(self.ctx, seat, "ctban", record.ref, reason, block=False)
        return self._shown(out)

    # -- inside --------------------------------------------------------------------------

    def _map_game(self, typed: str) -> bool:
        return self.ctx.offered_game(typed) is None and self.ctx.map_game(typed)

    def _same_as_saved(self, event: ev.Parsed) -> bool:
        """The first line after a restore, compared with the last one before the snapshot."""
        same = repr(event) == self.state.last_line
        self.state.last_line = None
        if same:
            self._last = event  # a third copy is still the same line
        return same

    def _shown(self, out: list[Action]) -> list[Action]:
        """The actions, and the HUD line once more if what it shows has changed."""
        s, ctx = self.state, self.ctx
        warden = ctx.warden
        key = (warden and warden.name, s.round, tuple(o.text for o in s.orders), tuple(p.text for p in s.prohibitions), s.game and s.game.name)
        if key == self._hud_key:
            return out
        self._hud_key = key
        text = ctx.hud_line()
        if text != s.hud:
            s.hud = text
            out.append(ctx.everyone(Hud, "hud", "", text))
        return out

