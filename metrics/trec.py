"""TREC file readers: qrels (:func:`read_qrels`) and runs (:func:`read_run`), as trec_eval
reads them, with every malformed line an error naming the file, the line and the field
(:class:`TrecFormatError`).

The rules, shared by both files:

* UTF-8 text (a leading byte-order mark is skipped); lines end at ``\\n`` (a ``\\r`` before it
  is dropped); blank lines are skipped;
* fields are separated by spaces and tabs only: any other character, non-ASCII whitespace such
  as U+00A0 or U+3000 included, is part of a field (a document id holding one stays one id);
* a run's score is a finite decimal number (``12``, ``-0.5``, ``1e-3``): ``nan``, ``inf`` and
  ``1e999`` are errors (a NaN score has no place in the order, and trec_eval's order of one
  would depend on the line order), as are Python-only spellings (``1_0``, ``０.５``);
* a qrels grade is a decimal integer from ``-MAX_GRADE`` to ``MAX_GRADE`` (TREC uses −2..4).

A file that keeps every rule is read by :mod:`metrics.trecfast` (the same result, for a third
of the CPU time); any other file is read here line by line, which names the faulty line.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from metrics import trecfast

MAX_GRADE = 1000
"""Largest grade (in absolute value) a qrels line may hold: ERR computes 2^grade, which a float
holds up to 2^1023."""

_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_FIELD = re.compile(r"[^ \t]+")
_FLOAT = {float}


class TrecFormatError(ValueError):
    """A malformed line of a TREC file: ``FILE:LINE: field 'x': what is wrong``.

    Attributes:
        path: the file; line: the 1-based line; field: the field's name (``score``,
            ``grade``, ``doc_id``), None for a line with the wrong number of fields; message:
            what is wrong.
    """

    def __init__(self, path: str | Path, line: int, message: str,
                 field: str | None = None) -> None:
        self.path, self.line, self.field, self.message = str(path), line, field, message
        named = f"field '{field}': " if field is not None else ""
        super().__init__(f"{path}:{line}: {named}{message}")


def _lines(path: str | Path, width: int, names: str,
           more: bool = False) -> Iterator[tuple[int, list[str]]]:
    """``(line number, fields)`` of each non-blank line, checked to have ``width`` fields
    (``more``: at least ``width``, the first ``width`` returned).

    Raises:
        TrecFormatError: a line with another number of fields.
        OSError, UnicodeDecodeError: unreadable file, not UTF-8.
    """
    with open(path, encoding="utf-8-sig", newline="\n") as fh:
        for lineno, line in enumerate(fh, start=1):
            parts = _FIELD.findall(line.removesuffix("\n").removesuffix("\r"))
            if not parts:
                continue
            if len(parts) < width or (len(parts) > width and not more):
                raise TrecFormatError(path, lineno, f"expected {width}{' or more' if more else ''}"
                                      f" fields ({names}), got {len(parts)}")
            yield lineno, parts[:width]


def read_qrels(path: str | Path) -> dict[str, dict[str, int]]:
    """Read a TREC qrels file: ``query_id iteration doc_id grade`` per line (the module's rules).

    Returns:
        query id → (doc id → integer grade).

    Raises:
        TrecFormatError (a ValueError): ``FILE:LINE: ...`` for a line without 4 fields, a grade
            that is not a decimal integer in ±:data:`MAX_GRADE`, or a document judged twice
            for one query.
        OSError: unreadable file.
    """
    fast = trecfast.qrels(path, MAX_GRADE)
    if fast is not None:
        return fast
    qrels: dict[str, dict[str, int]] = {}
    for lineno, (qid, _, doc, grade) in _lines(path, 4, "query_id iteration doc_id grade"):
        if not _INTEGER.fullmatch(grade):
            raise TrecFormatError(path, lineno, f"expected an integer, got {grade!r}", "grade")
        g = int(grade)
        if abs(g) > MAX_GRADE:
            raise TrecFormatError(path, lineno, f"{g} is outside -{MAX_GRADE}..{MAX_GRADE} "
                                  "(ERR's 2^grade would overflow)", "grade")
        judged = qrels.setdefault(qid, {})
        if doc in judged:
            raise TrecFormatError(path, lineno, f"{doc!r} judged twice for query {qid!r}",
                                  "doc_id")
        judged[doc] = g
    return qrels


def read_run(path: str | Path, max_rank: int | None = None) -> dict[str, list[str]]:
    """Read a TREC run file: ``query_id Q0 doc_id rank score tag`` per line (the module's
    rules).

    Documents are ordered as trec_eval orders them: score descending, ties broken by doc id
    descending (the rank column is ignored), then cut at ``max_rank`` (trec_eval ``-M``;
    None = no cut, trec_eval's default). Fields after the sixth are ignored, as trec_eval
    ignores them (its own ``results.trunc`` carries some).

    Returns:
        query id → ranked doc ids.

    Raises:
        TrecFormatError (a ValueError): ``FILE:LINE: ...`` for a line without 6 fields, a
            score that is not a finite decimal number (``FILE:LINE: field 'score': not a
            finite number: 'nan'``), or a document listed twice for one query.
        OSError: unreadable file.
    """
    return {qid: ranked(docs, max_rank) for qid, docs in read_run_scores(path).items()}


def read_run_scores(path: str | Path) -> dict[str, dict[str, float]]:
    """A TREC run's scores as the file gives them: query id → (doc id → score), each line
    checked as :func:`read_run` checks it (pytrec_eval's input; :func:`ranked` orders them).

    Raises:
        TrecFormatError, OSError: as :func:`read_run`.
    """
    fast = trecfast.run_scores(path)
    if fast is not None:
        return fast
    scored: dict[str, dict[str, float]] = {}
    for lineno, (qid, _, doc, _, score, _) in _lines(path, 6, "query_id Q0 doc_id rank score "
                                                     "tag", more=True):
        s = _score(path, lineno, score)
        docs = scored.setdefault(qid, {})
        if doc in docs:
            raise TrecFormatError(path, lineno, f"{doc!r} listed twice for query {qid!r}",
                                  "doc_id")
        docs[doc] = s
    return scored


def ranked(scores: dict[str, float], max_rank: int | None = None) -> list[str]:
    """One query's documents in trec_eval's order (score descending, ties by doc id
    descending), the first ``max_rank`` (None = all).

    Finite float scores (what :func:`read_run_scores` gives) are ordered by numpy's stable
    argsort, each run of equal scores (``0.0`` equals ``-0.0``) then by doc id; other values
    by Python's sort on (score, doc id) — the same order, the definition.

    Examples:
        >>> ranked({"a": 1.0, "b": 2.0, "c": 1.0})
        ['b', 'c', 'a']
    """
    docs = list(scores)
    values = None
    if docs and set(map(type, scores.values())) <= _FLOAT:
        values = np.fromiter(scores.values(), dtype=float, count=len(docs))
    if values is None or not np.isfinite(values).all():
        order = sorted(scores, key=lambda d: (scores[d], d), reverse=True)
        return order[:max_rank] if max_rank else order
    idx = np.argsort(-values, kind="stable")
    order = [docs[i] for i in idx.tolist()]
    ordered = values[idx]
    ties = np.flatnonzero(ordered[1:] == ordered[:-1]).tolist()  # i: rank i ties with i + 1
    start = 0
    while start < len(ties):  # each run of ties: ranks ties[start] .. ties[end] + 1
        end = start
        while end + 1 < len(ties) and ties[end + 1] == ties[end] + 1:
            end += 1
        first, last = ties[start], ties[end] + 2
        order[first:last] = sorted(order[first:last], reverse=True)
        start = end + 1
    return order[:max_rank] if max_rank else order


def _score(path: str | Path, line: int, text: str) -> float:
    """A run line's score: a finite decimal number.

    Raises:
        TrecFormatError: ``not a finite number`` (``nan``, ``inf``, ``1e999``), or ``expected
            a number`` (anything else that is not a decimal number).
    """
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is not None and not math.isfinite(value):
        raise TrecFormatError(path, line, f"not a finite number: {text!r}", "score")
    if value is None or not _NUMBER.fullmatch(text):
        raise TrecFormatError(path, line, f"expected a number, got {text!r}", "score")
    return value
