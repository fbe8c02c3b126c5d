"""Generation-text metrics: token precision/recall/F1, n-gram, weighted and multiple-choice
precision.

Source: seed 002 (精确率的数学原理). Decisions from DESIGN.md "Generation text":

* token precision = |Counter(answer) ∩ Counter(reference)| / len(answer) — clipped counts, as the
  seed's reference code (``Counter(a) & Counter(b)``); recall divides by len(reference);
  F1 is their harmonic mean (the SQuAD token-F1).
* with several references each metric is the **maximum over references, taken separately**
  (SQuAD convention), so precision and recall may come from different references;
* an empty answer scores 0.0 (seed 002 边界情况1).

The seed's 边界情况3 claims "Python Python Python" vs "Python是编程语言" has precision 3/3; its own
``Counter`` code gives 1/3 (the intersection clips "Python" to its one occurrence in the
reference). We follow the code: 1/3.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from metrics._validation import as_bool_vector, check_same_length, check_zero_division, safe_div
from metrics.tokenize import Tokenizer, TokensOrText, to_tokens


@dataclass(frozen=True)
class TokenScores:
    """Token-overlap scores of one answer, each the maximum over the references.

    Attributes:
        precision, recall, f1: in [0, 1].
    """

    precision: float
    recall: float
    f1: float

    def to_dict(self) -> dict[str, float]:
        """The fields as a plain ``dict``."""
        return asdict(self)


def _references(references: str | Sequence[TokensOrText]) -> list[TokensOrText]:
    """One reference text, or a sequence whose elements are texts or token sequences."""
    return [references] if isinstance(references, str) else list(references)


def token_scores(answer: TokensOrText, references: str | Sequence[TokensOrText],
                 tokenizer: Tokenizer = "jieba") -> TokenScores:
    """Token-level precision, recall and F1 of an answer against one or several references.

    Args:
        answer: the generated text (str), or its tokens (sequence of str).
        references: one reference (str) or a sequence of references, each a str or a token
            sequence. (A list of str is a list of reference *texts*; pass tokens as a list of
            lists.)
        tokenizer: ``"jieba"`` (default; whitespace-only tokens dropped), ``"whitespace"``,
            ``"char"`` or a callable ``str -> list[str]``; applied to str inputs only.

    Returns:
        :class:`TokenScores`; each metric is the max over references. Empty answer → all 0.0;
        an empty reference contributes 0.0.

    Raises:
        ValueError: no references, a non-str token, or an unknown tokenizer.

    Source: seed 002 §二–§三 and §十 ``calculate_precision``; SQuAD v1.1 token F1.
    """
    refs = _references(references)
    if not refs:
        raise ValueError("references: at least one reference is required")
    ans = to_tokens(answer, tokenizer, "answer")
    best_p = best_r = best_f = 0.0
    if not ans:
        return TokenScores(0.0, 0.0, 0.0)
    ans_counts = Counter(ans)
    for k, ref in enumerate(refs):
        ref_tokens = to_tokens(ref, tokenizer, f"references[{k}]")
        if not ref_tokens:
            continue
        same = sum((ans_counts & Counter(ref_tokens)).values())
        p = same / len(ans)
        r = same / len(ref_tokens)
        f = 2 * p * r / (p + r) if same else 0.0
        best_p, best_r, best_f = max(best_p, p), max(best_r, r), max(best_f, f)
    return TokenScores(best_p, best_r, best_f)


def ngrams(tokens: Sequence[str], n: int) -> list[tuple[str, ...]]:
    """Contiguous n-grams of ``tokens`` (empty when ``len(tokens) < n``)."""
    return [tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)]


def ngram_precision(answer: TokensOrText, reference: str | Sequence[TokensOrText], n: int = 2,
                    tokenizer: Tokenizer = "jieba", clip: bool = True) -> float:
    """n-gram precision of an answer against one or several references (max over references).

    Args:
        answer: text or tokens.
        reference: one reference (str) or a sequence of references (str or token lists).
        n: n-gram order, >= 1.
        tokenizer: as in :func:`token_scores`.
        clip: True (default) counts each answer n-gram at most as often as it occurs in the
            reference (BLEU's modified precision, consistent with :func:`token_scores`);
            False counts every answer n-gram that occurs in the reference at all (the seed's
            ``if ngram in reference_ngrams`` loop).

    Returns:
        Precision in [0, 1]; 0.0 when the answer has fewer than ``n`` tokens.

    Raises:
        ValueError: ``n < 1`` or no references.

    Source: seed 002 §七.2 (bigram example: "Python是一种编程语言" vs "Python是高级编程语言" → 2/4).
    """
    if n < 1:
        raise ValueError(f"n: n-gram order must be >= 1, got {n}")
    refs = _references(reference)
    if not refs:
        raise ValueError("reference: at least one reference is required")
    ans = ngrams(to_tokens(answer, tokenizer, "answer"), n)
    if not ans:
        return 0.0
    best = 0.0
    for k, ref in enumerate(refs):
        ref_ngrams = ngrams(to_tokens(ref, tokenizer, f"reference[{k}]"), n)
        if clip:
            correct = sum((Counter(ans) & Counter(ref_ngrams)).values())
        else:
            ref_set = set(ref_ngrams)
            correct = sum(1 for g in ans if g in ref_set)
        best = max(best, correct / len(ans))
    return best


def weighted_precision(answer: TokensOrText, reference: str | Sequence[TokensOrText],
                       weights: Mapping[str, float], default_weight: float = 1.0,
                       tokenizer: Tokenizer = "jieba") -> float:
    """Weighted token precision: Σ w(tok) over answer tokens found in the reference / Σ w(tok).

    Exactly the seed's ``weighted_precision``: membership (not clipped counts) decides whether
    an answer token is correct; tokens missing from ``weights`` weigh ``default_weight``.
    With several references, the maximum over references.

    Args:
        answer: text or tokens.
        reference: one reference (str) or a sequence of references.
        weights: token → non-negative weight (e.g. ``{"Python": 2.0, "是": 0.5}``).
        default_weight: weight of tokens absent from ``weights`` (>= 0).
        tokenizer: as in :func:`token_scores`.

    Returns:
        Weighted precision in [0, 1]; 0.0 when the total weight is 0 (empty answer).

    Raises:
        ValueError: a negative weight, or no references.

    Source: seed 002 §七.1.
    """
    if default_weight < 0:
        raise ValueError(f"default_weight: must be >= 0, got {default_weight}")
    for tok, w in weights.items():
        if w < 0:
            raise ValueError(f"weights[{tok!r}]: must be >= 0, got {w}")
    refs = _references(reference)
    if not refs:
        raise ValueError("reference: at least one reference is required")
    ans = to_tokens(answer, tokenizer, "answer")
    total = sum(weights.get(t, default_weight) for t in ans)
    if total <= 0:
        return 0.0
    best = 0.0
    for k, ref in enumerate(refs):
        ref_set = set(to_tokens(ref, tokenizer, f"reference[{k}]"))
        correct = sum(weights.get(t, default_weight) for t in ans if t in ref_set)
        best = max(best, correct / total)
    return best


def choice_precision(selected: Any, correct: Any, zero_division: float = 0.0) -> float:
    """Multiple-choice precision: correctly selected options / selected options.

    Args:
        selected: 0/1 (or bool) mask over the options, e.g. ``[1, 1, 1, 0]``.
        correct: 0/1 mask of the correct options, same length, e.g. ``[1, 0, 1, 0]``.
        zero_division: value when nothing was selected (0.0, 1.0 or NaN); default 0.0.

    Returns:
        Precision in [0, 1]. Seed 002 §四: [1,0,1,0]→1.0, [1,1,1,0]→2/3, [1,0,0,0]→1.0 against
        [1,0,1,0] (choosing fewer never lowers precision: "宁可少选，不可选错").

    Raises:
        ValueError: unequal lengths or a non-0/1 entry (argument and index named).
    """
    z = check_zero_division(zero_division)
    s = as_bool_vector(selected, "selected")
    c = as_bool_vector(correct, "correct")
    check_same_length(s, c, "selected", "correct")
    return safe_div(int((s & c).sum()), int(s.sum()), z)
