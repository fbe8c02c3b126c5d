"""Decode diskcache values without running code: a pickle may only build plain data.

diskcache stores a value that is not ``bytes``/``str``/``int``/``float`` (a judge answer is a
dict) as a pickle, and :func:`pickle.load` calls whatever a pickle names — a cache directory
someone else wrote (a shared folder, a bundle whose ``MANIFEST.json`` was removed, a copied
``~/.cache``) could run code on the first cache hit (issue 36, item 1). Every diskcache that
simjudge opens reads through :class:`SafeDisk` instead, in every cache mode:

* a pickle is read by :class:`PlainUnpickler`, whose ``find_class`` refuses every global, so it
  can build only what the pickle protocol builds without one — ``dict``, ``list``, ``tuple``,
  ``str``, ``bytes``, ``int``, ``float``, ``bool``, ``None`` — which is all a judge answer or an
  embedding vector is (DESIGN.md "Cache": the raw response plus usage; :mod:`judge.jsoncache`
  holds the same values as JSON). This is the "restricting globals" recipe of the
  :mod:`pickle` documentation; a pickle that names any class or function (``os.system``…) is
  :class:`UnsafeCacheValue`, and nothing in it runs;
* a value kept in its own file must be a file inside the cache directory (a database row can
  name any path).

Source of the recipe: https://docs.python.org/3/library/pickle.html#restricting-globals.
"""

from __future__ import annotations

import io
import pickle
from pathlib import Path
from typing import Any, BinaryIO

import diskcache
from diskcache.core import MODE_PICKLE


class UnsafeCacheValue(pickle.UnpicklingError):
    """A cache value that is not plain data: its pickle names a class or function (which
    loading would have called), or it points at a file outside the cache directory."""


class PlainUnpickler(pickle.Unpickler):
    """An unpickler that refuses every global (class, function, module attribute).

    Raises:
        UnsafeCacheValue: from :meth:`find_class`, for any global the pickle names.
    """

    def find_class(self, module: str, name: str) -> Any:
        """Refuse: a judge-call cache value never needs a global to be rebuilt."""
        raise UnsafeCacheValue(f"the cached value names {module}.{name}: a judge-call cache "
                               "holds only plain data (dict, list, str, bytes, numbers), so it "
                               "is not loaded")


def plain_loads(data: bytes | BinaryIO) -> Any:
    """Unpickle ``data`` (bytes or a binary file) allowing plain data only.

    Raises:
        UnsafeCacheValue: the pickle names a global.
        pickle.UnpicklingError, EOFError, ValueError: not a readable pickle.
    """
    stream = io.BytesIO(data) if isinstance(data, bytes) else data
    return PlainUnpickler(stream).load()


class SafeDisk(diskcache.Disk):
    """``diskcache.Disk`` whose pickled keys and values are read by :func:`plain_loads` and
    whose value files must lie inside the cache directory. Writing is unchanged.

    Pass it as ``diskcache.Cache(directory, disk=SafeDisk)``, or build it directly to decode
    rows read through SQLite (:class:`judge.cache.ReadOnlyStore`).

    Raises (from :meth:`fetch` and :meth:`get`):
        UnsafeCacheValue: a pickle naming a global, or a value file outside the directory.
    """

    def _inside(self, filename: str) -> str:
        root = Path(self._directory).resolve()
        path = (root / filename).resolve()
        if not path.is_relative_to(root):
            raise UnsafeCacheValue(f"the cached value's file {filename!r} lies outside the "
                                   f"cache directory {root}")
        return str(path)

    def fetch(self, mode: int, filename: str | None, value: Any, read: bool) -> Any:
        """The Python value of a Cache row (``mode``: raw, binary, text or pickle)."""
        if filename is not None:
            filename = self._inside(filename)
        if mode != MODE_PICKLE:
            return super().fetch(mode, filename, value, read)
        if value is None:
            assert filename is not None
            with open(filename, "rb") as reader:
                return plain_loads(reader)
        return plain_loads(bytes(value))

    def get(self, key: Any, raw: bool) -> Any:
        """The Python key of a Cache row (pickled unless ``raw``)."""
        if raw:
            return super().get(key, raw)
        return plain_loads(bytes(key))
