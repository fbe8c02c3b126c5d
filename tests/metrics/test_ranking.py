"""Ranking metrics: seed 004's AP example, trec_eval via pytrec_eval, scikit-learn NDCG, ERR."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import ndcg_score

from metrics import (
    average_precision,
    err_at_k,
    mean_average_precision,
    mean_err,
    mean_ndcg,
    ndcg_at_k,
    read_qrels,
    read_run,
)

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "trec_eval"

def test_seed_004_ap_example() -> None:
    ranking = [f"d{i}" for i in range(1, 11)]
    relevance = {"d1": 1, "d2": 1, "d5": 1}
    # (1/1 + 2/2 + 3/5) / 3 = 0.8667 (the seed's ÷10 = 0.26 is non-standard)
    assert average_precision(ranking, relevance) == pytest.approx(0.8667, abs=5e-5)
    assert average_precision(ranking, relevance, k=2) == pytest.approx(2 / 3)  # R stays 3
    assert average_precision(ranking, {}) == 0.0


def test_ndcg_by_hand() -> None:
    # grades in rank order 3, 0, 2; ideal 3, 2
    dcg = 3 / math.log2(2) + 2 / math.log2(4)
    idcg = 3 / math.log2(2) + 2 / math.log2(3)
    assert ndcg_at_k(["a", "b", "c"], {"a": 3, "c": 2}) == pytest.approx(dcg / idcg)
    exp_dcg = 7 / math.log2(2) + 3 / math.log2(4)
    exp_idcg = 7 / math.log2(2) + 3 / math.log2(3)
    assert ndcg_at_k(["a", "b", "c"], {"a": 3, "c": 2}, gain="exponential") == pytest.approx(
        exp_dcg / exp_idcg)
    assert ndcg_at_k(["a"], {"b": 0}) == 0.0


def test_err_by_hand() -> None:
    # max grade 4: R(4) = 15/16, R(2) = 3/16
    # ERR = 1·(3/16) + (1/2)·(1 − 3/16)·(15/16)
    expected = 3 / 16 + 0.5 * (13 / 16) * (15 / 16)
    assert err_at_k(["x", "y"], {"x": 2, "y": 4}, max_grade=4) == pytest.approx(expected)
    assert err_at_k(["x", "y"], {"x": 2, "y": 4}, max_grade=4, k=1) == pytest.approx(3 / 16)
    assert err_at_k(["x"], {"x": -1}, max_grade=4) == 0.0
    with pytest.raises(ValueError, match="exceeds max_grade"):
        err_at_k(["x"], {"x": 5}, max_grade=4)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=2, max_size=15),
       st.one_of(st.none(), st.integers(1, 15)))
def test_ndcg_agrees_with_sklearn(grades: list[int], k: int | None) -> None:
    if not any(grades):
        return  # sklearn defines NDCG = 0 only with a warning path; covered by hand above
    n = len(grades)
    ranking = [f"d{i}" for i in range(n)]  # ranked in list order
    relevance = {d: g for d, g in zip(ranking, grades, strict=True)}
    scores = np.arange(n, 0, -1, dtype=float)  # strictly decreasing: no ties
    expected = ndcg_score([grades], [scores], k=k)
    assert ndcg_at_k(ranking, relevance, k=k) == pytest.approx(expected, abs=1e-12)


def test_duplicates_and_bad_k() -> None:
    with pytest.raises(ValueError, match=r"ranking\[2\]: duplicate"):
        average_precision(["a", "b", "a"], {"a": 1})
    with pytest.raises(ValueError, match="k:"):
        ndcg_at_k(["a"], {"a": 1}, k=0)
    with pytest.raises(ValueError, match="gain"):
        ndcg_at_k(["a"], {"a": 1}, gain="log")


@pytest.mark.parametrize("qrels_name", ["qrels.test", "qrels.rel_level"])
def test_trec_eval_collection_agrees_with_pytrec_eval(qrels_name: str) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels_path = FIX / qrels_name  # NIST's files, copied with their notice
    run_path = FIX / "results.test"
    qrels = read_qrels(qrels_path)
    run = read_run(run_path)
    scored: dict[str, dict[str, float]] = {}
    for line in run_path.read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        scored.setdefault(q, {})[d] = float(s)
    measures = {"map", "map_cut.10", "ndcg", "ndcg_cut.10", "ndcg_cut.100"}
    ref = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(scored)
    assert sorted(ref) == sorted(run) == ["301", "302", "303"]
    for q in ref:
        assert average_precision(run[q], qrels[q]) == pytest.approx(ref[q]["map"], abs=1e-6)
        assert average_precision(run[q], qrels[q], k=10) == pytest.approx(
            ref[q]["map_cut_10"], abs=1e-6)
        assert ndcg_at_k(run[q], qrels[q]) == pytest.approx(ref[q]["ndcg"], abs=1e-6)
        for k in (10, 100):
            assert ndcg_at_k(run[q], qrels[q], k=k) == pytest.approx(
                ref[q][f"ndcg_cut_{k}"], abs=1e-6)
    assert mean_average_precision(run, qrels) == pytest.approx(
        np.mean([ref[q]["map"] for q in ref]), abs=1e-6)
    assert mean_ndcg(run, qrels, k=10) == pytest.approx(
        np.mean([ref[q]["ndcg_cut_10"] for q in ref]), abs=1e-6)
    assert 0.0 <= mean_err(run, qrels, max_grade=4, k=20) < 1.0


def test_trec_readers_bad_lines(tmp_path) -> None:  # type: ignore[no-untyped-def]
    q = tmp_path / "qrels"
    q.write_text("301 0 d1 1\n301 0 d2 x\n")
    with pytest.raises(ValueError, match=r"qrels:2: field 'grade'"):
        read_qrels(q)
    r = tmp_path / "run"
    r.write_text("301 Q0 d1 1 2.0 tag\n301 Q0 d2 2\n")
    with pytest.raises(ValueError, match=r"run:2: expected 6 or more fields"):
        read_run(r)


def test_read_run_orders_like_trec_eval(tmp_path) -> None:  # type: ignore[no-untyped-def]
    r = tmp_path / "run"
    # rank column ignored; score desc; tie on 1.0 broken by doc id descending
    r.write_text("1 Q0 a 1 1.0 t\n1 Q0 b 2 3.0 t\n1 Q0 c 3 1.0 t\n")
    assert read_run(r) == {"1": ["b", "c", "a"]}


def test_a_1500_document_query_is_scored_whole_as_trec_eval(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # issue 37: the run was cut at 1,000 documents by default, so relevant documents at
    # ranks 1,100 and 1,400 counted as never retrieved (AP and NDCG 0). trec_eval's default is
    # no cut (-M unlimited); pytrec_eval is trec_eval's own code
    pytrec_eval = pytest.importorskip("pytrec_eval")
    docs = [f"d{k:04d}" for k in range(1500)]
    scores = {d: 1500.0 - k for k, d in enumerate(docs)}  # rank k+1 for docs[k]
    r = tmp_path / "run"
    r.write_text("".join(f"q1 Q0 {d} {k + 1} {scores[d]} sys\n" for k, d in enumerate(docs)))
    qrels = {"q1": {docs[1099]: 1, docs[1399]: 2, "unretrieved": 1}}
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg"}).evaluate({"q1": scores})["q1"]
    run = read_run(r)
    assert len(run["q1"]) == 1500
    assert ref["map"] > 0 and ref["ndcg"] > 0
    assert average_precision(run["q1"], qrels["q1"]) == pytest.approx(ref["map"], abs=1e-9)
    assert ndcg_at_k(run["q1"], qrels["q1"]) == pytest.approx(ref["ndcg"], abs=1e-9)
    # -M 1000 as an option (trec_eval -M): both relevant documents cut off
    cut = read_run(r, max_rank=1000)
    assert len(cut["q1"]) == 1000 and average_precision(cut["q1"], qrels["q1"]) == 0.0


def test_run_lines_with_fields_after_the_tag_are_read_as_trec_eval_reads_them(
        tmp_path) -> None:  # type: ignore[no-untyped-def]
    # trec_eval's results.trunc has fields after the run tag, which trec_eval ignores (they
    # were refused: "expected 6 fields")
    plain, extra = tmp_path / "plain", tmp_path / "extra"
    lines = [("301", "d1", "2.5"), ("301", "d2", "1.5"), ("302", "d3", "0.5")]
    plain.write_text("".join(f"{q} Q0 {d} 1 {s} tag\n" for q, d, s in lines))
    extra.write_text("".join(f"{q} Q0 {d} 1 {s} tag 7 more\tfields\n" for q, d, s in lines))
    assert read_run(extra) == read_run(plain) == {"301": ["d1", "d2"], "302": ["d3"]}
