"""Replies holding more choices than were asked for, whose scores disagree.

A request asks for ``n`` choices (``--samples``, 1 by default); the ``n`` choices of a reply are
samples, and an item's score is their mean. A server that sends *more* choices than asked for
(a faulty proxy, a gateway merging two replies) gives no single answer: when their scores for
an item differ, the item's verdict is a ``parse_error`` saying so (never cached; a rerun asks
again), rather than a silent mean. Extra choices that agree are harmless: the common score is
used.

The same rule holds inside one batch answer: two entries for one item with different scores are
that item's ``parse_error`` (:meth:`judge.judges.llm.scorer.Scorer.parse_batch`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

CONFLICT = "conflicting scores in one reply"
"""How every such parse error starts (``grep`` it in ``verdicts.jsonl``)."""


def requested_choices(params: Mapping[str, Any]) -> int:
    """The number of choices a request asks for: its ``n`` decoding parameter (>= 1)."""
    n = params.get("n")
    return n if isinstance(n, int) and not isinstance(n, bool) and n >= 1 else 1


def conflicts(items: Sequence[str], per_choice: Sequence[Mapping[str, Any]],
              requested: int) -> dict[str, str]:
    """The parse-error message of each item whose choices disagree, when there are more
    choices than ``requested``.

    Args:
        items: the request's items.
        per_choice: for each choice of the reply, item → its answer parsed from that choice
            alone: a tuple whose first element is the score, or an error message (a choice
            that does not answer an item does not count).
        requested: the ``n`` the request asked for (>= 1).

    Returns:
        item → ``"conflicting scores in one reply: K choices (n=N asked for) scored A, B…;
        none is used"``, for the items whose valid scores are not all equal; {} when the reply
        holds at most ``requested`` choices.
    """
    if len(per_choice) <= requested:
        return {}
    out: dict[str, str] = {}
    for t in items:
        scores = [a[0] for answers in per_choice if isinstance(a := answers.get(t), tuple)]
        if len(set(scores)) > 1:
            shown = ", ".join(f"{s:g}" for s in scores)
            out[t] = (f"{CONFLICT}: {len(per_choice)} choices (n={requested} asked for) scored "
                      f"{shown}; none is used")
    return out
