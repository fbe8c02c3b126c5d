"""The typed rows of the judge probes' run files: ``swap_probe.jsonl`` (:class:`SwapProbeRow`)
and ``repeat_probe.jsonl`` (:class:`RepeatProbeRow`), written by :mod:`judge.probes.swap` and
:mod:`judge.probes.repeat` into a run's extra files and read back by ``rescore``
(:mod:`judge.probes.retau`).

Fields are declared in the order the probes write them, so a row made from the model is written
as the plain dict was (:meth:`~judge.record.rows.OpenRow.to_row`); numbers keep their JSON type
(:data:`judge.record.itemrows.Number`).
"""

from __future__ import annotations

from pydantic import Field

from judge.record.itemrows import Number
from judge.record.rows import OpenRow


class SwapProbeRow(OpenRow):
    """One pair of the order-swap probe (:func:`judge.probes.swap.swap_probe`).

    Attributes:
        item_id: the item the pair was judged for (item-scoped judges), else None.
        pred, truth: the pair as the run judged it.
        score: the run's own score in [0, 1]; swapped_score: the score with pred and truth
            exchanged, None when that call failed.
        swapped_outcome: the swapped verdict's outcome (``no_verdict`` when there was none).
        delta: score − swapped score (None when the swapped call failed).
        flip: the two scores fall on both sides of τ (None when the swapped call failed).
        swapped_rationale: the swapped verdict's rationale; swapped_cache_key: its cache key
            (None without a verdict).
        swapped_member_cache_keys: the cache keys of a panel's or ``--repeats``' member calls
            of the swapped pair, whose own verdict has no key (what a bundle must carry to
            replay the probe); absent in runs written before the field.
    """

    item_id: str | None = None
    pred: str
    truth: str
    score: Number | None = None
    swapped_score: Number | None = None
    swapped_outcome: str = ""
    delta: Number | None = None
    flip: bool | None = None
    swapped_rationale: str = ""
    swapped_cache_key: str | None = None
    swapped_member_cache_keys: list[str] = Field(default_factory=list)


class RepeatProbeRow(OpenRow):
    """One pair of the repeat probe (:func:`judge.probes.repeat.repeat_probe`).

    Attributes:
        item_id: the item the pair was judged for (item-scoped judges), else None.
        pred, truth: the pair.
        scores: each sample's score in [0, 1] by sample index, None where that sample failed.
        sd: the sample standard deviation of the scores that came (None with fewer than two).
        flip: the samples fall on both sides of τ (None with fewer than two).
    """

    item_id: str | None = None
    pred: str
    truth: str
    scores: list[Number | None] = Field(default_factory=list)
    sd: Number | None = None
    flip: bool | None = None
