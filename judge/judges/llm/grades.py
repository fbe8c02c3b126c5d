"""Grade answers and their log-probabilities (``--score-mode logprob``).

The scorer ``entity_similarity_grade@v1`` asks for a single digit grade g ∈ {0, …, 9}. With
``logprobs: true`` and ``top_logprobs: K`` an OpenAI-compatible server returns, for each
generated token, its log-probability and the K most likely alternatives
(``choices[].logprobs.content[].top_logprobs``; OpenAI API reference, "The chat completion
object"). At the first generated token that is a grade digit, the alternatives that are grade
digits give a distribution over grades (probabilities ``exp(logprob)``; tokens that differ only
by surrounding whitespace, ``" 7"`` and ``"7"``, are the same grade), renormalised over the
grades listed. The verdict's score is the expectation (G-Eval's probability-weighted score: Liu
et al., "G-Eval: NLG Evaluation using GPT-4 with Better Human Alignment", EMNLP 2023, §2.3):

    score = Σ_g p(g) · g / 9        P(score > τ) = Σ_{g / 9 > τ} p(g)

so a judge yields a continuous score instead of a handful of anchor values. ``mass`` is the
probability the alternatives listed put on grades before renormalising (1 when the model is sure
to answer a grade; low when it wanted to say something else).

A reply without logprobs (a server that ignores the parameter) is a recorded fallback, never a
silent one: the score is the sampled grade / 9, the verdict carries no distribution and says so
in its rationale, and the run's summary counts such verdicts (``logprobs.fallback``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from judge.judges.llm.jsonreply import ParseError

MAX_GRADE = 9
"""Grades are the digits 0..9; a grade g is the score g / 9."""
_GRADE_TEXT = re.compile(r"""^\s*(?:["'*(\[]|grade\s*[:=]?\s*)*([0-9])(?![0-9]|\.[0-9])""",
                         re.IGNORECASE)


@dataclass(frozen=True)
class GradeAnswer:
    """One parsed grade answer.

    Attributes:
        score: in [0, 1]: E[grade] / 9, or the sampled grade / 9 without logprobs.
        rationale: what the score is made of (grades and probabilities, or the fallback).
        distribution: grade (as a string "0".."9") → probability, summing to 1; None when the
            reply had no logprobs.
        mass: probability the listed alternatives put on grade tokens, in [0, 1]; None
            without logprobs.
    """

    score: float
    rationale: str
    distribution: dict[str, float] | None
    mass: float | None


def parse_grade_text(text: str) -> int:
    """The grade a completion states: its first digit, optionally after quotes, ``*``,
    brackets or ``Grade:``; the digit must stand alone (``"7"``, ``"7."``, ``"7 - same"`` are
    7; ``"10"`` and ``"7.5"`` are errors, never read as 1 or 7).

    Raises:
        ParseError: no such digit at the start of the text.
    """
    m = _GRADE_TEXT.match(text)
    if not m:
        head = " ".join(text[:60].split())
        raise ParseError(f"unparseable judge output: expected one grade digit 0-9, got {head!r}")
    return int(m.group(1))


def _digit(token: Any) -> int | None:
    if not isinstance(token, str):
        return None
    t = token.strip().strip("\"'*")
    return int(t) if len(t) == 1 and t.isdigit() else None


def grade_distribution(content: Sequence[Any]) -> tuple[dict[int, float], float] | None:
    """``(grade → probability, mass)`` from ``choices[i].logprobs.content``.

    Args:
        content: the per-token entries ``{"token": str, "logprob": float, "top_logprobs":
            [{"token": str, "logprob": float}, ...]}``.

    Returns:
        The renormalised distribution over grades at the first token that is a grade digit and
        the probability mass the listed alternatives put on grades; None when no generated
        token is a grade digit or the entries are malformed. Without alternatives (``top_logprobs``
        empty) the distribution is the chosen grade with probability 1 and ``mass`` its own
        probability.
    """
    for entry in content:
        if not isinstance(entry, Mapping):
            return None
        chosen = _digit(entry.get("token"))
        if chosen is None:
            if str(entry.get("token", "")).strip(" \t\n\"'*"):
                return None  # the answer started with something that is not a grade
            continue
        probs: dict[int, float] = {}
        alternatives = entry.get("top_logprobs") or []
        for alt in alternatives if isinstance(alternatives, list) else []:
            g = _digit(alt.get("token")) if isinstance(alt, Mapping) else None
            lp = alt.get("logprob") if isinstance(alt, Mapping) else None
            if g is None or not isinstance(lp, (int, float)) or isinstance(lp, bool):
                continue
            if not math.isfinite(lp) or lp > 1e-6:
                continue
            probs[g] = probs.get(g, 0.0) + math.exp(min(lp, 0.0))
        if not probs:
            lp = entry.get("logprob")
            if not isinstance(lp, (int, float)) or isinstance(lp, bool) or not math.isfinite(lp):
                return None
            return {chosen: 1.0}, min(1.0, math.exp(min(float(lp), 0.0)))
        mass = sum(probs.values())
        return {g: p / mass for g, p in sorted(probs.items())}, min(1.0, mass)
    return None


def expected_score(distribution: Mapping[str, float] | Mapping[int, float]) -> float:
    """E[grade] / 9 of a grade distribution (keys grades 0..9, as ints or strings), in [0, 1]."""
    return min(1.0, max(0.0, sum(int(g) * p for g, p in distribution.items()) / MAX_GRADE))


def p_above(distribution: Mapping[str, float] | Mapping[int, float], tau: float) -> float:
    """P(score > τ) = Σ p(g) over grades with g / 9 > τ, in [0, 1]."""
    return min(1.0, sum(p for g, p in distribution.items() if int(g) / MAX_GRADE > tau))


def grade_answer(texts: Sequence[str], logprobs: Sequence[Any] | None,
                 requested: bool = True) -> GradeAnswer:
    """Parse the choices of one grade request (several when ``n`` > 1: their distributions, or
    sampled grades, are averaged).

    Args:
        texts: each choice's completion text.
        logprobs: each choice's ``logprobs.content`` list (None, or None entries, when the
            server sent none).
        requested: whether the request asked for logprobs (``--score-mode logprob``); without
            them in the reply the answer is then a recorded fallback, else simply the sampled
            grade.

    Raises:
        ParseError: a choice states no grade digit (its text is the error's detail).
    """
    grades = [parse_grade_text(t) for t in texts]
    dists: list[tuple[dict[int, float], float]] = []
    for k in range(len(texts)):
        content = logprobs[k] if logprobs is not None and k < len(logprobs) else None
        got = grade_distribution(content) if isinstance(content, list) else None
        if got is not None:
            dists.append(got)
    if len(dists) == len(texts) and dists:
        merged: dict[int, float] = {}
        for d, _ in dists:
            for g, p in d.items():
                merged[g] = merged.get(g, 0.0) + p / len(dists)
        mass = sum(m for _, m in dists) / len(dists)
        dist = {str(g): round(p, 6) for g, p in sorted(merged.items())}
        score = expected_score(merged)
        shown = ", ".join(f"{g}: {p:.2f}" for g, p in sorted(merged.items(), key=lambda x: -x[1])
                          if p >= 0.005)
        return GradeAnswer(score, f"grade distribution {shown} → E[grade]/9 = {score:.3f} "
                                  f"(probability on grades {mass:.2f})", dist, round(mass, 6))
    mean = sum(grades) / len(grades)
    why = (f"no logprobs in the reply: the score is the sampled grade {mean:g}/{MAX_GRADE} "
           "(--score-mode logprob fell back to it)" if requested else
           f"the sampled grade {mean:g}/{MAX_GRADE}")
    return GradeAnswer(mean / MAX_GRADE, why, None, None)
