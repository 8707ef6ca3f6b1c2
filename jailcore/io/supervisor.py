"""One supervisor for a daemon's background tasks, over one `asyncio.TaskGroup`.

Contract: `async with Supervisor(owner) as tasks:` then `tasks.keep(name, factory)` runs
`factory()` for the owner's lifetime: a failure is logged with its reason and the task
restarts after a back-off that doubles with each failure within a minute; an essential
task that fails five times within a minute stops the owner (`owner.fail`, one line). A
A database error (`store.errors.DATABASE_ERRORS`) stops the owner at once (`owner.store_failed`): commands without their
audit rows could be neither counted once nor re-sent. `tasks.once(coro, name)` runs a
one-off whose failure is logged, never lost. Leaving the block cancels every task and
waits for it; `CancelledError` is always re-raised, so nothing outlives the block.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Protocol

from jailcore.store import DATABASE_ERRORS

log = logging.getLogger("jailcore")

STUCK_AFTER = 5.0  # seconds a cancelled task may take before it is named in the log


class Owner(Protocol):
    task_failures: list[str]
    restart_delay: float

    def fail(self, reason: str) -> None: ...

    def store_failed(self, exc: BaseException) -> None: ...


class Supervisor:
    def __init__(self, owner: Owner):
        self.owner = owner
        self._group = asyncio.TaskGroup()
        self._tasks: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> Supervisor:
        await self._group.__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        running = [t for t in self._tasks if not t.done()]
        for task in running:
            task.cancel()
        if running:
            # A task that swallows a cancel (Python 3.11's wait_for can) is named, then asked again.
            _, stuck = await asyncio.wait(running, timeout=STUCK_AFTER)
            for task in stuck:
                log.error("%s did not stop within %.0fs of being cancelled", task.get_name(), STUCK_AFTER)
                task.cancel()
        await self._group.__aexit__(*exc_info)

    def keep(self, name: str, factory: Callable[[], Awaitable[Any]], essential: bool = True) -> asyncio.Task[None]:
        return self._start(self._keep(name, factory, essential), name)

    def once(self, coro: Coroutine[Any, Any, Any], name: str) -> asyncio.Task[None]:
        return self._start(self._once(coro, name), name)

    def _start(self, coro: Coroutine[Any, Any, None], name: str) -> asyncio.Task[None]:
        task = self._group.create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _keep(self, name: str, factory: Callable[[], Awaitable[Any]], essential: bool) -> None:
        loop = asyncio.get_running_loop()
        failures: list[float] = []
        while True:
            try:
                await factory()
                raise RuntimeError("it returned")
            except asyncio.CancelledError:
                raise
            except DATABASE_ERRORS as exc:
                self.owner.store_failed(exc)
                return
            except Exception as exc:
                now = loop.time()
                failures = [t for t in failures if now - t < 60.0] + [now]
                self.owner.task_failures.append(f"{name}: {exc!r}")
                if essential and len(failures) >= 5:
                    self.owner.fail(f"{name} failed {len(failures)} times within a minute, last: {exc!r}")
                    return
                delay = min(self.owner.restart_delay * 2 ** (len(failures) - 1), 30.0)
                log.error("%s failed: %r; restarting it in %.1fs", name, exc, delay, exc_info=exc)
                await asyncio.sleep(delay)

    async def _once(self, coro: Coroutine[Any, Any, Any], name: str) -> None:
        try:
            await coro
        except asyncio.CancelledError:
            raise
        except DATABASE_ERRORS as exc:
            self.owner.store_failed(exc)
        except Exception as exc:  # a TaskGroup would cancel its siblings for it: logged here instead
            self.owner.task_failures.append(f"{name}: {exc!r}")
            log.error("%s failed: %r", name, exc, exc_info=exc)
