"""The JSON lines of a run's own files (``verdicts.jsonl``, a spool): read by offset
(:class:`OffsetFile`) and decoded (:func:`loads_line`).

Lines are decoded with orjson (C; ~4x faster than :func:`json.loads` on a verdict row: 15 ms
against 67 ms for the 10,000 rows a large run's report reads back) wherever it decodes exactly
what :func:`json.loads` decodes, and by :func:`json.loads` everywhere else: orjson refuses
``NaN``/``Infinity``, ``1e999``, lone surrogate escapes and a UTF-8 byte-order mark (an error,
so the line is decoded again), and it reads an integer beyond 64 bits as a float without a
word — so a line that may hold such an integer (:data:`BIG_INTEGER`) is never given to it.
"""

from __future__ import annotations

import json
import os
import re
import threading
from typing import IO, Any

import orjson

BIG_INTEGER = re.compile(rb"[:\[,\s-]\d{19,}(?![.eE\d])")
"""19 digits or more after what can come before a JSON number and not followed by a fraction
or an exponent: possibly an integer orjson would turn into a float. The digits of a float
(``0.0006123456789012345``) or inside a hex digest do not match; a number-like run inside a
string may (such a line just takes the json path)."""


def loads_line(line: bytes) -> Any:
    """The value of one JSON line (UTF-8 bytes, no newline needed), equal to
    ``json.loads(line)``.

    Raises:
        json.JSONDecodeError / UnicodeDecodeError: as ``json.loads(line)`` does.
    """
    if BIG_INTEGER.search(line) is None:
        try:
            return orjson.loads(line)
        except orjson.JSONDecodeError:
            pass  # NaN, 1e999, a lone surrogate, a BOM, or not JSON: json decides
    return json.loads(line)


class OffsetFile:
    """An open JSONL file read by offset (``os.pread``: iterations do not share a position;
    a lock around seek and read where there is no ``pread``).

    Args:
        fh: the file, open in binary mode (kept open; its owner closes ``fh``).
    """

    def __init__(self, fh: IO[bytes]) -> None:
        self.fh = fh
        self.fd = fh.fileno()
        self._lock = threading.Lock()

    def read(self, offset: int, n: int) -> bytes:
        """Up to ``n`` bytes from byte ``offset`` (fewer at the end of the file).

        Raises:
            OSError: the read failed.
        """
        if hasattr(os, "pread"):
            return os.pread(self.fd, n, offset)
        with self._lock:  # no pread (Windows): seek and read under a lock
            os.lseek(self.fd, offset, os.SEEK_SET)
            return os.read(self.fd, n)
