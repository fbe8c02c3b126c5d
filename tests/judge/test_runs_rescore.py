"""``judge.runs.rescore``: τ resolution, option checks, and the task's re-scoring of stored runs
(hand-built records and the runs written before the redesign)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge.errors import InputError
from judge.record.store import load_run
from judge.runs.rescore import rescore
from tests.run_records import SELECTION_METRICS, judgment_record, selection_record

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "runs_v0"


def _summary(name: str) -> dict:  # type: ignore[type-arg]
    return json.loads((FIXTURES / name / "summary.json").read_text(encoding="utf-8"))


def test_default_tau_is_the_runs_own_and_reproduces_it() -> None:
    r = rescore(selection_record(), n_boot=0)
    assert (r["tau"], r["tau_source"], r["judge_calls"]) == (0.7, "run", 0)
    assert r["metrics"] == SELECTION_METRICS  # derived by hand in tests/run_records.py
    assert (r["vote"], r["quorum"]) == (None, None)
    assert [x["id"] for x in r["items"]] == ["a", "b"]
    assert r["bootstrap"] == {"resamples": 0, "seed": 0, "ci95": {}}


def test_another_tau() -> None:
    # τ 0.6: b's Audit ↔ Audit trail (0.65) now matches: b has TP 0.65, P 0.65, R 0.325;
    # a unchanged (0.875) → macro P (0.875 + 0.65)/2 = 0.7625, macro R (0.875 + 0.325)/2 = 0.6;
    # micro TP 2.4 over 3 predictions = 0.8, over 4 gold = 0.6
    r = rescore(selection_record(), tau=0.6, n_boot=0)
    assert r["tau_source"] == "option"
    m = r["metrics"]
    assert m["macro_precision"] == pytest.approx(0.7625) and m["macro_recall"] == pytest.approx(
        0.6)
    assert m["micro_precision"] == pytest.approx(0.8) and m["tp_fuzzy"] == pytest.approx(2.4)
    # τ 0.8: only the exact pair of a is left: TP 1; a P = R = 0.5, b 0 → macro 0.25;
    # micro F1 = 2·(1/3)·(1/4) / (1/3 + 1/4) = 2/7
    m = rescore(selection_record(), tau=0.8, n_boot=0)["metrics"]
    assert m["macro_f1"] == pytest.approx(0.25) and m["micro_f1"] == pytest.approx(2 / 7)
    assert m["n_exact"] == 1 and m["tp_fuzzy"] == 1.0


def test_bootstrap_of_an_old_run_reproduces_its_summary() -> None:
    # the fixture was written with --bootstrap 200 --seed 0 by the code before the redesign:
    # the task's metrics_from_rows, resampled the same way, gives the same intervals
    summary = _summary("selection_local")
    r = rescore(load_run(FIXTURES / "selection_local"), n_boot=200, seed=0)
    assert r["metrics"] == summary["metrics"]
    ours, theirs = r["bootstrap"]["ci95"], summary["bootstrap"]["ci95"]
    assert sorted(ours) == sorted(theirs) and len(ours) == 6
    for k in ours:
        assert ours[k] == pytest.approx(theirs[k], abs=1e-12), k


def test_panel_vote_and_quorum() -> None:
    panel = load_run(FIXTURES / "selection_panel")
    assert rescore(panel, n_boot=0)["metrics"] == _summary("selection_panel")["metrics"]
    # vote mean halves each score (lexical gives 0 to every en–zh pair, local <= 1): nothing
    # exceeds τ 0.7, no pair is exact → every F1 is 0
    mean = rescore(panel, rule="mean", n_boot=0)
    assert (mean["vote"], mean["quorum"]) == ("mean", 1)
    assert mean["metrics"]["macro_f1"] == 0.0 and mean["metrics"]["micro_f1"] == 0.0
    # quorum 2 with vote max: both members answered every pair, so the run is reproduced
    both = rescore(panel, quorum=2, n_boot=0)
    assert both["metrics"] == _summary("selection_panel")["metrics"] and both["vote"] == "max"


@pytest.mark.parametrize("kwargs, message, field", [
    ({"tau": 1.5}, "tau must be in [0, 1], got 1.5", "tau"),
    ({"tau": -0.1}, "tau must be in [0, 1], got -0.1", "tau"),
    ({"rule": "mean"}, "--vote and --quorum apply to panel runs only", "vote"),
    ({"quorum": 1}, "--vote and --quorum apply to panel runs only", "vote"),
])
def test_bad_options(kwargs: dict, message: str, field: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(InputError) as info:
        rescore(selection_record(), **kwargs)
    assert info.value.message == message and info.value.field == field


@pytest.mark.parametrize("kwargs, message", [
    ({"rule": "loudest"}, "unknown vote 'loudest'; expected one of mean, median, majority, "
                          "min, max"),
    ({"quorum": 3}, "quorum must be 1..2"),
])
def test_bad_panel_options(kwargs: dict, message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(InputError) as info:
        rescore(load_run(FIXTURES / "selection_panel"), **kwargs)
    assert info.value.message == message


def test_run_without_tau_needs_one() -> None:
    rec = selection_record(tau=None)
    with pytest.raises(InputError, match=r"config.json has no numeric tau \(None\): give --tau"):
        rescore(rec)
    assert rescore(rec, tau=0.7, n_boot=0)["metrics"] == SELECTION_METRICS


def test_tasks_that_cannot_be_rescored_say_so() -> None:
    # function calls vary --arg-tau, not --tau; tasks without a threshold take neither, and
    # re-read their input files, which an in-memory record does not name
    with pytest.raises(InputError, match="--tau does not apply to function-call runs: give "
                                         "--arg-tau"):
        rescore(load_run(FIXTURES / "function_call"), tau=0.5)
    with pytest.raises(InputError, match="judgment runs have no threshold"):
        rescore(judgment_record([True, False]), tau=0.5)
    with pytest.raises(InputError, match="records no data file"):
        rescore(judgment_record([True, False]))
    old = selection_record()
    for item in old.items:  # a selection run written before rows stored their scores
        del item.__pydantic_extra__["scores"]  # type: ignore[index]
    with pytest.raises(InputError, match="task 'selection' cannot be re-scored"):
        rescore(old)
