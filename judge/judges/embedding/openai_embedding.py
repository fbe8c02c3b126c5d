"""``openai-embedding:MODEL``: cosine similarity of ``/v1/embeddings`` vectors.

Each distinct string is embedded once (one cache entry per string, batches of 64 inputs per
request); the pair score is the cosine clipped to [0, 1]. Raw cosines are **not** calibrated:
their scale depends on the model, so choose τ with ``simjudge calibrate``. Caching, cosines and
verdicts are those of every embedding judge (:mod:`judge.judges.embedding.cosine`).

Failures are outcomes of the pairs whose strings they concern, never an exception that ends the
run: a failed request (described as in :mod:`judge.judges.failures`) or an HTTP 200 reply that is
not a valid embeddings object (HTML, cut-off JSON, a JSON array, a vector with text or NaN in
it, fewer vectors than inputs — :mod:`judge.judges.llm.replies`) makes ``transport_error`` verdicts
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

import os
import time
from typing import Any

import numpy as np

from judge.judges.base import JudgeContext
from judge.judges.embedding.cosine import EmbeddingJudge, NotAttempted, Vector, batches
from judge.judges.failures import (
    DEFAULT_STOP_AFTER,
    EarlyStop,
    TransportError,
    describe_sdk_error,
    early_stop_of,
)
from judge.judges.keys import require_key
from judge.prices import Price
from judge.redact import register_key_env

BATCH = 64
"""Most strings per ``/v1/embeddings`` request."""


class OpenAIEmbeddingJudge(EmbeddingJudge):
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

    Raises:
        judge.errors.InputError: no key for the OpenAI API itself.
    """

    scorer_id = "openai-embedding-cosine@v1"

    def __init__(self, judge_id: str, model: str, base_url: str | None = None,
                 api_key_env: str = "OPENAI_API_KEY", price: Price | None = None,
                 timeout_s: float = 60.0, max_retries: int = 2,
                 stop_after: int = DEFAULT_STOP_AFTER) -> None:
        super().__init__(judge_id)
        self.missing_key = require_key(api_key_env, base_url)  # judge.judges.keys
        self.model = model
        self.base_url = base_url
        self.api_key_env = api_key_env
        register_key_env(api_key_env)  # its value is redacted from every error text
        self.price = price
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.stop_after = stop_after
        self._client: Any = None

    def describe(self) -> dict[str, Any]:
        """Identity for ``config.json`` (the key's variable name, never its value)."""
        return {"id": self.id, "backend": "openai-embedding", "model": self.model,
                "base_url": self._recorded_url(), "api_key_env": self.api_key_env,
                "method": "cosine of /v1/embeddings vectors, clipped to [0, 1], uncalibrated"}

    def key_identity(self) -> dict[str, Any]:
        """Backend, base_url and model (never the key, nor a secret in the URL)."""
        return {"backend": "openai-embedding", "base_url": self._recorded_url(),
                "model": self.model}

    def _recorded_url(self) -> str | None:
        """The base URL with a secret in its query or user info masked (as recorded)."""
        from judge.redact import redact_url

        return None if self.base_url is None else redact_url(self.base_url)

    def decode(self, entry: Any) -> Vector | None:
        """The vector of a cache entry ``{"embedding": [numbers], "model": str}``, or None
        when the entry is missing or not a non-empty, finite, non-zero vector."""
        emb = entry.get("embedding") if isinstance(entry, dict) else None
        if not isinstance(emb, list) or not emb:
            return None
        try:
            vec = np.asarray(emb, dtype=np.float64)
        except (TypeError, ValueError):
            return None
        if vec.ndim != 1 or not np.all(np.isfinite(vec)) or not np.any(vec):
            return None
        return vec

    def encode(self, vector: Vector) -> dict[str, Any]:
        """``{"embedding": [numbers], "model": model}``."""
        return {"embedding": vector.tolist(), "model": self.model}

    def score(self, cosine: float, pred: str, truth: str) -> tuple[float, str, dict[str, Any]]:
        """The cosine clipped to [0, 1] (uncalibrated) and ``{"cosine"}``."""
        return (min(1.0, max(0.0, cosine)),
                f"embedding cosine {cosine:.2f} ({self.model}); raw cosine, not calibrated; no "
                "reasoning model", {"cosine": round(cosine, 6)})

    async def aclose(self) -> None:
        """Close the HTTP client (it belongs to the event loop of this run)."""
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def embed_missing(self, texts: list[str], ctx: JudgeContext,
                            out: dict[str, Vector]) -> None:
        """Embed the strings the cache did not have, sharing the work with other processes
        through the cache's leases (see the module docstring); a string whose request failed
        is left out of ``out`` and its error recorded in ``self._errors``."""
        from openai import AsyncOpenAI

        stop = early_stop_of(ctx, self.id, self.stop_after)
        if self._client is None:
            self._client = AsyncOpenAI(api_key=os.environ.get(self.api_key_env) or "no-key-needed",
                                       base_url=self.base_url, timeout=self.timeout_s,
                                       max_retries=self.max_retries)
        cache = ctx.cache
        key = {t: self.key(t) for t in texts}
        text = {k: t for t, k in key.items()}  # key → string
        busy_since: dict[str, float] = {}  # string → when another process was first seen on it
        todo = texts
        while todo:
            deferred: list[str] = []  # held by another process
            while todo:
                if stop.stopped:
                    self._errors.update({t: NotAttempted(stop) for t in todo})
                    ctx.advance(len(todo))
                    todo = []
                    break
                async with cache.try_claim_many([key[t] for t in todo], limit=BATCH) as leases:
                    held = [text[k] for k in leases.held]
                    if leases.leased:  # stored by another process just before the lease?
                        held = [t for t in held if not self.from_cache(t, ctx, out)]
                    now = time.monotonic()
                    for t in (text[k] for k in leases.busy):
                        if now - busy_since.setdefault(t, now) >= cache.max_wait_s:
                            held.append(t)  # waited max_wait_s for it: embed it anyway
                        else:
                            deferred.append(t)
                    todo = [text[k] for k in leases.untried]
                    for batch in batches(held, BATCH):
                        await self._request(batch, ctx, stop, out)
            if deferred:
                oldest = min(busy_since[t] for t in deferred)
                await cache.wait_any([key[t] for t in deferred],
                                     cache.max_wait_s - (time.monotonic() - oldest))
                # answered ones are hits; the rest are tried again (a free lease is taken, an
                # overdue one embedded without lease)
                todo = [t for t in deferred if not self.from_cache(t, ctx, out)]

    async def _request(self, batch: list[str], ctx: JudgeContext, stop: EarlyStop,
                       out: dict[str, Vector]) -> None:
        """Embed ``batch`` (at most :data:`BATCH` strings) in one request: vectors into
        ``out`` and the cache, or the failure into ``self._errors``."""
        import httpx2
        import openai

        from judge.judges.llm.replies import embeddings_result

        if stop.stopped:
            self._errors.update({t: NotAttempted(stop) for t in batch})
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
        ctx.stats.tokens_in += tokens
        if self.price is not None:
            ctx.stats.cost_usd += self.price.cost(tokens, 0)
        self.store(ctx, batch, vectors, out)
