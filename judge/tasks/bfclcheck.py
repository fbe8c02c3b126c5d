"""One BFCL item's verdict as the leaderboard's AST evaluation gives it: decode the model's raw
result with its handler's decoder (:mod:`judge.tasks.bfclmodels`), check the decoded format,
then run the AST checker (:func:`metrics.fc_check.check_item`) — or, for ``relevance``, pass
when no function is called.

Reimplemented from the behaviour of ``eval_checker/eval_runner.py`` (``single_ast_file_runner``,
``single_relevance_file_runner``), ``eval_runner_helper.py`` (``is_function_calling_format_output``,
``is_empty_output``) and ``checker.py`` (``ast_checker``) at gorilla commit ``de8307b4``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from judge.tasks.bfclmodels import BfclModel, bfcl_model
from judge.tasks.fcformats import BFCL_CATEGORIES, Unparseable
from metrics.fc_check import CallCheck, EquivalentFor, check_item

AST_CATEGORIES = BFCL_CATEGORIES
"""BFCL's AST categories (``eval_checker_constant.py`` ``TEST_COLLECTION_MAPPING["ast"]``). The
executable and REST categories run the functions live and are out of simjudge's scope."""
SINGLE_CALL = ("simple", "java", "javascript")
"""Categories with one expected call (``ast_checker``'s non-parallel branch)."""


def language_of(category: str) -> str:
    """``java``, ``javascript`` or ``python`` (relevance items are decoded as Python)."""
    return category if category in ("java", "javascript") else "python"


def is_call_list(decoded: Any) -> bool:
    """BFCL's format check: a list whose every element is a dict."""
    return isinstance(decoded, list) and all(isinstance(c, dict) for c in decoded)


def calls_nothing(decoded: Any) -> bool:
    """BFCL's relevance test: not a list of calls, ``[]`` or ``[{}]``."""
    return not is_call_list(decoded) or not decoded or (len(decoded) == 1 and not decoded[0])


@dataclass(slots=True)
class BfclVerdict:
    """One item's verdict.

    A value: treat it as read-only. (Not a frozen dataclass: a frozen ``__init__`` costs
    about 4× a plain slotted one, and one is made per item checked; see
    ``benchmarks/bench_bfcl_vs_official.py``.)

    Attributes:
        correct: BFCL's ``valid``.
        error_type: one of :data:`metrics.fc_check.ERROR_TYPES`, or ``called_function`` (a
            relevance item with a call); "" when correct.
        message: why.
        decoded: the decoded result (None when decoding failed).
        pairs: ``(gold index, predicted index, CallCheck)`` of the matching.
    """

    correct: bool
    error_type: str = ""
    message: str = ""
    decoded: Any = None
    pairs: tuple[tuple[int, int, CallCheck], ...] = field(default_factory=tuple)


def bfcl_verdict(result: Any, category: str, gold: Mapping[str, Any],
                 schemas: Sequence[Mapping[str, Any]], model: BfclModel,
                 matching: str = "official",
                 equivalent_for: EquivalentFor | None = None) -> BfclVerdict:
    """The verdict on one BFCL item.

    Args:
        result: the model's raw result (text or a list of calls, as in the result file).
        category: one of :data:`AST_CATEGORIES`.
        gold: ``{function: {param: [acceptable…]}}`` (``{}`` for relevance).
        schemas: the item's function schemas.
        model: whose decoder and naming rule apply.
        matching: ``official`` or ``optimal`` (:data:`metrics.fc_check.MATCHINGS`).
        equivalent_for: optional semantic string equality per parameter (``--arg-judge``; an
            extension beyond BFCL).

    Returns:
        :class:`BfclVerdict`.

    Examples:
        A relevance item passes when nothing is called; text that does not parse calls
        nothing.

        >>> from judge.tasks.bfclmodels import bfcl_model
        >>> llama = bfcl_model("meta-llama/Meta-Llama-3-8B-Instruct")
        >>> bfcl_verdict("I cannot help with that.", "relevance", {}, [], llama).correct
        True
        >>> bfcl_verdict("[f(a=1)", "relevance", {}, [], llama).error_type
        'called_function'
    """
    return verdict_of(decode_result(result, category, model), category, gold, schemas, model,
                      matching, equivalent_for)


def decode_result(result: Any, category: str, model: BfclModel) -> Any:
    """``result`` decoded by ``model``'s decoder for ``category``'s language, or the
    :class:`~judge.tasks.fcformats.Unparseable` its decoder raised (returned, not raised), so
    that one decoding serves every verdict of the item (:func:`verdict_of`).

    Examples:
        >>> from judge.tasks.bfclmodels import bfcl_model
        >>> decode_result("[f(a=1)]", "simple", bfcl_model("python"))
        [{'f': {'a': 1}}]
        >>> type(decode_result("[f(a=1)", "simple", bfcl_model("python"))).__name__
        'Unparseable'
    """
    try:
        return model.decode(result, language_of(category))
    except Unparseable as exc:
        # kept with the item: drop the frames (and the parse trees they hold) it points to
        exc.__traceback__ = exc.__context__ = None
        return exc


def decoded_of(item: Any) -> Any:
    """A BFCL item's (:class:`judge.items.Item`) decoded result: the one
    :func:`judge.tasks.bfclscore.load_bfcl_items` stored, else decoded now (items built in
    memory) by :func:`decode_result`."""
    if "decoded" in item.extra:
        return item.extra["decoded"]
    return decode_result(item.pred, item.extra["category"],
                         bfcl_model(str(item.extra.get("bfcl_model", "generic"))))


def verdict_of(decoded: Any, category: str, gold: Mapping[str, Any],
               schemas: Sequence[Mapping[str, Any]], model: BfclModel,
               matching: str = "official",
               equivalent_for: EquivalentFor | None = None) -> BfclVerdict:
    """:func:`bfcl_verdict` of an item already decoded by :func:`decode_result` (``decoded``
    is not modified)."""
    language = language_of(category)
    if isinstance(decoded, Unparseable):
        if category == "relevance":
            return BfclVerdict(True, "", f"no call decoded: {decoded}")
        return BfclVerdict(False, "unparseable", f"cannot decode: {decoded}")
    if category == "relevance":
        if calls_nothing(decoded):
            return BfclVerdict(True, "", "no function called", decoded)
        return BfclVerdict(False, "called_function",
                           "a function is called where none is relevant", decoded)
    if not is_call_list(decoded):
        return BfclVerdict(False, "unparseable",
                           f"decoded to {type(decoded).__name__}, not a list of calls", decoded)
    res = check_item(decoded, gold, schemas, single=category in SINGLE_CALL,
                     equivalent_for=equivalent_for, matching=matching, language=language,
                     names=model.names)
    return BfclVerdict(res.correct, res.error_type, res.message, decoded, res.pairs)
