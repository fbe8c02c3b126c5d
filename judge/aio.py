"""Running a coroutine to completion from synchronous code.

:func:`run` is :func:`asyncio.run` without one hidden cost: when ``asyncio.run`` restores the
SIGINT handler at the end, CPython 3.11/3.12 build the ``repr()`` of its
``functools.partial(..., main_task=task)`` handler (in ``signal._int_to_enum``), and the task's
repr includes its *result*. For a run's verdicts and matrices that is tens of MB of text: 1.0 s
for 100,000 verdicts here (0.0006 s for a result of ``None``), ~64 s at 1M pairs (measured;
``benchmarks/bench_eval.py`` has a row that catches it). :func:`run` keeps the result out of the
task, so the task's repr is short whatever the result.

:func:`off_loop` awaits blocking work in a daemon thread, so that a cancelled run (Ctrl-C)
stops at once instead of when the work ends; :func:`start_off_loop` starts such work before
the caller awaits it.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` in a new event loop (as :func:`asyncio.run`) and return its result.

    Args:
        coro: a coroutine object (not yet awaited).

    Returns:
        What ``coro`` returned; exceptions it raises propagate unchanged.

    Raises:
        RuntimeError: called from a running event loop (as :func:`asyncio.run`).
    """
    box: list[T] = []

    async def main() -> None:
        box.append(await coro)

    asyncio.run(main())
    return box[0]


def start_off_loop(fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
    """``fn(*args)`` started at once in a new daemon thread; the returned future (of the
    running loop) gets its result or its exception.

    Unlike ``asyncio.to_thread`` (the loop's default executor, which ``asyncio.run`` waits
    for when it ends), a cancelled waiter returns at once and nothing waits for the thread:
    it finishes its work unheard, or ends with the process. So Ctrl-C during a long encoder
    batch (the first one takes seconds: the encoder warms up) stops the run promptly. The
    work starts before the caller awaits, so the caller can do its own work meanwhile (the
    local judge scores one batch's pairs while the next batch is encoded).

    Args:
        fn: a callable safe to run off the event loop's thread.
        args: its positional arguments.

    Raises:
        RuntimeError: no running event loop.
    """
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def deliver(setter: Callable[[Any], None], value: Any) -> None:
        def settle() -> None:
            if not done.done():  # a cancelled waiter has moved on
                setter(value)
        with contextlib.suppress(RuntimeError):  # the loop has closed: the run was stopped
            loop.call_soon_threadsafe(settle)

    def work() -> None:
        try:
            result = fn(*args)
        except BaseException as exc:  # handed to the awaiting coroutine
            deliver(done.set_exception, exc)
        else:
            deliver(done.set_result, result)

    threading.Thread(target=work, name="simjudge-encoder", daemon=True).start()
    return done


async def off_loop(fn: Callable[..., T], *args: Any) -> T:
    """``await`` of :func:`start_off_loop` (``fn(*args)`` in a new daemon thread, awaited
    without blocking the event loop; a cancelled caller returns at once).

    Returns:
        What ``fn`` returned; what it raised is raised here.
    """
    return await start_off_loop(fn, *args)
