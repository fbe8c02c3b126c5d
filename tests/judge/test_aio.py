"""judge.aio.run: asyncio.run without building the repr of the coroutine's result; and
judge.aio.OffLoopStream: calls back to back in one thread, results in order, a stop honoured."""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
import time

import pytest

from judge import aio


class Tattletale:
    """Counts how often its repr is built (each would be tens of MB for a real run)."""

    reprs = 0

    def __repr__(self) -> str:
        Tattletale.reprs += 1
        return "Tattletale()"


async def _make() -> Tattletale:
    return Tattletale()


async def _fail() -> None:
    raise KeyError("boom")


def test_run_returns_the_result_without_its_repr() -> None:
    Tattletale.reprs = 0
    got = aio.run(_make())
    assert isinstance(got, Tattletale) and Tattletale.reprs == 0


@pytest.mark.skipif(sys.version_info[:2] not in ((3, 11), (3, 12)),
                    reason="the repr is built by asyncio.run's SIGINT restore in 3.11/3.12")
def test_plain_asyncio_run_builds_the_repr_here() -> None:
    # the defect aio.run avoids, shown on this Python (so the test above can fail). asyncio.run
    # installs (and later restores) its SIGINT handler only over Python's default one, which a
    # shell's background job lacks (SIGINT ignored): set it, as in a foreground process
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        Tattletale.reprs = 0
        asyncio.run(_make())
    finally:
        signal.signal(signal.SIGINT, old)
    assert Tattletale.reprs >= 1


def test_exceptions_propagate() -> None:
    with pytest.raises(KeyError, match="boom"):
        aio.run(_fail())


def test_off_loop_stream_runs_calls_back_to_back_in_order_and_raises_at_its_item() -> None:
    threads: set[str] = set()

    def square(x: int) -> int:
        threads.add(threading.current_thread().name)
        time.sleep(0.01 * (x % 2))  # uneven work: the order is still the items' order
        return x * x

    async def take(items: list[int]) -> list[int]:
        stream = aio.OffLoopStream(square, items)
        return [await stream.next() for _ in items]

    assert aio.run(take(list(range(7)))) == [0, 1, 4, 9, 16, 25, 36]
    assert threads == {"simjudge-encoder"}  # one thread for all seven calls

    def third_fails(x: int) -> int:
        if x == 2:
            raise ValueError(f"item {x}")
        return x

    async def until_error() -> list[int]:
        stream = aio.OffLoopStream(third_fails, [0, 1, 2, 3])
        got = []
        with pytest.raises(ValueError, match="item 2"):
            for _ in range(4):
                got.append(await stream.next())
        return got

    assert aio.run(until_error()) == [0, 1]


def test_off_loop_stream_stops_after_the_item_under_way_when_cancelled() -> None:
    started: list[int] = []
    release = threading.Event()
    done = threading.Event()

    def slow(x: int) -> int:
        started.append(x)
        if x == 1:  # the item under way when the waiter is cancelled
            release.wait(10)
            done.set()
        return x

    async def main() -> tuple[int, float]:
        stream = aio.OffLoopStream(slow, [0, 1, 2, 3, 4], ahead=2)
        first = await stream.next()
        task = asyncio.ensure_future(stream.next())
        await asyncio.sleep(0.05)
        task.cancel()
        t0 = time.monotonic()
        with pytest.raises(asyncio.CancelledError):
            await task
        return first, time.monotonic() - t0

    first, waited = aio.run(main())
    assert first == 0 and waited < 0.5  # returned at once, not when item 1 finishes
    release.set()
    assert done.wait(5)
    time.sleep(0.1)  # the thread would start item 2 now if the stop were not honoured
    assert started == [0, 1]
