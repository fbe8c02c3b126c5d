"""Which batches a ``--batch-api`` run needs: the requests it needs that are not cached, minus
those a running batch already holds (*adopted*), split into chunks within the provider's
limits (:class:`~judge.judges.llm.batchstate.BatchLimits`) and written to disk as they are
rendered — never one buffer for the whole input. Running batches whose requests this run
needs none of are *stale*.

Chunks are cut in the order the requests are rendered, each at most ``max_requests`` lines and
``max_bytes`` bytes; a chunk's name is the sha256 of its bytes, so the same requests give the
same chunk (a rerun resumes it) and a chunk that was submitted before and ended without
answering is found again and submitted anew (:meth:`BatchState.restart`).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from judge.errors import InputError
from judge.judges.base import JudgeContext, Pair
from judge.judges.llm.batchanswers import BatchAnswers
from judge.judges.llm.batchstate import (
    BatchLimits,
    BatchState,
    all_states,
    identity_of,
    input_path,
    load,
    now,
    requests_path,
    state_path,
)
from judge.judges.llm.costs import tokens_out

ENDPOINT = "/v1/chat/completions"


@dataclass
class Plan:
    """One judge's batches for this run.

    Attributes:
        judge: the ``openai:`` judge.
        needed: distinct uncached requests the run needs from batches.
        new: chunks to submit, in order (some may carry an uploaded file already).
        adopted: running batches holding some of the needed requests.
        stale: running or uncollected batches of this judge holding none of them.
        orphans: chunks uploaded earlier but never made a batch, no longer needed.
        usd: estimated USD of the new chunks' requests at the direct price (0 unpriced).
        worst_usd: their worst case at the direct price (each request's prompt bound plus its
            completion limit, :meth:`~judge.judges.llm.llmjudge.LLMJudge.worst_usd`), counted
            under ``--max-usd`` only (else 0): what the budget check admits.
    """

    judge: Any
    needed: int = 0
    new: list[BatchState] = field(default_factory=list)
    adopted: list[BatchState] = field(default_factory=list)
    stale: list[BatchState] = field(default_factory=list)
    orphans: list[BatchState] = field(default_factory=list)
    usd: float = 0.0
    worst_usd: float = 0.0


class _Chunks:
    """Writes request lines into chunk files, cutting at the limits."""

    def __init__(self, directory: Path, limits: BatchLimits, judge: Any, exact: bool,
                 budgeted: bool = False) -> None:
        self.directory, self.limits, self.judge, self.exact = directory, limits, judge, exact
        self.budgeted = budgeted
        self.done: list[tuple[str, int, int, int, float]] = []
        self.worst_usd = 0.0
        self._open()

    def _open(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        k = len(self.done)
        self.tmp_in = self.directory / f".chunk-{os.getpid()}-{k}.jsonl.tmp"
        self.tmp_req = self.directory / f".chunk-{os.getpid()}-{k}.requests.tmp"
        self.f_in: IO[bytes] = open(self.tmp_in, "wb")  # noqa: SIM115 (closed in _cut)
        self.f_req: IO[bytes] = open(self.tmp_req, "wb")  # noqa: SIM115
        self.sha = hashlib.sha256()
        self.n = self.size = self.tokens = 0
        self.usd = 0.0

    def add(self, r: Any) -> None:
        line = (json.dumps({"custom_id": r.key, "method": "POST", "url": ENDPOINT,
                            "body": self.judge.request_body(r.messages, self.judge.output_mode)},
                           ensure_ascii=False) + "\n").encode("utf-8")
        if len(line) > self.limits.max_bytes:
            raise InputError(f"one request of judge {self.judge.id!r} takes {len(line)} bytes, "
                             f"over the batch input limit of {self.limits.max_bytes} bytes",
                             field="batch-max-bytes")
        if self.n and (self.n >= self.limits.max_requests
                       or self.size + len(line) > self.limits.max_bytes):
            self._cut()
            self._open()
        price = self.judge.config.price
        if self.exact:  # judge.judges.llm.costs: the same estimate --dry-run prints
            t_in, t_out = self.judge.estimated_tokens(r)
        else:  # for the progress row only: ~4 bytes of JSON per token (0.4 ms less each)
            t_in, t_out = len(line) // 4, tokens_out(self.judge.config.scorer.mode,
                                                     len(r.items), self.judge.config.params)
        self.usd += price.cost(t_in, t_out) if price is not None else 0.0
        if self.budgeted:
            self.worst_usd += self.judge.worst_usd(r)
        self.f_in.write(line)
        self.f_req.write((json.dumps({"key": r.key, "anchor": r.anchor, "items": r.items,
                                      "anchor_is_pred": r.anchor_is_pred},
                                     ensure_ascii=False) + "\n").encode("utf-8"))
        self.sha.update(line)
        self.n += 1
        self.size += len(line)
        self.tokens += t_in

    def _cut(self) -> None:
        self.f_in.close()
        self.f_req.close()
        if not self.n:
            self.tmp_in.unlink(missing_ok=True)
            self.tmp_req.unlink(missing_ok=True)
            return
        digest = self.sha.hexdigest()
        os.replace(self.tmp_in, input_path(self.directory, digest))
        os.replace(self.tmp_req, requests_path(self.directory, digest))
        self.done.append((digest, self.n, self.size, self.tokens, self.usd))

    def close(self) -> list[tuple[str, int, int, int, float]]:
        self._cut()
        return self.done


def covered_keys(directory: Path, state: BatchState) -> list[str]:
    """The cache keys a chunk's batch holds (from its requests file; [] when it is gone)."""
    path = requests_path(directory, state.digest)
    if not path.exists():
        return []
    with open(path, "rb") as f:
        return [json.loads(line)["key"] for line in f]


async def find_created(client: Any, states: Sequence[BatchState], directory: Path) -> None:
    """For chunks uploaded but without a saved batch id (a kill between ``batches.create`` and
    saving its id), adopt the batch the provider made from that file (``batches.list``)."""
    from judge.judges.llm.batchstate import save

    by_file = {s.input_file_id: s for s in states if s.input_file_id and not s.batch_id}
    if not by_file:
        return
    async for b in client.batches.list(limit=100):
        s = by_file.pop(b.input_file_id, None)
        if s is not None:
            s.batch_id, s.status = b.id, b.status
            save(directory, s)
        if not by_file:
            return


def plan(judge: Any, groups: Sequence[tuple[str, Sequence[Pair]]], ctx: JudgeContext,
         answers: BatchAnswers, limits: BatchLimits, directory: Path) -> Plan:
    """Sort one judge's requests into adopted batches and new chunks (module docstring).

    Args:
        judge: an ``openai:`` :class:`~judge.judges.llm.openai_chat.OpenAIJudge`.
        groups: ``(prompt context, pairs)`` the run judges.
        ctx: the run's context (its cache says what is answered already).
        answers: the run's scratch store (keys taken, keys covered).
        limits: the split limits; a queue limit or ``ctx.max_usd`` makes each request's
            prompt tokens estimated as ``--dry-run`` does (:mod:`judge.judges.llm.costs`),
            else they are taken as the request line's bytes / 4 (for the progress row).
        directory: ``<cache>/batches``.

    Raises:
        InputError: one request larger than ``limits.max_bytes``.
        OSError: the disk refused a chunk file.
    """
    ident = identity_of(judge)
    mine = [s for s in all_states(directory) if s.identity == ident and not s.collected]
    running = [s for s in mine if s.batch_id]
    pending = {s.digest: s for s in mine if not s.batch_id}
    out = Plan(judge)
    exact = limits.queue_limit(judge.config.model) is not None or ctx.max_usd is not None
    judge.set_sent_limit(ctx.max_usd is not None)  # the cap goes into every request body
    chunks = _Chunks(directory, limits, judge, exact, budgeted=ctx.max_usd is not None)
    used: set[str] = set()
    answers.begin()
    try:
        for s in running:
            for key in covered_keys(directory, s):
                answers.cover(key, s.digest)
        for context, pairs in groups:
            for r in judge.iter_requests(pairs, context):
                if not answers.take(r.key) or ctx.cache.get(r.key) is not None:
                    continue
                out.needed += 1
                digest = answers.covered_by(r.key)
                if digest is not None:
                    used.add(digest)
                else:
                    chunks.add(r)
        made = chunks.close()
    finally:
        answers.commit()
    out.adopted = [s for s in running if s.digest in used]
    out.stale = [s for s in running if s.digest not in used]
    for digest, n, size, tokens, usd in made:
        state = pending.pop(digest, None) or load(state_path(directory, digest))
        if state is not None and state.batch_id and state.collected:
            state.restart()  # answered nothing (or not all): the same content anew
        if state is None or state.batch_id:  # a fresh chunk (or one still running elsewhere)
            state = BatchState(digest=digest, judge=judge.id, model=judge.config.model,
                               identity=ident, base_url=judge.config.base_url,
                               api_key_env=judge.api_key_env, mode=judge.output_mode,
                               requests=n, bytes=size, tokens=tokens, created_at=now())
        state.tokens, state.usd = tokens, usd
        out.new.append(state)
        out.usd += usd
    out.orphans = list(pending.values())
    out.worst_usd = chunks.worst_usd
    return out
