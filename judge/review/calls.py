"""Where a function-call run's judged argument value pair occurs: the items whose predicted and
gold calls hold it, so that the review page can show the pair inside a call, as the audit page
draws the item."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

ArgKey = tuple[str, str, str]
"""``("function.parameter", predicted value, gold value)``: an argument pair as reviewed."""


def _calls(value: Any) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """``(function name, arguments)`` of each call of a calls view's list: ``{"name",
    "arguments"}`` (seed, OpenAI) or ``{name: arguments}`` (BFCL); raw text has none."""
    if not isinstance(value, list):
        return
    for call in value:
        if not isinstance(call, dict):
            continue
        if isinstance(call.get("name"), str) and isinstance(call.get("arguments"), dict):
            yield call["name"], call["arguments"]
        elif len(call) == 1:
            name, args = next(iter(call.items()))
            if isinstance(args, dict):
                yield str(name), args


def _strings(value: Any) -> list[str]:
    """A gold argument's acceptable string values (one value, or BFCL's list of them)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def argument_items(items: Sequence[Mapping[str, Any]]) -> dict[ArgKey, list[int]]:
    """Argument pair → the indices of the items (audit report items, :func:`judge.runs.audit.
    report_data`) whose ``calls`` view has a predicted call and a gold call of that function
    with those string values of that parameter, in item order."""
    out: dict[ArgKey, list[int]] = {}
    for n, item in enumerate(items):
        content = item.get("content") or {}
        if content.get("kind") != "calls":
            continue
        gold = list(_calls(content.get("gold")))
        for name, args in _calls(content.get("pred")):
            for gname, gargs in gold:
                if gname != name:
                    continue
                for param, value in args.items():
                    if not isinstance(value, str) or param not in gargs:
                        continue
                    for g in _strings(gargs[param]):
                        hits = out.setdefault((f"{name}.{param}", value, g), [])
                        if not hits or hits[-1] != n:
                            hits.append(n)
    return out
