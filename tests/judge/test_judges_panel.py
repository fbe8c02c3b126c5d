"""Panels (votes, quorum, ties, agreement), ``rescore``, ``compare`` and bootstrap CIs."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from judge.cache import JudgeCache
from judge.cli import app
from judge.judges.base import JudgeContext
from judge.judges.lexical import LexicalJudge
from judge.judges.options import JudgeOptions
from judge.judges.panel import Panel, agreement, vote
from judge.judges.registry import parse_judge_spec
from metrics import fuzzy_prf
from tests.conftest import EXAMPLES, shared_file
from tests.fake_openai import FakeOpenAIServer, FakeServerConfig

runner = CliRunner()


def test_votes_by_hand() -> None:
    s = [0.9, 0.6, None, 0.8]  # one failed member
    assert vote(s, "mean", 0.7) == pytest.approx((0.9 + 0.6 + 0.8) / 3)
    assert vote(s, "median", 0.7) == pytest.approx(0.8)
    assert vote([0.9, 0.6, 0.8, 0.7], "median", 0.7) == pytest.approx(0.75)  # mean of middle two
    assert (vote(s, "min", 0.7), vote(s, "max", 0.7)) == (0.6, 0.9)
    # majority: 2 yes (0.9, 0.8) of 4 members (the failed one stays in the denominator) is a
    # tie → no match: score = min(mean of ok scores, τ) = min(0.7667, 0.7) = 0.7 (not > τ)
    assert vote(s, "majority", 0.7) == pytest.approx(0.7)
    # 3 of 4 yes → match, scored by the yes voters' mean
    assert vote([0.9, 0.8, 0.75, None], "majority", 0.7) == pytest.approx((0.9 + 0.8 + 0.75) / 3)
    # listing order never matters
    assert vote([None, 0.8, 0.6, 0.9], "majority", 0.7) == vote(s, "majority", 0.7)
    with pytest.raises(ValueError, match="no member"):
        vote([None, None], "mean", 0.7)
    with pytest.raises(ValueError, match="vote"):
        vote([0.5], "mode", 0.7)


def test_panel_construction_errors() -> None:
    with pytest.raises(ValueError, match="at least two"):
        Panel([LexicalJudge()])
    with pytest.raises(ValueError, match="distinct ids"):
        Panel([LexicalJudge(), LexicalJudge()])
    with pytest.raises(ValueError, match="quorum"):
        Panel([LexicalJudge("a"), LexicalJudge("b")], quorum=3)


def _openai(srv: FakeOpenAIServer, jid: str):  # type: ignore[no-untyped-def]
    return parse_judge_spec("openai:fake", JudgeOptions(base_url=srv.base_url, judge_id=jid,
                                                        max_retries=0, timeout_s=5))


PAIRS = [("Alpha", "apple"), ("Beta", "bear"), ("Gamma", "delta"), ("Kappa", "lambda")]


def test_quorum_and_majority_with_failing_members(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # "good" answers every pair; "broken" always refuses (a real refusal over HTTP); lexical
    # scores ~0 for these pairs. fake_score: 0.9 when first letters match, else 0.1.
    with FakeOpenAIServer() as good, \
            FakeOpenAIServer(FakeServerConfig(fault_rate=1.0, faults=("refusal",))) as bad:
        members = [_openai(good, "good"), _openai(bad, "broken"), LexicalJudge()]
        ctx = JudgeContext(cache=JudgeCache(tmp_path / "c"))
        strict = Panel(members, "mean", quorum=3)
        assert asyncio.run(strict.judge_pairs(PAIRS, ctx)) == [None] * 4  # 2 ok < quorum 3
        # the run's panel state is on its context: 4 pairs undecided, 3 members x 4 pairs
        assert ctx.panel.undecided == 4 and len(ctx.panel.member_verdicts) == 12
        assert {v["judge_id"]: v["outcome"] for v in ctx.panel.member_verdicts
                if v["pred"] == "Alpha"} == {"good": "ok", "broken": "refused", "lexical": "ok"}
        assert all(v["member_of"] == strict.id for v in ctx.panel.member_verdicts)
        # the same panel object judges a second run: that run's state starts empty
        ctx_again = JudgeContext(cache=JudgeCache(tmp_path / "c"))
        assert asyncio.run(strict.judge_pairs(PAIRS, ctx_again)) == [None] * 4
        assert ctx_again.panel.undecided == 4 and len(ctx_again.panel.member_verdicts) == 12
        assert ctx.panel.undecided == 4 and len(ctx.panel.member_verdicts) == 12
        majority = Panel(members, "majority", quorum=2)
        ctx2 = JudgeContext(cache=JudgeCache(tmp_path / "c"))
        out = asyncio.run(majority.judge_pairs(PAIRS, ctx2))
        assert ctx2.panel.undecided == 0  # good + lexical answer every pair: 2 ok >= quorum 2
    # Alpha/apple: good 0.9 (yes), lexical < 0.7, broken failed → 1 of 3 → no match
    lex = LexicalJudge().score("Alpha", "apple")[0]
    assert out[0] is not None and out[0].score == pytest.approx(min((0.9 + lex) / 2, 0.7))
    assert all(v is not None and v.score <= 0.7 for v in out)
    assert "2/3 ok members" in out[0].rationale and "broken –" in out[0].rationale


def test_panel_tie_is_a_property_of_counts_not_order(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with FakeOpenAIServer() as a, FakeOpenAIServer() as b:
        ja, jb = _openai(a, "a"), _openai(b, "b")
        lex = LexicalJudge()
        p1 = Panel([ja, lex], "majority")
        p2 = Panel([lex, jb], "majority")
        ctx = JudgeContext(cache=JudgeCache(tmp_path / "c", "off"))
        v1 = asyncio.run(p1.judge_pairs(PAIRS[:1], ctx))[0]
        v2 = asyncio.run(p2.judge_pairs(PAIRS[:1], ctx))[0]
    # 1 yes (0.9) of 2 members is a tie → no match in either order
    assert v1 is not None and v2 is not None and v1.score == v2.score <= 0.7


def test_agreement_statistics_by_hand() -> None:
    rows = [{"judge_id": j, "pred": p, "truth": "t", "item_id": None, "outcome": "ok", "score": s}
            for p, sa, sb in (("x", 0.9, 0.8), ("y", 0.2, 0.9), ("z", 0.1, 0.2))
            for j, s in (("a", sa), ("b", sb))]
    agree = agreement(rows, ["a", "b"], 0.7)
    assert agree["pairs_all_ok"] == 3
    # only "y" falls on both sides of τ
    assert [d["pred"] for d in agree["disagreements"]] == ["y"]
    assert agree["pairwise"][0]["pearson"] == pytest.approx(
        np.corrcoef([0.9, 0.2, 0.1], [0.8, 0.9, 0.2])[0, 1])


def _eval(*args: str | Path) -> tuple[int, str]:
    res = runner.invoke(app, ["eval", *map(str, args)], env={"COLUMNS": "200"})
    return res.exit_code, res.output


IFPUG = ["--where", "task=ilf_selection", "--pred-field", "final_answer", "--truth-field",
         "ground_truth", "--id-field", "run,doc_id"]


def _study_table(tmp_path: Path) -> Path:
    rows = []
    for line in shared_file("ifpug/ilf_runs.jsonl").read_text().splitlines():
        r = json.loads(line)
        if r["task"] == "ilf_selection":
            for m in r["evaluation_metrics"]["semantic_matches"]:
                p, t, s = re.match(r"^(.*) <-> (.*) \(([0-9.]+)\)$", m).groups()  # type: ignore[union-attr]
                rows.append({"id": f"{r['run']}/{r['doc_id']}", "pred": p, "truth": t,
                             "score": float(s)})
    path = tmp_path / "study.jsonl"
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in rows))
    return path


def test_ifpug_panel_rescore(tmp_path) -> None:  # type: ignore[no-untyped-def]
    data = shared_file("ifpug/ilf_runs.jsonl")
    table = _study_table(tmp_path)
    code, output = _eval(data, *IFPUG, "--judge", "local", "--judge", "lexical", "--judge",
                         f"table:{table}", "--vote", "majority", "--out", tmp_path / "run",
                         "--cache-dir", tmp_path / "c", "--bootstrap", "200")
    assert code == 0, output
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    panel = summary["panel"]
    assert panel["members"] == ["local", "lexical", f"table:{table}"]
    assert panel["agreement"]["alpha_interval"] is not None
    assert panel["agreement"]["alpha_nominal"] is not None
    assert len(panel["agreement"]["pairwise"]) == 3
    dis = (tmp_path / "run" / "disagreements.jsonl").read_text().splitlines()
    assert len(dis) == panel["disagreements"] > 0
    lines = (tmp_path / "run" / "verdicts.jsonl").read_text().splitlines()
    verdicts = [json.loads(x) for x in lines]
    assert {v["judge_id"] for v in verdicts} >= {"local", "lexical", f"table:{table}"}
    for tau, same in ((0.7, True), (0.6, False)):
        res = runner.invoke(app, ["rescore", str(tmp_path / "run"), "--tau", str(tau), "--out",
                                  str(tmp_path / f"r{tau}.json"), "--bootstrap", "0"])
        assert res.exit_code == 0, res.output
        r = json.loads((tmp_path / f"r{tau}.json").read_text())
        assert r["judge_calls"] == 0
        if same:
            assert r["metrics"] == summary["metrics"]
        else:
            assert r["metrics"]["macro_f1"] != summary["metrics"]["macro_f1"]
    res = runner.invoke(app, ["rescore", str(tmp_path / "run"), "--vote", "mean", "--out",
                              str(tmp_path / "mean.json"), "--bootstrap", "0"])
    assert res.exit_code == 0
    assert json.loads((tmp_path / "mean.json").read_text())["vote"] == "mean"


def _reference_paired(a: list[dict], b: list[dict], n_boot: int, seed: int) -> dict:
    """Independent paired bootstrap: numpy arrays, same resample indices for both runs."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(a), size=(n_boot, len(a)))
    fa, fb = np.array([r["f1"] for r in a]), np.array([r["f1"] for r in b])
    macro = fb[idx].mean(axis=1) - fa[idx].mean(axis=1)

    def micro(rows: list[dict], ix: np.ndarray) -> float:
        tp = sum(rows[i]["tp_fuzzy"] for i in ix)
        return fuzzy_prf(tp, sum(rows[i]["n_pred"] for i in ix),
                         sum(rows[i]["n_truth"] for i in ix))[2]

    mic = np.array([micro(b, ix) - micro(a, ix) for ix in idx])
    return {"macro_f1": np.percentile(macro, [2.5, 97.5]),
            "micro_f1": np.percentile(mic, [2.5, 97.5])}


def test_compare_local_vs_study_judge(tmp_path) -> None:  # type: ignore[no-untyped-def]
    data = shared_file("ifpug/ilf_runs.jsonl")
    table = _study_table(tmp_path)
    for name, judge in (("local", "local"), ("study", f"table:{table}")):
        code, output = _eval(data, *IFPUG, "--judge", judge, "--out", tmp_path / name,
                             "--cache-dir", tmp_path / "c", "--bootstrap", "0")
        assert code == 0, output
    res = runner.invoke(app, ["compare", str(tmp_path / "local"), str(tmp_path / "study"),
                              "--bootstrap", "300", "--seed", "5", "--out", str(tmp_path / "cmp")],
                        env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    result = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    md = (tmp_path / "cmp" / "compare.md").read_text()
    assert "| macro_f1 |" in md and "latency p50" in md
    rows = {n: [json.loads(x) for x in (tmp_path / n / "items.jsonl").read_text().splitlines()]
            for n in ("local", "study")}
    ref = _reference_paired(rows["local"], rows["study"], 300, 5)
    diff = result["differences"][0]["metrics"]
    for metric in ("macro_f1", "micro_f1"):
        assert diff[metric]["ci95"] == pytest.approx(list(ref[metric]), abs=1e-12)
    summ = {n: json.loads((tmp_path / n / "summary.json").read_text())["metrics"]
            for n in ("local", "study")}
    assert diff["macro_f1"]["diff"] == pytest.approx(summ["study"]["macro_f1"]
                                                     - summ["local"]["macro_f1"])
    assert diff["macro_f1"]["ci95"][0] > 0  # the study's judge is more generous, clearly
    ops = result["runs"][0]["judges"]["local"]
    assert ops["verdicts"] == 311 and ops["parse_error_rate"] == 0.0
    assert result["agreement"][0]["shared_pairs"] > 0


def test_summary_bootstrap_matches_reference(tmp_path) -> None:  # type: ignore[no-untyped-def]
    code, output = _eval(EXAMPLES / "glossary_en_zh.jsonl", "--judge", "local", "--out",
                         tmp_path / "run", "--cache-dir", tmp_path / "c", "--bootstrap", "400",
                         "--seed", "3")
    assert code == 0, output
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    rows = [json.loads(x) for x in (tmp_path / "run" / "items.jsonl").read_text().splitlines()]
    f1 = np.array([r["f1"] for r in rows])
    idx = np.random.default_rng(3).integers(0, len(rows), size=(400, len(rows)))
    ref = np.percentile(f1[idx].mean(axis=1), [2.5, 97.5])
    assert summary["bootstrap"]["ci95"]["macro_f1"] == pytest.approx(list(ref), abs=1e-12)
    lo, hi = summary["bootstrap"]["ci95"]["macro_f1"]
    assert lo <= summary["metrics"]["macro_f1"] <= hi


def test_compare_and_rescore_bad_input(tmp_path) -> None:  # type: ignore[no-untyped-def]
    a = tmp_path / "a.jsonl"
    a.write_text('{"id": 1, "pred": ["x"], "truth": ["x"]}\n'
                 '{"id": 2, "pred": ["y"], "truth": ["z"]}\n')
    b = tmp_path / "b.jsonl"
    b.write_text('{"id": 1, "pred": ["x"], "truth": ["x"]}\n'
                 '{"id": 3, "pred": ["y"], "truth": ["z"]}\n')
    for name, data in (("ra", a), ("rb", b)):
        code, output = _eval(data, "--id-field", "id", "--judge", "lexical", "--out",
                             tmp_path / name, "--bootstrap", "0")
        assert code == 0, output
    res = runner.invoke(app, ["compare", str(tmp_path / "ra"), str(tmp_path / "rb")])
    assert res.exit_code == 2 and "item '2' is missing" in res.output
    res = runner.invoke(app, ["rescore", str(tmp_path / "ra"), "--vote", "mean"])
    assert res.exit_code == 2 and "panel runs only" in res.output
    res = runner.invoke(app, ["rescore", str(tmp_path / "nope")])
    assert res.exit_code == 2 and "not a run directory" in res.output
