"""A JSON cache directory: the portable, pickle-free form of judge-call cache entries that a
reproducibility bundle carries (``simjudge export --with-cache``), checked by sha256 before any
entry is used.

Why not the diskcache directory itself: diskcache stores a dict value as a pickle, and loading a
pickle can run code, so an untrusted bundle would run code on replay. Cache values are JSON by
design (DESIGN.md "Cache": the raw response plus usage), so they travel as JSON.

Layout of the directory ``DIR``::

    DIR/index.json           {"format": FORMAT, "sha256": {cache key: sha256 of its file}}
    DIR/entries/<key>.json   one entry: the canonical JSON (sorted keys, no whitespace, UTF-8)
                             of the value; ``bytes`` (the local encoder's float32 vectors) as
                             ``{BYTES_TAG: base64}``

Loading (:class:`JsonCacheStore`) reads every file listed, checks each sha256 against the index
— and, when ``DIR`` is a bundle's ``cache/`` folder, the index against the bundle's
``MANIFEST.json`` ``cache.sha256`` — and decodes it as strict JSON (no NaN, no pickle, no object
hook beyond the bytes tag), before the first entry is handed out: a tampered, missing or
non-JSON entry refuses the whole directory with a message naming the entry.

The same entries, one JSON line each with its key and sha256 (:func:`unstored_rows`,
:func:`read_unstored`), are how a run keeps the answers a full disk kept out of the cache
(``unstored_answers.jsonl``; ``simjudge cache import`` stores them).
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from judge.errors import InputError

FORMAT = "simjudge-json-cache/1"
"""The ``format`` of ``index.json`` (and of a bundle manifest's ``cache`` section)."""
INDEX = "index.json"
ENTRIES = "entries"
BYTES_TAG = "$simjudge.bytes.base64"
"""The one key of the JSON object standing for a ``bytes`` value."""
MANIFEST = "MANIFEST.json"
"""A bundle's manifest, beside its ``cache/`` folder (:mod:`judge.runs.export`)."""
_KEY = re.compile(r"^[0-9a-f]{64}$")


def _plain(value: Any, where: str) -> Any:
    """``value`` with every ``bytes`` replaced by its tag object; tuples become lists.

    Raises:
        ValueError: a type JSON cannot hold (set, numpy array, object…), a non-string dict key,
            a float that is NaN or infinite, or a dict that already looks like a bytes tag.
    """
    if isinstance(value, bytes):
        return {BYTES_TAG: base64.b64encode(value).decode("ascii")}
    if isinstance(value, dict):
        if set(value) == {BYTES_TAG}:
            raise ValueError(f"{where}: a dict with the single key {BYTES_TAG!r} is reserved")
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise ValueError(f"{where}: a non-string dict key {k!r}")
            out[k] = _plain(v, f"{where}.{k}")
        return out
    if isinstance(value, (list, tuple)):
        return [_plain(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{where}: {value!r} is not a finite number")
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise ValueError(f"{where}: a {type(value).__name__} cannot be stored as JSON")


def dumps_value(value: Any) -> bytes:
    """The entry file's bytes of one cache value (canonical JSON, UTF-8).

    Raises:
        ValueError: the value holds something JSON cannot (see :func:`_plain`).
    """
    return json.dumps(_plain(value, "value"), sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False, allow_nan=False).encode("utf-8")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _object(obj: dict[str, Any]) -> Any:
    if set(obj) == {BYTES_TAG}:
        if not isinstance(obj[BYTES_TAG], str):
            raise ValueError("a bytes tag without a base64 string")
        return base64.b64decode(obj[BYTES_TAG], validate=True)
    return obj


def loads_value(data: bytes) -> Any:
    """One cache value from its entry file's bytes (the inverse of :func:`dumps_value`).

    Raises:
        ValueError: not UTF-8, not strict JSON (NaN/Infinity included), or a malformed bytes
            tag. Nothing but JSON is ever decoded: a pickle is just bytes that fail here.
    """
    return json.loads(data.decode("utf-8"), parse_constant=_reject_constant,
                      object_hook=_object)


def sha256_hex(data: bytes) -> str:
    """sha256 hex digest of ``data``."""
    return hashlib.sha256(data).hexdigest()


def write_cache_dir(directory: Path, entries: Mapping[str, Any]) -> dict[str, str]:
    """Write ``entries`` (cache key → value) as a JSON cache directory (see the module
    docstring); ``directory`` is created and must not hold one already.

    Returns:
        cache key → sha256 of its entry file (what ``index.json`` lists).

    Raises:
        ValueError: a key that is not a sha256 hex digest, or a value JSON cannot hold (the
            key named).
        OSError: the disk refused a write.
    """
    files: dict[str, bytes] = {}
    for key, value in entries.items():
        if not _KEY.match(key):
            raise ValueError(f"cache key {key!r} is not a sha256 hex digest")
        try:
            files[key] = dumps_value(value)
        except ValueError as exc:
            raise ValueError(f"cache entry {key}: {exc}") from None
    (directory / ENTRIES).mkdir(parents=True)
    sums = {}
    for key in sorted(files):
        (directory / ENTRIES / f"{key}.json").write_bytes(files[key])
        sums[key] = sha256_hex(files[key])
    (directory / INDEX).write_text(json.dumps({"format": FORMAT, "sha256": sums}, indent=1)
                                   + "\n", encoding="utf-8")
    return sums


def is_json_cache(directory: Path) -> bool:
    """Whether ``directory`` is a JSON cache directory (it has ``index.json``)."""
    return (directory / INDEX).is_file()


def bundle_manifest(directory: Path) -> dict[str, Any] | None:
    """The manifest of the bundle whose ``cache/`` folder ``directory`` is, or None when
    ``directory`` is not in a bundle (no readable ``MANIFEST.json`` naming a ``bundle`` and a
    ``replay`` command beside it)."""
    path = directory.parent / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if isinstance(data, dict) and "bundle" in data and "replay" in data:
        return data
    return None


def _index(directory: Path) -> dict[str, str]:
    """``index.json``'s key → sha256 map.

    Raises:
        InputError: unreadable, not JSON, another format, or a malformed map.
    """
    path = directory / INDEX
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read the cache index: {exc}", path) from None
    sums = data.get("sha256") if isinstance(data, dict) else None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(sums, dict):
        raise InputError(f"not a {FORMAT} index", path)
    for key, sha in sums.items():
        if not _KEY.match(key) or not isinstance(sha, str) or not _KEY.match(sha):
            raise InputError(f"entry {key!r}: expected a sha256 key and a sha256 hex digest",
                             path, field="sha256")
    return sums


class JsonCacheStore:
    """A JSON cache directory, read-only, every entry verified when it is opened.

    Args:
        directory: the directory (see the module docstring).

    Raises:
        InputError: the index is unreadable or malformed; it disagrees with the bundle's
            ``MANIFEST.json`` (a listed entry missing, added or with another sha256); an entry
            file is missing, its sha256 differs from the one listed, or it is not JSON — each
            naming the entry; nothing is handed out then.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        sums = _index(directory)
        manifest = bundle_manifest(directory)
        if manifest is not None:
            listed = (manifest.get("cache") or {}).get("sha256")
            if not isinstance(listed, dict):
                raise InputError("the bundle's manifest lists no sha256 per cache entry",
                                 directory.parent / MANIFEST, field="cache")
            for key in sorted(set(listed) | set(sums)):
                if listed.get(key) != sums.get(key):
                    raise InputError(f"cache entry {key}: the cache index and the bundle's "
                                     "MANIFEST.json disagree on its sha256 (tampered?)",
                                     directory / INDEX, field="sha256")
        values: dict[str, Any] = {}
        self._bytes = 0
        for key, sha in sums.items():
            path = directory / ENTRIES / f"{key}.json"
            try:
                data = path.read_bytes()
            except OSError as exc:
                raise InputError(f"cache entry {key}: cannot read it ({exc.strerror})",
                                 path) from None
            got = sha256_hex(data)
            if got != sha:
                raise InputError(f"cache entry {key}: sha256 {got} differs from the {sha} "
                                 "listed for it (tampered or corrupted); nothing is used",
                                 path, field="sha256")
            try:
                values[key] = loads_value(data)
            except ValueError as exc:
                raise InputError(f"cache entry {key}: not a JSON cache value ({exc}); "
                                 "nothing is used", path) from None
            self._bytes += len(data)
        self._values = values

    def get(self, key: str) -> Any | None:
        """The value stored under ``key``, or None."""
        return self._values.get(key)

    def __len__(self) -> int:
        return len(self._values)

    def volume(self) -> int:
        """Bytes of the entry files."""
        return self._bytes

    def close(self) -> None:
        """Nothing to release (the values are in memory)."""


def unstored_rows(entries: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows of ``unstored_answers.jsonl``: ``{"key", "sha256", "value"}`` per held answer,
    ``value`` as a JSON cache entry (:func:`judge.jsoncache.dumps_value`, bytes tagged) and
    ``sha256`` of that canonical JSON (checked by :func:`read_unstored`)."""
    rows = []
    for key, value in entries.items():
        try:
            data = dumps_value(value)
        except ValueError:  # not JSON (a NaN): only its verdicts keep it
            continue
        rows.append({"key": key, "sha256": sha256_hex(data), "value": json.loads(data)})
    return rows


def read_unstored(path: Path) -> dict[str, Any]:
    """The answers of an ``unstored_answers.jsonl`` file (:func:`unstored_rows`), each checked.

    Raises:
        InputError: a line that is not such a row (not JSON, a missing field, a key that is not
            a sha256 hex digest, a value whose sha256 differs), naming the file, line and field.
    """
    out: dict[str, Any] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read: {exc}", path) from None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            raise InputError("not a JSON object", path, n) from None
        if not isinstance(row, dict):
            raise InputError("not a JSON object", path, n)
        key = row.get("key")
        if not (isinstance(key, str) and len(key) == 64
                and all(c in "0123456789abcdef" for c in key)):
            raise InputError("expected a cache key (64 hex digits)", path, n, field="key")
        try:
            value = loads_value(json.dumps(row.get("value")).encode("utf-8"))
        except (ValueError, InputError):
            raise InputError("not a JSON cache entry", path, n, field="value") from None
        if row.get("sha256") != sha256_hex(dumps_value(value)):
            raise InputError("sha256 does not match the value", path, n, field="sha256")
        out[key] = value
    if not out:
        raise InputError("no answers in this file", path)
    return out
