"""The Judge protocol and the per-run context that judges report into.

Every judge of :mod:`judge.judges` subclasses :class:`Judge` explicitly (so it inherits the
defaults of ``item_scoped`` and ``aclose``); any other object with the same members is a judge
too (structural typing).
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from judge.cache import JudgeCache
from judge.judges.budget import Budget
from judge.record.verdictlog import VerdictLog
from judge.verdict import Verdict

Pair = tuple[str, str]
"""``(pred, truth)`` strings."""


@dataclass
class JudgeStats:
    """Counters a judge updates while it works.

    Attributes:
        judge_calls: model calls actually made (an LLM request, or one string through an
            encoder); cache hits are not calls.
        cache_hits: answers served from the cache.
        tokens_in, tokens_out: token usage of the calls made.
        cost_usd: cost of the calls made, in USD.
    """

    judge_calls: int = 0
    cache_hits: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0


@dataclass
class PanelState:
    """What a :class:`judge.judges.panel.Panel` records during one run (kept on the run's
    :class:`JudgeContext`, so one panel object can judge several runs).

    Attributes:
        member_verdicts: every member's verdict as a dict (``Verdict.model_dump()`` plus
            ``item_id`` and ``member_of`` = the panel's id), in judging order.
        undecided: pairs with fewer ``ok`` members than the quorum (no verdict, NaN).
    """

    member_verdicts: list[dict[str, Any]] = field(default_factory=list)
    undecided: int = 0


@dataclass
class JudgeContext:
    """What a judge needs besides the pairs.

    Attributes:
        cache: the call cache (any mode).
        context: optional task context given to prompt judges (e.g. "IFPUG ILF names").
        stats: counters the judge updates.
        progress: called with the number of newly finished units of work (for a progress bar).
        item_id: for item-scoped judges (``item_scoped = True``), the item being judged.
        early_stops: remote judges' early-stop state for this run, by judge id
            (:class:`judge.judges.failures.EarlyStop`; a stopped one carries its reason).
        panel: what a panel judging in this context recorded (empty otherwise).
        max_usd: the run's budget in USD (``--max-usd``; None = none): an LLM judge starts no
            call whose worst case (:mod:`judge.judges.llm.costs`) would take the spent plus the
            in-flight worst cases over it (:mod:`judge.judges.budget`), and stops when even an
            idle run could not afford it (its remaining pairs "not attempted").
        budget: the :class:`judge.judges.budget.Budget` of ``max_usd`` (made from it when not
            given; pass the run's own to a second context — the swap probe — to share it).
        batch: answers fetched through a provider's Batch API for this run (``--batch-api``,
            :mod:`judge.judges.llm.batchapi`), by cache key: a ``CallResult``, or the
            ``TransportError`` of a batch request that failed (its ``outcome`` attribute, if
            any, names the verdict's outcome); an LLM judge uses them instead of calling. A
            ``--batch-api`` run keeps them on disk
            (:class:`judge.judges.llm.batchanswers.BatchAnswers`).
        verdict_log: where the matching tasks log their verdict rows
            (:class:`judge.record.verdictlog.VerdictLog`; ``simjudge eval`` gives a spool file so
            a large run's verdicts are not held in memory); None = a new in-memory log.
    """

    cache: JudgeCache
    context: str = ""
    stats: JudgeStats = field(default_factory=JudgeStats)
    progress: Callable[[int], None] | None = None
    item_id: str | None = None
    early_stops: dict[str, Any] = field(default_factory=dict)
    panel: PanelState = field(default_factory=PanelState)
    max_usd: float | None = None
    budget: Budget | None = None
    batch: MutableMapping[str, Any] = field(default_factory=dict)
    verdict_log: VerdictLog | None = None

    def __post_init__(self) -> None:
        if self.budget is None and self.max_usd is not None:
            self.budget = Budget(self.max_usd, self.stats)

    def advance(self, n: int = 1) -> None:
        """Report ``n`` finished units to the progress callback, if any."""
        if self.progress is not None and n:
            self.progress(n)


@runtime_checkable
class Judge(Protocol):
    """A similarity judge.

    Attributes:
        id: the judge's id (its spec string, e.g. ``local`` or ``table:scores.jsonl``).
        item_scoped: True when a verdict for a pair depends on the item (a score table with
            per-item rows): the judge is then called once per item with ``ctx.item_id`` set,
            and pairs are deduplicated within items only. Default False.
    """

    id: str
    item_scoped: bool = False

    def describe(self) -> dict[str, Any]:
        """JSON-serialisable identity and metadata for ``config.json``."""
        ...

    def work_units(self, pairs: Sequence[Pair]) -> int:
        """How many progress units :meth:`judge_pairs` will report for these pairs."""
        ...

    async def judge_pairs(self, pairs: Sequence[Pair], ctx: JudgeContext) -> list[Verdict | None]:
        """Score each pair; the result is aligned with ``pairs``.

        A failed pair is a :class:`Verdict` with a failure outcome; ``None`` means the judge has
        no verdict for that pair at all (e.g. a score table without it), which leaves NaN in
        the similarity matrix — never 0.
        """
        ...

    async def aclose(self) -> None:
        """Release what the judge holds for one run (HTTP clients bound to the run's event
        loop). Idempotent; the judge can be used again afterwards (it opens new ones). Default:
        nothing to release."""
        return None
