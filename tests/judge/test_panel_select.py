"""``leaderboard --select-panel BUDGET``: the majority-vote panel of >= 3 judges with the most
κ per USD, derived by hand on six pairs, and its refusals."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from judge.calibration.labels import LabelledPair, LabelSet
from judge.calibration.panelselect import Candidate, select_panel
from tests.clirun import run_cli

TRUTH = [1, 1, 1, 0, 0, 0]
# verdicts (score 1 = "same", τ 0.5): a errs on pair 2, b on 1, c on 0, d on 2 and 3
VERDICTS = {"a": [1, 1, 0, 0, 0, 0], "b": [1, 0, 1, 0, 0, 0], "c": [0, 1, 1, 0, 0, 0],
            "d": [1, 1, 0, 1, 0, 0]}


def _labels() -> LabelSet:
    pairs = [LabelledPair(f"p{k}", f"t{k}", float(y), bool(y), (float(y),), f"x:{k + 1}")
             for k, y in enumerate(TRUTH)]
    return LabelSet(pairs, False, None, None, "x.jsonl", "0" * 64, len(pairs))


def _candidates(prices: dict[str, float]) -> list[Candidate]:
    return [Candidate(j, np.array(v, dtype=np.float64), 0.5, prices[j])
            for j, v in VERDICTS.items()]


def test_most_kappa_per_usd_within_the_budget_by_hand() -> None:
    # prices a 1, b 0.5, c 2, d 0 per 1,000 pairs; budget 3. Majority votes (ties negative):
    #  {a,b,d} $1.5: [1,1,0,0,0,0] → TP 2, FN 1, TN 3: p_o 5/6, p_e 1/2 → κ 2/3, 0.444 κ/$
    #  {b,c,d} $2.5: [1,1,1,0,0,0] → κ 1, 0.4 κ/$;  {a,c,d} $3: [1,1,0,0,0,0] → κ 2/3
    #  {a,b,c} and {a,b,c,d} cost $3.5: over the budget. So 3 panels within it; the most κ per
    #  USD is {a,b,d}, the highest κ {b,c,d}.
    # n_eff of {a,b,d}: errors a [0,0,1,0,0,0], b [0,1,0,0,0,0], d [0,0,1,1,0,0]:
    #  φ(a,b) = (0·4 − 1·1)/√(1·5·1·5) = −0.2; φ(a,d) = (1·4 − 0·1)/√(1·5·2·4) = 0.63246;
    #  φ(b,d) = (0·3 − 1·2)/√(1·5·2·4) = −0.31623; mean 0.038743 → 3/(1 + 2·0.038743) = 2.78426
    got = select_panel(_candidates({"a": 1.0, "b": 0.5, "c": 2.0, "d": 0.0}), _labels(), 3.0,
                       200, 0)
    assert got["panels_within_budget"] == 3
    chosen, top = got["chosen"], got["highest_kappa"]
    assert chosen["members"] == ["a", "b", "d"] and chosen["usd_per_1k"] == 1.5
    assert chosen["kappa"] == pytest.approx(cohen_kappa_score(TRUTH, [1, 1, 0, 0, 0, 0]))
    assert chosen["kappa"] == pytest.approx(2 / 3)
    assert chosen["kappa_per_usd"] == pytest.approx(2 / 3 / 1.5)
    assert chosen["mean_error_phi"] == pytest.approx((-0.2 + 4 / 40 ** 0.5 - 2 / 40 ** 0.5) / 3)
    assert chosen["n_eff"] == pytest.approx(2.78426, abs=1e-5)
    lo, hi = chosen["kappa_ci95"]
    assert lo <= chosen["kappa"] <= hi
    assert top["members"] == ["b", "c", "d"] and top["kappa"] == pytest.approx(1.0)


def test_free_panels_rank_first_and_a_tight_budget_says_so() -> None:
    free = select_panel(_candidates({"a": 0.0, "b": 0.0, "c": 0.0, "d": 0.0}), _labels(), 0.0,
                        0, 0)
    # every panel is free: the highest κ wins, then the fewest members: {a,b,c} votes
    # [1,1,1,0,0,0], κ 1 (so does {b,c,d}; {a,b,c} comes first in the search order)
    assert free["chosen"]["members"] == ["a", "b", "c"] and free["chosen"]["kappa"] == 1.0
    assert free["chosen"]["kappa_per_usd"] is None and free["chosen"]["kappa_ci95"] == [None,
                                                                                        None]
    tight = select_panel(_candidates({"a": 1.0, "b": 1.0, "c": 1.0, "d": 1.0}), _labels(), 2.0,
                         0, 0)
    assert tight["chosen"] is None and tight["panels_within_budget"] == 0
    assert "costs <= $2 per 1,000 pairs" in tight["note"]


def _table_judge(tmp_path: Path, name: str, verdicts: list[int]) -> str:
    path = tmp_path / f"{name}.jsonl"
    path.write_text("".join(json.dumps({"pred": f"p{k}", "truth": f"t{k}", "score": v}) + "\n"
                            for k, v in enumerate(verdicts)), encoding="utf-8")
    return f"table:{path}"


def test_cli_selects_among_free_table_judges(tmp_path: Path) -> None:
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({"pred": f"p{k}", "truth": f"t{k}", "label": y}) + "\n"
                              for k, y in enumerate(TRUTH)), encoding="utf-8")
    specs = [a for j, v in VERDICTS.items() for a in ("--judge", _table_judge(tmp_path, j, v))]
    out = tmp_path / "lb"
    res = run_cli("leaderboard", str(labels), *specs, "--select-panel", "0", "--swap", "0",
                  "--bootstrap", "0", "--folds", "2", "--out", str(out))
    assert res.returncode == 0, res.stderr
    table = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))["tables"][0]
    sel = table["select_panel"]
    # lexical scores 0 on every pair here: no τ, so it cannot vote
    assert sel["unpriced"] == ["lexical"] and len(sel["candidates"]) == 4
    assert [Path(m.split(":", 1)[1]).stem for m in sel["chosen"]["members"]] == ["a", "b", "c"]
    assert "select-panel (<= $0 per 1,000 pairs, majority vote): most κ per USD" in res.stdout


@pytest.mark.parametrize("count, budget, message", [
    (1, "1", "picks a panel of >= 3 judges"), (12, "1", "at most 12 judges"),
    (3, "-1", "budget in USD per 1,000 pairs >= 0")])
def test_refused_before_any_judge_call(tmp_path: Path, count: int, budget: str,
                                       message: str) -> None:
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({"pred": f"p{k}", "truth": f"t{k}", "label": y}) + "\n"
                              for k, y in enumerate(TRUTH)), encoding="utf-8")
    specs = [a for k in range(count)
             for a in ("--judge", _table_judge(tmp_path, f"j{k}", TRUTH))]
    res = run_cli("leaderboard", str(labels), *specs, "--select-panel", budget, "--out",
                  str(tmp_path / "lb"))
    assert res.returncode == 2 and message in res.stderr
    assert not (tmp_path / "lb").exists()


def test_two_copies_and_an_independent_member_are_worth_about_two() -> None:
    # the check: 4 pairs labelled 1, 1, 0, 0; copies x and x2 say [0, 0, 0, 0] (err on
    # pairs 0, 1), z says [0, 1, 1, 0] (errs on 0, 2). Error indicators [1,1,0,0] twice and
    # [1,0,1,0]: φ(x, x2) = 1; φ(x, z) = (1·1 − 1·1)/√(2·2·2·2) = 0 = φ(x2, z);
    # mean φ = 1/3 → n_eff = 3 / (1 + 2/3) = 1.8
    from judge.calibration.panelstats import panel_independence

    labels = LabelSet([LabelledPair(f"p{i}", f"t{i}", float(y), bool(y), (float(y),), f"f:{i}")
                       for i, y in enumerate([1, 1, 0, 0])], False, None, None, "f", "0", 4)
    said = {"x": [0, 0, 0, 0], "x2": [0, 0, 0, 0], "z": [0, 1, 1, 0]}
    verdicts = [{"judge_id": j, "pred": f"p{i}", "truth": f"t{i}", "score": float(v),
                 "outcome": "ok"} for j, vs in said.items() for i, v in enumerate(vs)]
    got = panel_independence(verdicts, labels, {}, 0.5, None)
    assert got is not None
    assert got["error_phi"] == {"x | x2": pytest.approx(1.0), "x | z": pytest.approx(0.0),
                                "x2 | z": pytest.approx(0.0)}
    assert got["n_eff"] == pytest.approx(1.8)


def test_eval_with_overrides_reports_the_panels_independence(tmp_path: Path) -> None:
    # eval --overrides with a panel of three table judges on 6 one-pair items. Human labels
    # [1, 1, 0, 0, 1, 0]; a and b (two files, one content) score [.9, .9, .1, .1, .1, .9], c
    # [.9, .1, .1, .9, .9, .1]. At the run's τ 0.5 a and b err on pairs 4 (FN) and 5 (FP), c on
    # 1 (FN) and 3 (FP): φ(a, b) = 1; φ(a, c) = (0·2 − 2·2)/√(2·4·2·4) = −0.5 = φ(b, c);
    # mean 0 → n_eff 3. The panel's mean [.9, .633, .1, .367, .367, .633] says [1,1,0,0,0,1]:
    # TP 2, FN 1, FP 1, TN 2 → κ 1/3, as a's (the best member, first of a tie with c's 1/3).
    truth = [1, 1, 0, 0, 1, 0]
    scores = {"a": [.9, .9, .1, .1, .1, .9], "b": [.9, .9, .1, .1, .1, .9],
              "c": [.9, .1, .1, .9, .9, .1]}
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps({"id": f"i{k}", "pred": [f"p{k}"], "truth": [f"t{k}"]})
                            + "\n" for k in range(6)), encoding="utf-8")
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps({"id": f"i{k}", "pred": f"p{k}", "truth": f"t{k}",
                                          "label": y, "reviewer": "ann"}) + "\n"
                              for k, y in enumerate(truth)), encoding="utf-8")
    specs = []
    for name, vs in scores.items():
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps({"pred": f"p{k}", "truth": f"t{k}", "score": v})
                                + "\n" for k, v in enumerate(vs)), encoding="utf-8")
        specs += ["--judge", f"table:{path}"]
    res = run_cli("eval", str(data), *specs, "--tau", "0.5", "--overrides", str(labels),
                  "--bootstrap", "0", "--out", str(tmp_path / "run"), columns=400)
    assert res.returncode == 0, res.stderr
    text = " ".join(res.stdout.split())
    assert "on the 6 human-labelled pairs: panel of 3 worth 3.00 independent judges " \
           "(mean error φ 0.000 over 6 pairs every member scored; Kish); panel κ 0.333 vs its " \
           "best member" in text
    a, b, c = (f"table:{tmp_path / n}.jsonl" for n in "abc")
    assert f"{a} | {b} 1.000" in text and f"{a} | {c} -0.500" in text
    assert f"best member {a}'s 0.333" in text
