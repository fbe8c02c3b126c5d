"""``judge.runs.compare`` and ``judge.pipeline.uncertainty``: paired bootstrap over the task's
``metrics_from_rows``, per-judge operations, agreement between runs, bad input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from judge.errors import InputError
from judge.pipeline.uncertainty import bootstrap_cis, paired_bootstrap
from judge.record.store import load_run, record_from_parts
from judge.runs.compare import compare_runs, judge_operations, run_agreement, to_markdown
from tests.run_records import judgment_record, selection_record

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "runs_v0"


def _mean_x(rows: Any) -> dict[str, float]:
    return {"x": float(np.mean([r["x"] for r in rows]))}


def _reference_indices(n: int, n_boot: int, seed: int) -> np.ndarray:
    """Independent of metrics.bootstrap_indices: numpy's generator drawn directly."""
    return np.random.default_rng(seed).integers(0, n, size=(n_boot, n))


def test_bootstrap_cis_match_a_numpy_reference() -> None:
    rows = [{"x": v} for v in (0.0, 0.25, 0.5, 1.0, 1.0)]
    got = bootstrap_cis(_mean_x, rows, n_boot=300, seed=4)
    x = np.array([r["x"] for r in rows])
    ref = np.percentile(x[_reference_indices(5, 300, 4)].mean(axis=1), [2.5, 97.5])
    assert got["resamples"] == 300 and got["seed"] == 4
    assert got["ci95"]["x"] == pytest.approx(list(ref), abs=1e-12)
    assert bootstrap_cis(_mean_x, rows, n_boot=0)["ci95"] == {}
    assert bootstrap_cis(_mean_x, rows[:1], n_boot=10) == {"resamples": 0, "seed": 0,
                                                          "ci95": {}}


def test_paired_bootstrap_matches_a_numpy_reference() -> None:
    a = [{"x": v} for v in (0.0, 1.0, 1.0, 0.0)]
    b = [{"x": v} for v in (1.0, 1.0, 1.0, 0.5)]
    got = paired_bootstrap(_mean_x, a, b, n_boot=250, seed=9)["x"]
    idx = _reference_indices(4, 250, 9)
    xa, xb = np.array([0.0, 1.0, 1.0, 0.0]), np.array([1.0, 1.0, 1.0, 0.5])
    ref = np.percentile(xb[idx].mean(axis=1) - xa[idx].mean(axis=1), [2.5, 97.5])
    # A mean 0.5, B mean 0.875: B − A = 0.375
    assert (got["a"], got["b"], got["diff"]) == (0.5, 0.875, 0.375)
    assert got["ci95"] == pytest.approx(list(ref), abs=1e-12)
    assert paired_bootstrap(_mean_x, a, b, n_boot=0)["x"]["ci95"] == [None, None]
    with pytest.raises(ValueError, match="same items"):
        paired_bootstrap(_mean_x, a, b[:3])


def test_compare_old_runs_local_vs_max_panel() -> None:
    # the panel is max(local, lexical) and lexical scores every en–zh pair 0: the panel's
    # verdicts equal local's, so every metric and every difference is the same
    local, panel = load_run(FIXTURES / "selection_local"), load_run(FIXTURES / "selection_panel")
    res = compare_runs([local, panel], n_boot=100, seed=0)
    assert res["task"] == "selection" and res["items"] == 6
    d = res["differences"][0]["metrics"]
    assert set(d) == {"macro_precision", "macro_recall", "macro_f1", "micro_precision",
                      "micro_recall", "micro_f1"}
    assert all(v["diff"] == 0.0 and v["ci95"] == [0.0, 0.0] for v in d.values())
    agree = res["agreement"][0]
    assert agree["shared_pairs"] == 96  # 6 items × 4 × 4 distinct pairs, none exact
    assert agree["pearson"] == pytest.approx(1.0) and agree["kappa_at_tau"] == pytest.approx(1.0)
    assert res["runs"][1]["label"] == "selection_panel (panel:max(local,lexical))"
    assert set(res["runs"][1]["judges"]) == {"local", "lexical", "panel:max(local,lexical)"}
    md = to_markdown(res)
    assert "| macro_f1 | 0.6641 | 0.6641 | +0.000 [+0.000, +0.000] |" in md


def test_compare_judgment_runs_paired_bootstrap() -> None:
    # A right on all 4 items, B on the first two: accuracy 1.0 vs 0.5; recall equals accuracy
    # here (every gold is true); precision is 1.0 for both (B predicts true only where right)
    a, b = judgment_record([True] * 4, "a"), judgment_record([True, True, False, False], "b")
    a.path, b.path = Path("/runs/a"), Path("/runs/b")
    res = compare_runs([a, b], n_boot=200, seed=1)
    d = res["differences"][0]["metrics"]
    assert (d["accuracy"]["a"], d["accuracy"]["b"], d["accuracy"]["diff"]) == (1.0, 0.5, -0.5)
    assert d["precision"]["diff"] == 0.0
    # reference: accuracy of B minus A on the same resampled items
    idx = _reference_indices(4, 200, 1)
    right_b = np.array([1.0, 1.0, 0.0, 0.0])
    ref = np.percentile(right_b[idx].mean(axis=1) - 1.0, [2.5, 97.5])
    assert d["accuracy"]["ci95"] == pytest.approx(list(ref), abs=1e-12)
    assert res["agreement"] == []  # judgment is not matched at τ
    assert [r["label"] for r in res["runs"]] == ["a (judgment)", "b (judgment)"]


def test_compare_refuses_runs_that_do_not_line_up() -> None:
    a, b = judgment_record([True, True]), judgment_record([True, True, True])
    with pytest.raises(InputError, match="compare needs at least two runs"):
        compare_runs([a])
    with pytest.raises(InputError, match="extra item 'q2'"):
        compare_runs([a, b])
    with pytest.raises(InputError, match="item 'q2' is missing"):
        compare_runs([b, a])
    with pytest.raises(InputError, match="task 'selection' differs from 'judgment'"):
        compare_runs([a, selection_record()])


def test_judge_operations_per_judge() -> None:
    def v(jid: str, outcome: str = "ok", **more: Any) -> dict[str, Any]:
        return {"pred": "p", "truth": jid + outcome + str(more), "judge_id": jid,
                "outcome": outcome, "score": 0.5 if outcome == "ok" else None, **more}
    rows = [v("m", latency_s=1.0, tokens_in=10, tokens_out=2, cost_usd=0.001),
            v("m", latency_s=2.0, tokens_in=10, tokens_out=2, cost_usd=0.001),
            v("m", latency_s=3.0, tokens_in=10, tokens_out=3, cost_usd=0.001),
            v("m", "parse_error", latency_s=9.0, cached=True), v("lexical")]
    rec = record_from_parts({"task": "selection", "judge": {"id": "m"}},
                            {"task": "selection", "n_items": 0}, [], rows)
    ops = judge_operations(rec)
    m = ops["m"]
    assert m["verdicts"] == 4 and m["outcomes"] == {"ok": 3, "parse_error": 1}
    assert m["parse_error_rate"] == 0.25 and m["cached"] == 1
    assert (m["tokens_in"], m["tokens_out"], m["cost_usd"]) == (30, 7, 0.003)
    # latencies of the calls made (the cached one is left out): 1, 2, 3 s → p50 2, p95 by
    # linear interpolation 2 + 0.9 · (3 − 2) = 2.9
    assert m["latency_p50_s"] == 2.0 and m["latency_p95_s"] == pytest.approx(2.9)
    assert ops["lexical"]["latency_p50_s"] is None  # no timed call


def test_agreement_needs_two_shared_pairs() -> None:
    one = record_from_parts({"task": "selection", "judge": {"id": "j"}, "tau": 0.5},
                            {"task": "selection", "n_items": 0}, [],
                            [{"pred": "a", "truth": "b", "score": 0.9, "judge_id": "j"}])
    assert run_agreement(one, one) == {"shared_pairs": 1, "pearson": None, "spearman": None,
                                       "kappa_at_tau": None, "alpha_interval": None}
