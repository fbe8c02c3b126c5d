"""Orchestration shared by prompt-based (LLM) judges: cache, concurrency, rate limits, parsing,
failures as outcomes.

For every request (one pair, or with a batch scorer one prediction against several gold items):

1. render the scorer's messages and compute the cache key (DESIGN.md "Cache": backend, base_url,
   model, decoding params, scorer id, template sha256, schema version, messages, sample index —
   never a credential);
2. a cache hit is re-parsed from the stored raw completion (so a parser change needs no call);
3. a miss waits for the rate limiter and a concurrency slot, then calls the backend; the SDK
   retries 429/5xx/timeouts with backoff and ``Retry-After``;
4. a failure is an outcome, never a score: ``transport_error`` (unreachable after the
   retries, or a reply that breaks the protocol: an HTML page, cut-off JSON, wrong types — the
   raw reply is kept), ``refused`` (the model declined), ``parse_error`` (the completion holds
   no valid answer — e.g. a score that is not a JSON number in [0, 1]; the raw text is kept);
5. only fully parsed answers are cached, immediately after each call, so an interrupted run
   loses no completed call and a rerun retries exactly the failed ones. A cached answer that
   the (stricter) parser of this version no longer accepts counts as a miss and is asked again
   (except in ``cache-only`` mode, where it is a ``parse_error``);
6. calls failing alike with a fatal cause (401/403/404, refused connection, failed name
   resolution) stop the judge early (:mod:`judge.judges.failures`).
"""

from __future__ import annotations

import abc
import asyncio
import copy
import dataclasses
import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from judge.cache import cache_key
from judge.judges.base import Judge, JudgeContext, Pair
from judge.judges.failures import (
    DEFAULT_STOP_AFTER,
    EarlyStop,
    TransportError,
    early_stop_of,
)
from judge.judges.llm.grades import grade_answer
from judge.judges.llm.jsonreply import ParseError
from judge.judges.llm.scorer import Scorer
from judge.prices import Price
from judge.ratelimit import RateLimiter
from judge.verdict import Outcome, Verdict

DEFAULT_CONCURRENCY = 16
FEED_EVERY = 8
"""Requests rendered between two yields to the event loop when a judge starts its calls."""

__all__ = ["CallResult", "LLMJudge", "LLMJudgeConfig", "Request", "TransportError"]


@dataclass
class CallResult:
    """What a backend call returned.

    Attributes:
        texts: the completion text of each choice (several when ``n`` > 1).
        tokens_in, tokens_out: usage reported by the server.
        refusal: the model's refusal message, if it refused.
        mode: the output mode finally used (``json_schema``, ``json_object``, ``text``,
            ``tool``).
        finish_reason: the first choice's finish reason.
        logprobs: each choice's ``logprobs.content`` list (token log-probabilities), or None
            where the server sent none; None when it sent none at all.
    """

    texts: list[str]
    tokens_in: int = 0
    tokens_out: int = 0
    refusal: str | None = None
    mode: str = "text"
    finish_reason: str | None = None
    logprobs: list[Any] | None = None


Answer = tuple[float, str, "dict[str, float] | None"]
"""One item's parsed answer: ``(score in [0, 1], rationale, grade distribution or None)``."""


@dataclass
class Request:
    """One call: an anchor string and the item(s) of the other side it is judged against.

    For the pairwise scorer the anchor is the prediction and ``items`` holds one gold item.
    """

    anchor: str
    items: list[str]
    messages: list[dict[str, str]]
    anchor_is_pred: bool = True
    key: str = ""

    def pair(self, item: str) -> Pair:
        """The ``(pred, truth)`` pair of one item."""
        return (self.anchor, item) if self.anchor_is_pred else (item, self.anchor)


@dataclass
class LLMJudgeConfig:
    """Settings common to LLM judges.

    Attributes:
        model: model name as the server knows it.
        scorer: prompt scorer (pairwise ``entity_similarity`` or ``entity_similarity_batch``).
        params: decoding parameters sent with every call (temperature, seed, max_tokens, n, …).
        base_url: OpenAI-compatible endpoint, or None for the provider's default.
        concurrency: maximum calls in flight (>= 1).
        max_batch: most items of the other side in one batch request.
        rpm, tpm: optional requests/tokens per minute limits.
        price: USD per 1M tokens for this model, or None (unpriced: cost 0).
        stop_after: consecutive calls failing with the same fatal cause after which the judge
            stops (0 = never; :mod:`judge.judges.failures`).
        sample: the sample index of this judge's calls (part of every cache key): 0 normally;
            ``--repeats N`` judges each pair with samples 0..N-1 (:func:`LLMJudge.sample_of`).
    """

    model: str
    scorer: Scorer
    params: dict[str, Any] = field(default_factory=dict)
    base_url: str | None = None
    concurrency: int = DEFAULT_CONCURRENCY
    max_batch: int = 20
    rpm: int | None = None
    tpm: int | None = None
    price: Price | None = None
    stop_after: int = DEFAULT_STOP_AFTER
    sample: int = 0


class LLMJudge(Judge, abc.ABC):
    """Base class of prompt judges; subclasses implement :meth:`call` (and ``backend``)."""

    backend = "llm"

    def __init__(self, judge_id: str, config: LLMJudgeConfig) -> None:
        if config.concurrency < 1:
            raise ValueError(f"concurrency: must be >= 1, got {config.concurrency}")
        self.id = judge_id
        self.config = config
        self.limiter = RateLimiter(config.rpm, config.tpm)
        self._semaphore: asyncio.Semaphore | None = None
        self._schema_bytes: int | None = None
        self._sent_limit: int | None = None
        self._redactor: Any = None  # judge.redact.Redactor of the cached answers (_payload)

    # ------------------------------------------------------------ to override
    @abc.abstractmethod
    async def call(self, messages: list[dict[str, str]]) -> CallResult:
        """Send one request; raise :class:`TransportError` when it finally fails."""

    def identity(self) -> dict[str, Any]:
        """The parts of the cache key that identify this backend and model (no credentials: a
        secret in the base URL's query or user info is masked, :func:`judge.redact.redact_url`,
        so a bundle's replay finds its answers under the URL recorded in ``config.json``)."""
        from judge.judges.llm.endpoints import endpoint_key
        from judge.redact import redact_url

        url = self.config.base_url
        return {"backend": self.backend,
                "base_url": endpoint_key(None if url is None else redact_url(url)),
                "model": self.config.model, "params": self.config.params}

    def sample_of(self, k: int) -> LLMJudge:
        """The same judge drawing sample ``k`` (>= 0): its id gets ``#k`` (k > 0), its cache
        keys the sample index ``k``, and a decoding ``seed`` in its parameters becomes
        ``seed + k`` so a seeded server draws a different sample. Sample 0 is this judge.

        Raises:
            ValueError: ``k`` < 0.
        """
        if k < 0:
            raise ValueError(f"sample: expected an index >= 0, got {k}")
        if k == self.config.sample:
            return self
        clone = copy.copy(self)
        params = dict(self.config.params)
        if isinstance(params.get("seed"), int):
            params["seed"] = params["seed"] - self.config.sample + k
        clone.config = dataclasses.replace(self.config, sample=k, params=params)
        base = self.id.rsplit("#", 1)[0] if self.config.sample else self.id
        clone.id = base if k == 0 else f"{base}#{k}"
        clone.limiter = self.limiter
        clone._semaphore = None
        if hasattr(clone, "_client"):
            clone._client = None  # one HTTP client per judge object and event loop
        return clone

    # ---------------------------------------------------------------- helpers
    def describe(self) -> dict[str, Any]:
        """Identity for ``config.json`` (never a credential)."""
        c = self.config
        return {"id": self.id, **self.identity(), "scorer": c.scorer.id,
                "template_sha256": c.scorer.template_sha256,
                "schema_version": c.scorer.schema_version, "concurrency": c.concurrency,
                "rpm": c.rpm, "tpm": c.tpm, **({"sample": c.sample} if c.sample else {}),
                "price_usd_per_1m": None if c.price is None else
                {"input": c.price.input, "output": c.price.output, "as_of": c.price.as_of}}

    def requests_for(self, pairs: Sequence[Pair], context: str) -> list[Request]:
        """Group pairs into requests: one per pair, or for batch scorers one per anchor string
        and up to ``max_batch`` items of the other side. The anchor side is the one with fewer
        distinct strings (IFPUG: 8 gold names against 167 predicted ones), so a batch run
        needs as few requests as the data allows."""
        return list(self.iter_requests(pairs, context))

    def iter_requests(self, pairs: Sequence[Pair], context: str) -> Iterator[Request]:
        """:meth:`requests_for` one request at a time, each rendered and keyed as it is
        taken (so the first calls can go out while the rest are still being rendered)."""
        scorer = self.config.scorer
        if scorer.mode != "batch":
            reqs: Iterator[Request] = (Request(p, [t], scorer.render(pred=p, truth=t,
                                                                     context=context))
                                       for p, t in pairs)
        else:
            reqs = self._batch_requests(pairs, context)
        identity = self.identity()
        for r in reqs:
            r.key = cache_key(**identity, scorer=scorer.id,
                              template_sha256=scorer.template_sha256,
                              schema_version=scorer.schema_version, messages=r.messages,
                              sample=self.config.sample)
            yield r

    def _batch_requests(self, pairs: Sequence[Pair], context: str) -> Iterator[Request]:
        scorer = self.config.scorer
        anchor_is_pred = len({p for p, _ in pairs}) <= len({t for _, t in pairs})
        groups: dict[str, list[str]] = {}
        for p, t in pairs:
            a, x = (p, t) if anchor_is_pred else (t, p)
            groups.setdefault(a, []).append(x)
        size = max(1, self.config.max_batch)
        for a, xs in groups.items():
            for i in range(0, len(xs), size):
                chunk = xs[i:i + size]
                yield Request(a, chunk, scorer.render(
                    anchor=a, anchor_role="predicted" if anchor_is_pred else "gold",
                    items=chunk, items_role="gold" if anchor_is_pred else "predicted",
                    context=context), anchor_is_pred)

    def estimated_tokens(self, req: Request) -> tuple[int, int]:
        """``(prompt, completion)`` tokens one call is estimated to use
        (:mod:`judge.judges.llm.costs`)."""
        from judge.judges.llm.costs import tokens_in, tokens_out

        return (tokens_in(req.messages),
                tokens_out(self.config.scorer.mode, len(req.items), self.config.params))

    def estimated_usd(self, req: Request) -> float:
        """Estimated USD of one call (0 for an unpriced model)."""
        if self.config.price is None:
            return 0.0
        return self.config.price.cost(*self.estimated_tokens(req))

    def cost_of(self, res: CallResult, price_factor: float = 1.0) -> float:
        """USD of an answered call: its reported usage at this model's price (0 unpriced),
        times ``price_factor`` (the Batch API's discount)."""
        if self.config.price is None:
            return 0.0
        return self.config.price.cost(res.tokens_in, res.tokens_out) * price_factor

    def completion_limit(self) -> int:
        """The completion limit a call sends under ``--max-usd`` when the judge sets no
        ``max_tokens``: the scorer's cap for its largest request
        (:func:`judge.judges.llm.costs.completion_cap`), in tokens per choice."""
        from judge.judges.llm.costs import completion_cap

        scorer = self.config.scorer
        return completion_cap(scorer.mode, self.config.max_batch if scorer.mode == "batch" else 1)

    def worst_tokens(self, req: Request) -> tuple[int, int]:
        """``(prompt, completion)`` tokens one call can use at most
        (:mod:`judge.judges.llm.costs`): the prompt's bound, and ``max_tokens`` or the
        completion limit the judge sends (:meth:`completion_limit`), times ``n``."""
        from judge.judges.llm.costs import tokens_in_max, tokens_out_max

        if self._schema_bytes is None:
            self._schema_bytes = len(json.dumps(self.config.scorer.json_schema()).encode())
        return (tokens_in_max(req.messages, self._schema_bytes),
                tokens_out_max(self.config.scorer.mode, len(req.items), self.config.params,
                               cap=self.completion_limit()))

    def worst_usd(self, req: Request) -> float:
        """USD one call can cost at most (:meth:`worst_tokens` at this model's price; 0 for an
        unpriced model): what ``--max-usd`` reserves while it is in flight."""
        if self.config.price is None:
            return 0.0
        return self.config.price.cost(*self.worst_tokens(req))

    def set_sent_limit(self, budgeted: bool) -> None:
        """Decide :attr:`sent_limit` for this run: under a budget (``--max-usd``), and when the
        judge sets no ``max_tokens``/``max_completion_tokens`` of its own, its requests carry
        :meth:`completion_limit`, so that no answer can cost more than :meth:`worst_usd`
        counted; otherwise None. Called before requests are rendered, by the direct path and
        by the Batch API's planner alike."""
        params = self.config.params
        self._sent_limit = (self.completion_limit() if budgeted and not (
            params.get("max_tokens") or params.get("max_completion_tokens")) else None)

    @property
    def sent_limit(self) -> int | None:
        """The completion limit this judge adds to its requests (under ``--max-usd``, when it
        sets no ``max_tokens``), else None. Not part of the cache key: a limit only cuts an
        answer short, and a cut answer fails to parse and is never cached, so every cached
        answer is the same with or without it."""
        return self._sent_limit

    def work_units(self, pairs: Sequence[Pair]) -> int:
        """One unit per pair (a batch-scorer request advances by the pairs it holds)."""
        return len(pairs)

    def _verdict(self, req: Request, item: str, outcome: Outcome, *, score: float | None = None,
                 rationale: str = "", raw: str = "", latency: float = 0.0, tokens: tuple[int, int]
                 = (0, 0), cached: bool = False, mode: str = "", cost: float = 0.0,
                 distribution: dict[str, float] | None = None) -> Verdict:
        share = len(req.items)
        pred, truth = req.pair(item)
        fallback = (outcome == "ok" and distribution is None and self.config.scorer.mode ==
                    "grade" and bool(self.config.params.get("logprobs")))
        return Verdict(pred=pred, truth=truth, score=score, rationale=rationale,
                       distribution=distribution, logprob_fallback=fallback,
                       outcome=outcome, raw=raw, judge_id=self.id, scorer=self.config.scorer.id,
                       template_sha256=self.config.scorer.template_sha256, cache_key=req.key,
                       latency_s=latency, tokens_in=tokens[0] // share,
                       tokens_out=tokens[1] // share, cached=cached, output_mode=mode,
                       cost_usd=cost / share)

    def parse(self, req: Request, texts: list[str],
              logprobs: list[Any] | None = None) -> dict[str, Answer | str]:
        """Map each item of ``req`` to an :data:`Answer` or a parse-error message.

        With several choices (``n`` > 1) an item's score is the mean over the choices that
        answered it validly; a reply with *more* choices than ``n`` whose scores for an item
        differ is that item's parse error (:mod:`judge.judges.llm.choices`). With a batch
        scorer each item is judged on its own entry: one bad entry (``"score": true``) is that
        item's parse error, not its neighbours'. With a grade scorer the answer is read with
        the choices' token ``logprobs`` (:func:`judge.judges.llm.grades.grade_answer`).
        """
        from judge.judges.llm.choices import conflicts, requested_choices

        result = self._parse_texts(req, texts, logprobs)
        n = requested_choices(self.config.params)
        if len(texts) > n:  # more choices than asked for: they must agree
            result.update(conflicts(req.items, [self._parse_texts(
                req, [t], None if logprobs is None else logprobs[k:k + 1])
                for k, t in enumerate(texts)], n))
        return result

    def _parse_texts(self, req: Request, texts: list[str],
                     logprobs: list[Any] | None) -> dict[str, Answer | str]:
        """:meth:`parse` without the check of extra choices."""
        if self.config.scorer.mode == "grade":
            try:
                g = grade_answer(texts, logprobs, bool(self.config.params.get("logprobs")))
            except ParseError as exc:
                return {req.items[0]: str(exc)}
            return {req.items[0]: (g.score, g.rationale, g.distribution)}
        per_item: dict[str, list[tuple[float, str]]] = {t: [] for t in req.items}
        item_errors: dict[str, str] = {}
        errors: list[str] = []
        for text in texts:
            try:
                if self.config.scorer.mode == "batch":
                    entries = self.config.scorer.parse_batch(text, len(req.items))
                    for k, ans in entries.items():
                        t = req.items[k]
                        if isinstance(ans, tuple):
                            per_item[t].append(ans)
                        else:
                            item_errors.setdefault(t, ans)
                else:
                    out = self.config.scorer.parse(text)
                    per_item[req.items[0]].append((float(out.score),  # type: ignore[attr-defined]
                                                   str(out.rationale)))  # type: ignore[attr-defined]
            except ParseError as exc:
                errors.append(str(exc))
        result: dict[str, Answer | str] = {}
        for t, answers in per_item.items():
            if answers:
                result[t] = (sum(a[0] for a in answers) / len(answers), answers[0][1], None)
            else:
                result[t] = item_errors.get(t) or (
                    errors[0] if errors else "the answer has no score for this item")
        return result

    # ------------------------------------------------------------ orchestration
    async def judge_pairs(self, pairs: Sequence[Pair], ctx: JudgeContext) -> list[Verdict | None]:
        """Judge every pair (see module docstring); the result is aligned with ``pairs``."""
        return (await self.judge_in_contexts([(ctx.context, pairs)], ctx))[0]

    async def judge_in_contexts(self, groups: Sequence[tuple[str, Sequence[Pair]]],
                                ctx: JudgeContext) -> list[list[Verdict | None]]:
        """:meth:`judge_pairs` for several groups of pairs, each rendered with its own prompt
        ``context`` (e.g. one per function parameter), all requests sharing one concurrency
        limit; ``ctx.context`` is not used. Returns one list per group, aligned with its
        pairs. Requests are rendered as their calls are started (:data:`FEED_EVERY` at a
        time), so the first calls go out at once rather than after the whole chunk is
        rendered (20,000 requests take ~2 s)."""
        self._semaphore = asyncio.Semaphore(self.config.concurrency)
        self.set_sent_limit(ctx.budget is not None)
        self._lease_slots = asyncio.Semaphore(self.config.concurrency)  # JudgeCache.claim
        tasks: list[tuple[int, asyncio.Task[list[Verdict]]]] = []
        try:
            for g, (context, pairs) in enumerate(groups):
                for r in self.iter_requests(pairs, context):
                    tasks.append((g, asyncio.ensure_future(self._run(r, ctx))))
                    if len(tasks) % FEED_EVERY == 0:
                        # let the calls started so far go out while the rest are rendered
                        await asyncio.sleep(0)
            results = await asyncio.gather(*(t for _, t in tasks))
        except BaseException:
            for _, t in tasks:
                t.cancel()
            await asyncio.gather(*(t for _, t in tasks), return_exceptions=True)
            raise
        finally:
            await self.aclose()
        by_pair: list[dict[Pair, Verdict]] = [{} for _ in groups]
        for (g, _), verdicts in zip(tasks, results, strict=True):
            for v in verdicts:
                by_pair[g][(v.pred, v.truth)] = v
        return [[by_pair[g].get(p) for p in pairs] for g, (_, pairs) in enumerate(groups)]

    async def _run(self, req: Request, ctx: JudgeContext) -> list[Verdict]:
        try:
            # processes sharing the cache pay once per key: the others wait for the answer
            async with ctx.cache.claim(req.key, self._lease_slots):
                return await self._run_inner(req, ctx)
        finally:
            ctx.advance(len(req.items))  # progress counts pairs

    def _from_cache(self, req: Request, hit: Any, ctx: JudgeContext) -> list[Verdict] | None:
        """Verdicts re-parsed from a cache entry, or None to treat it as a miss: an entry that
        is not a stored answer, or one this parser no longer fully accepts (outside
        ``cache-only`` mode, where that is a ``parse_error``)."""
        texts = hit.get("texts") if isinstance(hit, dict) else None
        if not (isinstance(texts, list) and texts and all(isinstance(x, str) for x in texts)):
            return None
        lp = hit.get("logprobs")
        parsed = self.parse(req, list(texts), lp if isinstance(lp, list) else None)
        if ctx.cache.mode != "cache-only" and not all(isinstance(a, tuple)
                                                      for a in parsed.values()):
            return None
        mode = str(hit.get("mode", ""))
        return [self._verdict(req, t, "ok", score=a[0], rationale=a[1], raw=_raw(texts),
                              cached=True, mode=mode, distribution=a[2])
                if isinstance(a, tuple) else
                self._verdict(req, t, "parse_error", rationale=a, raw=_raw(texts),
                              cached=True, mode=mode)
                for t, a in parsed.items()]

    def _not_attempted(self, req: Request, stop: EarlyStop) -> list[Verdict]:
        stop.not_attempted += len(req.items)
        return [self._verdict(req, t, "transport_error", rationale=stop.not_attempted_text())
                for t in req.items]

    async def _run_inner(self, req: Request, ctx: JudgeContext) -> list[Verdict]:
        stop = early_stop_of(ctx, self.id, self.config.stop_after)
        fetched = ctx.batch.pop(req.key, None)
        if fetched is not None:  # answered through the Batch API (judge.judges.llm.batchapi)
            ctx.stats.judge_calls += 1
            if isinstance(fetched, TransportError):  # or parse_error: conflicting copies
                outcome: Outcome = getattr(fetched, "outcome", "transport_error")
                return [self._verdict(req, t, outcome, rationale=fetched.message,
                                      raw=fetched.raw) for t in req.items]
            # cached already, the moment the batch was downloaded (batchapi: judge.store)
            return self._answered(req, fetched, ctx, 0.0, BATCH_PRICE_FACTOR, cache=False)
        hit = ctx.cache.get(req.key)
        if hit is not None:
            cached = self._from_cache(req, hit, ctx)
            if cached is not None:
                ctx.stats.cache_hits += 1
                return cached
            ctx.cache.unusable(req.key, self.id)  # cache-only: stops, never a call
        if stop.stopped:
            return self._not_attempted(req, stop)
        # one estimate (judge.judges.llm.costs, what --dry-run prints) paces --tpm; computed
        # only when it is needed
        tokens = self.estimated_tokens(req) if self.limiter.tpm is not None else (0, 0)
        await self.limiter.acquire(sum(tokens))
        assert self._semaphore is not None
        async with self._semaphore, stop.slot():
            if stop.stopped:
                return self._not_attempted(req, stop)
            budget = ctx.budget
            worst = self.worst_usd(req) if budget is not None else 0.0
            if budget is not None:
                # admitted at its worst case: spent + in flight + this one stay within --max-usd
                admitted = await budget.reserve(worst)
                if not admitted or stop.stopped:
                    if admitted:
                        budget.settle(worst, 0.0)
                    else:
                        stop.stop_for_budget(budget.max_usd, budget.spent_usd, worst)
                    return self._not_attempted(req, stop)
            t0 = time.perf_counter()
            cost = 0.0
            try:
                res = await self.call(req.messages)
                stop.record(None)
                ctx.stats.judge_calls += 1
                # the reply's real cost counts the moment it arrives (then the reservation goes)
                verdicts = self._answered(req, res, ctx, time.perf_counter() - t0)
                cost = self.cost_of(res)
                return verdicts
            except TransportError as exc:
                stop.record(exc)
                ctx.stats.judge_calls += 1
                return [self._verdict(req, t, "transport_error", rationale=exc.message,
                                      raw=exc.raw, latency=time.perf_counter() - t0)
                        for t in req.items]
            finally:
                if budget is not None:
                    budget.settle(worst, cost)

    def _payload(self, req: Request, res: CallResult) -> dict[str, Any]:
        """The cache entry of an answer: the reply's texts and logprobs with API keys redacted
        (:mod:`judge.redact`: a key a server or proxy echoes inside a well-formed reply never
        reaches the cache, as it never reaches a run file), its usage, mode, finish reason and
        model, and the request's messages (the judged data, kept as sent)."""
        if self._redactor is None:  # built once: it reads the environment's key values
            from judge.redact import Redactor

            self._redactor = Redactor()
        red = self._redactor
        return {"texts": [red.text(t) for t in res.texts], "logprobs": red.obj(res.logprobs),
                "tokens_in": res.tokens_in, "tokens_out": res.tokens_out, "mode": res.mode,
                "finish_reason": res.finish_reason, "model": self.config.model,
                "messages": req.messages}

    def store(self, req: Request, res: CallResult, cache: Any) -> bool:
        """Cache the answer ``res`` to ``req`` as a call would (no refusal, every item parsed:
        the Batch API's answers are stored the moment they are downloaded); True if stored."""
        if res.refusal is not None:
            return False
        parsed = self.parse(req, res.texts, res.logprobs)
        if not all(isinstance(a, tuple) for a in parsed.values()):
            return False
        cache.set(req.key, self._payload(req, res))
        return True

    def _answered(self, req: Request, res: CallResult, ctx: JudgeContext, latency: float,
                  price_factor: float = 1.0, cache: bool = True) -> list[Verdict]:
        """The verdicts of an answered request (counted in ``ctx.stats``; cached when every
        item parsed, unless ``cache`` is False); ``price_factor`` scales its USD (the Batch
        API's discount)."""
        ctx.stats.tokens_in += res.tokens_in
        ctx.stats.tokens_out += res.tokens_out
        cost = self.cost_of(res, price_factor)
        ctx.stats.cost_usd += cost
        tokens = (res.tokens_in, res.tokens_out)
        raw = _raw(res.texts)
        if res.refusal is not None:
            return [self._verdict(req, t, "refused", rationale=res.refusal, raw=raw,
                                  latency=latency, tokens=tokens, mode=res.mode, cost=cost)
                    for t in req.items]
        parsed = self.parse(req, res.texts, res.logprobs)
        if cache and all(isinstance(a, tuple) for a in parsed.values()):
            ctx.cache.set(req.key, self._payload(req, res))
        return [self._verdict(req, t, "ok", score=a[0], rationale=a[1], raw=raw, latency=latency,
                              tokens=tokens, mode=res.mode, cost=cost, distribution=a[2])
                if isinstance(a, tuple) else
                self._verdict(req, t, "parse_error", rationale=a, raw=raw, latency=latency,
                              tokens=tokens, mode=res.mode, cost=cost)
                for t, a in parsed.items()]


BATCH_PRICE_FACTOR = 0.5
"""USD of a Batch API call relative to the same call made directly: OpenAI bills batch requests
at 50 % of the synchronous price (platform.openai.com/docs/guides/batch)."""


def _raw(texts: Sequence[str]) -> str:
    return texts[0] if len(texts) == 1 else json.dumps(list(texts), ensure_ascii=False)
