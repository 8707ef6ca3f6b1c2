"""`jailcore demo`: the daemon against the built-in simulated server, live.

A simulated jail server (real UDP log, real Source RCON, and the real SourceMod plugin run in
a SourcePawn VM when pysmx is installed, else its Python stand-in) plays a few days of a game
week in which the warden breaks the rules, by chat commands as players type them; the
daemon enforces them and every decision is printed as it happens, with the command the
server received. Ends by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from jailcore.cli.tail import COLOURS, paint
from jailcore.config.config import Config
from jailcore.engine.actions import Action, Propose
from jailcore.io.daemon import Daemon
from jailcore.session.audit import step_text
from jailcore.sim.simserver import SimServer
from jailcore.store import Filter

if TYPE_CHECKING:
    import uvicorn

    from jailcore.sim.world import Client
    from jailcore.web.app import Web

    # The demo's web page while it serves: the page, its server, the task serving it, and the line that says how to log in.
    Page = tuple[Web, uvicorn.Server, asyncio.Task[None], str]


class DemoWeb(TypedDict):
    """`demo --web`: where the page listens, and how long it keeps serving after the demo (None: until Ctrl-C)."""

    listen: str
    seconds: float | None


def _clean(chat: str) -> str:
    """A chat line without SourceMod's colour bytes."""
    return chat.replace("\x01", "").replace("\x04", "").replace("\x07", "")


def _paint(text: str, code: str | None) -> str:
    return paint(text, code, sys.stdout.isatty())


async def _demo(rounds: int, lang: str, pause: float, web: DemoWeb | None = None) -> int:
    sim = SimServer(password="demo-password")
    print(_paint(f"* simulated server: {sim.shim_note}", "2"))
    port = await sim.start()
    with tempfile.TemporaryDirectory(prefix="jailcore-demo-") as tmp:
        # The demo's own config, as a file the daemon watches (as `jailcore run --config` does): the
        # web page's config editor saves to it, and the daemon takes the change within a second.
        path = Path(tmp) / "demo.toml"
        path.write_text(
            f'[server]\nname = "demo"\nrulebook = "all"\nlanguage = "{lang}"\n[rcon]\nport = {port}\npassword = "demo-password"\n'
            f'[log]\nlisten = "127.0.0.1:0"\n[state]\npath = "{Path(tmp) / "demo.sqlite3"}"\n'
            # a warden moved for his games has commanded badly: 001 guards 11 blocks his return
            '[ctban.return_block]\nafter = ["teams.balance", "games.online_limit"]\n'
            # as 001 has it: a ban for ever is a judgement an admin confirms
            '[conduct.advertising]\nref = "Общие 19"\nconfirm = "admin"\n',
            encoding="utf-8",
        )
        path.chmod(0o600)  # it holds the RCON password
        config = Config.from_toml(path, {})

        def show(action: Action, command: str | None, status: str) -> None:
            who = f"{action.target.name} #{action.target.userid}" if action.target else "всем" if lang == "ru" else "everyone"
            head = _paint(f"{action.action.upper():9}", COLOURS.get(action.action))
            print(f"  {head} round {action.round} [{action.rule} {action.ref}] -> {who}")
            print(f"            {action.reason}")
            if isinstance(action, Propose):
                print(_paint(f"            waits for an admin ({step_text(lang, action.step)}); nothing is sent to the game until one confirms", "2"))

        def received(command: str) -> None:
            if not command.startswith(("jb_hud", "jb_status", "jb_adminfeed", "jb_ctban_set")):
                print(_paint(f"            server got: {command}", "2"))

        sim.on_command = received
        daemon = Daemon(config, on_action=show, rcon_backoff=(0.1, 1.0), config_path=str(path))
        task = asyncio.create_task(daemon.run())
        await daemon.ready.wait()
        await sim.log_to_daemon(("127.0.0.1", daemon.log_port))
        page = await _start_web(config, lang, web["listen"]) if web else None

        async def step(title: str, write: Callable[[], object]) -> None:
            if daemon.stopping.is_set():  # SIGTERM or Ctrl-C during the demo
                return
            print(_paint(f"* {title}", "1"))
            write()
            sim.flush()
            await asyncio.sleep(pause)
            await asyncio.wait_for(daemon.idle.wait(), 5)

        warden = sim.add_player("Начальник", "CT")
        guard = sim.add_player("Охранник", "CT")
        for i in range(9):
            sim.add_player(f"Зек {i + 1}", "T")

        def says(who: Client, *lines: str) -> None:
            for line in lines:
                sim.say(who, line)

        def new_round(who: Client) -> None:
            sim.round_end()
            sim.round_start()
            sim.make_warden(who)  # types !w

        try:
            await step("Round 1, Monday: the warden starts a game on the freeday", lambda: (
                sim.round_start(), sim.make_warden(warden), says(warden, "!игра Математика")))
            await step("Round 2: orders replace each other; a third prohibition is refused", lambda: (
                new_round(warden), says(warden, "!приказ Все в клетки", "!order Сесть", "!запрет Не прыгать",
                                        "!prohibit Не бегать", "!prohibit Не стрелять")))
            await step("Round 2: «Король» with 9 prisoners online (004 5.17), then a special day", lambda: (
                says(warden, "!game Король", "!sd Прятки")))
            if rounds >= 3:
                await step("Round 3: another special day, only one round later (000 6.5)", lambda: (
                    new_round(warden), says(warden, "!од Голодные игры")))
            if rounds >= 4:
                await step("Round 4: a new warden: an unknown game, then «Король» and «Повар»: warning, then teamswap", lambda: (
                    new_round(guard), says(guard, "!game Бадминтон", "!game Король", "!game Повар")))
                await step("The moved guard tries to go back to CT at once (001 guards 11)", lambda: (
                    print(f"  {'the shim refuses him at the door' if not sim.join(guard, 'CT') else 'he gets in'}: "
                          f"{_clean((guard.chat or [''])[-1])}"),))
            if rounds >= 5:
                prisoners = [p for p in sim.players.values() if p.team == "TERRORIST" and p.alive][:2]
                await step("Round 5: «Математика»: the referee names the first right answer, with the proof", lambda: (
                    new_round(warden), says(warden, "!order Все к стене", "!game Математика", "2+2*2"),
                    says(prisoners[0], "8"), says(prisoners[1], "\x046")))
            admin = sim.add_player("Смотритель", "Spectator", admin="b")  # an admin watching, with the flag of sm_jailcore_admin_flag
            await step("A prisoner advertises another server: a ban for ever is proposed to the admins, not given (001 Общие 19)", lambda: (
                says([p for p in sim.players.values() if p.team == "TERRORIST"][-1], "заходите к нам: 212.129.25.133:27015"),))
            proposals = daemon.store.entries(Filter(action="propose"))
            if proposals and page is not None:
                print(f"  it waits on the web page under «На решение» (#{proposals[-1]['id']}): confirm or dismiss it there")
            elif proposals:
                number = proposals[-1]["id"]
                await step(f"The admin online reads it in his chat and dismisses it (!jcdismiss {number}; or jailcore confirm|dismiss {number})", lambda: (
                    print(f"  {_clean(next((x for x in admin.chat if f'#{number}]' in x), ''))}"),
                    says(admin, f"!jcdismiss {number} это наш второй сервер")))
                await asyncio.sleep(pause)
                (answered,) = [r for r in daemon.store.entries(Filter(action="propose")) if r["id"] == number]
                print(f"  entry #{number}: {answered['status']} ({answered['reply']})")
            rows = daemon.store.entries()
            delivered = sum(1 for r in rows if r["status"] == "delivered")
            print(_paint(f"* done: {len(rows)} enforcement(s) logged, {delivered} delivered; "
                         f"round {daemon.engine.state.round}, day {daemon.engine.day}", "1"))
            if page is not None and web is not None:
                print(_paint("* the web page keeps serving" + (f" for {web['seconds']:g} s" if web["seconds"] else "; Ctrl-C stops it"), "1"))
                print(_paint(page[3], "1"))  # last: the one thing to copy is on the screen, not scrolled away
                sys.stdout.flush()
                # the daemon's SIGTERM and SIGINT handlers set `stopping`: Ctrl-C and a service manager stop it all
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(daemon.stopping.wait(), web["seconds"] or None)
        finally:
            if page is not None:
                await _stop_web(*page)
            daemon.stop()
            await task
            daemon.store.close()
            await sim.stop()
    return 0


async def _start_web(config: Config, lang: str, listen: str) -> Page:
    """The web page on the demo's database, with a one-time admin password."""
    import secrets

    from jailcore.config.config import WebConfig
    from jailcore.web.auth import hash_password
    from jailcore.web.serve import bound_port, build, server

    password = secrets.token_urlsafe(9)
    # The demo's admin owns it: every page can be tried, the config's editor and the accounts too.
    web = build([config], WebConfig(listen=listen, language=lang, users={"admin": hash_password(password)}, roles={"admin": "owner"}))
    srv = server(web, listen)
    task = asyncio.create_task(srv.serve())
    while not srv.started:
        await asyncio.sleep(0.02)
    return web, srv, task, f"* web page: http://127.0.0.1:{bound_port(srv)}/  log in as admin, password {password}"


async def _stop_web(web: Web, srv: uvicorn.Server, task: asyncio.Task[None], _login: str) -> None:
    web.stopping = srv.should_exit = True
    await task
    web.sources.close()


def main_demo(args: argparse.Namespace) -> int:
    web: DemoWeb | None = {"listen": args.listen, "seconds": args.seconds} if getattr(args, "web", False) else None
    try:
        return asyncio.run(_demo(args.rounds, args.lang, getattr(args, "pause", 0.4), web))
    except KeyboardInterrupt:
        return 0
