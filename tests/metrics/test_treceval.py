"""trec_eval's measures (metrics.treceval) against pytrec_eval, item by item, on trec_eval's own
test collection (tests/fixtures/trec_eval: NIST's qrels.test, qrels.rel_level, results.test).

The reference reads the run file with pytrec_eval's own parser (``parse_run``: the file's
scores, trec_eval orders them); simjudge reads it with :func:`metrics.trec.read_run` and hands
pytrec_eval ranked lists, so these tests check the order, the measure names and parameters,
the relevance level and trec_eval's ``all`` line."""

from __future__ import annotations

from pathlib import Path

import pytest

from metrics.ranking import ndcg_at_k, parse_gain
from metrics.trec import read_qrels, read_run
from metrics.treceval import aggregate, parse_measure, parse_measures, trec_measures

pytrec_eval = pytest.importorskip("pytrec_eval")

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "trec_eval"
EVERY = ["all_trec", "P.1,2,3,7,2000", "recall.3,2000", "map_cut.1,3,1500", "ndcg_cut.1,23",
         "relative_P.3", "success.2,20", "iprec_at_recall.0.05,0.25,0.75", "Rprec_mult.0.35,5"]
"""Every numeric measure pytrec_eval computes (all_trec holds all 32 of them), with its
default parameters and with others."""


def _reference(qrels_name: str, measures: list[str], level: int) -> dict[str, dict[str, float]]:
    qrels = pytrec_eval.parse_qrel((FIX / qrels_name).read_text().splitlines())
    run = pytrec_eval.parse_run((FIX / "results.test").read_text().splitlines())
    return pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=level).evaluate(run)


@pytest.mark.parametrize(("qrels_name", "level"), [("qrels.test", 1), ("qrels.rel_level", 1),
                                                   ("qrels.rel_level", 2)])
def test_every_measure_per_query_and_all(qrels_name: str, level: int) -> None:
    measures = parse_measures(EVERY)
    bases = {m.base for m in measures}
    assert bases == set(pytrec_eval.supported_measures) - {"runid", "relstring"}
    got = trec_measures(read_run(FIX / "results.test"), read_qrels(FIX / qrels_name),
                        measures, relevance_level=level)
    ref = _reference(qrels_name, [m.spec() for m in measures], level)
    assert sorted(got) == sorted(ref) == ["301", "302", "303"]
    names = [n for m in measures for n in m.names()]
    # 24 plain; P 9 + 5, recall 9 + 2, map_cut 9 + 3, ndcg_cut 9 + 2, relative_P 9 + 1,
    # success 3 + 2, iprec_at_recall 11 + 3, Rprec_mult 10 + 2
    assert len(names) == 24 + 14 + 11 + 12 + 11 + 10 + 5 + 14 + 12
    for q in ref:
        assert set(got[q]) == set(ref[q]) - {"runid", "relstring"}
        for name in names:
            assert got[q][name] == pytest.approx(ref[q][name], rel=1e-12, abs=1e-12), (q, name)
    for name in names:
        values = [ref[q][name] for q in sorted(ref)]
        assert aggregate(name, [got[q][name] for q in sorted(got)]) == pytest.approx(
            pytrec_eval.compute_aggregated_measure(name, values), rel=1e-12, abs=1e-12), name
    # trec_eval's printed "all" of the collection (its test/out.test.a, 4 decimals)
    if qrels_name == "qrels.test":
        printed = {"map": 0.1785, "P_5": 0.2667, "num_rel": 561, "gm_map": 0.1051,
                   "bpref": 0.1981, "recip_rank": 0.4064, "ndcg_cut_10": 0.3016}
        for name, value in printed.items():
            assert aggregate(name, [got[q][name] for q in got]) == pytest.approx(value,
                                                                                abs=5e-5)


def test_gain_table_equals_trec_eval_ndcg_parameters() -> None:
    ext = pytest.importorskip("pytrec_eval_ext")  # trec_eval's C code: ndcg.1=3,2=9,4=4.5
    gains = parse_gain("1=3,2=9,4=4.5")
    run = read_run(FIX / "results.test")
    for qrels_name in ("qrels.test", "qrels.rel_level"):
        qrels = read_qrels(FIX / qrels_name)
        ref = ext.RelevanceEvaluator(query_relevance=qrels, measures={"ndcg.1=3,2=9,4=4.5"},
                                     relevance_level=1, judged_docs_only_flag=False).evaluate(
            pytrec_eval.parse_run((FIX / "results.test").read_text().splitlines()))
        for q in ref:
            assert ndcg_at_k(run[q], qrels[q], gain=gains) == pytest.approx(
                ref[q]["ndcg"], rel=1e-12)


def test_empty_ranking_scores_as_trec_eval_c() -> None:
    # trec_eval -c scores a query of the qrels the run lacks as an empty ranking: 0 for the
    # ranking measures, num_rel = its relevant documents (302 has 77 with grade >= 1).
    qrels = read_qrels(FIX / "qrels.test")
    got = trec_measures({"302": []}, qrels, parse_measures(["map", "P.5", "num_rel",
                                                            "num_ret", "bpref"]))
    assert got == {"302": {"map": 0.0, "P_5": 0.0, "num_rel": 77.0, "num_ret": 0.0,
                           "bpref": 0.0}}
    assert sum(1 for g in qrels["302"].values() if g >= 1) == 77


@pytest.mark.parametrize(("spec", "message"), [
    ("P.0", "cut-off '0'"), ("P.5, 10", "unknown"), ("P.1e3", "unknown"),
    ("map.5", "takes no parameter"), ("ndcg_cut.10.5", "cut-off '10.5'"),
    ("runid", "text"), ("iprec_at_recall.0.125", "2 decimals"), ("iprec_at_recall.2", "above 1"),
    ("Rprec_mult.0", "> 0"), ("prefs", "unknown"), ("", "unknown")])
def test_bad_names_refused_before_pytrec_eval(spec: str, message: str) -> None:
    # pytrec_eval 0.5 reads "P.5, 10" as P.5 and "P.1e3" as P.1, and aborts the process on P.0
    with pytest.raises(ValueError, match=message):
        parse_measure(spec)


def test_names_and_defaults() -> None:
    assert [m.names() for m in parse_measures(["P_5", "P.10", "map", "success"])] == [
        ["P_5", "P_10"], ["map"], ["success_1", "success_5", "success_10"]]
    assert parse_measure("iprec_at_recall.0.1")[0].names() == ["iprec_at_recall_0.10"]
    assert parse_measure("Rprec_mult")[0].names()[0] == "Rprec_mult_0.20"
    assert aggregate("num_q", [1.0, 1.0, 1.0]) == 3.0
    with pytest.raises(ValueError, match="no per-query"):
        aggregate("map", [])


def test_scores_and_ranked_lists_give_the_same_values_with_ties(tmp_path: Path) -> None:
    # tied scores: trec_eval orders them by doc id descending (metrics.trec.ranked); the
    # scores themselves (pytrec_eval's input) give the same values as the ranked list
    run = tmp_path / "run"
    run.write_text("q Q0 a 1 1.0 t\nq Q0 b 2 1.0 t\nq Q0 c 3 1.0 t\nq Q0 d 4 0.5 t\n"
                   "q Q0 e 5 2.0 t\n")
    qrels = {"q": {"a": 1, "c": 0, "d": 2}}
    ranked = read_run(run)
    assert ranked == {"q": ["e", "c", "b", "a", "d"]}
    scores = {"q": pytrec_eval.parse_run(run.read_text().splitlines())["q"]}
    measures = parse_measures(["map", "P.4", "ndcg", "recip_rank"])
    by_list, by_scores = (trec_measures(r, qrels, measures) for r in (ranked, scores))
    # relevant a at rank 4, d at rank 5 (R = 2): AP = (1/4 + 2/5)/2; first relevant at 4
    assert by_list == by_scores and by_list["q"]["map"] == pytest.approx((1 / 4 + 2 / 5) / 2)
    assert by_list["q"]["recip_rank"] == 0.25 and by_list["q"]["P_4"] == 0.25


def _printed(name: str) -> dict[str, dict[str, float]]:
    """trec_eval's ``-q`` output: query (or ``all``) → measure → value (text measures left
    out)."""
    out: dict[str, dict[str, float]] = {}
    for line in (FIX / name).read_text().splitlines():
        measure, query, value = (x.strip() for x in line.split("\t"))
        if measure not in ("runid", "relstring"):
            out.setdefault(query, {})[measure] = float(value)
    return out


def test_a_query_the_run_lacks_scores_as_trec_eval_c_prints_it() -> None:
    # trec_eval -m all_trec -q -c qrels.test results.trunc (its test/out.test.aqc): the run
    # lacks query 302, which -c scores as an empty ranking. pytrec_eval crashed the process on
    # such a ranking measured with bpref among others (a SIGSEGV, now and then), so
    # trec_measures never hands it one; every value here is trec_eval's own, to 4 decimals.
    printed = _printed("out.test.aqc")
    run: dict[str, list[str]] = {**read_run(FIX / "results.trunc"), "302": []}
    measures = parse_measures(["all_trec"])
    got = trec_measures(run, read_qrels(FIX / "qrels.test"), measures)
    assert list(got) == ["301", "303", "302"]  # the run's order
    names = [n for m in measures for n in m.names()]
    for q in ("301", "302", "303"):
        for name in names:
            if name in ("gm_map", "gm_bpref", "num_q"):  # printed on the "all" line only
                continue
            if q != "302" and (name.startswith("iprec_at_recall") or name == "11pt_avg"):
                continue  # pytrec_eval's trec_eval 9 interpolates 301's otherwise (ranking.md)
            assert got[q][name] == pytest.approx(printed[q][name], abs=5e-5), (q, name)
    assert got["302"]["num_rel"] == 77 and got["302"]["gm_map"] == pytest.approx(-11.5129,
                                                                                  abs=1e-4)
    for name in names:
        assert aggregate(name, [got[q][name] for q in got]) == pytest.approx(
            printed["all"][name], abs=5e-5), name
