"""inspect_ai scorers that score with simjudge's judges and metrics (``pip install
"simjudge[inspect]"``).

* :func:`fuzzy_f1` — ``--task selection``: the model's answer, a list of items (a JSON array,
  or one item per line, bullets and numbering dropped: :func:`parse_items`), against the
  sample's target list, matched one-to-one at τ with a simjudge judge (seed 001: exact pairs
  first, then the judge's scores above τ; fuzzy TP = exact + the matched scores). Per sample
  the score's value is ``{"precision", "recall", "f1"}`` in [0, 1]; inspect reports each key's
  ``mean`` (simjudge's macro precision/recall/F1) and ``stderr``.
* :func:`function_call` — ``--task function-call``: the model's tool calls (or, without any, a
  JSON array of ``{"name", "arguments"}`` in its text) against the sample's target, the gold
  calls as that JSON, checked by BFCL's rules and seed 003's metrics. Value ``{"correct",
  "fn_acc_name", "fn_acc_all"}``: ``correct`` 1.0/0.0 (its mean is the accuracy), the others in
  [0, 1]; an optional argument judge credits string values that differ only in form.

Both take the judge options of :func:`judge.evaluate` (specs such as ``local``, ``lexical``,
``table:PATH``, ``openai:MODEL``; a list is a panel voted by ``vote``; ``judges_file``,
``tau_from``…) and share simjudge's judge-call cache (``cache_dir``, ``cache_mode``). The judge
is built on the first sample, inside inspect's event loop, and serves every sample; samples are
judged one at a time (each sample's pairs concurrently), because an LLM judge's HTTP client
lives for one judging call. The explanation lists each match with its score and, for a judged
one, the judge's rationale; the metadata holds simjudge's item row (``matches``, counts…).

Example::

    from inspect_ai import Task, eval
    from inspect_ai.dataset import Sample
    from inspect_ai.solver import generate
    from judge.integrations.inspect import fuzzy_f1

    task = Task(dataset=[Sample(input="Name the ILFs.", target=["Customer", "Invoice"])],
                solver=generate(), scorer=fuzzy_f1(judge="local", tau=0.7))
    eval(task, model="openai/gpt-4o-mini")

Raises (on import):
    ImportError: inspect_ai is not installed (the message names the ``inspect`` extra).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

try:
    from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
    from inspect_ai.solver import TaskState
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise ImportError("judge.integrations.inspect needs inspect_ai, which simjudge installs "
                      "only with its 'inspect' extra: pip install \"simjudge[inspect]\""
                      ) from exc

from judge.errors import InputError
from judge.integrations.scoring import ItemJudging, parse_items, settings, unfence
from judge.items import DEFAULT_MAX_CHARS
from judge.judges.options import JudgeOptions
from judge.judges.panel import Vote

__all__ = ["function_call", "fuzzy_f1", "parse_calls", "parse_items"]

Parse = Literal["auto", "json", "lines"] | Callable[[str], list[str]]
"""How a model's answer becomes a list of items (:func:`parse_items`), or your own function."""


def parse_calls(state: TaskState) -> list[dict[str, Any]] | str:
    """The model's function calls ``[{"name", "arguments"}]``: its tool calls when it made
    any, else a JSON array of such objects (or one object) in its text; the text itself when it
    is neither (scored ``unparseable``)."""
    message = state.output.message if state.output.choices else None
    calls = getattr(message, "tool_calls", None) or []
    if calls:
        return [{"name": c.function, "arguments": dict(c.arguments or {})} for c in calls]
    text = unfence(state.output.completion)
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return text
    if isinstance(value, dict):
        value = [value]
    if isinstance(value, list) and all(isinstance(c, dict) for c in value):
        return [{"name": c.get("name"), "arguments": c.get("arguments", {})} for c in value]
    return text


def _rationales(verdicts: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], str]:
    """(pred, truth) → the decided verdict's ``judge_id: rationale``."""
    return {(str(v["pred"]), str(v["truth"])): f"{v.get('judge_id', '')}: "
            f"{v.get('rationale', '')}".strip(": ")
            for v in verdicts if v.get("member_of") is None}


def _match_lines(row: Any, verdicts: Sequence[Mapping[str, Any]]) -> list[str]:
    why = _rationales(verdicts)
    lines = []
    for m in row.matches:
        if m.is_exact:
            lines.append(f"{m.pred!r} = {m.truth!r} (exact)")
        else:
            reason = why.get((str(m.pred), str(m.truth)), "")
            lines.append(f"{m.pred!r} ~ {m.truth!r} {float(m.score):.3f}"
                         + (f" ({reason})" if reason else ""))
    if row.unmatched_pred:
        lines.append("unmatched predictions (FP): " + ", ".join(map(repr, row.unmatched_pred)))
    if row.unmatched_truth:
        lines.append("unmatched gold (FN): " + ", ".join(map(repr, row.unmatched_truth)))
    return lines


def _gold_items(target: Target) -> list[str]:
    gold = list(target.target)
    if len(gold) == 1 and gold[0].lstrip().startswith("["):
        return parse_items(gold[0], "json")  # one target holding a JSON array
    return [g for g in gold if g.strip()]


@scorer(metrics={"f1": [mean(), stderr()], "precision": [mean(), stderr()],
                 "recall": [mean(), stderr()]}, name="simjudge_fuzzy_f1")
def fuzzy_f1(judge: str | Sequence[str] | None = "local", tau: float = 0.7, *,
             parse: Parse = "auto", vote: Vote = "mean", quorum: int = 1,
             judges_file: str | None = None, tau_from: str | None = None, context: str = "",
             zero_division: float = 0.0, cache_dir: str | None = None,
             cache_mode: str = "read-write", max_chars: int = DEFAULT_MAX_CHARS,
             judge_options: JudgeOptions | None = None) -> Scorer:
    """simjudge's fuzzy selection precision, recall and F1 as an inspect_ai scorer.

    Args:
        judge: a judge spec (``local``, ``lexical``, ``table:PATH``, ``openai:MODEL``…), a
            list of them (a panel voted by ``vote`` with ``quorum``), or ids of
            ``judges_file``; None = ``local``.
        tau: τ in [0, 1]: a judged pair matches when its score is > τ (seed 001); tau_from: a
            ``calibration.json`` whose τ for this judge replaces it.
        parse: how the answer becomes items (:func:`parse_items`: ``auto``, ``json``,
            ``lines``) or a function ``str -> list[str]``. The target is the gold list (one
            target holding a JSON array is read as that array).
        context: task context for prompt judges; zero_division: value of 0/0 ratios.
        cache_dir, cache_mode: simjudge's judge-call cache (default directory,
            ``read-write``); max_chars: longest item string accepted (0 = no limit).
        judge_options: backend options (:class:`judge.judges.options.JudgeOptions`:
            ``base_url``, ``scorer``, ``concurrency``…).

    Returns:
        An inspect_ai ``Scorer``: per sample ``Score(value={"precision", "recall", "f1"},
        answer=<the parsed items as JSON>, explanation=<matches, scores, rationales>,
        metadata=<simjudge's item row>)``; metrics: mean and stderr of each key.

    Raises:
        judge.errors.InputError: (on the first sample) a bad judge spec, τ outside [0, 1],
            a stale ``tau_from``, an item string over ``max_chars``.
    """
    judging = ItemJudging("selection", settings(judge, tau, vote, quorum, judges_file,
                                                tau_from, context, zero_division, cache_dir,
                                                cache_mode, max_chars, judge_options))

    async def score(state: TaskState, target: Target) -> Score:
        answer = state.output.completion
        pred = parse(answer) if callable(parse) else parse_items(answer, parse)
        truth = _gold_items(target)
        row, verdicts = await judging.item_row({"id": str(state.sample_id), "pred": pred,
                                                "truth": truth})
        return Score(value={"precision": float(row.precision), "recall": float(row.recall),
                            "f1": float(row.f1)},
                     answer=json.dumps(pred, ensure_ascii=False),
                     explanation="\n".join(_match_lines(row, verdicts)) or "no items",
                     metadata={"simjudge": row.to_row()})

    return score


def _gold_calls(target: Target) -> Any:
    text = target.text.strip()
    try:
        value = json.loads(unfence(text))
    except json.JSONDecodeError:
        raise InputError(f"the target must be the gold calls as JSON ([{{\"name\", "
                         f"\"arguments\"}}]), got {text[:80]!r}", field="target") from None
    return [value] if isinstance(value, dict) else value


@scorer(metrics={"correct": [mean(), stderr()], "fn_acc_name": [mean(), stderr()],
                 "fn_acc_all": [mean(), stderr()]}, name="simjudge_function_call")
def function_call(arg_judge: str | None = None, arg_tau: float = 0.7, *,
                  cache_dir: str | None = None, cache_mode: str = "read-write",
                  max_chars: int = DEFAULT_MAX_CHARS,
                  judge_options: JudgeOptions | None = None) -> Scorer:
    """simjudge's function-call check (BFCL's rules: ``correct`` and the error type) and seed
    003's ``fn_acc_name``/``fn_acc_all`` as an inspect_ai scorer.

    Args:
        arg_judge: a judge spec for string argument equivalence (``local``…); None = exact
            equality of values. arg_tau: argument values match when its score is > this, in
            [0, 1].
        cache_dir, cache_mode, max_chars, judge_options: as :func:`fuzzy_f1`.

    The prediction is the model's tool calls, or a JSON array of ``{"name", "arguments"}`` in
    its text (:func:`parse_calls`); the target is the gold calls as that JSON.

    Returns:
        An inspect_ai ``Scorer``: per sample ``Score(value={"correct": 1.0 or 0.0,
        "fn_acc_name", "fn_acc_all"}, explanation=<error type and message>,
        metadata=<simjudge's item row>)``; metrics: mean (``correct``: the accuracy) and
        stderr of each key.

    Raises:
        judge.errors.InputError: a target that is not JSON calls; (on the first sample) a bad
            judge spec or ``arg_tau``.
    """
    options = {"arg_tau": arg_tau, **({"arg_judge": arg_judge} if arg_judge else {})}
    judging = ItemJudging("function-call", settings(None, 0.7, "mean", 1, None, None, "",
                                                    0.0, cache_dir, cache_mode, max_chars,
                                                    judge_options, options))

    async def score(state: TaskState, target: Target) -> Score:
        from judge.tasks.fcformats import Unparseable

        pred = parse_calls(state)
        unparseable = None
        if isinstance(pred, str):  # scored as BFCL's "unparseable", never as no calls
            unparseable = Unparseable("not a list of function calls (no tool call, and the "
                                      "text is not a JSON array of {name, arguments})")
            unparseable.raw = pred
        row, _ = await judging.item_row(
            {"id": str(state.sample_id), "pred_fn": [] if unparseable else pred,
             "gold_fn": _gold_calls(target)}, unparseable)
        return Score(value={"correct": 1.0 if row.correct else 0.0,
                            "fn_acc_name": float(row.fn_acc_name),
                            "fn_acc_all": float(row.fn_acc_all)},
                     answer=json.dumps(pred, ensure_ascii=False) if not isinstance(pred, str)
                     else pred,
                     explanation="correct" if row.correct else
                     f"{row.error_type}: {row.error}",
                     metadata={"simjudge": row.to_row()})

    return score
