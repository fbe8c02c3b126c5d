"""``simjudge eval --task ranking`` with trec_eval's options (``-m``, ``-l``, ``-c``, ``--gain``,
``--err-max-grade``) on trec_eval's test collection (tests/fixtures/trec_eval), against
pytrec_eval reading the same files with its own parser: per query (``items.jsonl``) and "all"
(``summary.json``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from judge.record.store import load_run
from judge.runs.rescore import rescore
from metrics.ranking import err_at_k
from tests.clirun import CliResult

pytrec_eval = pytest.importorskip("pytrec_eval")

Cli = Callable[..., CliResult]
FIX = Path(__file__).resolve().parents[1] / "fixtures" / "trec_eval"


def _run(cli: Cli, out: Path, run: Path, qrels: str, *flags: str) -> tuple[dict[str, Any],
                                                                         dict[str, Any]]:
    res = cli("eval", run, "--task", "ranking", "--gold", FIX / qrels, "--out", out,
              "--bootstrap", "0", *flags)
    assert res.returncode == 0, res.stderr
    rows = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    return {r["id"]: r for r in rows}, json.loads((out / "summary.json").read_text())["metrics"]


def _reference(run_lines: list[str], qrels: str, measures: set[str], level: int = 1,
               ) -> dict[str, dict[str, float]]:
    qrels_ = pytrec_eval.parse_qrel((FIX / qrels).read_text().splitlines())
    run = pytrec_eval.parse_run(" ".join(line.split()[:6]) for line in run_lines)
    return pytrec_eval.RelevanceEvaluator(qrels_, measures, relevance_level=level).evaluate(run)


@pytest.mark.parametrize(("qrels", "level"), [("qrels.test", 1), ("qrels.rel_level", 2)])
def test_every_measure_per_query_and_all(cli: Cli, tmp_path: Path, qrels: str,
                                         level: int) -> None:
    rows, metrics = _run(cli, tmp_path / "run", FIX / "results.test", qrels, "-m", "all_trec",
                         "-m", "P.3", "-l", str(level))
    ref = _reference((FIX / "results.test").read_text().splitlines(), qrels,
                     {"all_trec", "P.3,5,10,15,20,30,100,200,500,1000"}, level)
    names = set(ref["301"]) - {"runid", "relstring"}
    # all_trec with trec_eval's default parameters: 24 plain measures, 9 cut-offs each of P,
    # recall, map_cut, ndcg_cut and relative_P, success 3, iprec_at_recall 11, Rprec_mult 10;
    # and P_3
    assert len(names) == 24 + 9 * 5 + 3 + 11 + 10 + 1
    assert sorted(rows) == sorted(ref) == ["301", "302", "303"]
    for q, row in rows.items():
        assert set(row["measures"]) == names
        for name in names:
            assert row["measures"][name] == pytest.approx(ref[q][name], rel=1e-12, abs=1e-12)
        # the seed's measures are trec_eval's map, map_cut_10, ndcg, ndcg_cut_10
        assert (row["ap"], row["ap@10"], row["ndcg"], row["ndcg@10"]) == pytest.approx(
            (ref[q]["map"], ref[q]["map_cut_10"], ref[q]["ndcg"], ref[q]["ndcg_cut_10"]))
    for name in names:
        assert metrics[name] == pytest.approx(pytrec_eval.compute_aggregated_measure(
            name, [ref[q][name] for q in sorted(ref)]), rel=1e-12, abs=1e-12), name
    assert metrics["queries"] == 3


def test_c_averages_over_the_qrels_and_extra_fields_are_ignored(cli: Cli, tmp_path: Path,
                                                              ) -> None:
    # results.trunc's form: query 302 missing, fields after the run tag (trec_eval ignores them)
    lines = [f"{line} more junk\tat end" for line in
             (FIX / "results.test").read_text().splitlines() if not line.startswith("302")]
    run = tmp_path / "results.trunc"
    run.write_text("\n".join(lines) + "\n")
    full = _reference((FIX / "results.test").read_text().splitlines(), "qrels.test",
                      {"map", "num_rel", "bpref"})
    rows, metrics = _run(cli, tmp_path / "c", run, "qrels.test", "-c", "-m", "map",
                         "-m", "num_rel", "-m", "bpref", "-m", "num_ret")
    assert sorted(rows) == ["301", "302", "303"]
    # 302 is an empty ranking: 0 for the ranking measures; its 77 relevant documents count
    assert rows["302"]["measures"] == {"map": 0.0, "num_rel": 77.0, "bpref": 0.0,
                                       "num_ret": 0.0}
    assert rows["302"]["retrieved"] == 0 and rows["302"]["err@10"] == 0.0
    assert metrics["map"] == pytest.approx((full["301"]["map"] + full["303"]["map"]) / 3)
    assert metrics["num_rel"] == sum(full[q]["num_rel"] for q in full) == 561
    assert metrics["num_ret"] == 500 + 500  # 301 and 303: 500 documents each
    _, plain = _run(cli, tmp_path / "no_c", run, "qrels.test")
    assert plain["queries"] == 2 and plain["map"] == pytest.approx(
        (full["301"]["map"] + full["303"]["map"]) / 2)


def test_gain_table_err_grade_and_rescore(cli: Cli, tmp_path: Path) -> None:
    ext = pytest.importorskip("pytrec_eval_ext")  # trec_eval's ndcg.1=3,2=9,4=4.5
    ref = ext.RelevanceEvaluator(
        query_relevance=pytrec_eval.parse_qrel((FIX / "qrels.rel_level").read_text()
                                               .splitlines()),
        measures={"ndcg.1=3,2=9,4=4.5"}, relevance_level=1, judged_docs_only_flag=False,
    ).evaluate(pytrec_eval.parse_run((FIX / "results.test").read_text().splitlines()))
    out = tmp_path / "gain"
    rows, metrics = _run(cli, out, FIX / "results.test", "qrels.rel_level",
                         "--gain", "1=3,2=9,4=4.5", "--err-max-grade", "6", "-m", "P.5")
    for q, row in rows.items():
        assert row["ndcg"] == pytest.approx(ref[q]["ndcg"], rel=1e-12)
        assert row["err@10"] == pytest.approx(
            err_at_k(row["ranked"], row["qrels"], max_grade=6, k=10), rel=1e-15)
    assert metrics["err_max_grade"] == 6
    again = rescore(load_run(out), n_boot=0)["metrics"]  # the run's own options again
    assert again == metrics
    res = cli("eval", FIX / "results.test", "--task", "ranking", "--gold",
              FIX / "qrels.rel_level", "--err-max-grade", "3", "--out", tmp_path / "bad")
    assert res.returncode == 2 and "grade 4 is above --err-max-grade 3" in res.stderr
    assert not (tmp_path / "bad").exists()


@pytest.mark.parametrize(("flags", "message"), [
    (["-m", "P.0"], "cut-off '0'"), (["-m", "P.5, 10"], "without spaces"),
    (["--gain", "2=x"], "GRADE=GAIN"), (["-m", "ndcg", "--gain", "exponential"], "one of them"),
    (["-l", "0"], "--relevance-level must be in [1, 1000]")])
def test_bad_options_exit_2(cli: Cli, tmp_path: Path, flags: list[str], message: str) -> None:
    res = cli("eval", FIX / "results.test", "--task", "ranking", "--gold", FIX / "qrels.test",
              *flags, "--out", tmp_path / "out")
    assert res.returncode == 2 and message in res.stderr and res.stderr.count("\n") == 1
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("all_queries", [False, True])
def test_rows_built_unvalidated_equal_the_validated_rows(all_queries: bool) -> None:
    # load_ranking's items are marked typed, and score_queries builds their rows with pydantic's
    # model_construct: the same items without the mark are validated — field for field, JSON
    # for JSON the same rows (and a hand-made tuple of ids is still turned into a list)
    import dataclasses

    from judge.tasks.ranking import load_ranking
    from judge.tasks.rankoptions import RankingOptions
    from judge.tasks.rankscore import score_queries
    from metrics.treceval import parse_measures

    items = load_ranking(FIX / "results.test", FIX / "qrels.rel_level", all_queries=all_queries)
    assert all(i.extra["typed"] is True for i in items)
    plain = [dataclasses.replace(i, extra={k: v for k, v in i.extra.items() if k != "typed"})
             for i in items]
    for measures, gain in (([], "linear"), (["P.5", "recip_rank", "gm_map"], "exponential")):
        typed, _ = score_queries(items, RankingOptions(), parse_measures(measures), gain)
        checked, _ = score_queries(plain, RankingOptions(), parse_measures(measures), gain)
        assert [json.dumps(r.to_row()) for r in typed] == [json.dumps(r.to_row())
                                                          for r in checked]
        assert [r.model_fields_set for r in typed] == [r.model_fields_set for r in checked]
        assert typed[0].ranked is items[0].pred and checked[0].ranked is not plain[0].pred
    hand = dataclasses.replace(plain[0], pred=tuple(plain[0].pred))
    row = score_queries([hand], RankingOptions(), [], "linear")[0][0]
    assert row.ranked == list(plain[0].pred)
