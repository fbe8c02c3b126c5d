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

Storage (issue 11, "Disk and concurrency"):

* ``read-only`` and ``cache-only`` open the SQLite file itself read-only (URI ``mode=ro``, and
  ``immutable=1`` when the directory is on a read-only filesystem, where SQLite cannot create the
  WAL index): they work on a read-only mount or a directory the user may not write to.
  ``diskcache.Cache`` always writes when it opens (tables, settings), so it is used for
  ``read-write`` only.
* A write that the filesystem refuses (disk full ``ENOSPC``, file size limit ``EFBIG``, quota,
  I/O error) raises :class:`CacheStorageError` at once: the run stops with one message instead of
  paying for answers it cannot keep. Every answer stored before stays in the cache (each store is
  its own SQLite transaction), so a rerun pays for none of them.
* Two processes sharing a cache directory do not pay twice for one call: :meth:`JudgeCache.claim`
  takes a short lease per key in a side database (``DIR/leases``; ``diskcache.Cache.add`` is
  atomic across processes) before calling; the other process waits for the answer. A lease is
  renewed while its holder works and lapses ``lease_ttl_s`` after the holder stops renewing it; a
  holder on this host whose process is gone is detected at once. A waiter calls anyway after
  ``max_wait_s``. A judge that sends many keys in one request (the embedding judge) uses
  :meth:`JudgeCache.try_claim_many` instead: it takes the free leases of a batch at once without
  waiting, and :meth:`JudgeCache.wait_any` waits, holding no lease, for the keys others hold.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import socket
import sqlite3
import time
import urllib.parse
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import diskcache

from judge.errors import CacheMissError, InputError
from judge.runs.atomic import pid_alive

CacheMode = Literal["read-write", "read-only", "off", "cache-only"]
CACHE_MODES: tuple[str, ...] = ("read-write", "read-only", "off", "cache-only")

_SECRET_NAMES = ("api_key", "apikey", "authorization", "headers", "token", "secret", "password")
_STORAGE_ERRORS = (OSError, sqlite3.Error, diskcache.Timeout)


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


def _check_no_secrets(obj: Any, path: str = "") -> None:
    if isinstance(obj, dict):
        for k, v in obj.items():
            name = str(k).lower().replace("-", "_")
            if any(s in name for s in _SECRET_NAMES) and name != "max_tokens":
                raise ValueError(f"cache key part {path + str(k)!r} looks like a credential; "
                                 "credentials are never part of a cache key")
            _check_no_secrets(v, f"{path}{k}.")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            _check_no_secrets(v, f"{path}{i}.")


def cache_key(**parts: Any) -> str:
    """sha256 hex digest of the canonical JSON of ``parts``.

    Raises:
        ValueError: a part (at any depth) is named like a credential (``api_key``,
            ``authorization``, ``headers``…).
    """
    _check_no_secrets(parts)
    return hashlib.sha256(canonical_json(parts).encode("utf-8")).hexdigest()


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    name = getattr(exc, "sqlite_errorname", None)
    return f"{exc} ({name})" if name else str(exc) or type(exc).__name__


class ReadOnlyStore:
    """Reads a diskcache directory without writing anything (not even SQLite's WAL index).

    Opens ``DIR/cache.db`` with the URI ``mode=ro``; where SQLite cannot open it so (a read-only
    filesystem without the ``-shm``/``-wal`` files), with ``immutable=1``, which is safe because
    nobody can write there. Values are decoded by ``diskcache.Disk`` as ``Cache.get`` does.

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
        self._disk = diskcache.Disk(str(directory))

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


@dataclass
class LeaseSet:
    """What :meth:`JudgeCache.try_claim_many` got for a sequence of keys (each list keeps the
    order of the keys given).

    Attributes:
        held: keys this process computes now: their leases are held (``read-write`` mode) or,
            in the other modes, no lease exists and the keys are simply handed out.
        busy: keys whose lease another live process holds (wait with
            :meth:`JudgeCache.wait_any`, then try them again).
        untried: keys not looked at because ``limit`` keys were held already.
        leased: True when leases were really taken (``read-write`` mode): the caller must then
            read the cache for its held keys first (another process may have stored the answer
            just before the lease was taken).
    """

    held: list[str] = field(default_factory=list)
    busy: list[str] = field(default_factory=list)
    untried: list[str] = field(default_factory=list)
    leased: bool = False


class JudgeCache:
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
        self._cache: diskcache.Cache | None = None
        self._ro: ReadOnlyStore | None = None
        self._leases: diskcache.Cache | None = None
        self._owner = {"host": socket.gethostname(), "pid": os.getpid()}

    # ------------------------------------------------------------------ storage
    def _open(self) -> diskcache.Cache | ReadOnlyStore | None:
        if self.mode == "off":
            return None
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
            try:
                self._cache = diskcache.Cache(str(self.directory))
            except _STORAGE_ERRORS as exc:
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

    def get(self, key: str) -> Any | None:
        """The stored value, or None on a miss (or in ``off`` mode).

        Raises:
            CacheMissError: a miss in ``cache-only`` mode.
            judge.errors.InputError: the directory cannot be opened (read-write mode: not
                writable; read modes: not a cache).
            CacheStorageError: the database refused the read.
        """
        store = self._open()
        try:
            value = store.get(key) if store is not None else None
        except _STORAGE_ERRORS as exc:
            raise self._storage_error("read", exc) from None
        if value is None and self.mode == "cache-only":
            raise CacheMissError(
                f"cache-only mode: no cached answer for key {key[:16]}… in {self.directory}")
        return value

    def set(self, key: str, value: Any) -> bool:
        """Store ``value`` (JSON-like) unless the mode forbids writing; returns whether stored.

        Raises:
            CacheStorageError: the filesystem refused the write (disk full, size limit…).
        """
        if self.mode != "read-write":
            return False
        cache = self._open()
        assert isinstance(cache, diskcache.Cache)
        try:
            cache.set(key, value, retry=True)
        except _STORAGE_ERRORS as exc:
            raise self._storage_error("write to", exc) from None
        self.stored += 1
        return True

    def set_many(self, entries: dict[str, Any]) -> int:
        """Store several entries in one transaction (one disk sync instead of one per entry);
        returns how many were stored (0 unless the mode is ``read-write``).

        Raises:
            CacheStorageError: the filesystem refused the write; none of ``entries`` is stored.
        """
        if self.mode != "read-write" or not entries:
            return 0
        cache = self._open()
        assert isinstance(cache, diskcache.Cache)
        try:
            with cache.transact(retry=True):
                for key, value in entries.items():
                    cache.set(key, value)
        except _STORAGE_ERRORS as exc:
            raise self._storage_error("write to", exc) from None
        self.stored += len(entries)
        return len(entries)

    def stats(self) -> dict[str, Any]:
        """``{"directory", "mode", "entries", "size_bytes"}`` (read without writing, so a
        read-only cache can be inspected)."""
        empty = {"directory": str(self.directory), "mode": self.mode, "entries": 0,
                 "size_bytes": 0}
        if self._cache is not None:
            return {**empty, "entries": len(self._cache), "size_bytes": int(self._cache.volume())}
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
            cache = diskcache.Cache(str(self.directory))
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
        for c in (self._cache, self._ro, self._leases):
            if c is not None:
                c.close()
        self._cache = self._ro = self._leases = None

    # ------------------------------------------------------------------ leases
    def _lease_db(self) -> diskcache.Cache:
        if self._leases is None:
            try:
                self._leases = diskcache.Cache(str(self.directory / "leases"),
                                               eviction_policy="none")
            except _STORAGE_ERRORS as exc:
                raise self._storage_error("open the leases of", exc) from None
        return self._leases

    def _try_lease(self, key: str) -> str | None:
        token = uuid.uuid4().hex
        try:
            added = self._lease_db().add(f"{key}:lease", {**self._owner, "token": token},
                                         expire=self.lease_ttl_s, retry=True)
        except _STORAGE_ERRORS as exc:
            raise self._storage_error("write to", exc) from None
        return token if added else None

    def _lease_free(self, key: str) -> bool:
        """True when nobody holds ``key``'s lease (expired, released, or its holder on this
        host is dead — then the stale lease is removed)."""
        db = self._lease_db()
        holder = db.get(f"{key}:lease", retry=True)
        if holder is None:
            return True
        if holder.get("host") == self._owner["host"] and not pid_alive(int(holder["pid"])):
            self._release(key, holder["token"])
            return True
        return False

    def _release(self, key: str, token: str) -> None:
        self._release_many({key: token})

    async def _renew(self, key: str, token: str) -> None:
        await self._renew_many({key: token})

    @asynccontextmanager
    async def claim(self, key: str, slots: asyncio.Semaphore | None = None,
                    ) -> AsyncIterator[None]:
        """Make the body the only computation of ``key`` among processes sharing the cache.

        In ``read-write`` mode, when ``key`` is not cached: take the key's lease (atomic across
        processes) and run the body holding it, renewing it; if another process holds it, wait
        (polling, without holding a slot) until it stores the answer or gives the lease up, then
        try again. The body must read the cache first (the answer may have arrived) and store a
        successful answer before leaving; the lease is released on exit, also on an error.
        Other modes: the body runs at once.

        Args:
            key: the cache key.
            slots: bounds the leases this process holds at once (use one semaphore per judge
                run, sized like its concurrency), so leases are held only by calls in flight.

        Raises:
            CacheStorageError: the lease database cannot be written (disk full…).
        """
        if self.mode != "read-write":
            yield
            return
        deadline = time.monotonic() + self.max_wait_s
        token: str | None = None
        while self.get(key) is None:
            if slots is not None:
                await slots.acquire()
            try:
                token = self._try_lease(key)
            finally:
                if token is None and slots is not None:
                    slots.release()
            if token is not None:
                break
            if not await self._wait([key], deadline):
                break  # waited max_wait_s: call anyway
        if token is None:
            yield
            return
        renew = asyncio.ensure_future(self._renew(key, token))
        try:
            yield
        finally:
            renew.cancel()
            self._release(key, token)
            if slots is not None:
                slots.release()

    async def _wait(self, keys: Sequence[str], deadline: float) -> bool:
        """Poll (20 ms growing to 250 ms) until one of ``keys`` is free or answered: True, or
        False at ``deadline`` (``time.monotonic``)."""
        delay = 0.02
        while time.monotonic() < deadline:
            await asyncio.sleep(delay)
            delay = min(delay * 1.5, 0.25)
            if any(self._lease_free(key) or self.get(key) is not None for key in keys):
                return True
        return False

    async def wait_any(self, keys: Sequence[str], timeout_s: float) -> bool:
        """Wait, holding no lease, until one of ``keys`` is answered in the cache or its lease
        is free (released, lapsed after ``lease_ttl_s``, or its holder on this host is dead).

        Args:
            keys: cache keys, typically :attr:`LeaseSet.busy` of :meth:`try_claim_many`.
            timeout_s: longest wait in seconds (``<= 0``: look once, without sleeping).

        Returns:
            True when one of them is answered or free (always, outside ``read-write`` mode or
            for no keys); False after ``timeout_s`` (then compute them without a lease, as
            :meth:`claim` does after ``max_wait_s``).

        Raises:
            CacheStorageError: the cache or the lease database refused a read.
        """
        if self.mode != "read-write" or not keys:
            return True
        if timeout_s <= 0:
            return any(self._lease_free(key) or self.get(key) is not None for key in keys)
        return await self._wait(keys, time.monotonic() + timeout_s)

    def _take_leases(self, keys: Sequence[str], limit: int, tokens: dict[str, str],
                     ) -> LeaseSet:
        """Take the free leases of ``keys`` in order until ``limit`` are held, filling
        ``tokens`` (key → token) as each is taken, so the caller can release them even when
        this raises. One write transaction per run of attempts."""
        out = LeaseSet(leased=True)
        db = self._lease_db()
        rest = list(keys)
        while rest and len(out.held) < limit:
            n = limit - len(out.held)
            chunk, rest = rest[:n], rest[n:]
            try:
                with db.transact(retry=True):
                    got = {}
                    for key in chunk:
                        token = uuid.uuid4().hex
                        if db.add(f"{key}:lease", {**self._owner, "token": token},
                                  expire=self.lease_ttl_s):
                            got[key] = token
                tokens.update(got)  # after the commit: these leases exist
            except _STORAGE_ERRORS as exc:
                raise self._storage_error("write to", exc) from None
            for key in chunk:
                if key not in tokens and self._lease_free(key):  # lapsed, or a dead holder
                    token_or_none = self._try_lease(key)
                    if token_or_none is not None:
                        tokens[key] = token_or_none
                (out.held if key in tokens else out.busy).append(key)
        out.untried = rest
        return out

    def _release_many(self, tokens: dict[str, str]) -> None:
        """Give up the leases ``tokens`` (key → token) that are still ours. Best effort: a
        lease the database refuses to delete (disk full…) lapses by itself after
        ``lease_ttl_s``, so the error is not raised over the body's own outcome."""
        if not tokens:
            return
        db = self._lease_db()
        with contextlib.suppress(*_STORAGE_ERRORS), db.transact(retry=True):
            for key, token in tokens.items():
                holder = db.get(f"{key}:lease")
                if holder is not None and holder.get("token") == token:
                    db.delete(f"{key}:lease")

    async def _renew_many(self, tokens: dict[str, str]) -> None:
        """Every ``lease_ttl_s / 3`` seconds, extend the leases ``tokens`` still held; stop
        when none is (or the database refuses: they then lapse after ``lease_ttl_s``)."""
        while True:
            await asyncio.sleep(self.lease_ttl_s / 3)
            try:
                db = self._lease_db()
                renewed = 0
                with db.transact(retry=True):
                    for key, token in tokens.items():
                        holder = db.get(f"{key}:lease")
                        if holder is not None and holder.get("token") == token:
                            db.touch(f"{key}:lease", expire=self.lease_ttl_s)
                            renewed += 1
                if not renewed:
                    return
            except _STORAGE_ERRORS:
                return

    @asynccontextmanager
    async def try_claim_many(self, keys: Sequence[str], limit: int | None = None,
                             ) -> AsyncIterator[LeaseSet]:
        """Take, without waiting, the leases of those ``keys`` that no other process holds,
        for a body that computes several keys at once (one batched request).

        In ``read-write`` mode each key's lease is taken as :meth:`claim` takes it (atomic
        across processes; a lease whose holder on this host is dead, or that lapsed after
        ``lease_ttl_s``, is taken over), in the order given, until ``limit`` are held. The
        body runs holding them (renewed every ``lease_ttl_s / 3``); they are all released when
        it leaves, also on an error or a cancellation. Nothing here waits, so two processes
        taking overlapping key sets cannot deadlock: the keys another process holds are
        returned as :attr:`LeaseSet.busy`, to be waited for with :meth:`wait_any` *after*
        leaving the body (holding nothing) and then tried again. The body must read the cache
        for its held keys first and store each successful answer before leaving.
        Other modes: no lease; the first ``limit`` keys are held, the rest untried.

        Args:
            keys: distinct cache keys not found in the cache.
            limit: most keys to hold (e.g. the request's batch size); None = all.

        Yields:
            a :class:`LeaseSet`.

        Raises:
            CacheStorageError: the lease database cannot be written (disk full…); the leases
                taken before are released.
        """
        limit = len(keys) if limit is None else max(1, limit)
        if self.mode != "read-write":
            yield LeaseSet(held=list(keys[:limit]), untried=list(keys[limit:]))
            return
        tokens: dict[str, str] = {}
        try:
            leases = self._take_leases(keys, limit, tokens)
            renew = asyncio.ensure_future(self._renew_many(tokens)) if tokens else None
            try:
                yield leases
            finally:
                if renew is not None:
                    renew.cancel()
        finally:
            self._release_many(tokens)
