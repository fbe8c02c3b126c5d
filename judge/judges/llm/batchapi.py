"""``simjudge eval --batch-api``: an ``openai:`` judge's calls through the provider's Batch API
(OpenAI bills them at half price and answers within 24 h) instead of one request each.

For each ``openai:`` judge of the run (a panel's members and a repeated judge's samples
included), before the task judges anything:

1. **plan** (:mod:`~judge.judges.llm.batchsplit`): the requests the run needs — the same
   requests, with the same cache keys, a direct run would send — minus those cached and those a
   running batch of this judge already holds (that batch is *adopted*: a rerun with one item
   added pays only for the new one); the rest is written to disk as chunk files within the
   provider's limits (:class:`~judge.judges.llm.batchstate.BatchLimits`: 50,000 requests and
   200 MB per batch by default). A running batch this run needs nothing of is *stale*: it is
   collected into the cache when it ends, or cancelled with ``cancel_stale``.
2. **submit and wait** (:mod:`~judge.judges.llm.batchwait`): each chunk is uploaded from its
   file (streamed, ``files.create(purpose="batch")``) and made a batch (``batches.create``),
   paced by the model's enqueued-token limit; the file id, then the batch id, are written to
   the chunk's state file (``<cache>/batches/<sha256 of its bytes>.json``,
   :mod:`~judge.judges.llm.batchstate`) *before* the next step, so a killed run resumes: the
   same command finds the states, adopts a batch created just before the kill
   (``batches.list``, by input file), and never submits the same requests twice.
3. **collect** (:mod:`~judge.judges.llm.batchcollect`) every batch as it ends: answers go to
   the cache at once and to the run (``JudgeContext.batch``, on disk:
   :class:`~judge.judges.llm.batchanswers.BatchAnswers`), which makes its verdicts from them
   (cost at :data:`judge.judges.llm.llmjudge.BATCH_PRICE_FACTOR` of the price). A request the
   batch did not answer is that pair's ``transport_error`` naming the batch, the reason and the
   server's ``errors`` — never a silent 0, never re-sent directly. A batch that ended
   (``completed``, ``failed``, ``expired``, ``cancelled``) is never adopted again: a rerun
   submits its unanswered requests anew.

``summary.json`` gets ``batch_api``: per judge the requests needed, answered and failed, each
batch (id, status, counts, errors) and what became of stale batches. Only ``openai:`` judges
on one endpoint (OpenAI, or a server implementing ``/v1/files`` and ``/v1/batches``); the
cache must be writable (``read-write``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from judge.errors import InputError
from judge.judges.base import Judge, JudgeContext, Pair
from judge.judges.llm.batchstate import BatchLimits, batches_dir, drop_local_files, state_path


def batch_judges(judge: Judge | None, cache_mode: str) -> list[Any]:
    """The ``openai:`` judges of a ``--batch-api`` run, checked before any call.

    Raises:
        InputError: no LLM judge; an LLM judge other than ``openai:`` (LangChain, vLLM and
            SGLang servers have no Batch API), several endpoints, or a cache that is not
            ``read-write`` (the answers are delivered through it).
    """
    from judge.judges.llm.llmjudge import LLMJudge
    from judge.judges.llm.openai_chat import OpenAIJudge
    from judge.judges.panel import leaf_judges

    if cache_mode != "read-write":
        raise InputError(f"--batch-api stores the batch's answers in the cache: it needs "
                         f"--cache-mode read-write, not {cache_mode}", field="batch-api")
    found = []
    for m in leaf_judges(judge):
        if not isinstance(m, LLMJudge):
            continue
        if not isinstance(m, OpenAIJudge) or m.backend != "openai":
            raise InputError(f"--batch-api sends openai: judges' calls through the OpenAI "
                             f"Batch API; judge {m.id!r} is not one", field="batch-api")
        if m.endpoint_pool is not None:
            raise InputError(f"--batch-api submits to one endpoint; judge {m.id!r} lists "
                             "several", field="batch-api")
        found.append(m)
    if not found:
        raise InputError("--batch-api needs an openai: judge", field="batch-api")
    return found


def _stderr(line: str) -> None:
    import sys

    from judge.terminal import terminal_safe

    print(terminal_safe(line), file=sys.stderr, flush=True)  # the batch errors are the server's


def parse_queue_tokens(text: str | None) -> dict[str, int]:
    """``--batch-queue-tokens``: ``N`` (every model) or ``MODEL=N[,MODEL=N…]``, N > 0 tokens.

    Raises:
        InputError: (field ``batch-queue-tokens``) anything else.
    """
    out: dict[str, int] = {}
    for part in (text or "").split(","):
        if not part.strip():
            continue
        model, _, n = part.rpartition("=")
        try:
            value = int(n.replace("_", ""))
        except ValueError:
            value = 0
        if value <= 0:
            raise InputError(f"expected N or MODEL=N with N a positive number of tokens, got "
                             f"{part.strip()!r}", field="batch-queue-tokens")
        out[model.strip() or "*"] = value
    return out


def check_limits(limits: BatchLimits) -> None:
    """Check the split limits before any call.

    Raises:
        InputError: ``max_requests`` or ``max_bytes`` below 1 (fields ``batch-max-requests``,
            ``batch-max-bytes``).
    """
    for name, value in (("batch-max-requests", limits.max_requests),
                        ("batch-max-bytes", limits.max_bytes)):
        if value < 1:
            raise InputError(f"must be >= 1, got {value}", field=name)


def _check_budget(plans: Sequence[Any], ctx: JudgeContext) -> None:
    """``--max-usd`` before anything is submitted: a batch is paid whole and cannot be stopped
    half way, so the **worst case** of every new batch (each request's prompt bound plus the
    completion limit it is sent, :meth:`~judge.judges.llm.llmjudge.LLMJudge.worst_usd`, at the
    batch price) must fit beside what the run has spent; then spent ≤ budget holds however
    long the answers are (before, batches were admitted at the typical 60-token estimate and
    400-token answers spent 2.23 USD of a 1.0 USD budget). Batches adopted from an earlier run
    are already running and are not gated here.

    Raises:
        InputError: it does not fit (nothing submitted), naming the estimate and the worst case.
    """
    from judge.judges.llm.llmjudge import BATCH_PRICE_FACTOR

    if ctx.max_usd is None:
        return
    usd = sum(p.usd for p in plans) * BATCH_PRICE_FACTOR
    worst = sum(p.worst_usd for p in plans) * BATCH_PRICE_FACTOR
    n = sum(s.requests for p in plans for s in p.new)
    if ctx.stats.cost_usd + worst > ctx.max_usd:
        raise InputError(f"the batches of {n} requests could cost up to {worst:.4f} USD (every "
                         f"answer at its completion limit; typically {usd:.4f} USD, Batch API "
                         f"price), over --max-usd {ctx.max_usd:g}: nothing submitted",
                         field="max-usd")


def _summary(judge: Any, needed: int, jobs: Sequence[Any]) -> dict[str, Any]:
    mine = [j for j in jobs if j.judge is judge]
    rows = [{"batch_id": j.state.batch_id, "status": j.state.status,
             "requests": j.state.requests, "answered": j.state.answered,
             "failed": j.state.failed, **({"errors": j.state.errors} if j.state.errors else {}),
             **({"previous": [h["batch_id"] for h in j.state.history]}
                if j.state.history else {})}
            for j in mine if not j.stale]
    stale = [{"batch_id": j.state.batch_id, "status": j.state.status,
              "requests": j.state.requests, "action": j.outcome} for j in mine if j.stale]
    return {"judge": judge.id, "requests": needed,
            "answered": sum(r["answered"] for r in rows),
            "failed": sum(r["failed"] for r in rows), "batches": rows,
            **({"stale": stale} if stale else {})}


async def fetch_batches(judges: Sequence[Any], groups: Sequence[tuple[str, Sequence[Pair]]],
                        ctx: JudgeContext, say: Callable[[str], None] | None = None,
                        limits: BatchLimits | None = None,
                        progress_factory: Callable[..., Callable[[int], None]] | None = None,
                        ) -> list[dict[str, Any]]:
    """Run the Batch API round trip of every judge (see the module docstring); afterwards
    ``ctx.batch`` holds the answers (release it with :func:`release`).

    Args:
        judges: :func:`batch_judges`' result.
        groups: ``(prompt context, pairs)`` the run will judge (``Task.judge_requests``).
        ctx: the run's context (its cache is read-write).
        say: prints a status line (default: to stderr).
        limits: split and pacing limits (default: OpenAI's, no queue limit).
        progress_factory: ``(total requests, live, phase) -> advance(n)`` for a progress row
            across the wait (:func:`judge.cli.common.progress`), or None.

    Returns:
        Per judge ``{"judge", "requests", "answered", "failed", "batches": [{"batch_id",
        "status", "requests", "answered", "failed", "errors"?, "previous"?}], "stale"?:
        [{"batch_id", "status", "requests", "action"}]}``; ``action`` is ``collected``,
        ``cancelled`` or ``still running``.

    Raises:
        InputError: bad limits, a request over the byte limit, or ``--max-usd`` below the
            batches' estimate (nothing submitted).
        BatchPendingError: a batch could not be submitted, checked or downloaded (those
            submitted keep running; the state files let the same command resume).
        OSError: the disk refused a chunk, state or cache write.
    """
    from judge.judges.llm.batchanswers import BatchAnswers
    from judge.judges.llm.batchsplit import find_created, plan
    from judge.judges.llm.batchwait import Waiter

    say = say or _stderr
    limits = limits or BatchLimits()
    check_limits(limits)
    directory = batches_dir(ctx.cache.directory)
    answers = BatchAnswers(directory)
    ctx.batch = answers
    try:
        from judge.judges.llm.batchstate import all_states, identity_of

        for judge in judges:
            ident = identity_of(judge)
            await find_created(judge.api_client(), [s for s in all_states(directory)
                                                    if s.identity == ident], directory)
        plans = [plan(j, groups, ctx, answers, limits, directory) for j in judges]
        try:
            _check_budget(plans, ctx)
        except InputError:
            for p in plans:
                for s in p.new:
                    if not state_path(directory, s.digest).exists():
                        drop_local_files(directory, s.digest)
            raise
        jobs = await Waiter(limits, directory, answers, ctx.cache, say,
                            progress_factory).run(plans)
        return [_summary(p.judge, p.needed, jobs) for p in plans]
    except BaseException:
        answers.close()
        raise
    finally:
        for judge in judges:
            await judge.aclose()  # its client belongs to this event loop


def release(ctx: JudgeContext) -> None:
    """Delete the run's on-disk batch answers (after the task has judged)."""
    close = getattr(ctx.batch, "close", None)
    if close is not None:
        close()
