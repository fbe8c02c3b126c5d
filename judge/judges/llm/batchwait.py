"""Submitting, pacing and waiting for a ``--batch-api`` run's batches.

Chunks are submitted in order while the estimated prompt tokens of the model's batches in
flight stay within its queue limit (:meth:`BatchLimits.queue_limit`; one batch is always
allowed when none is in flight). A batch the server fails with ``token_limit_exceeded`` (its
enqueued-token limit, which depends on the account's tier) while other batches of the model
are in flight is not a failure of its requests: it is resubmitted once one of them ends, and
the model's limit is taken as what was in flight. All batches are polled with one backoff
(``SIMJUDGE_BATCH_POLL_S`` seconds at first, default 10, ×1.5 per quiet poll up to 60); each
one that ends is collected at once (:func:`~judge.judges.llm.batchcollect.collect`).

While waiting, a progress row (``progress_factory``, the CLI's rich bar) shows batches done,
requests done, the cost so far and an ETA; lines are printed only when a batch changes
status, never one per poll.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge.errors import BatchPendingError
from judge.judges.llm.batchanswers import BatchAnswers
from judge.judges.llm.batchcollect import collect, errors_of
from judge.judges.llm.batchsplit import ENDPOINT, Plan
from judge.judges.llm.batchstate import (
    BatchLimits,
    BatchState,
    drop_local_files,
    input_path,
    save,
    state_path,
)
from judge.judges.llm.llmjudge import BATCH_PRICE_FACTOR

POLL_ENV = "SIMJUDGE_BATCH_POLL_S"
POLL_MAX_S = 60.0


@dataclass
class Job:
    """One batch followed by this run: its judge, state, and whether the run needs it."""

    judge: Any
    state: BatchState
    stale: bool = False
    outcome: str = ""  # for a stale batch: collected, cancelled or still running


@dataclass
class Tracker:
    """What the progress row shows (:meth:`live_text`)."""

    jobs: list[Job] = field(default_factory=list)
    first_done: int | None = None
    first_seen: float = 0.0
    spent_usd: float = 0.0

    def needed(self) -> list[Job]:
        return [j for j in self.jobs if not j.stale]

    def done(self) -> int:
        return sum(j.state.requests if j.state.collected else j.state.done
                   for j in self.needed())

    def live_text(self) -> str:
        """``batches a/b (c in flight)  ≈$x  ETA h:mm:ss`` for the progress bar: batches ended
        of those the run needs (stale ones are not counted), batches submitted and not yet
        collected, USD so far (collected batches' real cost plus finished requests of running
        ones at their estimate, Batch API price) and the time left at the rate observed since
        requests were first seen done (requests already done when the run started, e.g. in an
        adopted batch, do not count toward the rate; ``?`` until one more is done)."""
        need = self.needed()
        ended = sum(j.state.collected for j in need)
        flying = sum(bool(j.state.batch_id) and not j.state.collected for j in need)
        usd = self.spent_usd + sum(_usd_per_request(j) * j.state.done for j in need
                                   if not j.state.collected)
        total, done = sum(j.state.requests for j in need), self.done()
        now = time.monotonic()
        if self.first_done is None:
            self.first_done, self.first_seen = done, now
        eta = "?"
        rate_done = done - self.first_done
        if rate_done > 0 and total > done:
            left = (now - self.first_seen) * (total - done) / rate_done
            eta = time.strftime("%H:%M:%S", time.gmtime(left))
        return (f"batches {ended}/{len(need)} ({flying} in flight)  ≈${usd:.4f}  "
                f"ETA {eta}")


def _usd_per_request(job: Job) -> float:
    """Estimated USD of one request of the job's batch at the batch price."""
    if not job.state.requests:
        return 0.0
    return job.state.usd / job.state.requests * BATCH_PRICE_FACTOR


class Waiter:
    """Runs the plans of every judge to their end (see the module docstring).

    Args:
        limits: split and pacing limits.
        directory: ``<cache>/batches``.
        answers: the run's answer store.
        cache: the run's read-write cache.
        say: prints one line (stderr in the CLI).
        progress_factory: ``(total, live, phase) -> advance(n)`` or None.
    """

    def __init__(self, limits: BatchLimits, directory: Path, answers: BatchAnswers,
                 cache: Any, say: Callable[[str], None],
                 progress_factory: Callable[..., Callable[[int], None]] | None) -> None:
        self.limits, self.directory, self.answers, self.cache = limits, directory, answers, cache
        self.say, self.factory = say, progress_factory
        self.queue: list[Job] = []
        self.open: list[Job] = []
        self.learned: dict[str, int] = {}
        self.tracker = Tracker()
        self.stale: list[Job] = []

    async def run(self, plans: list[Plan]) -> list[Job]:
        """Submit, wait and collect; returns every job followed (stale ones marked).

        Raises:
            BatchPendingError: the provider could not be reached to submit or check a batch
                (those submitted keep running; the same command resumes them).
        """
        for p in plans:
            await self._orphans(p)
            self.queue += [Job(p.judge, s) for s in p.new]
            self.open += [Job(p.judge, s) for s in p.adopted]
            for s in p.adopted:
                self.say(f"{p.judge.id}: resuming batch {s.batch_id} ({s.requests} requests; "
                         f"{state_path(self.directory, s.digest)})")
            for s in p.stale:
                await self._stale(Job(p.judge, s, stale=True))
        self.tracker.jobs = self.queue + self.open + [j for j in self.stale
                                                      if j not in self.open]
        advance = (self.factory(sum(j.state.requests for j in self.tracker.needed()),
                                self.tracker, "batch API") if self.factory else None)
        shown = self.tracker.done()
        if advance is not None and shown:
            advance(shown)
        first = float(os.environ.get(POLL_ENV) or 10.0)
        delay = first
        while self.queue or any(not j.stale for j in self.open):
            await self._submit_fitting()
            ended = await self._poll_all()
            if advance is not None:
                now_done = self.tracker.done()
                advance(now_done - shown)
                shown = now_done
            if ended:
                delay = first
                continue
            await asyncio.sleep(delay)
            delay = min(delay * 1.5, POLL_MAX_S)
        if self.open:  # stale batches only: one more look (a cancelled one may have ended)
            await self._poll_all()
        for j in self.open:  # stale batches still running: left for a later run
            j.outcome = "still running"
            self.say(f"{j.judge.id}: batch {j.state.batch_id} ({j.state.requests} requests) is "
                     "not needed by this run and still running: a later --batch-api run on "
                     "this cache collects it (simjudge batches cancel cancels it)")
        return [j for j in self.tracker.jobs]

    # ------------------------------------------------------------------- stages
    async def _orphans(self, p: Plan) -> None:
        for s in p.orphans:  # uploaded for a chunk this run does not have: delete the upload
            client = p.judge.api_client()
            try:
                if s.input_file_id:
                    await client.files.delete(s.input_file_id)
            except Exception as exc:  # gone already, or unreachable: the local state goes
                self.say(f"{p.judge.id}: could not delete uploaded file {s.input_file_id} "
                         f"({type(exc).__name__}); simjudge batches list shows none left")
            drop_local_files(self.directory, s.digest, state=True)
            self.say(f"{p.judge.id}: dropped chunk {s.digest[:16]}… (uploaded as "
                     f"{s.input_file_id}, never made a batch, no longer needed)")

    async def _stale(self, job: Job) -> None:
        s, judge = job.state, job.judge
        self.stale.append(job)
        if not s.terminal and self.limits.cancel_stale and not s.cancel_requested:
            try:
                await judge.api_client().batches.cancel(s.batch_id)
            except Exception as exc:
                raise BatchPendingError(f"could not cancel stale batch {s.batch_id} "
                                        f"({type(exc).__name__}: {exc})") from None
            s.cancel_requested, s.status = True, "cancelling"
            save(self.directory, s)
            job.outcome = "cancelled"
            self.say(f"{judge.id}: batch {s.batch_id} ({s.requests} requests) is not needed by "
                     "this run: cancelled (--cancel-stale); what it answered before stopping "
                     "is collected into the cache by a later run")
            return
        self.say(f"{judge.id}: batch {s.batch_id} ({s.requests} requests) is not needed by "
                 "this run: collecting its answers into the cache (--cancel-stale cancels "
                 "such batches instead)")
        self.open.append(job)

    def _in_flight_tokens(self, model: str) -> int:
        return sum(j.state.tokens for j in self.open
                   if j.state.model == model and not j.state.terminal)

    def _fits(self, job: Job, blocked: set[str]) -> bool:
        model = job.state.model
        if model in blocked:
            return False
        flying = self._in_flight_tokens(model)
        caps = [c for c in (self.limits.queue_limit(model), self.learned.get(model))
                if c is not None]
        return not flying or not caps or flying + job.state.tokens <= min(caps)

    async def _submit_fitting(self) -> None:
        blocked: set[str] = set()  # first in, first out per model
        for job in list(self.queue):
            if not self._fits(job, blocked):
                blocked.add(job.state.model)
                continue
            await self._submit(job)
            self.queue.remove(job)
            self.open.append(job)

    async def _submit(self, job: Job) -> None:
        s, judge = job.state, job.judge
        client = judge.api_client()
        try:
            if not s.input_file_id:
                await self._upload(client, s)
            try:
                b = await self._create(client, s)
            except Exception as exc:
                if getattr(exc, "status_code", None) not in (400, 404):
                    raise
                s.input_file_id = None  # the provider no longer has the file: upload again
                await self._upload(client, s)
                b = await self._create(client, s)
        except Exception as exc:
            raise BatchPendingError(
                f"{judge.id}: could not submit a batch of {s.requests} requests "
                f"({type(exc).__name__}: {exc}); batches submitted so far keep running: "
                "rerun the same command to resume") from None
        s.batch_id, s.status = b.id, b.status
        save(self.directory, s)
        self.say(f"{judge.id}: batch {b.id} submitted ({s.requests} requests, "
                 f"{s.bytes / 1e6:.1f} MB); state in {state_path(self.directory, s.digest)}")

    async def _upload(self, client: Any, s: BatchState) -> None:
        with open(input_path(self.directory, s.digest), "rb") as f:  # streamed by httpx
            up = await client.files.create(file=(f"simjudge-{s.digest[:16]}.jsonl", f),
                                           purpose="batch")
        s.input_file_id = up.id
        save(self.directory, s)

    async def _create(self, client: Any, s: BatchState) -> Any:
        return await client.batches.create(input_file_id=s.input_file_id, endpoint=ENDPOINT,
                                           completion_window="24h",
                                           metadata={"simjudge": s.digest[:16]})

    async def _poll_all(self) -> bool:
        ended = False
        for job in list(self.open):
            s = job.state
            try:
                b = await job.judge.api_client().batches.retrieve(s.batch_id)
            except Exception as exc:  # the SDK retried already: leave the batch running
                raise BatchPendingError(
                    f"could not check batch {s.batch_id} ({type(exc).__name__}: {exc}); it "
                    "keeps running at the provider: rerun the same command to resume") from None
            counts = b.request_counts
            s.done = (counts.completed + counts.failed) if counts else s.done
            if b.status != s.status:
                s.status = b.status
                save(self.directory, s)
                if b.status not in ("validating", "in_progress"):
                    self.say(f"{job.judge.id}: batch {b.id} {b.status}")
            if b.status not in ("completed", "failed", "expired", "cancelled"):
                continue
            ended = True
            self.open.remove(job)
            if self._requeue(job, b):
                continue
            from openai import APIError

            try:
                t_in, t_out = await collect(job.judge.api_client(), job.judge, s, b,
                                            self.directory, self.answers, self.cache)
            except APIError as exc:
                raise BatchPendingError(
                    f"could not download the results of batch {b.id} ({type(exc).__name__}: "
                    f"{exc}); rerun the same command to collect them") from None
            price = job.judge.config.price
            if price is not None:
                self.tracker.spent_usd += price.cost(t_in, t_out) * BATCH_PRICE_FACTOR
            if job.stale:
                job.outcome = "collected"
            self.say(f"{job.judge.id}: batch {b.id} {b.status}: {s.answered} answered, "
                     f"{s.failed} failed" + "".join(f"\n  {e}" for e in s.errors))
        return ended

    def _requeue(self, job: Job, batch: Any) -> bool:
        """A batch failed for the model's enqueued-token limit while others of the model
        were in flight: put it back in front of the queue (it answered nothing)."""
        s = job.state
        over = any(e.startswith("token_limit_exceeded") for e in errors_of(batch))
        flying = self._in_flight_tokens(s.model)
        if batch.status != "failed" or not over or not flying or job.stale:
            return False
        self.learned[s.model] = min(self.learned.get(s.model, flying), flying)
        s.status, s.errors = batch.status, errors_of(batch)
        s.restart()
        save(self.directory, s)
        self.queue.insert(0, job)
        self.say(f"{job.judge.id}: batch {batch.id} refused for the enqueued-token limit of "
                 f"{s.model}; resubmitted once another batch ends (pacing at {flying} tokens)")
        return True

