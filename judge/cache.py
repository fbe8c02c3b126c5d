"""The judge-call cache (diskcache), keyed by everything that determines a call's answer.

DESIGN.md "Cache": one entry per judge call; the key is the sha256 of canonical JSON (sorted
keys, no whitespace, UTF-8) of the call's identity — backend, base_url, model, decoding params,
scorer id, template sha256, output-schema version, rendered messages, sample index; for an
embedding judge, the model identity and the text. API keys and headers are never part of a key
or a value: :func:`cache_key` rejects parts whose names look like credentials.

The stored value is the raw response plus usage, so a parser change re-parses from the cache
without new calls.

Modes: ``read-write`` (default), ``read-only`` (never writes), ``off`` (never reads or writes),
``cache-only`` (a miss raises :class:`judge.errors.CacheMissError`: reproduce a run offline).
The directory defaults to ``$SIMJUDGE_CACHE_DIR`` or ``~/.cache/simjudge``.

A bundle's cache (``simjudge export --with-cache``) is a JSON cache directory
(:mod:`judge.jsoncache`): read in ``read-only``/``cache-only`` mode, every entry's sha256
verified when the cache is opened, never unpickled. A bundle whose ``cache/`` is a diskcache
database (its values are pickles, which can run code when loaded) is refused.

Storage (issue 11, "Disk and concurrency"):

* ``read-only`` and ``cache-only`` open the SQLite file itself read-only (URI ``mode=ro``, and
  ``immutable=1`` when the directory is on a read-only filesystem, where SQLite cannot create the
  WAL index): they work on a read-only mount or a directory the user may not write to.
  ``diskcache.Cache`` always writes when it opens (tables, settings), so it is used for
  ``read-write`` only.
* A write that the filesystem refuses (disk full ``ENOSPC``, file size limit ``EFBIG``, quota,
  I/O error) loses no paid answer: the answer is kept in memory (:attr:`JudgeCache.unstored`,
  served by :meth:`JudgeCache.get` to the rest of the run), a warning says so at once
  (:class:`judge.errors.CacheRefusedWarning`), the disk is tried again every :data:`RETRY_S`
  seconds (what was held is stored when it takes writes again) and :meth:`JudgeCache.flush`
  tries once more at the end; what is still held goes into the run (``unstored_answers.jsonl``,
  :func:`judge.jsoncache.unstored_rows`), from where ``simjudge cache import`` stores it once
  there is room. A cache that cannot even be opened for writing because the disk is full is read
  without writing, every new answer held. Every answer stored before stays in the cache (each
  store is its own SQLite transaction), and the cross-process leases are skipped while their
  database refuses writes.
* Two processes sharing a cache directory do not pay twice for one call: cross-process
  leases per key (:mod:`judge.leases`, the base class of :class:`JudgeCache`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import socket
import sqlite3
import time
import urllib.parse
from json.encoder import encode_basestring
from pathlib import Path
from typing import Any

import diskcache

from judge.cachemodes import CACHE_MODES, CacheMode
from judge.errors import CacheEntryError, CacheMissError, InputError
from judge.jsoncache import JsonCacheStore, bundle_manifest, is_json_cache
from judge.leases import STORAGE_ERRORS as _STORAGE_ERRORS
from judge.leases import CacheLeases
from judge.safedisk import SafeDisk, UnsafeCacheValue

RETRY_S = 10.0
"""Seconds between two attempts to write to a cache that refused a write."""

_SECRET_NAMES = ("api_key", "apikey", "authorization", "headers", "token", "secret", "password")


class CacheStorageError(OSError):
    """The cache directory refused a read or write (disk full, file size limit, read-only
    filesystem, I/O error). Answers stored before the failure are kept."""


def default_cache_dir() -> Path:
    """``$SIMJUDGE_CACHE_DIR`` if set, else ``~/.cache/simjudge``."""
    env = os.environ.get("SIMJUDGE_CACHE_DIR")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "simjudge"


def canonical_json(obj: Any) -> str:
    """JSON with sorted keys, no insignificant whitespace, non-ASCII kept."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@functools.lru_cache(maxsize=4096)
def _secret_name(key: str) -> bool:
    name = key.lower().replace("-", "_")
    return any(s in name for s in _SECRET_NAMES) and name != "max_tokens"


def _check_no_secrets(obj: Any, path: tuple[Any, ...] = ()) -> None:
    items = obj.items() if isinstance(obj, dict) else enumerate(obj)
    for k, v in items:
        if isinstance(obj, dict) and _secret_name(str(k)):
            where = "".join(f"{p}." for p in path) + str(k)
            raise ValueError(f"cache key part {where!r} looks like a credential; "
                             "credentials are never part of a cache key")
        if isinstance(v, (dict, list)):
            _check_no_secrets(v, (*path, k))


def cache_key(**parts: Any) -> str:
    """sha256 hex digest of the canonical JSON of ``parts``.

    Raises:
        ValueError: a part (at any depth) is named like a credential (``api_key``,
            ``authorization``, ``headers``…).
    """
    _check_no_secrets(parts)
    return hashlib.sha256(canonical_json(parts).encode("utf-8")).hexdigest()


class KeyTemplate:
    """:func:`cache_key` of many part sets that differ only in one string part (an embedding
    judge's key per string): the canonical JSON of the other parts is built and checked once,
    each key then costs one string escape and one sha256 — the same digest as
    ``cache_key(**parts, **{field: value})``.

    Args:
        field: the name of the part that varies.
        parts: the parts that do not vary.

    Raises:
        ValueError: a part is named like a credential (as :func:`cache_key`).
    """

    _SLOT = "\x00slot\x00"

    def __init__(self, field: str, **parts: Any) -> None:
        full = {**parts, field: self._SLOT}
        _check_no_secrets(full)
        self._head, self._tail = canonical_json(full).split(json.dumps(self._SLOT), 1)

    def key(self, value: str) -> str:
        """The key of the parts with ``field`` = ``value`` (a str)."""
        # encode_basestring is what json.dumps(value, ensure_ascii=False) returns for a str,
        # without building an encoder each call (two keys per pair of an embedding judge)
        text = self._head + encode_basestring(value) + self._tail
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _full(exc: BaseException) -> bool:
    """Whether a storage error means no room (disk full, quota, file size limit)."""
    import errno

    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        return True
    return getattr(exc, "sqlite_errorname", "") == "SQLITE_FULL" or "disk is full" in str(exc)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    name = getattr(exc, "sqlite_errorname", None)
    return f"{exc} ({name})" if name else str(exc) or type(exc).__name__


class ReadOnlyStore:
    """Reads a diskcache directory without writing anything (not even SQLite's WAL index).

    Opens ``DIR/cache.db`` with the URI ``mode=ro``; where SQLite cannot open it so (a read-only
    filesystem without the ``-shm``/``-wal`` files), with ``immutable=1``, which is safe because
    nobody can write there. Values are decoded by :class:`judge.safedisk.SafeDisk` (plain data
    only, never code), as ``JudgeCache``'s diskcache decodes them.

    Raises:
        sqlite3.Error: the file is not a diskcache database.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        path = urllib.parse.quote(str((directory / "cache.db").resolve()))
        con: sqlite3.Connection | None = None
        last: sqlite3.Error | None = None
        for flags in ("mode=ro", "mode=ro&immutable=1"):
            try:
                con = sqlite3.connect(f"file:{path}?{flags}", uri=True)
                con.execute("SELECT 1 FROM Cache LIMIT 1").fetchall()
                break
            except sqlite3.OperationalError as exc:
                last = exc
                if con is not None:
                    con.close()
                con = None
        if con is None:
            assert last is not None
            raise last
        self._con = con
        self._disk = SafeDisk(str(directory))

    def get(self, key: str) -> Any | None:
        """The unexpired value stored under ``key``, or None."""
        db_key, raw = self._disk.put(key)
        rows = self._con.execute(
            "SELECT mode, filename, value FROM Cache WHERE key = ? AND raw = ?"
            " AND (expire_time IS NULL OR expire_time > ?)", (db_key, raw, time.time())).fetchall()
        if not rows:
            return None
        mode, filename, value = rows[0]
        try:
            return self._disk.fetch(mode, filename, value, False)
        except OSError:
            return None

    def __len__(self) -> int:
        (n,) = self._con.execute("SELECT value FROM Settings WHERE key = 'count'").fetchone()
        return int(n)

    def volume(self) -> int:
        """Bytes on disk as ``diskcache.Cache.volume``: database pages plus value files."""
        (pages,) = self._con.execute("PRAGMA page_count").fetchone()
        (page_size,) = self._con.execute("PRAGMA page_size").fetchone()
        (size,) = self._con.execute("SELECT value FROM Settings WHERE key = 'size'").fetchone()
        return int(pages) * int(page_size) + int(size)

    def close(self) -> None:
        """Close the connection."""
        self._con.close()


class JudgeCache(CacheLeases):
    """A diskcache directory with one of the four modes.

    Args:
        directory: cache directory (created when writing is allowed); None → default.
        mode: ``read-write``, ``read-only``, ``off`` or ``cache-only``.
        lease_ttl_s: seconds a cross-process lease (:meth:`claim`) lives without renewal; its
            holder renews it every third of that while it works.
        max_wait_s: longest wait for another process's answer before calling anyway (in
            :meth:`claim`; callers of :meth:`try_claim_many` bound their waits with it).

    Raises:
        ValueError: unknown mode.
        judge.errors.InputError: (read modes) ``directory`` is a JSON cache directory whose
            entries fail their sha256 or JSON check (:class:`judge.jsoncache.JsonCacheStore`:
            all are checked here, before any is used); it is a bundle's diskcache (pickle)
            cache.
    """

    def __init__(self, directory: str | Path | None = None,
                 mode: CacheMode | str = "read-write", *, lease_ttl_s: float = 30.0,
                 max_wait_s: float = 600.0) -> None:
        if mode not in CACHE_MODES:
            raise ValueError(f"cache mode: expected one of {CACHE_MODES}, got {mode!r}")
        self.mode = mode
        self.directory = Path(directory).expanduser() if directory else default_cache_dir()
        self.lease_ttl_s = lease_ttl_s
        self.max_wait_s = max_wait_s
        self.stored = 0  # answers stored by this object (for the disk-full message)
        self.unstored: dict[str, Any] = {}  # answers the disk refused, held (module docstring)
        self.refused: str | None = None  # why the disk first refused a write
        self.dropped = 0  # refused answers not held: recomputed for free (set_many)
        self._retry_at = 0.0
        self._cache: diskcache.Cache | None = None
        self._ro: ReadOnlyStore | None = None
        self._json: JsonCacheStore | None = None
        self._leases: diskcache.Cache | None = None
        self._owner = {"host": socket.gethostname(), "pid": os.getpid()}
        if mode != "off":
            self._check_bundle()

    def _check_bundle(self) -> None:
        """Open (and so verify) a JSON cache directory in a read mode; refuse a bundle's
        pickled diskcache."""
        if is_json_cache(self.directory):
            if self.mode in ("read-only", "cache-only"):
                self._json = JsonCacheStore(self.directory)
        elif ((self.directory / "cache.db").exists()
              and bundle_manifest(self.directory) is not None):
            raise InputError(
                "this bundle's cache is a diskcache database, whose values are pickles that "
                "can run code when loaded: it is not read. Export the run again with this "
                "simjudge (its cache entries are then JSON, each checked by sha256)",
                self.directory)

    # ------------------------------------------------------------------ storage
    def _open(self) -> diskcache.Cache | ReadOnlyStore | JsonCacheStore | None:
        if self.mode == "off":
            return None
        if self._json is not None:
            return self._json
        if is_json_cache(self.directory):
            if self.mode == "read-write":  # a bundle's cache is never written
                raise InputError("a JSON cache directory (a bundle's cache) is read-only: use "
                                 "--cache-mode cache-only (or read-only)", self.directory)
            self._json = JsonCacheStore(self.directory)
            return self._json
        if self.mode in ("read-only", "cache-only"):
            if self._ro is None:
                if not (self.directory / "cache.db").exists():
                    return None
                try:
                    self._ro = ReadOnlyStore(self.directory)
                except sqlite3.Error as exc:
                    raise InputError(f"cannot read the cache: {_reason(exc)}",
                                     self.directory) from None
            return self._ro
        if self._cache is None:
            if self.refused and self._ro is not None:
                return self._ro  # a full disk refused to open it for writing: read only
            try:
                self._cache = diskcache.Cache(str(self.directory), disk=SafeDisk)
            except _STORAGE_ERRORS as exc:
                if _full(exc) and (self.directory / "cache.db").exists():
                    try:  # a database the full disk let diskcache create has no table
                        ro = ReadOnlyStore(self.directory)
                    except sqlite3.Error:
                        ro = None
                    if ro is not None:
                        self._refuse(exc)
                        self._ro = ro
                        return self._ro
                raise InputError(
                    f"cannot open the cache for writing: {_reason(exc)} (use --cache-mode "
                    "read-only to reuse it without writing, or --cache-dir elsewhere)",
                    self.directory) from None
        return self._cache

    def _storage_error(self, doing: str, exc: BaseException) -> CacheStorageError:
        return CacheStorageError(
            f"cannot {doing} the judge-call cache in {self.directory}: {_reason(exc)}. The "
            f"{self.stored} answer(s) stored by this run before it are kept; free space (or "
            "raise the limit) and rerun: stored calls are not paid for again")

    def _refuse(self, exc: BaseException) -> None:
        """Note a refused write: warn the first time, try the disk again after
        :data:`RETRY_S`."""
        import warnings

        from judge.errors import CacheRefusedWarning

        if self.refused is None:
            self.refused = _reason(exc)
            warnings.warn(CacheRefusedWarning(
                f"the judge-call cache in {self.directory} refused a write ({self.refused}) "
                f"after {self.stored} answer(s) stored by this run: the answers are kept in "
                "memory (simjudge eval writes them into the run's unstored_answers.jsonl); "
                "free space to keep the cache growing"), stacklevel=3)
        self._retry_at = time.monotonic() + RETRY_S

    def _writable(self) -> diskcache.Cache | None:
        """The diskcache to write to now, or None while it refuses writes (until the retry
        time; what was held is then stored first)."""
        cache = self._open()
        if not isinstance(cache, diskcache.Cache) or (
                self.refused and time.monotonic() < self._retry_at):
            return None
        if self.unstored and self.flush() is None:
            return None
        return cache

    def flush(self) -> int | None:
        """Store the answers held in memory (one transaction); returns how many were stored
        (0 when none were held), or None when the disk still refuses (they stay held)."""
        if not self.unstored or self.mode != "read-write":
            return 0
        cache = self._open()
        if not isinstance(cache, diskcache.Cache):
            return None
        held = self.unstored
        try:
            with cache.transact(retry=True):
                for key, value in held.items():
                    cache.set(key, value)
        except _STORAGE_ERRORS as exc:
            self._refuse(exc)
            return None
        self.unstored = {}
        self.stored += len(held)
        return len(held)

    def storage_summary(self) -> dict[str, Any]:
        """``{"cache_refused": {"reason", "stored", "unstored", "dropped"}}`` when the disk
        refused a write during the run (answers stored by this run, answers still held, free
        answers not held), else {}."""
        if self.refused is None:
            return {}
        return {"cache_refused": {"reason": self.refused, "stored": self.stored,
                                  "unstored": len(self.unstored), "dropped": self.dropped}}

    def get(self, key: str) -> Any | None:
        """The stored value (or one held in memory after the disk refused it), or None on a
        miss (or in ``off`` mode).

        Raises:
            CacheMissError: a miss in ``cache-only`` mode.
            judge.errors.InputError: the stored value is not plain data (a pickle naming a
                class or function, :mod:`judge.safedisk`: nothing in it runs); the directory
                cannot be opened (read-write mode: not
                writable; read modes: not a cache).
            CacheStorageError: the database refused the read.
        """
        if key in self.unstored:
            return self.unstored[key]
        store = self._open()
        try:
            value = store.get(key) if store is not None else None
        except _STORAGE_ERRORS as exc:
            raise self._storage_error("read", exc) from None
        except UnsafeCacheValue as exc:
            raise InputError(f"the cached answer for key {key[:16]}… is not plain data, so it "
                             f"was not loaded ({exc}): this cache was written by something "
                             "else than simjudge; use another --cache-dir", self.directory
                             ) from None
        if value is None and self.mode == "cache-only":
            raise CacheMissError(
                f"cache-only mode: no cached answer for key {key[:16]}… in {self.directory}")
        return value

    def unusable(self, key: str, judge_id: str, what: str = "stored answer") -> None:
        """A judge found the entry under ``key`` unusable (not a ``what`` it can read). Outside
        ``cache-only`` mode nothing happens: the judge calls again and the new answer replaces
        the entry. In ``cache-only`` mode the run stops: a call there would send the user's
        API key to whatever server the replayed command names (issue 36).

        Raises:
            judge.errors.CacheEntryError: in ``cache-only`` mode.
        """
        if self.mode == "cache-only":
            raise CacheEntryError(
                f"cache-only mode: the cache entry for key {key[:16]}… in {self.directory} is "
                f"not a {what} of judge {judge_id} (the cache is damaged or was edited); no "
                "judge was called")

    def set(self, key: str, value: Any) -> bool:
        """Store ``value`` (JSON-like) unless the mode forbids writing; returns whether stored
        on disk. When the filesystem refuses (disk full, size limit…) the value is held in
        :attr:`unstored` instead (module docstring) and False is returned."""
        if self.mode != "read-write":
            return False
        cache = self._writable()
        if cache is not None:
            try:
                cache.set(key, value, retry=True)
            except _STORAGE_ERRORS as exc:
                self._refuse(exc)
            else:
                self.stored += 1
                return True
        self.unstored[key] = value
        return False

    def set_many(self, entries: dict[str, Any], hold: bool = True) -> int:
        """Store several entries in one transaction (one disk sync instead of one per entry);
        returns how many were stored on disk (0 unless the mode is ``read-write``). When the
        filesystem refuses, none is stored and all are held in :attr:`unstored` — unless
        ``hold`` is False (answers recomputed for free, the local encoder's vectors: they are
        only counted in :attr:`dropped`)."""
        if self.mode != "read-write" or not entries:
            return 0
        cache = self._writable()
        if cache is not None:
            try:
                with cache.transact(retry=True):
                    for key, value in entries.items():
                        cache.set(key, value)
            except _STORAGE_ERRORS as exc:
                self._refuse(exc)
            else:
                self.stored += len(entries)
                return len(entries)
        if hold:
            self.unstored.update(entries)
        else:
            self.dropped += len(entries)
        return 0

    def stats(self) -> dict[str, Any]:
        """``{"directory", "mode", "entries", "size_bytes"}`` (read without writing, so a
        read-only cache can be inspected)."""
        empty = {"directory": str(self.directory), "mode": self.mode, "entries": 0,
                 "size_bytes": 0}
        if self._cache is not None:
            return {**empty, "entries": len(self._cache), "size_bytes": int(self._cache.volume())}
        if is_json_cache(self.directory):
            js = self._json or JsonCacheStore(self.directory)
            return {**empty, "entries": len(js), "size_bytes": js.volume()}
        if not (self.directory / "cache.db").exists():
            return empty
        try:
            store = ReadOnlyStore(self.directory)
        except sqlite3.Error as exc:
            raise InputError(f"cannot read the cache: {_reason(exc)}", self.directory) from None
        try:
            return {**empty, "entries": len(store), "size_bytes": store.volume()}
        finally:
            store.close()

    def clear(self) -> int:
        """Delete every entry; returns how many were removed.

        Raises:
            CacheStorageError: the directory cannot be written (read-only filesystem,
                permissions, full disk); nothing is removed.
        """
        if not self.directory.exists():
            return 0
        try:
            cache = diskcache.Cache(str(self.directory), disk=SafeDisk)
            try:
                n = int(cache.clear())
            finally:
                cache.close()
        except (OSError, sqlite3.Error) as exc:
            raise CacheStorageError(f"cannot clear the cache in {self.directory}: {exc}"
                                    ) from None
        return n

    def close(self) -> None:
        """Close the underlying databases."""
        for c in (self._cache, self._ro, self._json, self._leases):
            if c is not None:
                c.close()
        self._cache = self._ro = self._json = self._leases = None
