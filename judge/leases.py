"""Cross-process leases of the judge-call cache: two processes sharing a cache directory do
not pay twice for one call.

:meth:`CacheLeases.claim` takes a short lease per key in a side database (``DIR/leases``;
``diskcache.Cache.add`` is atomic across processes) before calling; the other process waits for
the answer. A lease is renewed while its holder works and lapses ``lease_ttl_s`` after the
holder stops renewing it; a holder on this host whose process is gone is detected at once. A
waiter calls anyway after ``max_wait_s``. A judge that sends many keys in one request (the
embedding judge) uses :meth:`CacheLeases.try_claim_many` instead: it takes the free leases of a
batch at once without waiting, and :meth:`CacheLeases.wait_any` waits, holding no lease, for the
keys others hold. Two processes taking overlapping key sets therefore cannot deadlock.

While the lease database refuses writes (a full disk), calls go ahead without a lease
(:attr:`CacheLeases.leases_refused`): the cache keeps their answers in memory; only the sharing
between processes is lost.

:class:`CacheLeases` is the lease half of :class:`judge.cache.JudgeCache` (a base class): it
uses the cache's ``mode``, ``directory``, ``get``, ``lease_ttl_s``, ``max_wait_s`` and
``_storage_error``, declared below.
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import sqlite3
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import diskcache

from judge.record.outdir import pid_alive
from judge.safedisk import SafeDisk

STORAGE_ERRORS = (OSError, sqlite3.Error, diskcache.Timeout)
"""What the storage layer raises when the filesystem refuses (disk full, I/O error, lock
timeout)."""


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


class CacheLeases(abc.ABC):
    """The lease methods of :class:`judge.cache.JudgeCache` (see the module docstring); the
    cache provides :meth:`get` and :meth:`_storage_error`."""

    mode: str
    directory: Path
    lease_ttl_s: float
    max_wait_s: float
    _leases: diskcache.Cache | None = None
    _owner: dict[str, Any]  # {"host", "pid"} of this process, set by JudgeCache
    leases_refused: int = 0  # claims that went ahead without a lease (the database refused)
    _lease_retry_at: float = 0.0  # until then, after a refusal, no lease is tried

    @abc.abstractmethod
    def get(self, key: str) -> Any | None:
        """The cached value of ``key`` (None when absent)."""

    @abc.abstractmethod
    def _storage_error(self, doing: str, exc: BaseException) -> OSError:
        """The error to raise when the storage refused ``doing`` (disk full…)."""

    def _lease_db(self) -> diskcache.Cache:
        if self._leases is None:
            try:
                self._leases = diskcache.Cache(str(self.directory / "leases"),
                                               eviction_policy="none", disk=SafeDisk)
            except STORAGE_ERRORS as exc:
                raise self._storage_error("open the leases of", exc) from None
        return self._leases

    def _try_lease(self, key: str) -> str | None:
        token = uuid.uuid4().hex
        try:
            added = self._lease_db().add(f"{key}:lease", {**self._owner, "token": token},
                                         expire=self.lease_ttl_s, retry=True)
        except STORAGE_ERRORS as exc:
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

        A lease database that refuses writes (disk full…) is skipped: the body runs at once.
        """
        if self.mode != "read-write" or time.monotonic() < self._lease_retry_at:
            yield
            return
        deadline = time.monotonic() + self.max_wait_s
        token: str | None = None
        while self.get(key) is None:
            if slots is not None:
                await slots.acquire()
            refused = False
            try:
                token = self._try_lease(key)
            except OSError:  # the lease database refused a write (disk full): no lease
                refused = True
                self.leases_refused += 1
                self._lease_retry_at = time.monotonic() + 10.0
            finally:
                if token is None and slots is not None:
                    slots.release()
            if token is not None or refused:
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
            except STORAGE_ERRORS as exc:
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
        with contextlib.suppress(*STORAGE_ERRORS), db.transact(retry=True):
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
            except STORAGE_ERRORS:
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

        A lease database that refuses writes (disk full…) is skipped: the first ``limit`` keys
        are held without leases (the leases taken before are released).
        """
        limit = len(keys) if limit is None else max(1, limit)
        if self.mode != "read-write":
            yield LeaseSet(held=list(keys[:limit]), untried=list(keys[limit:]))
            return
        tokens: dict[str, str] = {}
        try:
            try:
                leases = self._take_leases(keys, limit, tokens)
            except OSError:  # the lease database refused a write (disk full): no lease
                self.leases_refused += 1
                self._release_many(tokens)
                tokens.clear()
                leases = LeaseSet(held=list(keys[:limit]), untried=list(keys[limit:]))
            renew = asyncio.ensure_future(self._renew_many(tokens)) if tokens else None
            try:
                yield leases
            finally:
                if renew is not None:
                    renew.cancel()
        finally:
            self._release_many(tokens)
