"""``simjudge eval --batch-api``: an ``openai:`` judge's calls through the provider's Batch API
(OpenAI bills them at half price and answers within 24 h) instead of one request each.

For each ``openai:`` judge of the run (a panel's members and a repeated judge's samples
included), before the task judges anything:

1. the requests the run needs — the same requests, with the same cache keys, a direct run
   would send (:meth:`judge.judges.llm.llmjudge.LLMJudge.requests_for`) — minus those already
   cached;
2. **submit**: their ``POST /v1/chat/completions`` bodies as one JSONL file (``custom_id`` =
   the cache key) uploaded with ``files.create(purpose="batch")``, then ``batches.create``;
   the file id, then the batch id, are written to a state file in the cache directory
   (``<cache>/batches/<digest of the keys>.json``) *before* the next step, so a killed run
   resumes: the same command finds the state, adopts a batch created just before the kill
   (``batches.list``, by input file), and never submits the same requests twice;
3. **poll** ``batches.retrieve`` with backoff (``SIMJUDGE_BATCH_POLL_S`` seconds at first,
   default 10, ×1.5 per poll up to 60) until ``completed``, ``failed``, ``expired`` or
   ``cancelled``;
4. **download** the output and error files: each answer is parsed like a direct reply
   (:func:`judge.judges.llm.replies.chat_result`) and stored in the cache at once under its key —
   so a later direct run is a cache hit and a kill after this point loses nothing — and
   handed to the run (``JudgeContext.batch``), which makes its verdicts from it (cost at
   :data:`judge.judges.llm.llmjudge.BATCH_PRICE_FACTOR` of the price, ``latency_s`` 0). A request
   the batch failed (its error line, or no line at all in an expired, failed or cancelled
   batch) is that pair's ``transport_error`` naming the batch and the reason — never a
   silent 0, never re-sent directly; rerunning the command submits the failed ones in a new
   batch.

``summary.json`` gets ``batch_api``: per judge the batch id, status, requests, answered and
failed. Only ``openai:`` judges on one endpoint (OpenAI, or a server implementing ``/v1/files``
and ``/v1/batches``); the cache must be writable (``read-write``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from judge.errors import BatchPendingError, InputError
from judge.judges.base import Judge, JudgeContext, Pair
from judge.judges.failures import TransportError

TERMINAL = ("completed", "failed", "expired", "cancelled")
"""Batch statuses after which nothing more will be answered."""
POLL_ENV = "SIMJUDGE_BATCH_POLL_S"
POLL_MAX_S = 60.0


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

    print(line, file=sys.stderr, flush=True)


class _Reply:
    """A downloaded answer body in the shape :func:`chat_result` reads (an HTTP response)."""

    def __init__(self, body: Any) -> None:
        self.text = json.dumps(body, ensure_ascii=False)
        self.headers = {"content-type": "application/json"}


def _save(path: Path, state: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp-{os.getpid()}")
    tmp.write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _error_of(line: dict[str, Any], batch_id: str) -> TransportError:
    """The failure of one error-file (or non-200 output) line."""
    resp: dict[str, Any] = line["response"] if isinstance(line.get("response"), dict) else {}
    body: dict[str, Any] = resp["body"] if isinstance(resp.get("body"), dict) else {}
    err: dict[str, Any] = (line["error"] if isinstance(line.get("error"), dict) else
                           body["error"] if isinstance(body.get("error"), dict) else {})
    msg = str(err.get("message") or err.get("code") or "no reason given")
    code = resp.get("status_code")
    where = f"HTTP {code}: " if isinstance(code, int) else ""
    return TransportError(f"batch {batch_id}: {where}{msg}", raw=json.dumps(line)[:2000],
                          cause=f"batch request failed ({code or err.get('code')})")


async def _poll(client: Any, batch_id: str, say: Callable[[str], None]) -> Any:
    delay = float(os.environ.get(POLL_ENV) or 10.0)
    while True:
        try:
            b = await client.batches.retrieve(batch_id)
        except Exception as exc:  # the SDK retried already: leave the batch running
            raise BatchPendingError(
                f"could not check batch {batch_id} ({type(exc).__name__}: {exc}); it keeps "
                "running at the provider: rerun the same command to resume") from None
        if b.status in TERMINAL:
            return b
        counts = b.request_counts
        done = f"{counts.completed + counts.failed}/{counts.total}" if counts else "?"
        say(f"batch {batch_id}: {b.status}, {done} requests done; next check in {delay:.3g} s")
        await asyncio.sleep(delay)
        delay = min(delay * 1.5, POLL_MAX_S)


async def _download(client: Any, file_id: str | None) -> list[dict[str, Any]]:
    if not file_id:
        return []
    content = await client.files.content(file_id)
    out = []
    for line in content.text.splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue  # a broken line: its request stays unanswered (reported as such)
        if isinstance(obj, dict) and isinstance(obj.get("custom_id"), str):
            out.append(obj)
    return out


def _check_budget(judge: Any, todo: Sequence[Any], ctx: JudgeContext) -> None:
    """``--max-usd`` before a batch is submitted: a batch is paid whole, so its estimated cost
    (:meth:`judge.judges.llm.llmjudge.LLMJudge.estimated_usd` at the batch price) must fit the
    budget.

    Raises:
        InputError: it does not (nothing submitted).
    """
    from judge.judges.llm.llmjudge import BATCH_PRICE_FACTOR

    if ctx.max_usd is None:
        return
    usd = sum(judge.estimated_usd(r) for r in todo) * BATCH_PRICE_FACTOR
    if ctx.stats.cost_usd + usd > ctx.max_usd:
        raise InputError(f"judge {judge.id!r}: its batch of {len(todo)} requests is estimated "
                         f"at {usd:.4f} USD (Batch API price), over --max-usd "
                         f"{ctx.max_usd:g}: nothing submitted", field="max-usd")


async def _submit(client: Any, judge: Any, todo: Sequence[Any], state: dict[str, Any],
                  path: Path) -> None:
    """Upload the requests and create the batch, saving the state after each step (resume:
    adopt a batch created from the saved input file before a kill)."""
    if not state.get("input_file_id"):
        lines = "".join(json.dumps({"custom_id": r.key, "method": "POST",
                                    "url": "/v1/chat/completions",
                                    "body": judge.request_body(r.messages, state["mode"])},
                                   ensure_ascii=False) + "\n" for r in todo)
        f = await client.files.create(file=("simjudge-batch.jsonl", lines.encode("utf-8")),
                                      purpose="batch")
        state["input_file_id"] = f.id
        _save(path, state)
    else:
        async for b in client.batches.list(limit=100):
            if b.input_file_id == state["input_file_id"]:
                state["batch_id"] = b.id
                _save(path, state)
                return
    b = await client.batches.create(input_file_id=state["input_file_id"],
                                    endpoint="/v1/chat/completions", completion_window="24h",
                                    metadata={"simjudge": state["digest"][:16]})
    state["batch_id"] = b.id
    _save(path, state)


async def fetch_batches(judges: Sequence[Any], groups: Sequence[tuple[str, Sequence[Pair]]],
                        ctx: JudgeContext, say: Callable[[str], None] | None = None,
                        ) -> list[dict[str, Any]]:
    """Run the Batch API round trip of every judge (see the module docstring), filling
    ``ctx.batch``.

    Args:
        judges: :func:`batch_judges`' result.
        groups: ``(prompt context, pairs)`` the run will judge (``Task.judge_requests``).
        ctx: the run's context (its cache is read-write).
        say: prints a progress line (default: to stderr).

    Returns:
        Per judge ``{"judge", "batch_id", "status", "requests", "answered", "failed"}``.

    Raises:
        BatchPendingError: a batch could not be checked any more (it keeps running; the
            state file lets the same command resume).
    """
    say = say or _stderr
    out: list[dict[str, Any]] = []
    try:
        for judge in judges:
            out.append(await _one_judge(judge, groups, ctx, say))
    finally:
        for judge in judges:
            await judge.aclose()  # its client belongs to this event loop
    return out


async def _one_judge(judge: Any, groups: Sequence[tuple[str, Sequence[Pair]]],
                     ctx: JudgeContext, say: Callable[[str], None]) -> dict[str, Any]:
    """Submit or resume, poll and download one judge's batch (:func:`fetch_batches`)."""
    from judge.judges.llm.replies import chat_result

    reqs = {r.key: r for c, ps in groups if ps for r in judge.requests_for(ps, c)}
    todo = [r for k, r in reqs.items() if ctx.cache.get(k) is None]
    if not todo:
        return {"judge": judge.id, "batch_id": None, "status": "cached", "requests": 0,
                "answered": 0, "failed": 0}
    digest = hashlib.sha256("\n".join(sorted(r.key for r in todo)).encode()).hexdigest()
    path = ctx.cache.directory / "batches" / f"{digest}.json"
    state = (json.loads(path.read_text(encoding="utf-8")) if path.exists() else
             {"digest": digest, "judge": judge.id, "model": judge.config.model,
              "requests": len(todo), "mode": judge.output_mode,
              "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
    client = judge.api_client()
    if not state.get("batch_id"):
        _check_budget(judge, todo, ctx)
        await _submit(client, judge, todo, state, path)
        say(f"{judge.id}: batch {state['batch_id']} submitted ({len(todo)} requests); state in "
            f"{path}")
    else:
        say(f"{judge.id}: resuming batch {state['batch_id']} ({path})")
    b = await _poll(client, state["batch_id"], say)
    lines = (await _download(client, b.output_file_id)
             + await _download(client, b.error_file_id))
    got: dict[str, Any] = {}
    for line in lines:
        key, resp = line["custom_id"], line.get("response")
        if key not in reqs:
            continue
        if isinstance(resp, dict) and resp.get("status_code") == 200:
            try:
                res = chat_result(_Reply(resp.get("body")), state["mode"])
            except TransportError as exc:  # an answer that breaks the protocol
                got[key] = TransportError(f"batch {b.id}: {exc.message}", raw=exc.raw,
                                          cause=exc.cause)
                continue
            judge.store(reqs[key], res, ctx.cache)  # kept the moment it arrives
            got[key] = res
        else:
            got[key] = _error_of(line, b.id)
    for r in todo:
        got.setdefault(r.key, TransportError(
            f"batch {b.id} ended {b.status} without answering this request",
            cause=f"batch {b.status}"))
    ctx.batch.update(got)
    failed = sum(isinstance(v, TransportError) for v in got.values())
    state.update(status=b.status, output_file_id=b.output_file_id,
                 error_file_id=b.error_file_id, answered=len(todo) - failed, failed=failed)
    _save(path, state)
    say(f"{judge.id}: batch {b.id} {b.status}: {len(todo) - failed} answered, {failed} failed")
    return {"judge": judge.id, "batch_id": b.id, "status": b.status, "requests": len(todo),
            "answered": len(todo) - failed, "failed": failed}
