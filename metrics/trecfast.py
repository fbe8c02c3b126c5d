"""The fast path of :mod:`metrics.trec`'s readers: a whole TREC run or qrels file read with
``str.split`` per line and its numbers checked in bulk, giving exactly what the line-by-line
readers give — or ``None`` whenever the file holds anything those readers would refuse or read
in a way ``str.split`` does not (a malformed line, a duplicate, a space other than space, tab and
newline, a number these checks do not cover). The line-by-line reader then reads the file and
names the line and the field, so no check is weakened: this path only skips work on files that
pass them all.

Why it equals the line-by-line readers when it answers:

* fields: ``str.split()`` splits on every Unicode whitespace character; a text holding none but
  space, tab and ``\\n`` (``\\r\\n`` made ``\\n`` first, any other ``\\r`` sent to the slow path)
  is split exactly as :mod:`metrics.trec` splits it (on runs of spaces and tabs, lines at
  ``\\n``);
* scores: ``float`` accepts ``[+-]digits[.digits][e[+-]digits]``, ``.digits…``, digit groups
  with ``_``, non-ASCII digits, ``nan`` and ``inf``. A value that ``float`` reads, that is finite,
  and whose text is ASCII without ``_`` is therefore a decimal number as
  :mod:`metrics.trec` defines it, and every such number passes these checks;
* grades: likewise ``int`` (``[+-]digits``, ``_`` groups, non-ASCII digits), then the range;
* duplicates: a document given twice leaves its query's dict one entry short of the lines read.
"""

from __future__ import annotations

import contextlib
import gc
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_OTHER_SPACES = ("\x0b", "\x0c", "\r", "\x1c", "\x1d", "\x1e", "\x1f")
"""The ASCII characters ``str.split`` takes for whitespace besides space, tab and ``\\n``."""
_WIDE_SPACES = ("\x85", "\xa0", "\u1680", *map(chr, range(0x2000, 0x200B)), "\u2028",
                "\u2029", "\u202f", "\u205f", "\u3000")
"""The non-ASCII ones (``str.isspace``; ``tests/metrics/test_trec_fast.py`` recomputes both)."""


def _text(path: str | Path) -> str | None:
    """The file's text with ``\\r\\n`` made ``\\n``, or None when ``str.split`` would split it
    on another character than space, tab and ``\\n``.

    Raises:
        OSError, UnicodeDecodeError: as the line-by-line readers.
    """
    with open(path, encoding="utf-8-sig", newline="\n") as fh:
        text = fh.read()
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    spaces = _OTHER_SPACES if text.isascii() else (*_OTHER_SPACES, *_WIDE_SPACES)
    return None if any(c in text for c in spaces) else text


@contextlib.contextmanager
def _paused() -> Iterator[None]:
    """The cyclic garbage collector paused (when it runs): what the readers build — strings,
    numbers, dicts of them and each line's list of fields — holds no reference cycle, so a
    collection while they read frees nothing; on a 1,000,000-line run the collector's passes
    over the growing dicts cost ~0.4 s of CPU. Other threads' cycles are collected after."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _plain(text: str) -> bool:
    """Whether ``text`` is ASCII without ``_``."""
    return text.isascii() and "_" not in text


def run_scores(path: str | Path) -> dict[str, dict[str, float]] | None:
    """:func:`metrics.trec.read_run_scores`'s result, or None (see the module docstring).

    Raises:
        OSError, UnicodeDecodeError: unreadable file, not UTF-8.
    """
    text = _text(path)
    if text is None:
        return None
    plain = _plain(text)  # else the score texts are checked once read
    scored: dict[str, dict[str, Any]] = {}
    lines = 0
    with _paused():
        try:
            for line in text.split("\n"):
                parts = line.split()
                if len(parts) != 6:
                    if not parts:
                        continue
                    if len(parts) < 6:
                        return None
                docs = scored.get(parts[0])
                if docs is None:
                    docs = scored[parts[0]] = {}
                docs[parts[2]] = float(parts[4]) if plain else parts[4]
                lines += 1
            if not plain:
                for qid, docs in scored.items():
                    if not _plain("".join(docs.values())):
                        return None
                    scored[qid] = dict(zip(docs, map(float, docs.values()), strict=True))
        except ValueError:
            return None
    if sum(map(len, scored.values())) != lines:
        return None  # a document listed twice
    if not all(all(map(math.isfinite, docs.values())) for docs in scored.values()):
        return None
    return scored


def qrels(path: str | Path, max_grade: int) -> dict[str, dict[str, int]] | None:
    """:func:`metrics.trec.read_qrels`'s result (grades in ±``max_grade``), or None (see the
    module docstring).

    Raises:
        OSError, UnicodeDecodeError: unreadable file, not UTF-8.
    """
    text = _text(path)
    if text is None:
        return None
    plain = _plain(text)
    judged: dict[str, dict[str, Any]] = {}
    lines = 0
    with _paused():
        try:
            for line in text.split("\n"):
                parts = line.split()
                if len(parts) != 4:
                    if not parts:
                        continue
                    return None
                docs = judged.get(parts[0])
                if docs is None:
                    docs = judged[parts[0]] = {}
                docs[parts[2]] = int(parts[3]) if plain else parts[3]
                lines += 1
            if not plain:
                for qid, docs in judged.items():
                    if not _plain("".join(docs.values())):
                        return None
                    judged[qid] = dict(zip(docs, map(int, docs.values()), strict=True))
        except ValueError:
            return None
    if sum(map(len, judged.values())) != lines:
        return None  # a document judged twice
    if any(max(map(abs, docs.values())) > max_grade for docs in judged.values()):
        return None
    return judged
