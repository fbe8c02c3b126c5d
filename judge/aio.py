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
the caller awaits it; :class:`OffLoopStream` runs a sequence of such calls back to back in one
thread, handing each result to the loop as it comes.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Coroutine, Sequence
from typing import Any, Generic, TypeVar, cast

T = TypeVar("T")
A = TypeVar("A")


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
    work starts before the caller awaits, so the caller can do its own work meanwhile (I/O
    or waiting: Python work beside a GIL-bound thread slows it, ``docs/performance.md``).

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


class OffLoopStream(Generic[A, T]):
    """``fn(item)`` for each of ``items``, in order, one after another in one daemon thread
    that never waits for the event loop between two items (at most ``ahead`` results computed
    and not yet taken); :meth:`next` awaits the next result. The local encoder runs its batches
    back to back this way — as a bare loop would — while the loop stores and scores the
    previous ones (a thread per batch, :func:`start_off_loop`, left the encoder idle while the
    loop woke up and a new thread was scheduled: 313 times for 10,000 pairs).

    :meth:`stop` (also when the waiter is cancelled: Ctrl-C) ends the thread after the item
    under way, whose result is dropped; nothing waits for it (as :func:`start_off_loop`).

    Args:
        fn: a callable safe to run off the event loop's thread.
        items: its arguments, one call each.
        ahead: most results computed before the consumer takes them (>= 1).

    Raises:
        RuntimeError: no running event loop.
    """

    def __init__(self, fn: Callable[[A], T], items: Sequence[A], ahead: int = 2) -> None:
        self._loop = asyncio.get_running_loop()
        self._results: asyncio.Queue[tuple[bool, Any]] = asyncio.Queue()
        self._room = threading.Semaphore(ahead)
        self._stopped = threading.Event()
        self._fn, self._items = fn, list(items)
        threading.Thread(target=self._work, name="simjudge-encoder", daemon=True).start()

    def _deliver(self, ok: bool, value: Any) -> None:
        with contextlib.suppress(RuntimeError):  # the loop has closed: the run was stopped
            self._loop.call_soon_threadsafe(self._results.put_nowait, (ok, value))

    def _work(self) -> None:
        for item in self._items:
            self._room.acquire()
            if self._stopped.is_set():
                return
            try:
                result = self._fn(item)
            except BaseException as exc:  # handed to the awaiting coroutine
                self._deliver(False, exc)
                return
            self._deliver(True, result)

    async def next(self) -> T:
        """The next item's result (what ``fn`` raised is raised here; call at most
        ``len(items)`` times)."""
        try:
            ok, value = await self._results.get()
        except BaseException:
            self.stop()
            raise
        self._room.release()
        if not ok:
            self.stop()
            raise value
        return cast("T", value)

    def stop(self) -> None:
        """End the thread after the item under way (idempotent)."""
        self._stopped.set()
        self._room.release()  # a thread waiting for room wakes and sees the stop
