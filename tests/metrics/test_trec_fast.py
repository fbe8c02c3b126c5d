"""The TREC readers' fast path (:mod:`metrics.trecfast`) never changes an answer: on every file
it either gives what the line-by-line reader gives (same dicts, same order) or steps aside
(None), and the line-by-line reader then accepts the file or names the line and field."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from metrics import trec, trecfast


def _slow(monkeypatch: pytest.MonkeyPatch, read: Any, path: Path) -> Any:
    with monkeypatch.context() as m:
        m.setattr(trecfast, "run_scores", lambda p: None)
        m.setattr(trecfast, "qrels", lambda p, g: None)
        return _outcome(read, path)


def _outcome(read: Any, path: Path) -> Any:
    """The reader's dicts with their orders, or its error message."""
    try:
        out = read(path)
    except (trec.TrecFormatError, ValueError) as exc:
        return f"error: {exc}"
    return [(q, list(d.items())) for q, d in out.items()]


def test_the_spaces_it_refuses_are_exactly_strs_other_whitespace() -> None:
    space = {chr(c) for c in range(0x110000) if chr(c).isspace()} - {" ", "\t", "\n"}
    assert set(trecfast._OTHER_SPACES) | set(trecfast._WIDE_SPACES) == space
    assert all(c.isascii() for c in trecfast._OTHER_SPACES)


RUN_OK = [
    "q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1 tag\n",
    "\ufeff q1\tQ0  d1 1  -0.5 tag \r\n\r\n \t\nq2 Q0 d1 1 1e-3 tag\nq1 Q0 d3 3 .5 t",
    "q1 Q0 doc_1 1 5. tag_a\nq1 Q0 文档 2 +2E+1 tag extra fields\n",  # '_', non-ASCII ids
    "q1 Q0 a 1 1 t\nq1 Q0 b 2 1 t\nq1 Q0 c 3 -0.0 t\nq1 Q0 d 4 0 t\n",  # ties
]


@pytest.mark.parametrize("text", RUN_OK)
def test_a_well_formed_run_is_read_by_the_fast_path_as_by_the_slow_one(
        text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "run"
    path.write_bytes(text.encode())
    assert trecfast.run_scores(path) is not None
    fast = _outcome(trec.read_run_scores, path)
    assert fast == _slow(monkeypatch, trec.read_run_scores, path)
    assert not str(fast).startswith("error")


@pytest.mark.parametrize(("text", "message"), [
    ("\nq1 Q0 d1 1 nan t\n", ":2: field 'score': not a finite number: 'nan'"),
    ("q1 Q0 d1 1 1e999 t\n", "field 'score': not a finite number"),
    ("q1 Q0 d1 1 1_0 t\n", "field 'score': expected a number, got '1_0'"),
    ("q_1 Q0 d1 1 \uff10.\uff15 t\n", "field 'score': expected a number"),
    ("q1 Q0 d1 1 1 t\nq1 Q0 d1 2 0 t\n", ":2: field 'doc_id': 'd1' listed twice"),
    ("q1 Q0 d1 1 t\n", ":1: expected 6 or more fields"),
    ("q1 Q0 d1\r1 1 1 t\n", None),  # a lone \r is part of the document id
    ("q1 Q0 d1\xa01 1 1 t\n", None),  # U+00A0 is part of the document id
    ("q1 Q0 d1\x0b 1 1 t\n", None),
])
def test_the_fast_path_steps_aside_for_what_the_slow_one_refuses_or_reads_apart(
        text: str, message: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = tmp_path / "run"
    path.write_bytes(text.encode())
    assert trecfast.run_scores(path) is None
    got = _outcome(trec.read_run_scores, path)
    if message is None:
        assert not str(got).startswith("error")
    else:
        assert str(got).startswith(f"error: {path}:") and message in str(got)


@pytest.mark.parametrize(("text", "fast"), [
    ("q1 0 d1 1\nq1 0 d2 -1\n\nq2 0 d1 +2\n", True),
    ("\ufeffq1\t0 d_1 007\r\nq1 0 文 1000\n", True),
    ("q1 0 d1 1.5\n", False), ("q1 0 d1 1_0\n", False), ("q1 0 d1 1001\n", False),
    ("q1 0 d1 1\nq1 0 d1 2\n", False), ("q1 0 d1 1 x\n", False), ("q1 0 d1 \uff11\n", False),
])
def test_qrels_fast_and_slow_agree(text: str, fast: bool, tmp_path: Path,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "qrels"
    path.write_bytes(text.encode())
    assert (trecfast.qrels(path, trec.MAX_GRADE) is not None) == fast
    got = _outcome(trec.read_qrels, path)
    assert got == _slow(monkeypatch, trec.read_qrels, path)
    assert str(got).startswith("error") != fast


IDS = ["q1", "q2", "Q0", "d1", "d2", "d_3", "文"]
NUMBERS = ["1", "-2", "0.5", ".5", "1e3", "+0", "-0.0", "007"]
ODD = ["nan", "inf", "1e999", "1_0", "\uff11", "1.5e", "x", "d\xa0", "d\r", "d\x1f", "2000"]


def test_random_files_are_read_alike_with_and_without_the_fast_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 600 small files of random pieces, widths 3..7, separators and line ends: every outcome
    # (dicts in order, or the error message) is the same either way
    rnd = random.Random(37)
    answered = 0
    for n in range(600):
        lines = []
        for _ in range(rnd.randint(0, 6)):
            width = rnd.choice((6, 6, 6, 6, 7, 5) if n % 2 else (4, 4, 4, 4, 5))
            fields = [rnd.choice(ODD) if rnd.random() < 0.03 else
                      rnd.choice(IDS if i in (0, 2) else NUMBERS) for i in range(width)]
            lines.append(rnd.choice((" ", "\t", "  ")).join(fields))
        path = tmp_path / f"f{n}"
        path.write_bytes(rnd.choice(("\n", "\r\n")).join(lines).encode())
        for read, fast in ((trec.read_run_scores, trecfast.run_scores),
                           (trec.read_qrels, lambda p: trecfast.qrels(p, trec.MAX_GRADE))):
            answered += fast(path) is not None and bool(lines)
            assert _outcome(read, path) == _slow(monkeypatch, read, path), path.read_bytes()
    assert answered > 50  # the fast path did answer on many of them


def test_ranked_is_trec_evals_order_with_and_without_ties() -> None:
    # score descending, ties by document id descending (trec_eval); -0.0 ties with 0.0; ints
    # (2^53 + 1 is no float) and NaN take Python's sort, the definition itself
    rnd = random.Random(7)
    pools: list[list[Any]] = [[0.0, -0.0, 1.0, 0.5, -2.0], [1, 1.0, 2**53, 2**53 + 1, 0.5],
                              [rnd.random() for _ in range(50)]]
    for n in range(300):
        pool = pools[n % 3]
        scores = {f"d{rnd.randrange(10**6)}": rnd.choice(pool) for _ in range(rnd.randint(0, 40))}
        want = sorted(scores, key=lambda d: (scores[d], d), reverse=True)
        assert trec.ranked(scores) == want
        assert trec.ranked(scores, 3) == want[:3]
