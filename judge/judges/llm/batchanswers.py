"""The answers a ``--batch-api`` run fetched, kept on disk (SQLite) instead of in memory, so
that a run of a million requests does not hold a million replies: :class:`BatchAnswers` is the
run's ``JudgeContext.batch`` mapping (cache key → ``CallResult`` or the ``TransportError`` of a
request the batch did not answer). The same scratch database holds the run's bookkeeping sets
(keys already taken, keys covered by running batches).

The file lives in ``<cache>/batches/`` as ``.run-<pid>-<random>.sqlite`` and is removed by
:meth:`BatchAnswers.close` (or when the object is garbage-collected).
"""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
import weakref
from collections.abc import Iterator, MutableMapping
from pathlib import Path
from typing import Any

from judge.judges.failures import TransportError

PAGE_CACHE_KB = 32 * 1024
"""SQLite page cache of the scratch database, in KiB (bounds its share of the client's RSS)."""


class ConflictingAnswer(TransportError):
    """A ``custom_id`` that appears more than once in a batch's result files with different
    bodies: no copy is trusted (recorded as ``parse_error``, naming the batch)."""

    outcome = "parse_error"


def _encode(value: Any) -> tuple[str, str]:
    from judge.judges.llm.llmjudge import CallResult

    if isinstance(value, TransportError):
        kind = "conflict" if isinstance(value, ConflictingAnswer) else "error"
        return kind, json.dumps({"message": value.message, "raw": value.raw,
                                 "cause": value.cause})
    if isinstance(value, CallResult):
        return "ok", json.dumps({"texts": value.texts, "tokens_in": value.tokens_in,
                                 "tokens_out": value.tokens_out, "refusal": value.refusal,
                                 "mode": value.mode, "finish_reason": value.finish_reason,
                                 "logprobs": value.logprobs}, ensure_ascii=False)
    raise TypeError(f"a batch answer is a CallResult or a TransportError, not {type(value)}")


def _decode(kind: str, data: str) -> Any:
    from judge.judges.llm.llmjudge import CallResult

    obj = json.loads(data)
    if kind == "ok":
        return CallResult(**obj)
    cls = ConflictingAnswer if kind == "conflict" else TransportError
    return cls(obj["message"], raw=obj["raw"], cause=obj["cause"])


def _cleanup(conn: sqlite3.Connection, path: Path) -> None:
    conn.close()
    path.unlink(missing_ok=True)


class BatchAnswers(MutableMapping[str, Any]):
    """Cache key → fetched answer, on disk (see the module docstring).

    Args:
        directory: where to put the scratch database (created if missing).

    Raises:
        OSError: the directory cannot be written.
    """

    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f".run-{os.getpid()}-", suffix=".sqlite",
                                    dir=directory)
        os.close(fd)
        self.path = Path(name)
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=OFF")
        self._db.execute("PRAGMA synchronous=OFF")
        # random keys into B-trees of ~100 MB at 1M requests: with SQLite's default 2 MB page
        # cache every insert spilled pages (≈140 MB/s of writes measured); 32 MB is the bound
        self._db.execute(f"PRAGMA cache_size=-{PAGE_CACHE_KB}")
        self._db.executescript(
            "CREATE TABLE answers (key TEXT PRIMARY KEY, kind TEXT, data TEXT) WITHOUT ROWID;"
            "CREATE TABLE seen (key TEXT PRIMARY KEY) WITHOUT ROWID;"
            "CREATE TABLE covered (key TEXT PRIMARY KEY, digest TEXT) WITHOUT ROWID;")
        self._finalizer = weakref.finalize(self, _cleanup, self._db, self.path)

    # ---------------------------------------------------------------- the mapping
    def __getitem__(self, key: str) -> Any:
        row = self._db.execute("SELECT kind, data FROM answers WHERE key = ?", (key,)).fetchone()
        if row is None:
            raise KeyError(key)
        return _decode(*row)

    def __setitem__(self, key: str, value: Any) -> None:
        self._db.execute("INSERT OR REPLACE INTO answers VALUES (?, ?, ?)", (key, *_encode(value)))

    def __delitem__(self, key: str) -> None:
        if self._db.execute("DELETE FROM answers WHERE key = ?", (key,)).rowcount == 0:
            raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter([k for (k,) in self._db.execute("SELECT key FROM answers")])

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM answers").fetchone()[0])

    def __contains__(self, key: object) -> bool:
        return self._db.execute("SELECT 1 FROM answers WHERE key = ?", (key,)).fetchone() \
            is not None

    def begin(self) -> None:
        """Start a transaction (many writes at once are much faster inside one)."""
        self._db.execute("BEGIN")

    def commit(self) -> None:
        """Commit the transaction started by :meth:`begin`."""
        self._db.execute("COMMIT")

    # ----------------------------------------------------------- bookkeeping sets
    def take(self, key: str) -> bool:
        """Mark ``key`` as taken by this run; False if it already was (a repeated request)."""
        return self._db.execute("INSERT OR IGNORE INTO seen VALUES (?)", (key,)).rowcount == 1

    def cover(self, key: str, digest: str) -> None:
        """Record that the running batch of chunk ``digest`` holds a request for ``key``."""
        self._db.execute("INSERT OR IGNORE INTO covered VALUES (?, ?)", (key, digest))

    def covered_by(self, key: str) -> str | None:
        """The chunk digest whose running batch holds ``key``, or None."""
        row = self._db.execute("SELECT digest FROM covered WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def close(self) -> None:
        """Close and delete the scratch database."""
        self._finalizer()
