"""The inspect_ai integration (issue 27): simjudge's fuzzy selection F1 and function-call score
as inspect_ai scorers, run by inspect_ai's own ``eval`` on small tasks with its mock model
(``mockllm/model``, answers given per sample), the scores checked against values derived by
hand and against :func:`judge.evaluate` on the same items. Skips without the ``inspect``
extra."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import judge
from judge.integrations.scoring import parse_items  # judge.integrations.inspect's own

if importlib.util.find_spec("inspect_ai") is None:
    pytest.skip("the inspect extra (inspect-ai) is not installed", allow_module_level=True)


@pytest.fixture(scope="module")
def ia() -> SimpleNamespace:
    """inspect_ai's names, imported by the tests that use them (importing inspect_ai takes
    about 3 s: at module level, every pytest-xdist worker paid it while collecting)."""
    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ChatMessageAssistant, ModelOutput, ModelUsage, get_model
    from inspect_ai.solver import generate
    from inspect_ai.tool import ToolCall

    from judge.integrations.inspect import function_call, fuzzy_f1

    return SimpleNamespace(function_call=function_call, fuzzy_f1=fuzzy_f1, Task=Task, eval=eval,
                           Sample=Sample, ModelOutput=ModelOutput,
                           ChatMessageAssistant=ChatMessageAssistant, ModelUsage=ModelUsage,
                           get_model=get_model, generate=generate, ToolCall=ToolCall)


# prompt → the mock model's answer
SELECTION = {
    "s1": ("User Login\nReport", ["user login", "Audit trail"]),
    "s2": ('["Invoice", "Customer record"]', ["invoice entity", "customer"]),
    "s3": ("- Payment\n- Refund\n- Shipping", ["payment"]),
}
# the table judge's scores for the non-exact pairs (a missing pair is never matched)
TABLE = [("Report", "Audit trail", 0.2), ("Invoice", "invoice entity", 0.9),
         ("Customer record", "customer", 0.8), ("Invoice", "customer", 0.1),
         ("Customer record", "invoice entity", 0.05)]


def _model(ia: SimpleNamespace, answers: dict[str, Any]) -> Any:
    def answer(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> Any:
        out = answers[messages[-1].text]  # by prompt: independent of the samples' order
        # usage given, so the mock model does not count tokens with tiktoken, whose encoding
        # it would download (no network in tests)
        out.usage = ia.ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
        return out
    return ia.get_model("mockllm/model", custom_outputs=answer)


def _run(ia: SimpleNamespace, task: Any, answers: dict[str, Any], log_dir: Path) -> Any:
    [log] = ia.eval(task, model=_model(ia, answers), log_dir=str(log_dir), display="none",
                 log_format="json")
    assert log.status == "success", log.error
    return log


def _metrics(log: Any) -> dict[str, dict[str, float]]:
    return {s.name: {k: m.value for k, m in s.metrics.items()} for s in log.results.scores}


def test_fuzzy_f1_scorer_in_inspect_eval(ia: SimpleNamespace, tmp_path: Path) -> None:
    table = tmp_path / "scores.jsonl"
    table.write_text("".join(json.dumps({"pred": p, "truth": t, "score": s}) + "\n"
                             for p, t, s in TABLE), encoding="utf-8")
    samples = [ia.Sample(id=k, input=k, target=gold) for k, (_, gold) in SELECTION.items()]
    answers = {k: ia.ModelOutput.from_content("mockllm/model", text)
               for k, (text, _) in SELECTION.items()}
    task = ia.Task(dataset=samples, solver=ia.generate(),
                scorer=ia.fuzzy_f1(judge=f"table:{table}", tau=0.7, cache_dir=str(tmp_path / "c")))
    log = _run(ia, task, answers, tmp_path / "logs")
    per = {s.id: s.scores["simjudge_fuzzy_f1"] for s in log.samples}
    # s1: "User Login" = "user login" exact (TP 1), Report–Audit trail 0.2 ≤ τ: P = R = 1/2
    # s2: Invoice–invoice entity 0.9 and Customer record–customer 0.8 > τ: TP 1.7, P = R = 0.85
    # s3: Payment = payment exact, Refund and Shipping unmatched: P 1/3, R 1, F1 1/2
    want = {"s1": (0.5, 0.5, 0.5), "s2": (0.85, 0.85, 0.85), "s3": (1 / 3, 1.0, 0.5)}
    for k, (p, r, f) in want.items():
        assert per[k].value == pytest.approx({"precision": p, "recall": r, "f1": f}), k
    assert json.loads(per["s3"].answer) == ["Payment", "Refund", "Shipping"]
    assert "'Invoice' ~ 'invoice entity' 0.900" in per["s2"].explanation
    assert "score from scores.jsonl line 2" in per["s2"].explanation  # the judge's rationale
    assert "'Payment' = 'payment' (exact)" in per["s3"].explanation
    assert per["s3"].metadata["simjudge"]["unmatched_pred"] == ["Refund", "Shipping"]
    m = _metrics(log)
    # means: F1 (0.5 + 0.85 + 0.5) / 3 = 0.61667; precision (0.5 + 0.85 + 1/3) / 3 = 0.56111;
    # recall (0.5 + 0.85 + 1) / 3 = 0.78333. stderr of F1: deviations −7/60, 14/60, −7/60 →
    # √(Σd² / (n (n − 1))) = √((49 + 196 + 49) / 3600 / 6) = 7/60
    assert m["f1"]["mean"] == pytest.approx(1.85 / 3)
    assert m["precision"]["mean"] == pytest.approx((0.5 + 0.85 + 1 / 3) / 3)
    assert m["recall"]["mean"] == pytest.approx(2.35 / 3)
    assert m["f1"]["stderr"] == pytest.approx(7 / 60)
    # the same items through simjudge's own pipeline: macro F1 = inspect's mean F1
    items = [{"id": k, "pred": parse_items(text), "truth": gold}
             for k, (text, gold) in SELECTION.items()]
    r = judge.evaluate(items, judge=f"table:{table}", tau=0.7, cache_dir=tmp_path / "c",
                       bootstrap=0)
    assert r.summary["metrics"]["macro_f1"] == pytest.approx(m["f1"]["mean"])
    assert r.summary["metrics"]["macro_precision"] == pytest.approx(m["precision"]["mean"])


def _calls(ia: SimpleNamespace, *calls: tuple[str, dict[str, Any]]) -> Any:
    message = ia.ChatMessageAssistant(content="", tool_calls=[
        ia.ToolCall(id=f"c{k}", function=name, arguments=args)
        for k, (name, args) in enumerate(calls)])
    return ia.ModelOutput.from_message(message)


def test_function_call_scorer_in_inspect_eval(ia: SimpleNamespace, tmp_path: Path) -> None:
    weather = {"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}
    alarm = {"name": "set_alarm", "arguments": {"time": "07:00"}}
    cases = {
        "f1": (_calls(ia, ("get_weather", {"city": "Paris", "unit": "celsius"})), [weather]),
        "f2": (_calls(ia, ("get_weather", {"city": "London", "unit": "celsius"})), [weather]),
        "f3": (ia.ModelOutput.from_content("mockllm/model", json.dumps([alarm])), [alarm]),
        "f4": (_calls(ia, ("set_timer", {"time": "07:00"})), [alarm]),
        "f5": (ia.ModelOutput.from_content("mockllm/model", "I cannot do that."), [alarm]),
    }
    samples = [ia.Sample(id=k, input=k, target=json.dumps(gold)) for k, (_, gold) in cases.items()]
    task = ia.Task(dataset=samples, solver=ia.generate(tool_calls="none"),
                scorer=ia.function_call(cache_dir=str(tmp_path / "c")))
    log = _run(ia, task, {k: out for k, (out, _) in cases.items()}, tmp_path / "logs")
    per = {s.id: s.scores["simjudge_function_call"] for s in log.samples}
    # f1: the gold call exactly (tool call) → correct, name and arguments right
    # f2: right function, city London ≠ Paris → value_mismatch; fn_acc_name 1, fn_acc_all 0
    # f3: the gold call as JSON text (no tool call) → correct
    # f4: set_timer ≠ set_alarm → wrong_name; f5: prose → unparseable; both 0 everywhere
    want = {"f1": (1.0, 1.0, 1.0), "f2": (0.0, 1.0, 0.0), "f3": (1.0, 1.0, 1.0),
            "f4": (0.0, 0.0, 0.0), "f5": (0.0, 0.0, 0.0)}
    for k, (c, name, every) in want.items():
        assert per[k].value == {"correct": c, "fn_acc_name": name, "fn_acc_all": every}, k
    assert per["f2"].metadata["simjudge"]["error_type"] == "value_mismatch"
    assert per["f4"].metadata["simjudge"]["error_type"] == "wrong_name"
    assert per["f5"].metadata["simjudge"]["error_type"] == "unparseable"
    assert per["f2"].explanation.startswith("value_mismatch: ")
    m = _metrics(log)
    assert m["correct"]["mean"] == pytest.approx(2 / 5)  # accuracy
    assert m["fn_acc_name"]["mean"] == pytest.approx(3 / 5)
    assert m["fn_acc_all"]["mean"] == pytest.approx(2 / 5)


def test_parse_items_forms() -> None:
    assert parse_items('```json\n["a", "b"]\n```') == ["a", "b"]
    assert parse_items("1. Alpha\n2) Beta\n\n* Gamma\n• Delta") == ["Alpha", "Beta", "Gamma",
                                                                   "Delta"]
    assert parse_items("[not json") == ["[not json"]
    with pytest.raises(ValueError, match="expected a JSON array"):
        parse_items("a\nb", "json")
