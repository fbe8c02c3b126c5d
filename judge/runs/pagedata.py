"""How the audit page embeds its data: plain JSON for a small run, gzip + base64 shards for a
large one, produced as a stream (:class:`Payload`), so a million-verdict run's page is built
without holding the run's verdicts or its JSON text in memory.

The browser inflates the shards with its own ``DecompressionStream`` (no library; the page
stays one offline file) and parses each on its own: no single string holds the whole run.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any

COMPRESS_OVER = 2_000_000
"""Characters of page data above which the HTML report embeds it gzip-compressed (base64):
a large run's JSON shrinks several-fold and the page inflates it with the browser's own
``DecompressionStream`` (no library, still one offline file); smaller pages keep plain JSON."""

SHARD_VERDICTS = 50_000
"""Verdicts per compressed shard of a large page: each shard is inflated and parsed on its
own, so no browser string holds the whole run (V8 caps one string at ~2^29 characters)."""

_B64_BLOCK = 3 << 18
"""Bytes base64-encoded at a time (a multiple of 3, so the pieces join into one encoding)."""


class Gzip:
    """One gzip member fed as it comes (level :attr:`LEVEL`, mtime 0: the same run gives the
    same page). Texts (str, or UTF-8 bytes as orjson writes them: no decoding and encoding
    again) are handed to zlib :data:`FEED` bytes at a time, not one call per verdict entry
    (zlib's output does not depend on how its input is cut: no flush in between).

    Args:
        pool: compress in this executor's thread, in the order fed, while the caller goes on
            making the page's JSON (zlib releases the GIL while it compresses: on a 10,000-pair
            page that is ~50 ms off the run's own thread); it must run one task at a time (one
            worker), as a zlib stream takes its pieces in order. None: compress in the caller.
    """

    FEED = 1 << 16
    LEVEL = 1
    """zlib's compression level. On a 10,000-pair ``--judge local`` page (10.1 MB of JSON)
    level 1 takes 93 ms for 2.01 MB, level 6 (zlib's default) 219 ms for 1.81 MB: the page is
    written once per run and read by a browser that inflates either as fast."""

    AHEAD = 8
    """Pieces handed to the pool and not yet compressed, at most (memory: 8 × :data:`FEED`)."""

    def __init__(self, pool: Executor | None = None) -> None:
        import zlib

        self._z: Any = zlib.compressobj(self.LEVEL, zlib.DEFLATED, 31)  # 31: gzip framing
        self.parts: list[bytes] = []
        self._pending: list[bytes] = []
        self._size = 0
        self._pool = pool
        self._running: deque[Future[bytes]] = deque()

    def write(self, text: str | bytes) -> None:
        """Add ``text`` (a str, or UTF-8 bytes).

        Raises:
            UnicodeEncodeError: a str holding a lone surrogate.
        """
        data = text.encode("utf-8") if isinstance(text, str) else text
        self._pending.append(data)
        self._size += len(data)
        if self._size >= self.FEED:
            self._feed()

    def _feed(self) -> None:
        if not self._pending:
            return
        data = b"".join(self._pending)
        self._pending, self._size = [], 0
        if self._pool is None:
            self.parts.append(self._z.compress(data))
            return
        self._running.append(self._pool.submit(self._z.compress, data))
        if len(self._running) > self.AHEAD:
            self.parts.append(self._running.popleft().result())

    def base64(self) -> Iterator[str]:
        """The finished stream in base64 pieces (call once)."""
        import base64

        self._feed()
        while self._running:  # in the order fed; what compress raised is raised here
            self.parts.append(self._running.popleft().result())
        self.parts.append(self._z.flush())
        buf = b""
        for part in self.parts:
            buf += part
            cut = len(buf) - len(buf) % _B64_BLOCK
            if cut:
                yield base64.b64encode(buf[:cut]).decode("ascii")
                buf = buf[cut:]
        self.parts = []
        yield base64.b64encode(buf).decode("ascii")


def _text(text: str | bytes) -> str:
    """A plain page's pieces are kept as str: :data:`COMPRESS_OVER` counts characters."""
    return text.decode("utf-8") if isinstance(text, bytes) else text


def chunk_size(most: int = 256) -> int:
    """Verdict entries to encode together (:meth:`Payload.verdicts`): the largest divisor of
    :data:`SHARD_VERDICTS` up to ``most`` (250 for 50,000), so chunks of that size never cross
    a shard boundary."""
    return max(k for k in range(1, min(most, SHARD_VERDICTS) + 1) if SHARD_VERDICTS % k == 0)


class Payload:
    """The page data as it is produced: the verdict entries (``[pair key, entry]`` JSON), then
    the rest of the data object (``,"key":value`` text).

    Up to :data:`COMPRESS_OVER` characters it stays plain text, embedded as one
    ``<script type="application/json" id="data">`` holding ``{"verdicts": [...], ...}``.
    Past that it is compressed as it comes: the verdicts in shards of :data:`SHARD_VERDICTS`
    (``<script class="verdicts-gz">``, each a gzip+base64 JSON list) and the rest in
    ``<script id="data-gz">`` (``{"verdicts": [], ...}``); the page joins them.
    """

    def __init__(self) -> None:
        self._verdicts: list[tuple[str, int]] = []  # plain: (entries, count) chunks
        self._rest: list[str] = []
        self._size = 0
        self._shards: list[Gzip] = []
        self._in_shard = 0
        self._main: Gzip | None = None
        self._pool: ThreadPoolExecutor | None = None  # the gzip streams' one compressing thread

    def verdicts(self, entries: str | bytes, count: int) -> None:
        """Add ``count`` verdict entries' JSON joined by commas (a JSON list's text without its
        brackets; a str or UTF-8 bytes), in the run's order, before any :meth:`write`. Chunks of
        more than one entry must not cross a shard boundary: each of :func:`chunk_size`
        entries, but the last.

        Raises:
            ValueError: the chunk would cross a shard boundary.
        """
        if self._main is None:
            entries = _text(entries)
            self._verdicts.append((entries, count))
            self._grow(len(entries) + 1)
        else:
            self._shard_entry(entries, count)

    def write(self, text: str | bytes) -> None:
        """Add text of the data object after its verdicts (``,"key":value`` pieces; a str or
        UTF-8 bytes)."""
        if self._main is None:
            text = _text(text)
            self._rest.append(text)
            self._grow(len(text))
        else:
            self._main.write(text)

    def _grow(self, n: int) -> None:
        self._size += n
        if self._size <= COMPRESS_OVER:
            return
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="simjudge-gzip")
        self._main = Gzip(self._pool)  # from now on compressed
        self._main.write('{"verdicts":[]' + "".join(self._rest))
        chunks, self._verdicts, self._rest = self._verdicts, [], []
        for text, count in chunks:
            self._shard_entry(text, count)

    def _shard_entry(self, entries: str | bytes, count: int) -> None:
        if not self._shards or self._in_shard >= SHARD_VERDICTS:
            if self._shards:
                self._shards[-1].write("]")
            self._shards.append(Gzip(self._pool))
            self._in_shard = 0
        if self._in_shard + count > SHARD_VERDICTS:
            raise ValueError(f"{count} verdict entries cross a shard boundary: "
                             f"{SHARD_VERDICTS - self._in_shard} fit")
        self._shards[-1].write("," if self._in_shard else "[")
        self._shards[-1].write(entries)
        self._in_shard += count

    def html(self) -> Iterator[str]:
        """The ``<script>`` elements that embed the data (finishing it; call once)."""
        if self._main is None:
            yield '<script type="application/json" id="data">{"verdicts":['
            yield ",".join(text for text, _ in self._verdicts)
            yield "]" + "".join(self._rest) + "}</script>"
            return
        self._main.write("}")
        if self._shards:
            self._shards[-1].write("]")
        yield '<script type="application/octet-stream" id="data-gz">'
        yield from self._main.base64()
        yield "</script>\n"
        for shard in self._shards:
            yield '<script type="application/octet-stream" class="verdicts-gz">'
            yield from shard.base64()
            yield "</script>\n"
        self._shards = []
        self.close()

    def close(self) -> None:
        """End the compressing thread (idempotent; :meth:`html` calls it when done). A payload
        dropped unfinished ends it too, when it is garbage-collected."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
