"""Running a coroutine to completion from synchronous code.

:func:`run` is :func:`asyncio.run` without one hidden cost: when ``asyncio.run`` restores the
SIGINT handler at the end, CPython 3.11/3.12 build the ``repr()`` of its
``functools.partial(..., main_task=task)`` handler (in ``signal._int_to_enum``), and the task's
repr includes its *result*. For a run's verdicts and matrices that is tens of MB of text: 1.0 s
for 100,000 verdicts here (0.0006 s for a result of ``None``), ~64 s at 1M pairs (measured;
``benchmarks/bench_eval.py`` has a row that catches it). :func:`run` keeps the result out of the
task, so the task's repr is short whatever the result.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
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
