"""``openai-embedding:MODEL``: cosine similarity of ``/v1/embeddings`` vectors.

Each distinct string is embedded once (one cache entry per string, batches of 64 inputs per
request); the pair score is the cosine clipped to [0, 1]. Raw cosines are **not** calibrated:
their scale depends on the model, so choose τ with ``simjudge calibrate``.
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
from judge.prices import Price
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
    """

    def __init__(self, judge_id: str, model: str, base_url: str | None = None,
                 api_key_env: str = "OPENAI_API_KEY", price: Price | None = None,
                 timeout_s: float = 60.0, max_retries: int = 2) -> None:
        from judge.errors import InputError

        if base_url is None and not os.environ.get(api_key_env):
            raise InputError(f"{api_key_env} is not set (needed for the OpenAI API)",
                             field="judge")
        self.id = judge_id
        self.model = model
        self.base_url = base_url
        self.api_key_env = api_key_env
        self.price = price
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self._client: Any = None

    def describe(self) -> dict[str, Any]:
        """Identity for ``config.json`` (the key's variable name, never its value)."""
        return {"id": self.id, "backend": "openai-embedding", "model": self.model,
                "base_url": self.base_url, "api_key_env": self.api_key_env,
                "method": "cosine of /v1/embeddings vectors, clipped to [0, 1], uncalibrated"}

    def work_units(self, pairs: Sequence[Pair]) -> int:
        """One unit per distinct string."""
        return len({s for p in pairs for s in p})

    def _key(self, text: str) -> str:
        return cache_key(backend="openai-embedding", base_url=self.base_url, model=self.model,
                         kind="embedding", text=text)

    async def _embed(self, texts: list[str], ctx: JudgeContext) -> dict[str, np.ndarray]:
        import openai
        from openai import AsyncOpenAI

        out: dict[str, np.ndarray] = {}
        missing = []
        for t in texts:
            hit = ctx.cache.get(self._key(t))
            if hit is not None:
                out[t] = np.asarray(hit["embedding"], dtype=np.float64)
                ctx.stats.cache_hits += 1
                ctx.advance(1)
            else:
                missing.append(t)
        if missing and self._client is None:
            self._client = AsyncOpenAI(api_key=os.environ.get(self.api_key_env) or "no-key-needed",
                                       base_url=self.base_url, timeout=self.timeout_s,
                                       max_retries=self.max_retries)
        for i in range(0, len(missing), BATCH):
            batch = missing[i:i + BATCH]
            try:
                resp = await self._client.embeddings.create(model=self.model, input=batch)
            except openai.OpenAIError as exc:
                ctx.advance(len(batch))
                self._errors.update({t: f"{type(exc).__name__}: {str(exc)[:200]}" for t in batch})
                continue
            tokens = int(getattr(getattr(resp, "usage", None), "prompt_tokens", 0) or 0)
            ctx.stats.judge_calls += len(batch)
            ctx.stats.tokens_in += tokens
            if self.price is not None:
                ctx.stats.cost_usd += self.price.cost(tokens, 0)
            entries = {}
            for t, d in zip(batch, sorted(resp.data, key=lambda d: d.index), strict=True):
                vec = np.asarray(d.embedding, dtype=np.float64)
                out[t] = vec
                entries[self._key(t)] = {"embedding": vec.tolist(), "model": self.model}
            ctx.cache.set_many(entries)
            ctx.advance(len(batch))
        return out

    async def judge_pairs(self, pairs: Sequence[Pair], ctx: JudgeContext) -> list[Verdict | None]:
        """Embed every distinct string once, then score each pair by cosine."""
        self._errors: dict[str, str] = {}
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
            if p not in vecs or t not in vecs:
                why = self._errors.get(p) or self._errors.get(t) or "embedding unavailable"
                out.append(Verdict(pred=p, truth=t, outcome="transport_error", rationale=why,
                                   judge_id=self.id, scorer="openai-embedding-cosine@v1",
                                   cache_key=key, latency_s=per))
                continue
            a, b = vecs[p], vecs[t]
            cos = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) or 1.0))
            s = min(1.0, max(0.0, cos))
            out.append(Verdict(pred=p, truth=t, score=s, outcome="ok",
                               rationale=f"embedding cosine {cos:.2f} ({self.model}); raw "
                                         "cosine, not calibrated; no reasoning model",
                               raw=json.dumps({"cosine": round(cos, 6)}), judge_id=self.id,
                               scorer="openai-embedding-cosine@v1", cache_key=key,
                               latency_s=per))
        return out
