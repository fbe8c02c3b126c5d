"""Python call lists (``[f(a=1), pkg.g(b='x')]``) decoded as BFCL's AST decoder reads them.

Reimplemented from the behaviour of ``ast_parse``, ``resolve_ast_call`` and
``resolve_ast_by_type`` in the leaderboard's ``model_handler/utils.py`` (gorilla commit
``de8307b4``, lines 230-308; Apache-2.0), including its leniencies, so that the items it decodes
and the ones it refuses are BFCL's:

* the text must parse as one Python expression whose body is a list, tuple or set of calls;
* a call with keyword arguments becomes ``{dotted_name: {keyword: value}}`` (positional
  arguments are dropped); a call **without** keywords becomes its source text (a string, which
  then fails the "list of calls" format check — and passes a relevance item);
* argument values: literals; ``[...]``, ``(...)`` (a tuple), ``{...}``; a bare name becomes its
  identifier (``data=my_data`` → ``"my_data"``); a subscript or a call without keywords becomes
  its source text (``x=data['sales']`` → ``"data['sales']"``); a call with keywords becomes a
  nested ``{name: {…}}``; ``...`` becomes ``"..."``;
* a unary operator **negates** its operand's literal value, whatever the operator
  (``+5`` → ``-5``, ``not True`` → ``-1``: BFCL's ``-value.operand.value``);
* arithmetic (``BinOp``) is folded: BFCL ``eval``\\s its source text; simjudge never evaluates
  model output and folds literals by walking the tree instead (``25/1`` → ``25.0``,
  ``"a" + "b"`` → ``"ab"``, ``2**-1`` → ``0.5``); an operand that is not a literal, a container
  of literals or another such expression (a name, a call) is refused, as ``eval`` fails on a name
  in BFCL's module (see :data:`FOLD_LIMIT` for the one bound simjudge adds);
* anything else (attributes such as ``math.pi``, f-strings, comprehensions, lambdas, sets as
  values, comparisons) is refused.

A refused text raises :class:`~judge.tasks.fcformats.Unparseable`.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

from judge.tasks.fcformats import Unparseable

FOLD_LIMIT = 10_000
"""Largest exponent, and longest string/list built by ``*``, that folding computes (a model's
``10**10**9`` must not stall the run); beyond it the value is refused (BFCL would compute it)."""

_BINOPS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
    ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.BitAnd: operator.and_,
    ast.MatMult: operator.matmul}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_,
    ast.Invert: operator.invert}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_,
    ast.IsNot: operator.is_not, ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b}


def decode_calls(text: str) -> list[Any]:
    """BFCL's ``ast_parse(text, "Python")``: each element of the list (or tuple, or set) of
    calls resolved by :func:`resolve`.

    Args:
        text: model output, e.g. ``"[math.factorial(number=5)]"``.

    Returns:
        One entry per call: ``{name: {param: value}}``, or the call's source text when it has
        no keyword arguments.

    Raises:
        Unparseable: not one expression, not a list/tuple/set, an element that is not a call,
            or a value BFCL's decoder refuses (see the module docstring).

    Examples:
        >>> decode_calls("[f(x=data['sales'], y=my_data, z=25/1), g()]")
        [{'f': {'x': "data['sales']", 'y': 'my_data', 'z': 25.0}}, 'g()']
    """
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise Unparseable(f"not Python: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:  # NUL bytes, absurd nesting
        raise Unparseable(f"not Python: {type(exc).__name__}") from None
    body = tree.body
    if not isinstance(body, (ast.List, ast.Tuple, ast.Set)):
        raise Unparseable(f"not a list of calls: {type(body).__name__}")
    out = []
    for elem in body.elts:
        if not isinstance(elem, ast.Call):
            raise Unparseable(f"not a function call: {type(elem).__name__}")
        try:
            out.append(resolve(elem))
        except RecursionError:
            raise Unparseable("argument nested too deeply") from None
    return out


def call_name(call: ast.Call) -> str:
    """The dotted name of a call (``a.b.c(...)`` → ``"a.b.c"``); parts before anything that is
    not an attribute or a name are dropped, as BFCL's ``resolve_ast_call`` drops them
    (``x[0].f(...)`` → ``"f"``)."""
    parts = []
    node = call.func
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def resolve(node: ast.AST) -> Any:
    """One AST node as BFCL's ``resolve_ast_by_type`` turns it into a value (see the module
    docstring).

    Raises:
        Unparseable: a node BFCL's decoder refuses.

    Examples:
        >>> [resolve(ast.parse(s, mode="eval").body) for s in ("+5", "(1, 'a')", "g(1)")]
        [-5, (1, 'a'), 'g(1)']
    """
    if isinstance(node, ast.Constant):
        return "..." if node.value is Ellipsis else node.value
    if isinstance(node, ast.UnaryOp):
        if not isinstance(node.operand, ast.Constant):
            raise Unparseable(f"unary operator on {type(node.operand).__name__}")
        try:
            value: Any = node.operand.value
            return -value  # BFCL negates whatever the operator
        except TypeError:
            raise Unparseable(f"cannot negate {node.operand.value!r}") from None
    if isinstance(node, ast.List):
        return [resolve(v) for v in node.elts]
    if isinstance(node, ast.Dict):
        out = {}
        for k, v in zip(node.keys, node.values, strict=True):
            if k is None:
                raise Unparseable("'**' in a dict")
            key = resolve(k)
            try:
                out[key] = resolve(v)
            except TypeError:
                raise Unparseable(f"unhashable dict key {key!r}") from None
        return out
    if isinstance(node, ast.BinOp):
        return fold(node)
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        if not node.keywords:
            return ast.unparse(node)
        # f(**kw): BFCL keys the value None, which no schema has (an unexpected parameter)
        return {call_name(node): {kw.arg: resolve(kw.value) for kw in node.keywords}}
    if isinstance(node, ast.Tuple):
        return tuple(resolve(v) for v in node.elts)
    if isinstance(node, ast.Subscript):
        return f"{ast.unparse(node.value)}[{ast.unparse(node.slice)}]"
    raise Unparseable(f"unsupported value: {type(node).__name__}")


def fold(node: ast.AST) -> Any:
    """The value of an expression of literals, computed by walking its tree (what BFCL's
    ``eval(ast.unparse(node))`` gives for such an expression, never evaluating text).

    Raises:
        Unparseable: a name, call, attribute or other non-literal operand; an operation Python
            refuses (``1/0``, ``"a" - 1``); a result over :data:`FOLD_LIMIT`.

    Examples:
        >>> fold(ast.parse("2 * (3 + 0.5) - 10 // 3", mode="eval").body)
        4.0
    """
    try:
        return _fold(node)
    except (ArithmeticError, TypeError, ValueError) as exc:
        raise Unparseable(f"arithmetic on literals failed: {exc}") from None


def _fold(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.BinOp):
        left, right = _fold(node.left), _fold(node.right)
        _check_size(node.op, left, right)
        return _BINOPS[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp):
        return _UNARY[type(node.op)](_fold(node.operand))
    if isinstance(node, ast.BoolOp):
        value = _fold(node.values[0])
        for v in node.values[1:]:
            if (not value) if isinstance(node.op, ast.And) else value:
                return value
            value = _fold(v)
        return value
    if isinstance(node, ast.Compare):
        left = _fold(node.left)
        for op, comp in zip(node.ops, node.comparators, strict=True):
            right = _fold(comp)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.List):
        return [_fold(v) for v in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_fold(v) for v in node.elts)
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise Unparseable("'**' in a dict")
        return {_fold(k): _fold(v) for k, v in zip(node.keys, node.values, strict=True)
                if k is not None}
    raise Unparseable(f"not a literal in arithmetic: {type(node).__name__}")


def _check_size(op: ast.operator, left: Any, right: Any) -> None:
    if isinstance(op, ast.Pow) and isinstance(right, (int, float)) and abs(right) > FOLD_LIMIT:
        raise Unparseable(f"exponent {right!r} over the folding limit {FOLD_LIMIT}")
    if isinstance(op, ast.LShift) and isinstance(right, int) and right > FOLD_LIMIT:
        raise Unparseable(f"shift {right!r} over the folding limit {FOLD_LIMIT}")
    if isinstance(op, ast.Mult):
        for seq, n in ((left, right), (right, left)):
            if (isinstance(seq, (str, bytes, list, tuple)) and isinstance(n, int)
                    and len(seq) * n > FOLD_LIMIT):
                raise Unparseable(f"repetition over the folding limit {FOLD_LIMIT}")
