"""``simjudge eval --dry-run``: the judge calls a run would make, their estimated tokens and USD,
per judge, without calling anything or writing anything.

The task says which pairs it would judge (:meth:`judge.tasks.base.Task.judge_requests`: distinct
non-exact pairs, with their prompt context); each LLM judge groups them into its requests
(:meth:`judge.judges.llm.llmjudge.LLMJudge.requests_for`, batch scorers included), the cache says
which
are answered already (same keys as the run), and :mod:`judge.judges.llm.costs` estimates the tokens
of the rest; USD from the judge's price (``--prices``). A panel is reported member by member
(``--repeats N``: one row per sample). Judges that make no LLM call (``local``, ``lexical``,
``table:``, embeddings) report their pairs only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from judge.cache import JudgeCache
from judge.items import Item
from judge.judges.base import Judge
from judge.judges.panel import leaf_judges
from judge.tasks.base import Params, Task


def check_budget(judge: Judge | None, max_usd: float | None) -> None:
    """Check ``--max-usd`` before any call: a positive number, and every LLM judge priced (an
    unpriced model costs 0 in the accounting, so no budget could stop it).

    Raises:
        InputError: ``max_usd`` <= 0, or an LLM judge whose model has no price (``--prices``).
    """
    from judge.errors import InputError
    from judge.judges.llm.llmjudge import LLMJudge

    if max_usd is None:
        return
    if not max_usd > 0:
        raise InputError(f"--max-usd must be > 0 USD, got {max_usd}", field="max-usd")
    for m in leaf_judges(judge):
        if isinstance(m, LLMJudge) and m.config.price is None:
            raise InputError(f"judge {m.id!r}: model {m.config.model!r} has no price in the "
                             "price table (give --prices FILE), so --max-usd cannot be "
                             "enforced", field="max-usd")


def dry_run(task: Task, judge: Judge | None, items: Sequence[Item], params: Params,
            cache: JudgeCache, batch_api: bool = False) -> dict[str, Any]:
    """Estimate a run's judge calls (see the module docstring).

    Args:
        task: the run's task; judge: its judge (None: a task run without one).
        items: the loaded items; params: the run's parameters (context, format).
        cache: the run's cache, read only.
        batch_api: price the calls as ``--batch-api`` would pay them
            (:data:`judge.judges.llm.llmjudge.BATCH_PRICE_FACTOR` of the direct price).

    Returns:
        ``{"task", "items", "pairs" (distinct pairs to judge), "judges": [{"judge", "model",
        "requests", "cached", "to_call", "tokens_in", "tokens_out", "usd" (None: unpriced or no
        LLM calls), "price_as_of", "llm", "missing_key" (the unset API-key variable the run
        would need, :mod:`judge.judges.keys`, else None)}], "usd_total" (None when some judge
        is unpriced),
        "batch_api"}``.
    """
    from judge.judges.llm.llmjudge import BATCH_PRICE_FACTOR

    factor = BATCH_PRICE_FACTOR if batch_api else 1.0
    groups = [(c, p) for c, p in task.judge_requests(items, params) if p] if judge else []
    pairs = sum(len(p) for _, p in groups)
    rows = judge_rows(judge, groups, cache, factor)
    return {"task": task.name, "items": len(items), "pairs": pairs, "judges": rows,
            "usd_total": usd_total(rows), "batch_api": batch_api}


def judge_rows(judge: Judge | None, groups: Sequence[tuple[str, Sequence[tuple[str, str]]]],
               cache: JudgeCache | None, factor: float = 1.0) -> list[dict[str, Any]]:
    """One estimate row per leaf judge of ``judge`` (see :func:`dry_run`'s ``judges``).

    Args:
        judge: the judge (a panel: one row per member; None: no rows).
        groups: ``[(context, [(pred, truth), ...]), ...]``: the pairs to judge per prompt
            context.
        cache: the cache the calls would read (read only), or None when they bypass it
            (every request is then to call).
        factor: the price factor (the Batch API's discount; 1.0 direct).
    """
    from judge.judges.llm.llmjudge import LLMJudge

    rows: list[dict[str, Any]] = []
    for m in leaf_judges(judge):
        if not isinstance(m, LLMJudge):
            rows.append({"judge": m.id, "model": None, "requests": None, "cached": None,
                         "to_call": None, "tokens_in": 0, "tokens_out": 0, "usd": None,
                         "price_as_of": None, "llm": False,
                         "missing_key": getattr(m, "missing_key", None)})
            continue
        reqs = [r for context, ps in groups for r in m.requests_for(ps, context)]
        todo = [r for r in reqs if cache is None or cache.get(r.key) is None]
        tin = tout = 0
        for r in todo:
            a, b = m.estimated_tokens(r)
            tin, tout = tin + a, tout + b
        price = m.config.price
        rows.append({"judge": m.id, "model": m.config.model, "requests": len(reqs),
                     "cached": len(reqs) - len(todo), "to_call": len(todo), "tokens_in": tin,
                     "tokens_out": tout,
                     "usd": price.cost(tin, tout) * factor if price else None,
                     "price_as_of": price.as_of if price else None, "llm": True,
                     "missing_key": getattr(m, "missing_key", None)})
    return rows


def usd_total(rows: Sequence[dict[str, Any]]) -> float | None:
    """The estimated USD of :func:`judge_rows`' rows (None when an LLM judge is unpriced)."""
    llm = [r for r in rows if r["llm"]]
    return sum(r["usd"] for r in llm) if all(r["usd"] is not None for r in llm) else None
