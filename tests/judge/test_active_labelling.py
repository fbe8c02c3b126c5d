"""Active labelling (``calibrate --pool --suggest``): strata, collapsed estimation strata, weights,
Neyman allocation — each by hand — the weighted τ against the unweighted one when every pair is
labelled, and the CLI round trip (suggest → audit run → labels merge → calibrate again)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from judge.calibration import stratified as st
from judge.calibration.stratified import Design, allocate, score_strata, stratified_tau, suggest
from judge.calibration.taubootstrap import tau_interval
from judge.cli import app
from judge.runs.store import load_run
from tests.conftest import EXAMPLES

runner = CliRunner()


def test_score_strata_equal_count_by_hand() -> None:
    # 8 scores, 4 strata: numpy's quantiles at 25/50/75 % are 0.275, 0.45, 0.625, so two
    # scores per stratum; NaN (no verdict) is -1
    s = np.array([0.8, 0.1, 0.5, 0.3, np.nan, 0.2, 0.7, 0.4, 0.6])
    assert score_strata(s, 4).tolist() == [3, 0, 2, 1, -1, 0, 3, 1, 2]
    # ties merge bins: six 1.0s and two 0.0s leave two strata
    assert score_strata(np.array([1.0] * 6 + [0.0] * 2), 4).tolist() == [1] * 6 + [0] * 2
    with pytest.raises(ValueError):
        score_strata(np.array([np.nan]), 4)


def _design(labelled_per_stratum: list[int], size: int = 10,
            positive_per_stratum: list[int] | None = None) -> Design:
    strata = np.repeat(np.arange(len(labelled_per_stratum)), size)
    lab, pos = [], []
    for h, n in enumerate(labelled_per_stratum):
        lab += list(range(h * size, h * size + n))
        k = (positive_per_stratum or [0] * len(labelled_per_stratum))[h]
        pos += [True] * k + [False] * (n - k)
    return Design(strata, np.array(lab, dtype=np.intp), np.array(pos, dtype=bool))


def test_collapsed_strata_and_weights_by_hand() -> None:
    # labelled per stratum 3, 2, 5, 1 (MIN_PER_STRATUM = 5): strata 0+1 reach 5 → group
    # 0; stratum 2 has 5 → group 1; stratum 3's single label is too few → joins group 1.
    # Weights N_g / n_g: group 0 = 20 pairs / 5 labels = 4; group 1 = 20 / 6
    assert st.MIN_PER_STRATUM == 5
    d = _design([3, 2, 5, 1])
    assert d.groups()[::10].tolist() == [0, 0, 1, 1]
    np.testing.assert_allclose(d.weights(), [4.0] * 5 + [20 / 6] * 6)
    # the weights sum to the population: every scored pair is represented once
    assert d.weights().sum() == pytest.approx(40)


def test_neyman_allocation_by_hand() -> None:
    # N_h = 10 each; labelled 0, 2, 2, 2 with 0, 0, 1, 2 positives; all four are under
    # MIN_PER_STRATUM = 5, so each pick goes to the largest gap target − have. Laplace
    # p = (pos+1)/(n+2) = 0.5, 0.25, 0.5, 0.75; N·σ = 5, 4.330, 5, 4.330; targets for
    # n + k = 10: 2.679, 2.321, 2.679, 2.321. Gaps from (0, 2, 2, 2): 2.679 → s0, 1.679 → s0,
    # then s0 and s2 tie at 0.679 → s0 (the first), then 0.679 → s2
    d = _design([0, 2, 2, 2], positive_per_stratum=[0, 0, 1, 2])
    assert allocate(d, 4).tolist() == [3, 0, 1, 0]
    # τ̂'s window over stratum 3 only (FOCUS = 4): shares 5, 4.330, 5, 17.321 → targets
    # 1.580, 1.368, 1.580, 5.472; gaps: s3 3.472, s3 2.472, then s0 1.580 > s3 1.472, then s3
    scores = np.repeat([0.1, 0.3, 0.5, 0.7], 10) + np.tile(np.arange(10) / 1000, 4)
    assert st.FOCUS == 4.0
    assert allocate(d, 4, scores, (0.69, 0.8)).tolist() == [1, 0, 0, 3]
    # never more than a stratum's unlabelled pairs, never a labelled pair
    picks = suggest(d, 34, seed=3)
    assert len(picks) == len(set(picks)) == 34 and not set(picks) & set(d.labelled.tolist())
    assert suggest(d, 4, seed=3) == suggest(d, 4, seed=3)  # seeded


def test_every_pair_labelled_gives_the_unweighted_tau() -> None:
    # all N labelled → every weight N_g/n_g is 1 → the same τ̂ as the plain sweep (an
    # independent path: taubootstrap.tau_interval)
    rng = np.random.default_rng(7)
    s = rng.uniform(size=200)
    y = rng.uniform(size=200) < s  # positives likelier at high scores
    d = Design(score_strata(s, 16), np.arange(200), y)
    np.testing.assert_allclose(d.weights(), 1.0)
    est = stratified_tau(s, d, "f1", 50, 0)
    assert est.tau == pytest.approx(tau_interval(s, y, "f1", 0, 0)[0])
    assert est.low <= est.tau <= est.high and len(est.taus) + est.skipped == 50


def _write_jsonl(path: Path, rows: list[dict]) -> Path:  # type: ignore[type-arg]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")
    return path


@pytest.fixture()
def am2ico_pool(tmp_path: Path) -> tuple[Path, Path, dict[tuple[str, str], int]]:
    with open(EXAMPLES / "am2ico_word_pairs.tsv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))[::2]  # both classes (file is sorted)
    truth = {(r["pred"], r["truth"]): int(r["label"]) for r in rows}
    labels = _write_jsonl(tmp_path / "labels.jsonl", [
        {"pred": r["pred"], "truth": r["truth"], "label": int(r["label"])} for r in rows[::8]])
    pool = _write_jsonl(tmp_path / "pool.jsonl", [
        {"id": f"p{k}", "pred": r["pred"], "truth": r["truth"]} for k, r in enumerate(rows)])
    return labels, pool, truth


def _calibrate(*args: str | Path) -> tuple[int, str]:
    res = runner.invoke(app, ["calibrate", *map(str, args)], env={"COLUMNS": "200"})
    return res.exit_code, res.output


def test_suggest_round_trip(tmp_path: Path, am2ico_pool: tuple[Path, Path, dict]) -> None:  # type: ignore[type-arg]
    labels, pool, truth = am2ico_pool
    out = tmp_path / "c1"
    code, text = _calibrate(labels, "--judge", "local", "--pool", pool, "--suggest", 12,
                            "--bootstrap", 100, "--out", out)
    assert code == 0, text
    assert "suggested 12 of 12 pairs" in text and f"simjudge audit {out / 'suggestions'}" in text
    rep = json.loads((out / "calibration.json").read_text(encoding="utf-8"))
    r = rep["judges"]["local"]
    strat = r["stratified"]
    assert strat["labelled"] == 32 and strat["pool"]["already_labelled"] == 32  # 250 rows [::8]
    assert sum(h["pairs"] for h in strat["strata"]) == strat["population"]
    assert sum(h["labelled"] for h in strat["strata"]) == 32
    # weighted counts at τ add up to the population (each weight is N_g / n_g)
    at = r["at_tau"]
    assert at["tp"] + at["fp"] + at["fn"] + at["tn"] == pytest.approx(strat["population"],
                                                                       abs=0.01)
    assert r["bootstrap"]["stratified"] and r["bootstrap"]["tau_samples"]
    lo, hi = r["bootstrap"]["tau_ci95"]
    assert strat["tau_ci95_width"] == pytest.approx(hi - lo, abs=1e-6)
    sug = [json.loads(x) for x in (out / "suggestions.jsonl").read_text().splitlines()]
    assert len(sug) == 12
    labelled = {(x["pred"], x["truth"]) for x in map(json.loads, labels.read_text().splitlines())}
    assert not {(s["pred"][0], s["truth"][0]) for s in sug} & labelled
    assert all(s["id"].startswith("p") and s["source"].startswith(str(pool)) for s in sug)
    run = load_run(out / "suggestions")  # what `simjudge audit` opens
    assert run.task == "selection" and len(run.items) == 12
    assert run.config.get("tau") == pytest.approx(r["tau"])
    assert sorted(i.id for i in run.items) == sorted(s["id"] for s in sug)
    # the reviewer labels them in the audit page (its export rows), merge, calibrate again
    export = _write_jsonl(tmp_path / "export.jsonl", [
        {"id": s["id"], "pred": s["pred"][0], "truth": s["truth"][0],
         "label": truth[(s["pred"][0], s["truth"][0])], "reviewer": "ann"} for s in sug])
    merged = tmp_path / "labels2.jsonl"
    res = runner.invoke(app, ["labels", "merge", str(labels), str(export), "--out", str(merged)])
    assert res.exit_code == 0, res.output
    code, text = _calibrate(merged, "--judge", "local", "--pool", pool, "--suggest", 12,
                            "--bootstrap", 100, "--out", tmp_path / "c2")
    assert code == 0, text
    r2 = json.loads((tmp_path / "c2" / "calibration.json").read_text())["judges"]["local"]
    assert r2["stratified"]["labelled"] == 44
    sug2 = [json.loads(x) for x in (tmp_path / "c2" / "suggestions.jsonl").read_text()
            .splitlines()]
    assert not {s["id"] for s in sug2} & {s["id"] for s in sug}


def test_target_reached_writes_no_suggestions(tmp_path: Path,
                                              am2ico_pool: tuple[Path, Path, dict]) -> None:  # type: ignore[type-arg]
    labels, pool, _ = am2ico_pool
    code, text = _calibrate(labels, "--judge", "local", "--pool", pool, "--suggest", 5,
                            "--target-width", 1.0, "--bootstrap", 50, "--out", tmp_path / "c")
    assert code == 0, text
    assert "labelling can stop" in text
    assert not (tmp_path / "c" / "suggestions.jsonl").exists()
    rep = json.loads((tmp_path / "c" / "calibration.json").read_text())
    assert rep["suggestions"]["written"] == 0
    assert rep["judges"]["local"]["stratified"]["target_reached"] is True


@pytest.mark.parametrize("extra,message", [
    (["--suggest", "5"], "--suggest needs --pool"),
    (["--pool", "{pool}", "--suggest", "5", "--judge", "lexical"], "--suggest takes one judge"),
    (["--pool", "{pool}", "--target-width", "0"], "target-width"),
    (["--pool", "{bad}"], "bad.jsonl:2"),
])
def test_bad_pool_options_exit_2_before_any_call(tmp_path: Path, am2ico_pool: tuple,  # type: ignore[type-arg]
                                                 extra: list[str], message: str) -> None:
    labels, pool, _ = am2ico_pool
    bad = _write_jsonl(tmp_path / "bad.jsonl", [{"pred": "a", "truth": "b"}, {"pred": "c"}])
    args = [a.format(pool=pool, bad=bad) for a in extra]
    code, text = _calibrate(labels, "--judge", "local", *args, "--out", tmp_path / "o")
    assert code == 2, text
    assert message in text
    assert not (tmp_path / "o").exists()
