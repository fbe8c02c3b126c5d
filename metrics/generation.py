"""Generation-text metrics: token precision/recall/F1, n-gram, weighted and multiple-choice
precision.

Definitions (the token-overlap scores of the SQuAD v1.1 evaluation script, Rajpurkar et al.
2016, with a Chinese-aware tokenizer):

* token precision = |Counter(answer) ∩ Counter(reference)| / len(answer) — clipped counts
  (``Counter(a) & Counter(b)``, as SQuAD's ``f1_score`` and BLEU's modified precision);
  recall divides by len(reference); F1 is their harmonic mean (the SQuAD token-F1);
* with several references each metric is the **maximum over references, taken separately**
  (SQuAD's ``metric_max_over_ground_truths``), so precision and recall may come from
  different references;
* an empty answer scores 0.0 (no tokens, nothing correct).

Because counts are clipped, a repeated token earns credit only as often as the reference has
it: "Python Python Python" against "Python是编程语言" has precision 1/3, not 3/3.
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

    Source: SQuAD v1.1 token F1 (Rajpurkar et al. 2016), its ``metric_max_over_ground_truths``
    for several references, applied to each of P, R and F1 separately.

    Examples:
        jieba gives 11 answer tokens; 4 of them (Python, 是, 一种, 编程语言) are in the
        reference, so P = 4/11 and R = 4/4:

        >>> s = token_scores("Python是一种高级编程语言，由Guido van Rossum创建",
        ...                  "Python是一种编程语言")
        >>> round(s.precision, 4), s.recall, round(s.f1, 4)
        (0.3636, 1.0, 0.5333)

        Several references: max(4/6, 3/6) for precision.

        >>> s = token_scores("Python是一种动态类型编程语言",
        ...                  ["Python是一种高级编程语言", "Python是编程语言"])
        >>> round(s.precision, 4), s.recall
        (0.6667, 1.0)
        >>> token_scores("a a a", "a b", tokenizer="whitespace").precision  # clipped: 1/3
        0.3333333333333333
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
            False counts every answer n-gram that occurs in the reference at all (membership,
            unclipped).

    Returns:
        Precision in [0, 1]; 0.0 when the answer has fewer than ``n`` tokens.

    Raises:
        ValueError: ``n < 1`` or no references.

    Source: BLEU's modified n-gram precision p_n (Papineni et al. 2002) for one sentence;
    ``clip=False`` is plain n-gram precision.

    Examples:
        Bigrams of the answer: (Python 是) (是 一种) (一种 编程) (编程 语言); two of them,
        (Python 是) and (编程 语言), occur in the reference: 2/4.

        >>> ngram_precision(["Python", "是", "一种", "编程", "语言"],
        ...                 [["Python", "是", "高级", "编程", "语言"]], n=2)
        0.5
        >>> ngram_precision("a a b", "a b", n=1, tokenizer="whitespace", clip=False)  # 3/3
        1.0
        >>> round(ngram_precision("a a b", "a b", n=1, tokenizer="whitespace"), 4)  # clipped 2/3
        0.6667
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

    Membership (not clipped counts) decides whether an answer token is correct; tokens missing
    from ``weights`` weigh ``default_weight``.
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

    Source: precision with per-token weights, Σ_{t ∈ answer, t ∈ ref} w(t) / Σ_{t ∈ answer} w(t)
    (the weighted precision of a Chinese tutorial on generation precision, "精确率的数学原理").

    Examples:
        Answer tokens a, b, c with weights 2, 1, 1; a and b are in the reference: (2 + 1)/4.

        >>> weighted_precision("a b c", "a b d", {"a": 2.0}, tokenizer="whitespace")
        0.75
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
        Precision in [0, 1]; choosing fewer correct options never lowers it.

    Raises:
        ValueError: unequal lengths or a non-0/1 entry (argument and index named).

    Source: TP / (TP + FP) over the options.

    Examples:
        Against correct options [1, 0, 1, 0]:

        >>> choice_precision([1, 0, 1, 0], [1, 0, 1, 0])
        1.0
        >>> round(choice_precision([1, 1, 1, 0], [1, 0, 1, 0]), 4)  # 2 right of 3 chosen
        0.6667
        >>> choice_precision([1, 0, 0, 0], [1, 0, 1, 0])  # fewer, but all right
        1.0
    """
    z = check_zero_division(zero_division)
    s = as_bool_vector(selected, "selected")
    c = as_bool_vector(correct, "correct")
    check_same_length(s, c, "selected", "correct")
    return safe_div(int((s & c).sum()), int(s.sum()), z)
