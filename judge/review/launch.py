"""Starting a review: the population read (and a pool scored) before anything is served, the
address bound before anything is created, then the aiohttp server run until Ctrl-C or SIGTERM,
printing its URL once it listens — or, under a :class:`ServeControl`, in any thread until the
control stops it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import threading
from collections.abc import Callable
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from judge.errors import InputError
from judge.review.items import ItemSession
from judge.review.population import Population
from judge.review.session import ReviewSession


class ServeControl:
    """How :func:`serve` runs off the main thread and is stopped from another (an application
    that embeds the review server, the test suite running it in-process).

    Set it in the serving thread's context before :func:`serve` is called
    (``SERVE_CONTROL.set(control)`` in that thread, or ``contextvars.copy_context().run``):
    typer runs a command in the calling thread, so ``judge.cli.main(["review", …])`` called
    there reaches :func:`serve` with it. Under a control :func:`serve`

    - installs no SIGTERM handler (``loop.add_signal_handler`` works in the main thread only:
      elsewhere it raises RuntimeError or ValueError);
    - passes the URL to ``on_url`` instead of printing it (stdout is the whole process's;
      the lines ``say`` writes are the caller's: the command's go to stdout, before the URL);
    - returns once :meth:`stop` is called, having closed the database and released the lock
      (:mod:`judge.review.dblock`) exactly as on SIGTERM; a stop asked before the server
      listens stops it as soon as it does (``on_url`` is still called).

    Without one (the ``simjudge review`` command) nothing of this changes. One control serves
    one :func:`serve` call.

    Args:
        on_url: called once, in the serving thread, with the URL (``str``, the token included
            off loopback) once the server listens; what it raises ends :func:`serve`.
    """

    def __init__(self, on_url: Callable[[str], None]) -> None:
        self.on_url = on_url
        self._guard = threading.Lock()
        self._stopping = False
        self._wake: Callable[[], object] | None = None

    def stop(self) -> None:
        """Ask the server to stop; from any thread, at any time, any number of times (after
        the server has ended it does nothing)."""
        with self._guard:
            self._stopping = True
            if self._wake is not None:
                self._wake()

    def _attach(self, loop: asyncio.AbstractEventLoop, stop: asyncio.Event) -> None:
        """Let :meth:`stop` set ``stop`` in ``loop`` (set at once if it was already asked)."""
        with self._guard:
            self._wake = lambda: loop.call_soon_threadsafe(stop.set)
            if self._stopping:
                stop.set()

    def _detach(self) -> None:
        """The loop is ending: :meth:`stop` no longer reaches it."""
        with self._guard:
            self._wake = None


SERVE_CONTROL: ContextVar[ServeControl | None] = ContextVar("simjudge_serve_control",
                                                            default=None)
"""The :class:`ServeControl` of the :func:`serve` call made in this context (None: the
command's own behaviour, signals and stdout)."""


def load_population(kind: str, path: Path, blind: bool, judge: Any, cache_dir: Path | None,
                    cache_mode: str, pred_field: str, truth_field: str, max_chars: int,
                    progress_factory: Any, say: Callable[[str], None]) -> Population:
    """The pairs of a review source (:func:`judge.review.population.source_kind`'s ``kind``);
    a pool is scored by ``judge`` through the cache (progress shown, calls and failures said).

    Raises:
        InputError: a bad source file or run (file, line and field named); a cache miss in
            ``cache-only`` mode.
    """
    from judge.review import population as pop

    if kind == "run":
        from judge.review.runsource import from_run

        return from_run(path, blind)
    if kind == "suggestions":
        return pop.from_suggestions(path, max_chars)
    from judge.cache import JudgeCache

    cache = JudgeCache(cache_dir, cache_mode)
    try:
        population, scored = pop.from_pool(path, judge, cache, pred_field, truth_field,
                                           max_chars, progress_factory)
    finally:
        cache.close()
    failed = sum(n for k, n in scored.outcomes.items() if k != "ok")
    say(f"{judge.id} scored {len(population)} pairs: {scored.judge_calls} judge calls, "
        f"{scored.cache_hits} from the cache" + (f"; {failed} failed (never offered by the "
                                                  "design)" if failed else ""))
    return population


def preflight(labels: Path, scale: Any = None) -> None:
    """Check, creating nothing, that ``labels`` can be this review's database
    (:meth:`judge.calibration.labelsdb.LabelsDB.preflight`, ``scale``: its scale or None) and
    that no other server holds it (:meth:`judge.review.dblock.ServerLock.check`) — before a
    pool is scored.

    Raises:
        InputError: as those two.
    """
    from judge.calibration.labelsdb import LabelsDB
    from judge.review.dblock import ServerLock

    LabelsDB.preflight(labels, scale)
    ServerLock.check(labels)


def pair_session(population: Population, labels: Path, scale: Any, options: Any
                 ) -> Callable[[], ReviewSession]:
    """What opens the pair review of ``population`` once :func:`serve` listens: the session's
    queue is checked now, the labels database (``scale``: its :class:`~judge.calibration.
    labelevents.Scale`) is opened or created only then.

    Raises:
        InputError: a run queue the source does not have (field ``queue``).
    """
    from judge.calibration.labelsdb import LabelsDB

    if options.queue not in ("design", "all") and options.queue not in population.queues:
        raise InputError(f"the source has no queue {options.queue!r}", field="queue")
    return lambda: ReviewSession(population, LabelsDB(labels, scale), options)


def bind(host: str, port: int) -> list[socket.socket]:
    """Sockets bound to every address of ``host`` on ``port`` (0: a free port, the same for
    all), not yet listening — before anything is created on disk.

    Raises:
        InputError: (field ``port``) an address that cannot be resolved or bound.
    """
    socks: list[socket.socket] = []
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        for family, kind, proto, _, addr in dict.fromkeys(infos):
            sock = socket.socket(family, kind, proto)
            socks.append(sock)
            if os.name == "posix":
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind((addr[0], port, *addr[2:]))
            port = sock.getsockname()[1]
    except OSError as exc:
        for sock in socks:
            sock.close()
        raise InputError(f"cannot listen on {host}:{port}: {exc.strerror or exc}",
                         field="port") from None
    return socks


def serve(open_session: Callable[[], ReviewSession | ItemSession], host: str, port: int,
          open_browser: bool, labels: Path, say: Callable[[str], None]) -> None:
    """Serve the session ``open_session`` opens (pairs, or items: ``--items``) on
    ``host:port`` (0 = a free port) until Ctrl-C or SIGTERM; prints the URL (with the token
    when ``host`` is not loopback) as one line on stdout once listening, and closes the
    database at the end. Under a :class:`ServeControl` (:data:`SERVE_CONTROL`, in any thread)
    the URL goes to its ``on_url`` instead and the server stops when the control says. The
    token is the labels database's (:meth:`judge.calibration.labelsdb.LabelsDB.review_token`):
    a restart keeps it.

    The address is bound first, then the disk's room checked (:func:`judge.review.diskfull.
    check_room`) and the database locked (:mod:`judge.review.dblock`: one server per
    ``labels.db``), and only then is the session opened (the database created): a server that
    cannot listen creates nothing.

    Raises:
        InputError: the address cannot be listened on (field ``port``); the disk holding the
            database is full; another server holds the database; the session cannot open.
    """
    from judge.review.dblock import ServerLock
    from judge.review.diskfull import check_room

    socks = bind(host, port)
    lock: ServerLock | None = None
    try:
        check_room(labels)
        lock = ServerLock.acquire(labels)
        session = open_session()
    except BaseException:
        for sock in socks:
            sock.close()
        if lock is not None:
            lock.release()
        raise
    try:
        asyncio.run(_main(session, socks, host, open_browser, labels, say,
                          SERVE_CONTROL.get()))
    except KeyboardInterrupt:
        say(f"stopped; every label is in {labels}")
    finally:
        session.db.close()
        lock.release()


async def _main(session: ReviewSession | ItemSession, socks: list[socket.socket], host: str,
                open_browser: bool, labels: Path, say: Callable[[str], None],
                control: ServeControl | None) -> None:
    """Serve on the bound ``socks`` until SIGTERM, or until ``control`` stops it (see
    :func:`serve`)."""
    from aiohttp import web

    from judge.review.server import is_loopback, make_app

    loopback = is_loopback(host)
    token = session.db.review_token()
    if isinstance(session, ItemSession):
        from judge.review.itemserver import make_items_app

        config: dict[str, Any] = {"source": session.source, "design": session.design,
                                  "blind": session.blind, "items": len(session.rows)}
        app = make_items_app(session, token, loopback, config)
    else:
        opt = session.opt
        config = {"source": session.pop.source, "scale": opt.scale.name,
                  "graded": opt.scale.graded, "top": opt.scale.top,
                  "positive": opt.scale.positive, "blind": opt.blind, "queue": opt.queue}
        app = make_app(session, token, loopback, config)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    for sock in socks:
        await web.SockSite(runner, sock).start()
    bound = socks[0].getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{bound}/" + ("" if loopback else f"?token={token}")
    progress = session.progress()
    what = (f"{progress['items']} items, design {session.design}"
            if isinstance(session, ItemSession) else
            f"{progress['queue_pairs']} pairs in queue {session.opt.queue}")
    say(f"simjudge review: {config['source']}: {what}, {progress['labelled']} labelled; "
        f"labels in {labels}"
        + ("; blind" if config["blind"] else "; NOT blind: judge outputs are shown"))
    stop = asyncio.Event()
    try:
        if control is None:
            print(url, flush=True)  # the one line a script waits for (token included off loopback)
        else:
            control.on_url(url)  # what it raises ends serve(), the runner cleaned up below
        if open_browser:
            import webbrowser

            webbrowser.open(url)
        if control is not None:
            control._attach(asyncio.get_running_loop(), stop)
        else:
            # SIGTERM stops the server cleanly. Windows' event loop has no signal handlers
            # (NotImplementedError): there the server stops on Ctrl-C (KeyboardInterrupt)
            with contextlib.suppress(NotImplementedError):
                asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        await stop.wait()
    finally:
        if control is not None:
            control._detach()
        await runner.cleanup()


def item_session(source: Path, labels: Path, design: str, seed: int, blind: bool
                 ) -> Callable[[], ItemSession]:
    """What opens the item review of a run directory (``simjudge review RUN --items``) once
    :func:`serve` listens: the run is read and checked now (a task with item labels, a known
    design), the labels database opened or created only then.

    Raises:
        InputError: SOURCE is not a run directory, its task has no item labels, an unknown
            design, a labels database that cannot be opened.
    """
    from judge.calibration.labelsdb import LabelsDB
    from judge.calibration.pool import run_sha256
    from judge.record.store import load_run
    from judge.review.population import source_id

    if not (source / "config.json").is_file():
        raise InputError("--items reviews the items of a run directory (simjudge eval --out "
                         "DIR)", source, field="items")
    from judge.human.design import DESIGNS

    if design not in DESIGNS:
        raise InputError(f"unknown design {design!r}; expected one of {', '.join(DESIGNS)}",
                         field="design")
    record = load_run(source)
    ItemSession.check_task(record)
    preflight(labels)  # the database is created only once the server listens
    sid = source_id(source, run_sha256(source))
    return lambda: ItemSession(record, sid, LabelsDB(labels), design, seed, blind)
