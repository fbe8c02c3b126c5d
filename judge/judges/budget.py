"""The run's budget (``--max-usd``): spent ≤ budget holds however long the answers are.

Every call is admitted against its **worst case** (:mod:`judge.judges.llm.costs`: the prompt's
token bound plus ``max_tokens`` or the scorer's completion cap, which the judge then sends as the
request's limit). :meth:`Budget.reserve` admits a call only when the USD spent so far (as the
servers report usage, counted the moment each reply arrives) plus the worst cases of the calls
in flight plus this call's worst case stay within the budget. When only the calls in flight stand
in the way, it waits for one of them to settle (its reply releases its reservation and adds what
it really cost, usually far less); when even an idle run could not afford the call, it refuses
and the judge stops (its remaining pairs are recorded as not attempted). So the sum of the real
costs never exceeds the budget unless a server bills beyond the limit it was sent, which is
counted (:attr:`Budget.over_bound`).

One :class:`Budget` serves a whole run (a panel's members, the ``--repeats`` samples and the swap
probe share it); it is safe across event loops (each waiter is a future of its own loop).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Budget:
    """Admission of calls against ``--max-usd``.

    Attributes:
        max_usd: the budget in USD (> 0).
        stats: the run's counters (:class:`judge.judges.base.JudgeStats`): ``stats.cost_usd``
            is the USD spent, as reported usage times the price.
        reserved_usd: the worst cases of the calls in flight, USD >= 0.
        in_flight: calls admitted and not yet settled.
        peak_reserved_usd: the largest ``reserved_usd`` seen.
        over_bound: calls whose real cost exceeded their worst case (a server that ignored the
            completion limit it was sent).
        waits: times a call waited for calls in flight to settle before it was admitted.
        refused_usd: the worst case of the first call refused, or None while none was.
    """

    max_usd: float
    stats: Any
    reserved_usd: float = 0.0
    in_flight: int = 0
    peak_reserved_usd: float = 0.0
    over_bound: int = 0
    waits: int = 0
    refused_usd: float | None = None
    _waiters: list[asyncio.Future[None]] = field(default_factory=list, repr=False)

    @property
    def spent_usd(self) -> float:
        """USD spent so far (the run's ``cost_usd``)."""
        return float(self.stats.cost_usd)

    async def reserve(self, usd: float) -> bool:
        """Admit a call whose worst case is ``usd`` (>= 0): True once ``spent + reserved + usd``
        fits the budget (``usd`` is then reserved: :meth:`settle` it when the call ends); waits
        while the calls in flight are what stands in the way; False (nothing reserved) when
        ``spent + usd`` alone exceeds the budget."""
        waited = False
        while True:
            if self.spent_usd + usd > self.max_usd:
                if self.refused_usd is None:
                    self.refused_usd = usd
                return False
            if self.in_flight == 0 or self.spent_usd + self.reserved_usd + usd <= self.max_usd:
                self.reserved_usd += usd
                self.in_flight += 1
                self.peak_reserved_usd = max(self.peak_reserved_usd, self.reserved_usd)
                return True
            if not waited:
                self.waits += 1
                waited = True
            fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.append(fut)
            try:
                await fut
            finally:
                if fut in self._waiters:
                    self._waiters.remove(fut)

    def settle(self, reserved: float, cost: float) -> None:
        """End a call admitted with ``reserved`` USD that really cost ``cost`` USD (already added
        to ``stats.cost_usd``; 0 for a call that failed): release its reservation and wake the
        calls waiting for room."""
        self.in_flight = max(0, self.in_flight - 1)
        self.reserved_usd = max(0.0, self.reserved_usd - reserved) if self.in_flight else 0.0
        if cost > reserved + 1e-12:
            self.over_bound += 1
        waiters, self._waiters = self._waiters, []
        for fut in waiters:
            if not fut.done():
                fut.set_result(None)

    def summary(self, pairs_not_attempted: int) -> dict[str, Any]:
        """The ``summary.json`` entry ``budget``: ``max_usd``, ``spent_usd``, ``stopped`` (a
        call was refused), ``pairs_not_attempted``, ``peak_reserved_usd`` (worst cases in
        flight at most), ``waits``, ``calls_over_bound``."""
        return {"max_usd": self.max_usd, "spent_usd": round(self.spent_usd, 6),
                "stopped": self.refused_usd is not None,
                "pairs_not_attempted": pairs_not_attempted,
                "peak_reserved_usd": round(self.peak_reserved_usd, 6), "waits": self.waits,
                "calls_over_bound": self.over_bound}
