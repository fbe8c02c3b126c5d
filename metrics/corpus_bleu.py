"""Corpus BLEU as sacrebleu computes it, from each segment's n-gram counts.

Corpus BLEU (Papineni et al. 2002) sums, over all segments, the clipped n-gram matches, the
hypothesis n-grams, the hypothesis lengths and the closest reference lengths, and only then
takes the geometric mean of the four precisions times the brevity penalty. It is not the mean
of sentence BLEUs. sacrebleu (Post 2018, "A Call for Clarity in Reporting BLEU Scores") is the
reference. Its per-segment counts are the ten integers ``[hyp_len, ref_len, correct_1..4,
total_1..4]`` of :func:`bleu_statistics`. :func:`corpus_bleu` sums them and applies sacrebleu's
``BLEU.compute_bleu`` with its default ``exp`` smoothing. Keeping the counts per item lets a
resample of the items be scored without tokenising again.

Tokens come from :mod:`metrics.tokenize` and are joined by spaces for sacrebleu's ``none``
tokenizer. With the ``sacrebleu-13a`` or ``sacrebleu-zh`` tokenizer this equals
``sacrebleu.corpus_bleu(hyps, refs, tokenize="13a"/"zh")`` on the raw texts.
``tests/metrics/test_overlap_references.py`` checks both, item by item.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import NDArray

STATISTICS = 10
"""Length of one segment's counts: ``[hyp_len, ref_len, correct_1..4, total_1..4]``."""


@functools.lru_cache(maxsize=1)
def _bleu() -> Any:
    from sacrebleu.metrics.bleu import BLEU

    # effective_order only changes a sentence's score, never its counts; it silences
    # sacrebleu's advice to enable it. force: no warning about lines ending in " .".
    return BLEU(tokenize="none", effective_order=True, force=True)


def bleu_statistics(hypothesis: Sequence[str], references: Sequence[Sequence[str]],
                    ) -> list[int]:
    """sacrebleu's BLEU counts of one segment.

    Args:
        hypothesis: the hypothesis tokens.
        references: one token list per reference (at least one; an empty one counts as a
            reference of length 0, as sacrebleu counts ``""``).

    Returns:
        ``[hyp_len, ref_len, correct_1, …, correct_4, total_1, …, total_4]``. ``ref_len`` is
        the reference length closest to ``hyp_len`` (ties: the shorter). ``correct_n`` is the
        number of hypothesis n-grams matched, each clipped by its count in the reference
        that has it most often.

    Raises:
        ValueError: no references, or a token holding whitespace (sacrebleu would split it).

    Examples:
        a and b match in the first reference, c in the second (3 unigrams); only the bigram
        a b matches; the closest reference length to 3 is 2 (ties would take the shorter):

        >>> bleu_statistics(["a", "b", "c"], [["a", "b", "d", "e"], ["a", "c"]])
        [3, 2, 3, 1, 0, 0, 3, 2, 1, 0]
    """
    if not references:
        raise ValueError("references: at least one reference is required")
    for name, tokens in [("hypothesis", hypothesis),
                         *((f"references[{k}]", r) for k, r in enumerate(references))]:
        for i, tok in enumerate(tokens):
            if not tok or tok.split() != [tok]:
                raise ValueError(f"{name}[{i}]: a token must be non-empty and hold no "
                                 f"whitespace, got {tok!r}")
    score = _bleu().sentence_score(" ".join(hypothesis), [" ".join(r) for r in references])
    return [int(score.sys_len), int(score.ref_len), *map(int, score.counts),
            *map(int, score.totals)]


def corpus_bleu(statistics: Sequence[Sequence[int]] | NDArray[np.integer]) -> float:
    """Corpus BLEU in [0, 1] from the segments' :func:`bleu_statistics`.

    sacrebleu's ``BLEU.compute_bleu`` on the summed counts, with ``exp`` smoothing (its
    default for corpus BLEU), divided by 100.

    Args:
        statistics: one list of :data:`STATISTICS` integers per segment (at least one), or
            an ``(n_segments, 10)`` integer array (a resample of the rows, for the bootstrap).

    Returns:
        BLEU in [0, 1]; 0.0 when no hypothesis token matches.

    Raises:
        ValueError: no segments, or a segment of another length.

    Examples:
        One segment, a b c d e against a b c d f: p1..p4 = 4/5, 3/4, 2/3, 1/2, brevity
        penalty 1, BLEU = (4/5 · 3/4 · 2/3 · 1/2)^(1/4) = 0.2^(1/4):

        >>> round(corpus_bleu([bleu_statistics(list("abcde"), [list("abcdf")])]), 4)
        0.6687
        >>> s = bleu_statistics(["a", "b", "c", "d"], [["a", "b", "c", "d"]])
        >>> round(corpus_bleu([s, s]), 12)  # sacrebleu's exp/log leaves 4e-16
        1.0
    """
    counts = np.asarray(statistics, dtype=np.int64)
    if counts.ndim != 2 or counts.shape[0] == 0 or counts.shape[1] != STATISTICS:
        raise ValueError(f"statistics: expected one list of {STATISTICS} counts per segment "
                         f"(at least one segment), got shape {counts.shape}")
    total = [int(v) for v in counts.sum(axis=0)]
    score = _bleu().compute_bleu(correct=total[2:6], total=total[6:10], sys_len=total[0],
                                 ref_len=total[1], smooth_method="exp")
    return float(score.score) / 100.0
