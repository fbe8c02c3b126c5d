"""Active labelling (``calibrate --pool --suggest``): strata, collapsed estimation strata, weights,
Neyman allocation — each by hand — the weighted τ against the unweighted one when every pair is
labelled, the decision's loss and its stopping rule by hand, the loss-targeted shares against
analytic F1 derivatives, and the CLI round trip (suggest → audit run → labels merge → calibrate
again, then the rule stopping)."""

from __future__ import annotations

import csv
import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from judge.calibration import allocation
from judge.calibration import stratified as st
from judge.calibration.allocation import allocate, loss_shares, suggest
from judge.calibration.regretshares import regret_shares
from judge.calibration.stratified import Design, decision_loss, score_strata, stratified_tau
from judge.calibration.taubootstrap import tau_interval
from judge.cli import app
from judge.record.store import load_run
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
    # labelled per stratum 3, 2, 5, 1 (MIN_PER_STRATUM = 3): stratum 0 has 3 → group 0;
    # strata 1+2 reach 7 → group 1; stratum 3's single label is too few → joins group 1.
    # Weights N_g / n_g: group 0 = 10 pairs / 3 labels; group 1 = 30 / 8
    assert st.MIN_PER_STRATUM == 3
    d = _design([3, 2, 5, 1])
    assert d.groups()[::10].tolist() == [0, 1, 1, 1]
    np.testing.assert_allclose(d.weights(), [10 / 3] * 3 + [30 / 8] * 8)
    # the weights sum to the population: every scored pair is represented once
    assert d.weights().sum() == pytest.approx(40)


def test_neyman_allocation_by_hand() -> None:
    # N_h = 10 each; labelled 0, 2, 2, 2 with 0, 0, 1, 2 positives; all four are under
    # MIN_PER_STRATUM = 3, so picks go to the largest gap target − have among them. Laplace
    # p = (pos+1)/(n+2) = 0.5, 0.25, 0.5, 0.75; N·σ = 5, 4.330, 5, 4.330; targets for
    # n + k = 10: 2.679, 2.321, 2.679, 2.321. Gaps from (0, 2, 2, 2): 2.679 → s0, 1.679 → s0,
    # s0 and s2 tie at 0.679 → s0 (the first); s0 is then at the minimum: 0.679 → s2
    d = _design([0, 2, 2, 2], positive_per_stratum=[0, 0, 1, 2])
    assert allocate(d, 4).tolist() == [3, 0, 1, 0]
    # every stratum at the minimum: 3 labels each with 0, 1, 2, 3 positives → p = 0.2, 0.4,
    # 0.6, 0.8; N·σ = 4, 4.899, 4.899, 4; targets for 16: 3.596, 4.404, 4.404, 3.596; gaps
    # 0.596, 1.404, 1.404, 0.596 → s1, s2, then s0 (0.596 first of a tie), then s3
    d = _design([3, 3, 3, 3], positive_per_stratum=[0, 1, 2, 3])
    assert allocate(d, 4).tolist() == [1, 1, 1, 1]
    # τ̂'s window over stratum 3 only (FOCUS = 4): its share 16 → targets 2.148, 2.630, 2.630,
    # 8.591: all four labels go to stratum 3
    scores = np.repeat([0.1, 0.3, 0.5, 0.7], 10) + np.tile(np.arange(10) / 1000, 4)
    assert allocation.FOCUS == 4.0
    assert allocate(d, 4, scores, (0.69, 0.8)).tolist() == [0, 0, 0, 4]
    # never more than a stratum's unlabelled pairs, never a labelled pair
    picks = suggest(d, 34, seed=3)  # 40 pairs − 12 labelled = 28 left: all of them, once
    assert sorted(picks) == sorted(set(range(40)) - set(d.labelled.tolist()))
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


def _three_groups() -> tuple[np.ndarray, Design]:
    # 90 pairs in 3 strata of 30 with one score each (0.2, 0.5, 0.8), 3 labels per stratum:
    # negatives at 0.2, positives at 0.8, and 1 positive + 2 negatives at 0.5. Each label
    # weighs N_g / n_g = 10, so the weighted population is 30 negatives at 0.2, 10 positives
    # and 20 negatives at 0.5, 30 positives at 0.8
    scores = np.repeat([0.2, 0.5, 0.8], 30)
    lab = np.array([0, 1, 2, 30, 31, 32, 60, 61, 62])
    pos = np.array([False] * 3 + [True, False, False] + [True] * 3)
    return scores, Design(np.repeat([0, 1, 2], 30), lab, pos)


def test_decision_loss_by_hand() -> None:
    scores, d = _three_groups()
    # two cuts: τ = 0.35 (0.5 and 0.8 predicted positive): TP 40, FP 20 → F1 = 80/100 = 0.8;
    # τ = 0.65 (0.8 only): TP 30, FN 10 → F1 = 60/70 = 6/7 → τ̂ = 0.65
    est = decision_loss(scores, d, "f1", n_boot=4000, seed=1)
    assert est.tau == pytest.approx(0.65) and est.objective_at_tau == pytest.approx(6 / 7)
    # a resample redraws the 3 labels at 0.5 with replacement: k ~ Binomial(3, 1/3) positives
    # (weighted 10k positives, 10(3 − k) negatives there); 0.2 and 0.8 never change. F1 at
    # 0.35 = (60 + 20k)/(90 + 10k), at 0.65 = 60/(60 + 10k):
    #   k = 0: 0.667 vs 1 → τ* = τ̂, regret 0   k = 1: 0.8 vs 0.857 → regret 0
    #   k = 2: 10/11 vs 3/4 → regret 7/44       k = 3: 1 vs 2/3 → regret 1/3
    # expected regret = 6/27 · 7/44 + 1/27 · 1/3 = 765/16038 = 0.047699; its SD per resample
    # is 0.0864, so the mean of 4000 resamples is within 4 SE = 0.0055 of it
    assert est.bootstrap_loss == pytest.approx(765 / 16038, abs=0.0055)
    assert est.resamples == 4000 and est.skipped == 0 and est.n_labels == 9
    assert len(est.taus) == len(est.regrets) == 4000
    assert set(np.round(est.regrets, 6)) == {0.0, round(7 / 44, 6), round(1 / 3, 6)}
    # τ* = 0.35 in 7/27 = 26 % of resamples: the interval spans both cuts
    assert (est.low, est.high) == pytest.approx((0.35, 0.65))
    # 3 labels in each stratum of 30: below the rule's minimum (STOP_MINIMUM), so no stop yet;
    # were the minimums met, it would stop for a target at or above the rule's bound only
    assert not est.minimums_met and not est.stop(1.0)
    met = dataclasses.replace(est, minimums_met=True)
    assert met.stop(est.upper) and not met.stop(est.upper - 1e-9)
    # the rule's bound is the posterior's (tests/judge/test_posterior.py): 27 of each 30 pairs
    # unlabelled, so the loss may be large — the 0.95 quantile is above its mean
    assert est.upper >= est.loss > 0
    # the same resamples as stratified_tau's interval for a seed
    tau_est = stratified_tau(scores, d, "f1", 4000, 1)
    assert (tau_est.low, tau_est.high) == (est.low, est.high)


def test_loss_is_zero_when_every_resample_agrees_with_tau() -> None:
    # separable labels: in every resample the best cut lies between the largest negative and
    # the smallest positive drawn, and τ̂ = 0.5 (between 0.3 and 0.7) scores F1 = 1 there too:
    # nothing is lost, though τ* moves with the draw (0.45 when 0.3 is not drawn, probability
    # (5/6)^6 = 0.33): a wide interval and a loss of exactly 0
    scores = np.array([0.1, 0.2, 0.3, 0.7, 0.8, 0.9])
    d = Design(np.zeros(6, dtype=np.intp), np.arange(6), np.array([False] * 3 + [True] * 3))
    est = decision_loss(scores, d, "f1", 200, 0)
    # every pair labelled: the posterior knows all labels, its loss is the true loss, 0
    assert est.tau == pytest.approx(0.5) and est.loss == est.upper == est.bootstrap_loss == 0.0
    assert est.low <= 0.45 and est.high >= 0.55
    assert est.stop(0.01)


def test_stop_waits_for_every_stratum_minimum() -> None:
    # strata of 10, 2 and 10 pairs; labelled m = STOP_MINIMUM, 2 (all of it: its minimum is
    # min(m, N_h) = 2) and m − 1: the third is short. Labels separable (negatives <= 0.5 <
    # positives), so the loss is 0 and only the minimum holds the rule back
    m = st.STOP_MINIMUM
    assert st.MIN_PER_STRATUM == 3 and 3 < m < 10
    strata = np.repeat([0, 1, 2], [10, 2, 10])
    scores = np.concatenate([np.linspace(0.1, 0.12, 10), [0.5, 0.6], np.linspace(0.9, 0.95, 10)])
    lab = np.concatenate([np.arange(m), [10, 11], 12 + np.arange(m - 1)])
    pos = np.array([False] * (m + 1) + [True] * m)
    d = Design(strata, lab, pos)
    est = decision_loss(scores, d, "f1", 100, 0)
    # the bootstrap sees separable labels (0 lost); the posterior allows the 5 unlabelled
    # pairs of the outer strata to be of the other class now and then: within 0.01 at 0.9
    assert est.bootstrap_loss == 0.0 and est.upper < 0.01
    assert not est.minimums_met and not est.stop(1.0)
    assert d.strata_below_minimum() == 1 and d.strata_below_minimum(3) == 0
    # the loss is within the target, so suggest tops the short stratum up first (without the
    # target it may go anywhere: every pair is as good for a loss of 0)
    top = suggest(d, 1, 0, scores, target_loss=0.01, estimate=est)
    assert len(top) == 1 and 12 + m - 1 <= top[0] < 22
    d_met = Design(strata, np.append(lab, top), np.append(pos, True))
    est = decision_loss(scores, d_met, "f1", 100, 0)
    assert est.minimums_met and est.stop(0.01)
    # no resample: the loss is undefined and the rule never stops
    est = decision_loss(scores, d_met, "f1", 0, 0)
    assert est.loss != est.loss and not est.stop(1.0) and est.low == est.high == est.tau


def test_resample_sweep_matches_sweep_arrays() -> None:
    # one label per group: every resample redraws the same pairs, so τ*_b and the objective at
    # τ*_b are those of metrics.sweep_arrays on the weighted labels (an independent path)
    from judge.calibration.sweepboot import resample_sweep
    from metrics import best_index, sweep_arrays

    rng = np.random.default_rng(3)
    s = rng.uniform(size=40)
    y = rng.uniform(size=40) < s
    w = rng.uniform(1, 5, size=40)
    for objective in ("f1", "kappa", "youden", "accuracy"):
        sw = sweep_arrays(s, y, weights=w)
        i = best_index(sw[objective])
        boot = resample_sweep(s, y, w, np.arange(40), float(sw["tau"][i]), objective, 3, 0)
        np.testing.assert_allclose(boot.taus, sw["tau"][i])
        np.testing.assert_allclose(boot.best, sw[objective][i])
        np.testing.assert_allclose(boot.at_tau, sw[objective][i])


def test_loss_shares_against_analytic_f1_derivatives() -> None:
    from judge.calibration.stratified import LossEstimate

    scores, d = _three_groups()
    # one resample that matters: τ* = 0.35 below τ̂ = 0.65 (a second with regret 0 weighs 0)
    est = LossEstimate(0.65, 0.35, 0.65, 0.05, 9, True, "f1", taus=(0.35, 0.65),
                       regrets=(0.1, 0.0))

    def grad(tp: float, fp: float, fn: float) -> dict[str, float]:
        # F1 = 2TP/D, D = 2TP + FP + FN: ∂/∂TP = 2(FP + FN)/D², ∂/∂FP = ∂/∂FN = −2TP/D²
        den = (2 * tp + fp + fn) ** 2
        return {"tp": 2 * (fp + fn) / den, "fp": -2 * tp / den, "fn": -2 * tp / den, "tn": 0.0}

    g_hat, g_star = grad(30, 0, 10), grad(40, 20, 0)  # counts at 0.65 and at 0.35
    # influence of a pair = ∂F1(τ*)/∂(its cell at τ*) − ∂F1(τ̂)/∂(its cell at τ̂), per region:
    # 0.2 below both, 0.5 between (above τ*, below τ̂), 0.8 above both
    z = {0.2: (g_star["fn"] - g_hat["fn"], g_star["tn"] - g_hat["tn"]),
         0.5: (g_star["tp"] - g_hat["fn"], g_star["fp"] - g_hat["tn"]),
         0.8: (g_star["tp"] - g_hat["tp"], g_star["fp"] - g_hat["fp"])}
    p = {0.2: 1 / 5, 0.5: 2 / 5, 0.8: 4 / 5}  # (pos + 1) / (n + 2)
    want = []
    for v in (0.2, 0.5, 0.8):
        (z1, z0), q = z[v], p[v]
        mean = q * z1 + (1 - q) * z0
        want.append(30 * np.sqrt(q * z1 ** 2 + (1 - q) * z0 ** 2 - mean ** 2))
    got = loss_shares(scores, d, est)
    np.testing.assert_allclose(got, want, rtol=1e-4)  # ≈ 0.0509, 0.3563, 0.0519
    # the pairs between τ̂ and τ* get the labels: targets for 9 + 12 labels are 2.3, 16.3
    # and 2.4, so all 12 go to the 0.5 stratum
    assert allocate(d, 12, shares=got).tolist() == [0, 12, 0]
    picks = suggest(d, 12, 0, scores, estimate=est)
    assert len(picks) == 12 and all(33 <= i < 60 for i in picks)
    # the same shares through regret_shares directly, with the estimate's resamples
    w = d.weights()
    direct = regret_shares(scores, d.strata, np.array([0.2, 0.4, 0.8]), scores[d.labelled],
                           d.positive, w, 0.65, np.array([0.35, 0.65]), np.array([0.1, 0.0]),
                           "f1")
    np.testing.assert_allclose(direct, want, rtol=1e-4)


def test_suggest_follows_the_bootstrap_loss() -> None:
    # with the population's scores, suggest computes the loss itself: the 12 labels above go
    # mostly to the 0.5 stratum, where τ̂ and the resamples' τ* disagree
    scores, d = _three_groups()
    picks = suggest(d, 12, 0, scores)
    assert sum(30 <= i < 60 for i in picks) >= 10 and len(set(picks)) == 12
    assert not set(picks) & set(d.labelled.tolist())
    # without scores: Neyman's shares (p = 0.2, 0.4, 0.8 → N·σ = 12, 14.7, 12): a spread
    counts = np.bincount(np.array(suggest(d, 12, 0)) // 30, minlength=3)
    assert counts.tolist() == allocate(d, 12).tolist() and counts.max() < 12


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
    # the terminal wraps the message at 200 columns wherever the tmp path's length puts a
    # space (xdist adds popen-gwN/ to it): read it as words
    words = " ".join(text.split())
    assert "suggested 12 of 12 pairs" in words and f"simjudge audit {out / 'suggestions'}" in words
    rep = json.loads((out / "calibration.json").read_text(encoding="utf-8"))
    r = rep["judges"]["local"]
    strat = r["stratified"]
    assert strat["labelled"] == 32 and strat["pool"]["already_labelled"] == 32  # 250 rows [::8]
    # ~2 labels per stratum: the stopping rule waits for each stratum's minimum of 3
    assert strat["target_reached"] is False and strat["strata_below_minimum"] > 0
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
    _, pool, truth = am2ico_pool
    # three of every four pool pairs labelled: each of the 16 strata (~16 pairs) holds the
    # rule's minimum (STOP_MINIMUM = 8, or all its pairs)
    labels = _write_jsonl(tmp_path / "most.jsonl", [
        {"pred": p, "truth": t, "label": y} for p, t, y in
        ((p, t, y) for k, ((p, t), y) in enumerate(truth.items()) if k % 4 != 3)])
    code, text = _calibrate(labels, "--judge", "local", "--pool", pool, "--suggest", 5,
                            "--target-loss", 0.02, "--bootstrap", 200, "--out", tmp_path / "c")
    assert code == 0, text
    assert "labelling can stop" in text and "lost by using τ̂:" in text
    assert "with probability 0.95" in text
    assert not (tmp_path / "c" / "suggestions.jsonl").exists()
    assert not (tmp_path / "c" / "suggestions").exists()
    rep = json.loads((tmp_path / "c" / "calibration.json").read_text())
    assert rep["suggestions"]["written"] == 0 and rep["suggestions"]["stop"] == "target reached"
    r = rep["judges"]["local"]
    strat = r["stratified"]
    assert strat["target_reached"] is True and strat["strata_below_minimum"] == 0
    assert strat["target_loss"] == 0.02 and strat["loss_resamples"] + strat["loss_skipped"] == 200
    # most of a weak judge's set labelled: the loss is small (F1 is flat near its best τ) though
    # τ's interval stays wide — the case the width rule never stopped on
    assert 0.0 <= strat["loss"] <= 0.02 and 0.0 <= strat["loss_upper"] <= 0.02
    assert strat["loss_level"] == 0.95
    assert strat["tau_ci95_width"] > 0.02
    # τ̂ and its interval are calibrate's own (the same resamples for the same seed)
    assert strat["tau"] == pytest.approx(r["tau"])
    assert strat["tau_ci95"] == pytest.approx(r["bootstrap"]["tau_ci95"])
    # a target below that loss is not reached: the same labels get suggestions
    code, text = _calibrate(labels, "--judge", "local", "--pool", pool, "--suggest", 5,
                            "--target-loss", 1e-6, "--bootstrap", 200, "--out", tmp_path / "d")
    assert code == 0, text
    rep = json.loads((tmp_path / "d" / "calibration.json").read_text())
    assert rep["suggestions"]["written"] == 5 and rep["suggestions"]["stop"] is None
    assert rep["judges"]["local"]["stratified"]["loss"] == pytest.approx(strat["loss"])


@pytest.mark.parametrize("extra,message", [
    (["--suggest", "5"], "--suggest needs --pool"),
    (["--pool", "{pool}", "--target-loss", "0"], "target-loss"),
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


def test_two_judges_share_strata_split_by_disagreement(tmp_path: Path,
                                                       am2ico_pool: tuple) -> None:  # type: ignore[type-arg]
    labels, pool, _ = am2ico_pool
    out = tmp_path / "c"
    code, text = _calibrate(labels, "--judge", "local", "--judge", "lexical", "--pool", pool,
                            "--suggest", 10, "--strata", 8, "--bootstrap", 50, "--out", out)
    assert code == 0, text
    rep = json.loads((out / "calibration.json").read_text(encoding="utf-8"))
    local = rep["judges"]["local"]["stratified"]
    # 8 strata → 4 by mean score, each split in two by the judges' disagreement
    assert len(local["strata"]) == 8
    sug = [json.loads(x) for x in (out / "suggestions.jsonl").read_text().splitlines()]
    assert len(sug) == 10
    run = load_run(out / "suggestions")  # both judges' scores on the audit page (a panel)
    assert run.config.judge is not None and run.config.judge.members[0].backend == "local"


def test_pool_aucs_are_the_populations(tmp_path: Path) -> None:
    # 40 pairs in 4 strata of 10, labelled 3, 3, 3, 8 (stratum 3, the boundary, is
    # over-sampled): ROC-AUC and PR-AUC weight each labelled pair by N_g / n_g = 10/3 or
    # 10/8, as the sweep does; the reference is scikit-learn's sample_weight
    from sklearn.metrics import average_precision_score, roc_auc_score

    from judge.calibration.calibrate import calibrate_judge
    from judge.calibration.labels import LabelledPair, LabelSet
    from judge.calibration.scoring import JudgeScores
    from judge.calibration.suggest import Population

    # population order as calibrate builds it: the 17 labelled pairs, then the 23 of the pool
    n_lab = [3, 3, 3, 8]
    strata = np.array([h for h, n in enumerate(n_lab) for _ in range(n)]
                      + [h for h, n in enumerate(n_lab) for _ in range(10 - n)])
    y = np.array([False] * 3 + [True, False, False] + [True, True, False]
                 + [True] * 5 + [False] * 3)
    d = Design(strata, np.arange(17), y)
    rng = np.random.default_rng(5)
    pop_scores = (strata + rng.uniform(size=40)) / 4  # stratum h's scores in [h/4, (h+1)/4)
    s = pop_scores[:17]
    pairs = [LabelledPair(f"p{k}", f"t{k}", float(v), bool(v), (float(v),), f"l:{k}")
             for k, v in enumerate(y)]
    labels = LabelSet(pairs, False, None, None, "l.jsonl", "0" * 64, len(pairs))
    js = JudgeScores("j", s.astype(np.float64), [""] * len(s), 0, 0, {"id": "j"})
    population = Population(pop_scores, d, 17, pop_scores)
    report, _ = calibrate_judge(js, labels, n_boot=0, folds=0, population=population)
    w = d.weights()
    np.testing.assert_allclose(w, [10 / 3] * 9 + [10 / 8] * 8)
    assert report["roc_auc"] == pytest.approx(roc_auc_score(y, s, sample_weight=w), abs=1e-12)
    assert report["pr_auc"] == pytest.approx(average_precision_score(y, s, sample_weight=w),
                                             abs=1e-12)
    assert report["roc_auc"] != pytest.approx(roc_auc_score(y, s), abs=1e-6)  # not the sample's
    plain, _ = calibrate_judge(js, labels, n_boot=0, folds=0)  # no pool: the sample's own
    assert plain["roc_auc"] == pytest.approx(roc_auc_score(y, s), abs=1e-12)
