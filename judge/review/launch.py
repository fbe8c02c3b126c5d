"""Starting a review: the population read (and a pool scored) before anything is served, then
the aiohttp server run until Ctrl-C or SIGTERM, printing its URL once it listens."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any

from judge.errors import InputError
from judge.review.population import Population
from judge.review.session import ReviewSession


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


def serve(session: ReviewSession, host: str, port: int, open_browser: bool, labels: Path,
          say: Callable[[str], None]) -> None:
    """Serve ``session`` on ``host:port`` (0 = a free port) until Ctrl-C or SIGTERM; prints the
    URL (with the token when ``host`` is not loopback) as one line on stdout once listening,
    and closes the database at the end.

    Raises:
        InputError: the address cannot be listened on (field ``port``).
    """
    from aiohttp import web

    from judge.review.server import is_loopback, make_app

    loopback = is_loopback(host)
    token = secrets.token_urlsafe(24)
    opt = session.opt
    config = {"source": session.pop.source, "scale": opt.scale.name, "graded": opt.scale.graded,
              "top": opt.scale.top, "positive": opt.scale.positive, "blind": opt.blind,
              "queue": opt.queue}
    app = make_app(session, token, loopback, config)

    async def main() -> None:
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, host, port)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            raise InputError(f"cannot listen on {host}:{port}: {exc.strerror or exc}",
                             field="port") from None
        bound = runner.addresses[0][1] if runner.addresses else port
        shown = f"[{host}]" if ":" in host else host
        url = f"http://{shown}:{bound}/" + ("" if loopback else f"?token={token}")
        progress = session.progress()
        say(f"simjudge review: {session.pop.source}: {progress['queue_pairs']} pairs in queue "
            f"{opt.queue}, {progress['labelled']} labelled; labels in {labels}"
            + ("; blind" if opt.blind else "; NOT blind: judge outputs are shown"))
        print(url, flush=True)  # the one line a script waits for (token included off loopback)
        if open_browser:
            import webbrowser

            webbrowser.open(url)
        stop = asyncio.Event()
        with contextlib.suppress(NotImplementedError):  # not on Windows
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        try:
            await stop.wait()
        finally:
            await runner.cleanup()

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        say(f"stopped; every label is in {labels}")
    finally:
        session.db.close()
