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
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Literal

import diskcache

from judge.errors import CacheMissError

CacheMode = Literal["read-write", "read-only", "off", "cache-only"]
CACHE_MODES: tuple[str, ...] = ("read-write", "read-only", "off", "cache-only")

_SECRET_NAMES = ("api_key", "apikey", "authorization", "headers", "token", "secret", "password")


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


class JudgeCache:
    """A diskcache directory with one of the four modes.

    Args:
        directory: cache directory (created when writing is allowed); None → default.
        mode: ``read-write``, ``read-only``, ``off`` or ``cache-only``.

    Raises:
        ValueError: unknown mode.
    """

    def __init__(self, directory: str | Path | None = None,
                 mode: CacheMode | str = "read-write") -> None:
        if mode not in CACHE_MODES:
            raise ValueError(f"cache mode: expected one of {CACHE_MODES}, got {mode!r}")
        self.mode = mode
        self.directory = Path(directory).expanduser() if directory else default_cache_dir()
        self._cache: diskcache.Cache | None = None

    def _open(self) -> diskcache.Cache | None:
        if self.mode == "off":
            return None
        if self._cache is None:
            if self.mode in ("read-only", "cache-only") and not self.directory.exists():
                return None
            self._cache = diskcache.Cache(str(self.directory))
        return self._cache

    def get(self, key: str) -> Any | None:
        """The stored value, or None on a miss (or in ``off`` mode).

        Raises:
            CacheMissError: a miss in ``cache-only`` mode.
        """
        cache = self._open()
        value = cache.get(key) if cache is not None else None
        if value is None and self.mode == "cache-only":
            raise CacheMissError(
                f"cache-only mode: no cached answer for key {key[:16]}… in {self.directory}")
        return value

    def set(self, key: str, value: Any) -> bool:
        """Store ``value`` (JSON-like) unless the mode forbids writing; returns whether stored."""
        if self.mode != "read-write":
            return False
        cache = self._open()
        assert cache is not None
        cache.set(key, value)
        return True

    def set_many(self, entries: dict[str, Any]) -> int:
        """Store several entries in one transaction (one disk sync instead of one per entry);
        returns how many were stored (0 unless the mode is ``read-write``)."""
        if self.mode != "read-write" or not entries:
            return 0
        cache = self._open()
        assert cache is not None
        with cache.transact():
            for key, value in entries.items():
                cache.set(key, value)
        return len(entries)

    def stats(self) -> dict[str, Any]:
        """``{"directory", "mode", "entries", "size_bytes"}``."""
        cache = self._open() if self.directory.exists() else None
        if cache is None:
            return {"directory": str(self.directory), "mode": self.mode, "entries": 0,
                    "size_bytes": 0}
        return {"directory": str(self.directory), "mode": self.mode, "entries": len(cache),
                "size_bytes": int(cache.volume())}

    def clear(self) -> int:
        """Delete every entry; returns how many were removed."""
        if not self.directory.exists():
            return 0
        cache = diskcache.Cache(str(self.directory))
        n = int(cache.clear())
        cache.close()
        return n

    def close(self) -> None:
        """Close the underlying database."""
        if self._cache is not None:
            self._cache.close()
            self._cache = None
