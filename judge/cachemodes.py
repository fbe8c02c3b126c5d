"""The cache modes (``--cache-mode``), a closed set, apart from :mod:`judge.cache` so that the
command line's option definitions and checks name them without importing the cache (diskcache,
SQLite and the leases: ~70 ms of every ``simjudge --help``).

* ``read-write`` — read answers and store new ones (the default);
* ``read-only`` — read, never write (works on a read-only filesystem);
* ``off`` — neither read nor write;
* ``cache-only`` — read, never call a judge: a needed call that is not cached is an error.
"""

from __future__ import annotations

from typing import Literal

CacheMode = Literal["read-write", "read-only", "off", "cache-only"]
"""A cache mode, as a type."""
CACHE_MODES: tuple[str, ...] = ("read-write", "read-only", "off", "cache-only")
"""The cache modes, in the order the help lists them."""
