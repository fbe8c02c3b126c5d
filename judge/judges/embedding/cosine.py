"""What the embedding-cosine judges (``local``, ``openai-embedding``) share.

Such a judge embeds each distinct string once and scores a pair by the cosine of its two vectors.
:class:`EmbeddingJudge` does everything but the embedding itself and the cosine → score mapping:

* one cache entry per string, under ``cache_key(**key_identity(), kind="embedding", text=…)``
  (memoised during a run); a hit counts one cache hit and one unit of progress, a vector
  embedded counts one judge call and one unit;
* strings are cut to the judge's :meth:`~EmbeddingJudge.clip` before embedding (and before the
  cache key is computed);
* cosines of all pairs in bulk (a dot product when the vectors are unit-length);
* verdicts: ``ok`` with the subclass's score, or ``transport_error`` when a string's vector is
  missing (its request failed, the judge stopped early) or the two vectors differ in length (a
  cache holding vectors of another model version); the verdict's ``cache_key`` is
  ``KEY(pred)+KEY(truth)``; when the call embedded nothing (all from the cache) its ``ok``
  verdicts are ``cached`` with ``latency_s`` 0, else ``latency_s`` is the call's time per pair.

Subclasses implement :meth:`~EmbeddingJudge.key_identity`, :meth:`~EmbeddingJudge.decode`,
:meth:`~EmbeddingJudge.encode`, :meth:`~EmbeddingJudge.embed_missing`,
:meth:`~EmbeddingJudge.score` and ``describe``.
"""

from __future__ import annotations

import abc
import json
import time
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from judge.cache import KeyTemplate
from judge.judges.base import Judge, JudgeContext, Pair
from judge.judges.failures import EarlyStop, TransportError
from judge.verdict import Verdict

Vector = NDArray[Any]
"""One string's embedding (1-d float array)."""

COSINE_SLICE = 1024
"""Pairs whose cosines are computed by one numpy call (two float64 arrays of this many rows
of the vector length: 4 MB each for 512-long vectors). On 10,000 pairs, 1,024 took 25 ms
against 41 ms for 4,096 (whose 16 MB arrays are mapped and faulted in afresh each time); a
cosine is its own row's dot product, the same however the rows are grouped."""

_raw_json = json.JSONEncoder().encode
"""``json.dumps`` of a verdict's ``raw`` details, from an encoder built once (not per pair)."""


class NotAttempted(TransportError):
    """A string whose request was never sent because the judge had stopped early
    (:mod:`judge.judges.failures`)."""

    def __init__(self, stop: EarlyStop) -> None:
        super().__init__(stop.not_attempted_text(), cause=stop.cause)
        self.stop = stop


def batches(texts: Sequence[str], max_count: int,
            max_chars: float = float("inf")) -> list[list[str]]:
    """Consecutive runs of ``texts`` with at most ``max_count`` strings and at most
    ``max_chars`` characters each (a single longer string forms its own batch).

    Args:
        texts: the strings, in the order to keep.
        max_count: most strings per batch (>= 1).
        max_chars: most characters per batch (default unbounded).
    """
    out: list[list[str]] = []
    cur: list[str] = []
    size = 0
    for t in texts:
        if cur and (len(cur) >= max_count or size + len(t) > max_chars):
            out.append(cur)
            cur, size = [], 0
        cur.append(t)
        size += len(t)
    if cur:
        out.append(cur)
    return out


def cosines(a: NDArray[Any], b: NDArray[Any], unit: bool = False) -> NDArray[np.float64]:
    """Row-wise cosine of two ``(n, d)`` arrays, in float64, clipped to [-1, 1].

    Args:
        a, b: the vectors of each pair, one pair per row.
        unit: the rows are already L2-normalised: the cosine is their dot product.

    Returns:
        ``(n,)`` cosines (NaN for a zero vector when ``unit`` is False).
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    dots = np.einsum("ij,ij->i", a, b)
    if not unit:
        with np.errstate(invalid="ignore", divide="ignore"):
            dots = dots / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return np.clip(dots, -1.0, 1.0)


class EmbeddingJudge(Judge, abc.ABC):
    """Base of embedding-cosine judges (see the module docstring).

    Args:
        judge_id: id to record.

    Attributes:
        scorer_id: the ``scorer`` recorded on every verdict (e.g. ``usem3-cosine@v1``).
        unit_vectors: the vectors are L2-normalised (the cosine is a dot product).
        recomputable: the vectors cost nothing to compute again (an embedded model): when the
            cache refuses them (disk full) they are not held for the run.
    """

    scorer_id: str
    unit_vectors: ClassVar[bool] = False
    recomputable: ClassVar[bool] = False

    def __init__(self, judge_id: str) -> None:
        self.id = judge_id
        self._keys: dict[str, str] = {}
        self._template: KeyTemplate | None = None
        self._errors: dict[str, TransportError] = {}

    # ------------------------------------------------------------------ to implement
    @abc.abstractmethod
    def key_identity(self) -> dict[str, Any]:
        """The parts of every string's cache key that identify backend and model (never a
        credential); ``kind="embedding"`` and ``text`` are added."""

    @abc.abstractmethod
    def decode(self, entry: Any) -> Vector | None:
        """The vector stored in a cache entry, or None when the entry is not a usable vector
        (the string is then embedded again)."""

    @abc.abstractmethod
    def encode(self, vector: Vector) -> dict[str, Any]:
        """The cache entry of a vector (what :meth:`decode` reads back)."""

    @abc.abstractmethod
    async def embed_missing(self, texts: list[str], ctx: JudgeContext,
                            out: dict[str, Vector]) -> None:
        """Embed ``texts`` (distinct, cut, not found in the cache): vectors into ``out`` and
        the cache (:meth:`store`); a string that cannot be embedded goes into
        ``self._errors`` (its pairs become ``transport_error``)."""

    @abc.abstractmethod
    def score(self, cosine: float, pred: str, truth: str) -> tuple[float, str, dict[str, Any]]:
        """``(score in [0, 1], rationale, raw)`` of one pair from its cosine in [-1, 1];
        ``pred`` and ``truth`` are the uncut strings; ``raw`` is stored as JSON."""

    # --------------------------------------------------------------------- shared
    def clip(self, text: str) -> str:
        """The part of ``text`` that is embedded (default all of it)."""
        return text

    def key(self, text: str) -> str:
        """The cache key of a (cut) string's vector, memoised until the end of the run:
        ``cache_key(**key_identity(), kind="embedding", text=text)``, built from a
        :class:`judge.cache.KeyTemplate` of the identity made once per run."""
        key = self._keys.get(text)
        if key is None:
            if self._template is None:
                self._template = KeyTemplate("text", **self.key_identity(), kind="embedding")
            key = self._keys[text] = self._template.key(text)
        return key

    def work_units(self, pairs: Sequence[Pair]) -> int:
        """One unit per pair: embedding its distinct strings advances the pairs in proportion
        (:meth:`judge_pairs`), so a progress bar counts pairs from the first string on."""
        return len(pairs)

    def from_cache(self, text: str, ctx: JudgeContext, out: dict[str, Vector]) -> bool:
        """Put ``text``'s cached vector in ``out`` (one cache hit, one unit of progress);
        False when the cache has no usable vector for it (in ``cache-only`` mode it raises
        :class:`judge.errors.CacheMissError` instead: never a call)."""
        key = self.key(text)
        entry = ctx.cache.get(key)
        vec = self.decode(entry)
        if vec is None:
            if entry is not None:
                ctx.cache.unusable(key, self.id, "vector")
            return False
        out[text] = vec
        ctx.stats.cache_hits += 1
        ctx.advance(1)
        return True

    def store(self, ctx: JudgeContext, texts: Sequence[str], vectors: Sequence[Vector],
              out: dict[str, Vector]) -> None:
        """Record freshly embedded vectors: into ``out``, into the cache in one transaction
        (so an interrupted run keeps every finished batch), one judge call and one unit of
        progress per string."""
        out.update(zip(texts, vectors, strict=True))
        if ctx.cache.mode == "read-write":  # set_many stores nothing in the other modes
            ctx.cache.set_many({self.key(t): self.encode(v)
                                for t, v in zip(texts, vectors, strict=True)},
                               hold=not self.recomputable)
        ctx.stats.judge_calls += len(texts)
        ctx.advance(len(texts))

    async def vectors(self, texts: Sequence[str], ctx: JudgeContext) -> dict[str, Vector]:
        """Vectors of the distinct (cut) ``texts``: from the cache, the rest embedded."""
        out: dict[str, Vector] = {}
        missing = (list(texts) if ctx.cache.mode == "off"  # nothing to read: no lookups
                   else [t for t in texts if not self.from_cache(t, ctx, out)])
        if missing:
            await self.embed_missing(missing, ctx, out)
        return out

    def pair_cosines(self, pairs: Sequence[Pair], vecs: dict[str, Vector]) -> list[float | None]:
        """The cosine of each (cut) pair, or None when a vector is missing or the two differ
        in length; computed in bulk per vector length, :data:`COSINE_SLICE` pairs at a time."""
        out: list[float | None] = [None] * len(pairs)
        by_dim: dict[int, list[int]] = {}
        for k, (p, t) in enumerate(pairs):
            a, b = vecs.get(p), vecs.get(t)
            if a is not None and b is not None and a.shape == b.shape:
                by_dim.setdefault(a.size, []).append(k)
        for every in by_dim.values():
            for at in range(0, len(every), COSINE_SLICE):
                ks = every[at:at + COSINE_SLICE]
                lhs, rhs = ([vecs[pairs[k][side]] for k in ks] for side in (0, 1))
                got = cosines(np.array(lhs, np.float64), np.array(rhs, np.float64),
                              self.unit_vectors)
                for k, c in zip(ks, got.tolist(), strict=True):
                    out[k] = c
        return out

    def _failed(self, cut: Pair, vecs: dict[str, Vector]) -> tuple[str, str]:
        """``(rationale, raw)`` of a pair without a cosine."""
        p, t = cut
        err = self._errors.get(p) or self._errors.get(t)
        if isinstance(err, NotAttempted):
            err.stop.not_attempted += 1
        if err is not None:
            return err.message, err.raw
        a, b = vecs.get(p), vecs.get(t)
        if a is not None and b is not None:
            return (f"embedding lengths differ ({a.size} vs {b.size}): the cache holds vectors "
                    "of another model version"), ""
        return "embedding unavailable", ""

    async def judge_pairs(self, pairs: Sequence[Pair], ctx: JudgeContext) -> list[Verdict | None]:
        """Embed every distinct (cut) string once, then score each pair by cosine.

        The pairs are scored once every vector is there, in one pass (cosines in bulk,
        :meth:`pair_cosines`), not while the encoder runs: the local encoder needs the GIL
        between its numpy calls, and Python work beside it slowed it by more than that work
        cost afterwards (``docs/performance.md``). A verdict's ``latency_s`` and ``cached``
        describe the whole call."""
        self._errors = {}
        t0 = time.perf_counter()
        calls_before = ctx.stats.judge_calls
        cut = [(self.clip(p), self.clip(t)) for p, t in pairs]
        texts = list(dict.fromkeys(s for c in cut for s in c))
        report = ctx.progress
        ctx.progress = _pairs_per_string(report, len(pairs), len(texts))
        try:
            vecs = await self.vectors(texts, ctx)
        finally:
            await self.aclose()
            ctx.progress = report
        scored = [None if cos is None else self.score(cos, *pair)
                  for pair, cos in zip(pairs, self.pair_cosines(cut, vecs), strict=True)]
        fresh = ctx.stats.judge_calls > calls_before
        latency = (time.perf_counter() - t0) / max(1, len(pairs)) if fresh else 0.0
        out: list[Verdict | None] = []
        key, jid, scorer = self.key, self.id, self.scorer_id
        for (pred, truth), (a, b), got in zip(pairs, cut, scored, strict=True):
            if got is None:
                why, raw = self._failed((a, b), vecs)
                out.append(Verdict(pred=pred, truth=truth, judge_id=jid, scorer=scorer,
                                   cache_key=f"{key(a)}+{key(b)}", latency_s=latency,
                                   outcome="transport_error", rationale=why, raw=raw))
            else:
                out.append(Verdict(pred=pred, truth=truth, judge_id=jid, scorer=scorer,
                                   cache_key=f"{key(a)}+{key(b)}", latency_s=latency,
                                   score=got[0], outcome="ok", rationale=got[1],
                                   raw=_raw_json(got[2]), cached=not fresh))
        self._keys, self._template = {}, None
        self._errors = {}
        return out


def _pairs_per_string(report: Callable[[int], None] | None, pairs: int,
                      strings: int) -> Callable[[int], None] | None:
    """A progress callback taking strings embedded and reporting pairs: ``pairs / strings``
    per string, whole pairs only, all ``pairs`` once every string is done."""
    if report is None or not strings:
        return report
    done = [0, 0]  # strings seen, pairs reported

    def advance(n: int) -> None:
        done[0] += n
        due = pairs * min(done[0], strings) // strings
        if due > done[1]:
            report(due - done[1])
            done[1] = due

    return advance
