"""The Python API mirrors the CLI."""

from __future__ import annotations

import json

import pytest

from judge import EvalResult, Verdict, evaluate
from judge.errors import InputError


def test_evaluate_selection_with_lexical(tmp_path) -> None:  # type: ignore[no-untyped-def]
    items = [{"id": "x", "pred": ["User Login", "Report"], "truth": ["user login", "Audit"]},
             {"id": "y", "pred": [], "truth": []}]
    r = evaluate(items, judge="lexical", cache_dir=tmp_path / "c", out=tmp_path / "run")
    assert isinstance(r, EvalResult)
    assert [i["id"] for i in r.items] == ["x", "y"]
    assert r.items[0]["n_exact"] == 1 and r.items[0]["f1"] == pytest.approx(0.5)
    assert r.summary["metrics"]["macro_f1"] == pytest.approx(0.75)
    # 4 cells, 1 exact → 3 judged pairs: (User Login, Audit), (Report, user login), (Report, Audit)
    assert all(isinstance(v, Verdict) for v in r.verdicts) and len(r.verdicts) == 3
    assert r.matrices[0].exact[0, 0] and r.run_dir == tmp_path / "run"
    saved = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert saved["metrics"] == r.summary["metrics"]


def test_evaluate_other_tasks_and_errors(tmp_path) -> None:  # type: ignore[no-untyped-def]
    r = evaluate([{"pred": True, "truth": True}, {"pred": True, "truth": False}],
                 task="judgment", cache_dir=tmp_path)
    assert r.summary["metrics"]["precision"] == 0.5 and r.verdicts == []
    with pytest.raises(InputError, match=r"<items>:2: field 'truth': missing"):
        evaluate([{"pred": ["a"], "truth": ["a"]}, {"pred": ["b"]}], judge="lexical",
                 cache_dir=tmp_path)
    with pytest.raises(InputError, match="unknown task"):
        evaluate([], task="nope")
