"""Semantic judging of function-call argument values (``--arg-judge``).

String argument values that differ in form ("开启" vs "打开") are judged by any judge (prompt
``argument_equivalence@v1`` for LLM judges, cached like every call); a value pair counts as
equal when its score is strictly above ``--arg-tau``. Numbers, and strings that read as numbers
("22" vs "23"), are never judged: they must be equal.

A value pair is judged **per function and parameter**: ("on", "开启") for ``set_light.state``
and for ``set_mode.mode`` are two judgements (an LLM judge sees ``function set_light,
parameter state`` as the prompt's ``context``), and a pair judged equivalent for one parameter
is never credited for another. Judges that ignore the context (embedding, lexical, table
judges) score each distinct value pair once; their verdict is then recorded for every
(function, parameter) it serves.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from judge.items import Item
from judge.judges.base import Judge, JudgeContext, Pair
from judge.judges.llm.llmjudge import LLMJudge
from judge.tasks.fccalls import checkable, is_number
from judge.verdict import Verdict
from metrics import standardize_string
from metrics.fc_check import names_match

ArgKey = tuple[str, str, str, str]
"""``(function, parameter, predicted value, gold value)``: one argument value pair as judged.
``function`` is the schema's name (``spotify.play``; for seed/OpenAI gold the gold call's name)."""

ArgEquivalent = Callable[[str, str, str, str], bool]
"""``(function, parameter, predicted value, gold value) -> bool``: judged equivalence of two
string values of that function's parameter."""


class ArgVerdict(Verdict):
    """A verdict on one argument value pair, with the function and parameter it was judged
    for (``verdicts.jsonl`` rows of a function-call run carry both fields).

    Attributes:
        function: the function's schema name (see :data:`ArgKey`).
        parameter: the parameter's name.
    """

    function: str
    parameter: str


def argument_pairs(items: Sequence[Item], fmt: str) -> list[ArgKey]:
    """Distinct ``(function, parameter, predicted, gold)`` string argument values worth a
    semantic judgement: the predicted call names the function of a gold call, both values are
    non-numeric strings, and they differ after BFCL's standardisation. First-seen order."""
    seen: dict[ArgKey, None] = {}
    for item in items:
        pred, gold, schemas, single, _ = checkable(item, fmt)
        if pred is None:
            continue
        for gname, gparams in gold.items():
            # the schema a gold call is checked against, as metrics.fc_check.check_item does
            schema = (schemas[0] if single and len(schemas) == 1
                      else next((s for s in schemas if str(s["name"]) in gname), None))
            if schema is None:
                continue
            function = str(schema["name"])
            for call in pred:
                (pname, pparams), = call.items()
                if not names_match(pname, function):
                    continue
                for param, acceptable in gparams.items():
                    v = pparams.get(param)
                    if not isinstance(v, str) or is_number(v):
                        continue
                    for a in acceptable:
                        if (isinstance(a, str) and a != "" and not is_number(a)
                                and standardize_string(a) != standardize_string(v)):
                            seen.setdefault((function, param, v, a), None)
    return list(seen)


def argument_context(function: str, parameter: str) -> str:
    """The ``context`` an LLM judge's ``argument_equivalence`` prompt gets for one parameter,
    e.g. ``"function set_light, parameter state"``."""
    return f"function {function}, parameter {parameter}"


async def _judge_keys(keys: Sequence[ArgKey], judge: Judge, ctx: JudgeContext,
                      ) -> dict[ArgKey, ArgVerdict]:
    found: dict[ArgKey, ArgVerdict] = {}
    if isinstance(judge, LLMJudge):
        # the prompt names the function and parameter: one group of pairs per parameter, all
        # judged concurrently under the judge's one concurrency limit
        groups: dict[tuple[str, str], list[Pair]] = {}
        for f, p, v, a in keys:
            groups.setdefault((f, p), []).append((v, a))
        results = await judge.judge_in_contexts(
            [(argument_context(f, p), pairs) for (f, p), pairs in groups.items()], ctx)
        for ((f, p), pairs), got in zip(groups.items(), results, strict=True):
            for (v, a), verdict in zip(pairs, got, strict=True):
                if verdict is not None:
                    found[(f, p, v, a)] = ArgVerdict(**verdict.model_dump(), function=f,
                                                     parameter=p)
        return found
    # the other judges ignore the context: each distinct value pair is scored once
    distinct = list(dict.fromkeys((v, a) for _, _, v, a in keys))
    by_pair = dict(zip(distinct, await judge.judge_pairs(distinct, ctx), strict=True))
    for f, p, v, a in keys:
        verdict = by_pair[(v, a)]
        if verdict is not None:
            found[(f, p, v, a)] = ArgVerdict(**verdict.model_dump(), function=f, parameter=p)
    return found


async def judge_arguments(items: Sequence[Item], fmt: str, judge: Judge, ctx: JudgeContext,
                    tau: float) -> tuple[ArgEquivalent, list[Verdict]]:
    """Judge the distinct ``(function, parameter, predicted, gold)`` string argument values.

    Args:
        items: function-call items.
        fmt: their format (:data:`FORMATS`).
        judge: any judge; an :class:`~judge.judges.llm.llmjudge.LLMJudge` renders each (function,
            parameter)'s pairs with the context :func:`argument_context` (one concurrent run,
            :meth:`~judge.judges.llm.llmjudge.LLMJudge.judge_in_contexts`), any other judge is
            called
            once over the distinct value pairs.
        ctx: the run's judge context (cache, stats, progress).
        tau: a pair is equivalent when its verdict is ``ok`` with a score strictly above tau.

    Returns:
        ``(equivalent, verdicts)``: the :data:`ArgEquivalent` test for
        :meth:`judge.tasks.function_call.FunctionCallTask.score`, and one
        :class:`ArgVerdict` per judged key (in :func:`argument_pairs` order) for the audit
        trail. A key without a verdict, or with a
        failed one, is not equivalent.
    """
    keys = argument_pairs(items, fmt)
    found = await _judge_keys(keys, judge, ctx) if keys else {}
    equivalent = equivalence(((k, v.outcome, v.score) for k, v in found.items()), tau)
    verdicts: list[Verdict] = [found[k] for k in keys if k in found]  # each an ArgVerdict
    return equivalent, verdicts


def equivalence(verdicts: Iterable[tuple[ArgKey, str, float | None]], tau: float
                ) -> ArgEquivalent:
    """The :data:`ArgEquivalent` test of judged argument values at ``tau``.

    Args:
        verdicts: ``((function, parameter, predicted, gold), outcome, score)`` per judged key
            (from a run's judge calls, or from its stored verdict rows by ``rescore``).
        tau: a key is equivalent when its outcome is ``ok`` and its score is strictly above
            ``tau`` (in [0, 1]); numbers are never judged equivalent (they compare by value).
    """
    same = {k for k, outcome, score in verdicts
            if outcome == "ok" and score is not None and score > tau}

    def equivalent(function: str, parameter: str, pred: str, gold: str) -> bool:
        return not is_number(pred) and (function, parameter, pred, gold) in same

    return equivalent




def equivalent_for(equivalent: ArgEquivalent | None,
                   ) -> Callable[[str, str], Callable[[str, str], bool] | None] | None:
    """``(function, parameter) -> (pred, gold) -> bool`` for :func:`metrics.fc_check.check_item`
    (None when no argument judge was used)."""
    if equivalent is None:
        return None

    def bind(function: str, parameter: str) -> Callable[[str, str], bool]:
        return lambda pred, gold: equivalent(function, parameter, pred, gold)

    return bind


def equivalence_scorer(equivalent: ArgEquivalent) -> Callable[..., float]:
    """Seed 003's strict argument score (1.0 when every gold argument is present with an equal
    value, else 0.0) where string values judged equivalent for that function's parameter count
    as equal."""
    def score(gold: Any, pred: Any) -> float:
        g, p = gold.get("arguments", {}), pred.get("arguments", {})
        if set(g) != set(p):
            return 0.0
        name = str(pred.get("name", ""))  # equal to the gold call's (score_function_calls)
        for k, gv in g.items():
            pv = p[k]
            if gv == pv:
                continue
            if isinstance(gv, str) and isinstance(pv, str) and equivalent(name, k, pv, gv):
                continue
            return 0.0
        return 1.0
    return score
