"""The Task seam: the registry, one ``metrics_from_rows`` per task agreeing with ``score``, and
every registered task's module (the layout rules are in ``test_layout.py``)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from judge.errors import InputError
from judge.pipeline.evaluate import run_evaluation
from judge.tasks.base import Params, Source, Task
from judge.tasks.fcoptions import FunctionCallOptions
from judge.tasks.registry import TASKS, get_task, task_names

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"

# one example per task: (Source, judge spec or None); the numbers are in examples/README.md
EXAMPLES: dict[str, tuple[Source, str | None]] = {  # function calls: OPTIONS below
    "selection": (Source(EX / "glossary_en_zh.jsonl"), "lexical"),
    "judgment": (Source(EX / "judgment_term_translation.jsonl"), None),
    "generation": (Source(EX / "generation_short_answers.jsonl"), None),
    "multilabel": (Source(EX / "multilabel_support_tickets.jsonl"), None),
    "ranking": (Source(EX / "ranking_trec.run", gold=EX / "ranking_trec.qrels"), None),
    "function-call": (Source(EX / "function_call_openai.jsonl"), None),
}
OPTIONS = {"function-call": FunctionCallOptions(format="openai")}


def test_registry_names_and_unknown_task() -> None:
    assert task_names()[:6] == ("selection", "judgment", "function-call", "generation",
                                "multilabel", "ranking")
    for name in task_names():
        t = get_task(name)
        assert isinstance(t, Task) and t.name == name and get_task(name) is t
    with pytest.raises(InputError, match="unknown task 'nope'; expected one of: selection"):
        get_task("nope")


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_metrics_from_rows_reproduces_the_summary(name: str, tmp_path: Path) -> None:
    """The bootstrap, compare and rescore all use ``metrics_from_rows``: on the run's own rows
    it must give the summary's numbers exactly."""
    from judge.cache import JudgeCache
    from judge.judges.registry import parse_judge_spec

    source, spec = EXAMPLES[name]
    task = get_task(name)
    items = task.load(source, OPTIONS.get(name))
    judge = parse_judge_spec(spec) if spec else None
    record = run_evaluation(items, task, judge, Params(options=OPTIONS.get(name)),
                            cache=JudgeCache(tmp_path / "c"), bootstrap=0)
    again = task.metrics_from_rows(task.rows(record))
    assert again and set(again) <= set(record.summary.metrics)
    for k, v in again.items():
        assert v == pytest.approx(record.summary.metrics[k], abs=1e-12), k


def test_hand_derived_dataset_values(tmp_path: Path) -> None:
    """Values derived by hand in examples/README.md, through each task's metrics_from_rows."""
    def rows(name: str) -> list[Any]:
        from judge.cache import JudgeCache

        task = get_task(name)
        source, _ = EXAMPLES[name]
        return task.rows(run_evaluation(task.load(source, OPTIONS.get(name)), task, None,
                                        Params(options=OPTIONS.get(name)),
                                        cache=JudgeCache(tmp_path / "c"), bootstrap=0))

    m = get_task("judgment").metrics_from_rows(rows("judgment"))
    assert (m["accuracy"], m["precision"], m["recall"]) == pytest.approx((0.7, 4 / 6, 4 / 5))
    assert get_task("generation").metrics_from_rows(rows("generation"))["f1"] == \
        pytest.approx(9 / 11)
    assert get_task("multilabel").metrics_from_rows(rows("multilabel"))["of1"] == \
        pytest.approx(7 / 9)
    ap301 = (1 / 6 + 2 / 7) / 2
    ap302 = (1 + 1 + 3 / 4 + 4 / 5 + 5 / 6 + 6 / 8 + 7 / 9) / 7
    assert get_task("ranking").metrics_from_rows(rows("ranking"))["map"] == \
        pytest.approx((ap301 + ap302) / 2)
    assert get_task("function-call").metrics_from_rows(rows("function-call"))["accuracy"] == \
        pytest.approx(0.3)


def test_tasks_without_a_judge_refuse_rescore_and_need_none() -> None:
    for name in ("judgment", "generation", "multilabel", "ranking"):
        t = get_task(name)
        assert t.judge_role is None and not t.uses_tau and t.no_judge_reason
        assert t.threshold is None
    assert get_task("selection").needs_judge and get_task("selection").uses_tau
    assert get_task("function-call").judge_role == "arg_judge"
    assert (get_task("function-call").threshold, get_task("selection").threshold) == (
        "arg_tau", "tau")
    with pytest.raises(InputError, match="needs a judge"):
        get_task("selection").check_judge(None)


def test_params_reject_tau_outside_unit_interval() -> None:
    for bad in (-0.1, 1.5, math.nan):
        with pytest.raises(InputError, match="tau must be in"):
            Params(tau=bad)


def test_every_registered_task_module_exists() -> None:
    import importlib

    for name, target in TASKS.items():
        module, _, cls = target.partition(":")
        assert (ROOT / (module.replace(".", "/") + ".py")).exists(), name
        assert issubclass(getattr(importlib.import_module(module), cls), Task), name
