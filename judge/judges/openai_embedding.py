"""``openai-embedding:MODEL``: cosine similarity of ``/v1/embeddings`` vectors.

Each distinct string is embedded once (one cache entry per string, batches of 64 inputs per
request); the pair score is the cosine clipped to [0, 1]. Raw cosines are **not** calibrated:
their scale depends on the model, so choose τ with ``simjudge calibrate``.

Failures are outcomes of the pairs whose strings they concern, never an exception that ends the
run: a failed request (described as in :mod:`judge.judges.failures`) or an HTTP 200 reply that is
not a valid embeddings object (HTML, cut-off JSON, a JSON array, a vector with text or NaN in
it, fewer vectors than inputs — :mod:`judge.judges.replies`) makes ``transport_error`` verdicts
that keep the error and the raw reply; nothing is cached for those strings. Consecutive batches
failing with the same fatal cause stop the judge early, as for the chat judges.

Processes sharing a ``read-write`` cache embed each string once between them
(:meth:`judge.cache.JudgeCache.try_claim_many`): before each request the judge takes, without
waiting, the leases of the next uncached strings that no other process holds (up to a batch)
and embeds those; strings another process holds are put aside and, once the judge has nothing
else to do, waited for (holding no lease) and read from the cache — or embedded by this process
when their holder gave them up, died, or did not answer within the cache's ``max_wait_s``.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from judge.cache import cache_key
from judge.judges.base import JudgeContext, Pair
from judge.judges.failures import (
    DEFAULT_STOP_AFTER,
    EarlyStop,
    TransportError,
    describe_sdk_error,
    early_stop_of,
)
from judge.prices import Price
from judge.redact import register_key_env
from judge.verdict import Verdict

BATCH = 64


class OpenAIEmbeddingJudge:
    """Embedding-cosine judge over an OpenAI-compatible ``/v1/embeddings`` endpoint.

    Args:
        judge_id: id to record.
        model: embedding model name.
        base_url: endpoint (None = OpenAI).
        api_key_env: variable holding the key (unset + custom base_url = no key needed).
        price: USD per 1M input tokens, or None.
        timeout_s, max_retries: SDK settings.
        stop_after: consecutive requests failing with the same fatal cause after which the
            judge stops (0 = never; :mod:`judge.judges.failures`).
    """

    def __init__(self, judge_id: str, model: str, base_url: str | None = None,
                 api_key_env: str = "OPENAI_API_KEY", price: Price | None = None,
                 timeout_s: float = 60.0, max_retries: int = 2,
                 stop_after: int = DEFAULT_STOP_AFTER) -> None:
        from judge.errors import InputError

        if base_url is None and not os.environ.get(api_key_env):
            raise InputError(f"{api_key_env} is not set (needed for the OpenAI API)",
                             field="judge")
        self.id = judge_id
        self.model = model
        self.base_url = base_url
        self.api_key_env = api_key_env
        register_key_env(api_key_env)  # its value is redacted from every error text
        self.price = price
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.stop_after = stop_after
        self._client: Any = None
        self._errors: dict[str, TransportError] = {}
        self._keys: dict[str, str] = {}

    def describe(self) -> dict[str, Any]:
        """Identity for ``config.json`` (the key's variable name, never its value)."""
        return {"id": self.id, "backend": "openai-embedding", "model": self.model,
                "base_url": self.base_url, "api_key_env": self.api_key_env,
                "method": "cosine of /v1/embeddings vectors, clipped to [0, 1], uncalibrated"}

    def work_units(self, pairs: Sequence[Pair]) -> int:
        """One unit per distinct string."""
        return len({s for p in pairs for s in p})

    def _key(self, text: str) -> str:
        key = self._keys.get(text)
        if key is None:  # memoised for the run: each string's key is needed several times
            key = self._keys[text] = cache_key(backend="openai-embedding",
                                               base_url=self.base_url, model=self.model,
                                               kind="embedding", text=text)
        return key

    async def _embed(self, texts: list[str], ctx: JudgeContext) -> dict[str, np.ndarray]:
        """Vectors of ``texts`` (cache first); a string whose request failed is left out and
        its error recorded in ``self._errors``."""
        from openai import AsyncOpenAI

        stop = early_stop_of(ctx, self.id, self.stop_after)
        out: dict[str, np.ndarray] = {}
        missing = [t for t in texts if not self._from_cache(t, ctx, out)]
        if missing and self._client is None:
            self._client = AsyncOpenAI(api_key=os.environ.get(self.api_key_env) or "no-key-needed",
                                       base_url=self.base_url, timeout=self.timeout_s,
                                       max_retries=self.max_retries)
        cache = ctx.cache
        key = {t: self._key(t) for t in missing}
        text = {k: t for t, k in key.items()}  # key → string
        busy_since: dict[str, float] = {}  # string → when another process was first seen on it
        todo = missing
        while todo:
            deferred: list[str] = []  # held by another process
            while todo:
                if stop.stopped:
                    self._errors.update({t: _NotAttempted(stop) for t in todo})
                    ctx.advance(len(todo))
                    todo = []
                    break
                async with cache.try_claim_many([key[t] for t in todo], limit=BATCH) as leases:
                    held = [text[k] for k in leases.held]
                    if leases.leased:  # stored by another process just before the lease?
                        held = [t for t in held if not self._from_cache(t, ctx, out)]
                    now = time.monotonic()
                    for t in (text[k] for k in leases.busy):
                        if now - busy_since.setdefault(t, now) >= cache.max_wait_s:
                            held.append(t)  # waited max_wait_s for it: embed it anyway
                        else:
                            deferred.append(t)
                    todo = [text[k] for k in leases.untried]
                    for i in range(0, len(held), BATCH):
                        await self._request(held[i:i + BATCH], ctx, stop, out)
            if deferred:
                oldest = min(busy_since[t] for t in deferred)
                await cache.wait_any([key[t] for t in deferred],
                                     cache.max_wait_s - (time.monotonic() - oldest))
                # answered ones are hits; the rest are tried again (a free lease is taken, an
                # overdue one embedded without lease)
                todo = [t for t in deferred if not self._from_cache(t, ctx, out)]
        return out

    def _from_cache(self, text: str, ctx: JudgeContext, out: dict[str, np.ndarray]) -> bool:
        """Put ``text``'s cached vector in ``out`` (a hit, one unit of progress); False when
        the cache has no usable vector for it."""
        vec = _cached_vector(ctx.cache.get(self._key(text)))
        if vec is None:
            return False
        out[text] = vec
        ctx.stats.cache_hits += 1
        ctx.advance(1)
        return True

    async def _request(self, batch: list[str], ctx: JudgeContext, stop: EarlyStop,
                       out: dict[str, np.ndarray]) -> None:
        """Embed ``batch`` (at most :data:`BATCH` strings) in one request: vectors into
        ``out`` and the cache, or the failure into ``self._errors``."""
        import httpx2
        import openai

        from judge.judges.replies import embeddings_result

        if stop.stopped:
            self._errors.update({t: _NotAttempted(stop) for t in batch})
            ctx.advance(len(batch))
            return
        try:
            # the SDK's generic request (its retries, backoff, typed errors) returning the
            # raw response, so a malformed reply is checked and kept, never a crash; the
            # body is what embeddings.create sends (base64 float32 vectors)
            resp = await self._client.post(
                "/embeddings", body={"model": self.model, "input": batch,
                                     "encoding_format": "base64"}, cast_to=httpx2.Response)
            vectors, tokens = embeddings_result(resp, len(batch))
        except (openai.OpenAIError, TransportError) as exc:
            err = exc if isinstance(exc, TransportError) else describe_sdk_error(
                exc, self.base_url, self.timeout_s)
            stop.record(err)
            ctx.stats.judge_calls += len(batch)
            self._errors.update({t: err for t in batch})
            ctx.advance(len(batch))
            return
        stop.record(None)
        ctx.stats.judge_calls += len(batch)
        ctx.stats.tokens_in += tokens
        if self.price is not None:
            ctx.stats.cost_usd += self.price.cost(tokens, 0)
        entries = {}
        for t, vec in zip(batch, vectors, strict=True):
            out[t] = vec
            entries[self._key(t)] = {"embedding": vec.tolist(), "model": self.model}
        ctx.cache.set_many(entries)
        ctx.advance(len(batch))

    async def judge_pairs(self, pairs: Sequence[Pair], ctx: JudgeContext) -> list[Verdict | None]:
        """Embed every distinct string once, then score each pair by cosine."""
        self._errors = {}
        self._keys = {}
        t0 = time.perf_counter()
        strings = list(dict.fromkeys(s for p in pairs for s in p))
        try:
            vecs = await self._embed(strings, ctx)
        finally:
            if self._client is not None:
                await self._client.close()
                self._client = None
        per = (time.perf_counter() - t0) / max(1, len(pairs))
        out: list[Verdict | None] = []
        for p, t in pairs:
            key = f"{self._key(p)}+{self._key(t)}"
            common: dict[str, Any] = {"pred": p, "truth": t, "judge_id": self.id,
                                      "scorer": "openai-embedding-cosine@v1",
                                      "cache_key": key, "latency_s": per}
            err = self._errors.get(p) or self._errors.get(t)
            if err is not None or p not in vecs or t not in vecs:
                if isinstance(err, _NotAttempted):
                    err.stop.not_attempted += 1
                why = err.message if err is not None else "embedding unavailable"
                out.append(Verdict(outcome="transport_error", rationale=why,
                                   raw=err.raw if err is not None else "", **common))
                continue
            a, b = vecs[p], vecs[t]
            if a.shape != b.shape:
                out.append(Verdict(outcome="transport_error", raw="", **common,
                                   rationale=f"embedding lengths differ ({a.size} vs {b.size}):"
                                             " the cache holds vectors of another model version"))
                continue
            cos = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
            s = min(1.0, max(0.0, cos))
            out.append(Verdict(score=s, outcome="ok",
                               rationale=f"embedding cosine {cos:.2f} ({self.model}); raw "
                                         "cosine, not calibrated; no reasoning model",
                               raw=json.dumps({"cosine": round(cos, 6)}), **common))
        self._keys = {}
        return out


class _NotAttempted(TransportError):
    """A string whose request was never sent because the judge had stopped."""

    def __init__(self, stop: EarlyStop) -> None:
        super().__init__(stop.not_attempted_text(), cause=stop.cause)
        self.stop = stop


def _cached_vector(hit: Any) -> np.ndarray | None:
    """The vector of a cache entry, or None when the entry is missing or not a non-empty,
    finite, non-zero vector (then the string is embedded again)."""
    emb = hit.get("embedding") if isinstance(hit, dict) else None
    if not isinstance(emb, list) or not emb:
        return None
    try:
        vec = np.asarray(emb, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    if vec.ndim != 1 or not np.all(np.isfinite(vec)) or not np.any(vec):
        return None
    return vec
