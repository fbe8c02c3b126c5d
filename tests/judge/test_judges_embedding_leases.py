"""Issue 11, "Disk and concurrency", for the ``openai-embedding`` judge: processes sharing a
cache embed (and pay for) each distinct string once between them.

The CLI tests run two real ``simjudge eval`` subprocesses against one loopback fake server
(tests/fake_openai.py), whose request log counts every input string a provider would bill. The
unit tests drive :meth:`judge.cache.JudgeCache.try_claim_many` / ``wait_any`` on a real
diskcache directory shared by two cache objects.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import diskcache
import pytest

from judge.cache import JudgeCache
from judge.judges.base import JudgeContext
from judge.judges.options import JudgeOptions
from judge.judges.registry import parse_judge_spec
from judge.verdict import Verdict
from tests.cli_runs import CLI, ENV, letter_pairs, write_items
from tests.clirun import run_cli
from tests.conftest import REPO
from tests.fake_openai import FakeOpenAIServer


def _args(data: Path, srv: FakeOpenAIServer, cache: Path, *more: str) -> list[str]:
    return ["eval", str(data), "--id-field", "id", "--judge", "openai-embedding:fake-embed",
            "--base-url", srv.base_url, "--cache-dir", str(cache), "--bootstrap", "0", *more]


def _summary(run: Path) -> dict[str, Any]:
    summary: dict[str, Any] = json.loads((run / "summary.json").read_text())
    return summary


def _embedded(srv: FakeOpenAIServer) -> Counter[str]:
    """How many times each string was sent to ``/embeddings`` (what a provider bills)."""
    return Counter(s for r in srv.log if r.path.endswith("/embeddings") for s in r.body["input"])


class _GatedSlowEmbeddings(FakeOpenAIServer):
    """The fake server answering each ``/embeddings`` request after ``latency_s``; the first
    request is held until a second one arrives (at most ``gate_s``), so the two processes are
    surely working at the same time, however unevenly they started."""

    latency_s = 0.15
    gate_s = 20.0
    requests = 0

    def __post_init__(self) -> None:
        super().__post_init__()
        self._gate: asyncio.Event | None = None

    async def _answer(self, path: str, body: dict[str, Any],
                      ) -> tuple[int, dict[str, Any] | bytes, dict[str, str]]:
        if path.endswith("/embeddings"):
            if self._gate is None:
                self._gate = asyncio.Event()
            self.requests += 1
            if self.requests >= 2:
                self._gate.set()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._gate.wait(), self.gate_s)
            await asyncio.sleep(self.latency_s)
        return await super()._answer(path, body)


def test_two_embedding_evals_on_one_cache_embed_each_string_once(tmp_path: Path) -> None:
    n = 150  # 300 distinct strings: 5 batches of at most 64 per process without sharing
    pairs = letter_pairs(n)
    strings = {s for p in pairs for s in p}
    data = write_items(tmp_path / "d.jsonl", pairs)
    cache_dir = tmp_path / "cache"
    srv = _GatedSlowEmbeddings()
    with srv:  # one process of its own, one in this one (the gate makes them overlap)
        proc = subprocess.Popen([*CLI, *_args(data, srv, cache_dir, "--out",
                                              str(tmp_path / "run0"))],
                                cwd=REPO, env=ENV, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        here = run_cli(*_args(data, srv, cache_dir, "--out", str(tmp_path / "run1")),
                       cwd=REPO, env={"OPENAI_API_KEY": ENV["OPENAI_API_KEY"]})
        out = proc.communicate(timeout=180)
        embedded = _embedded(srv)
        n_requests = sum(r.path.endswith("/embeddings") for r in srv.log)
    assert [proc.returncode, here.returncode] == [0, 0], (out, here.stderr)
    a, b = _summary(tmp_path / "run0"), _summary(tmp_path / "run1")
    print(f"server: {n_requests} requests, {sum(embedded.values())} inputs for "
          f"{len(strings)} distinct strings; judge_calls {a['judge_calls']} + "
          f"{b['judge_calls']}, cache_hits {a['cache_hits']} + {b['cache_hits']}")
    # every distinct string reached the server exactly once, across both processes
    assert set(embedded) == strings and set(embedded.values()) == {1}
    # one judge call per embedded string: the two runs split the 300 strings between them,
    # each reading the other's share from the cache
    assert a["judge_calls"] + b["judge_calls"] == len(strings)
    assert a["cache_hits"] + b["cache_hits"] == len(strings)
    assert a["judge_calls"] > 0 and b["judge_calls"] > 0  # both really embedded (the gate)
    assert a["outcomes"] == b["outcomes"] == {**a["outcomes"], "ok": n}
    assert a["metrics"] == b["metrics"]
    # no lease is left behind
    with diskcache.Cache(str(cache_dir / "leases")) as leases:
        assert len(leases) == 0


class _SlowAfterFirst(FakeOpenAIServer):
    """The fake server answering every ``/embeddings`` request after the first ``slow_s``
    late; ``received`` lists their inputs as they arrive (the log has them once answered)."""

    slow_s = 30.0

    def __post_init__(self) -> None:
        super().__post_init__()
        self.received: list[list[str]] = []

    async def _answer(self, path: str, body: dict[str, Any],
                      ) -> tuple[int, dict[str, Any] | bytes, dict[str, str]]:
        if path.endswith("/embeddings"):
            self.received.append(list(body["input"]))
            if len(self.received) > 1:
                await asyncio.sleep(self.slow_s)
        return await super()._answer(path, body)


def test_embedding_leases_of_a_killed_process_do_not_stall_the_next(tmp_path: Path) -> None:
    n = 50  # 100 distinct strings: a first batch of 64, then one of 36
    pairs = letter_pairs(n)
    data = write_items(tmp_path / "d.jsonl", pairs)
    cache_dir = tmp_path / "cache"
    srv = _SlowAfterFirst()
    with srv:
        proc = subprocess.Popen([*CLI, *_args(data, srv, cache_dir, "--out",
                                              str(tmp_path / "r1"))],
                                cwd=REPO, env=ENV, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while len(srv.received) < 2 and time.time() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)
        proc.send_signal(signal.SIGKILL)  # dies holding the 36 leases of its second batch
        proc.wait()
        second = srv.received[1]
        assert JudgeCache(cache_dir).stats()["entries"] == 64  # the first batch only
        with diskcache.Cache(str(cache_dir / "leases")) as leases:
            held = [leases.get(k, expire_time=True) for k in leases.iterkeys()]
        holders = [h for h, _ in held]
        # the state a killed holder leaves: 36 live leases (TTL 30 s) of a dead process
        assert len(holders) == 36 == len(second)
        assert {h["pid"] for h in holders} == {proc.pid}
        lapse = min(t for _, t in held)  # when the first of them would expire (time.time())
        srv.slow_s = 0.0
        srv.log.clear()
        res = run_cli(*_args(data, srv, cache_dir, "--out", str(tmp_path / "r2")), cwd=REPO,
                      env={"OPENAI_API_KEY": ENV["OPENAI_API_KEY"]})
        done = time.time()
        embedded = _embedded(srv)
    assert res.returncode == 0, res.stderr
    s = _summary(tmp_path / "r2")
    assert s["judge_calls"] == 36 and s["cache_hits"] == 64 and s["outcomes"]["ok"] == n
    # exactly the dead holder's strings, once each
    assert embedded == Counter(second)
    # the dead holder is seen at once: the rerun was done while its leases were still live,
    # not after their 30 s TTL (an event, not a wall-time bound)
    assert done < lapse, (done, lapse)


def _judge_in_process(base_url: str, pairs: list[tuple[str, str]], cache: JudgeCache,
                      ) -> tuple[Coroutine[Any, Any, list[Verdict | None]], JudgeContext,
                                 list[int]]:
    """The openai-embedding judge's coroutine with its context and progress reports."""
    judge = parse_judge_spec("openai-embedding:fake-embed", JudgeOptions(base_url=base_url))
    progress: list[int] = []
    ctx = JudgeContext(cache=cache, progress=progress.append)
    return judge.judge_pairs(pairs, ctx), ctx, progress


def test_two_judges_in_opposite_orders_share_the_work_and_report_each_string(
        tmp_path: Path) -> None:
    # one event loop, two cache objects on one directory: the two "processes" walk the 300
    # strings in opposite orders, so each meets the other's leases (no deadlock: nobody waits
    # holding a lease)
    pairs = letter_pairs(150)
    strings = {s for p in pairs for s in p}
    srv = _GatedSlowEmbeddings()
    with srv:
        (co_a, ctx_a, prog_a), (co_b, ctx_b, prog_b) = (
            _judge_in_process(srv.base_url, ps, JudgeCache(tmp_path))
            for ps in (pairs, pairs[::-1]))

        async def both() -> tuple[list[Verdict | None], list[Verdict | None]]:
            return await asyncio.wait_for(asyncio.gather(co_a, co_b), 60)

        va, vb = asyncio.run(both())
        embedded = _embedded(srv)
    assert set(embedded) == strings and set(embedded.values()) == {1}
    assert ctx_a.stats.judge_calls + ctx_b.stats.judge_calls == 300
    assert ctx_a.stats.judge_calls > 0 and ctx_b.stats.judge_calls > 0
    assert ctx_a.stats.cache_hits + ctx_b.stats.cache_hits == 300
    # the progress bar counts pairs: each judge reaches its 150 pairs (300 strings mapped
    # onto them), whoever embedded which string
    assert sum(prog_a) == sum(prog_b) == 150
    scores_a = {(v.pred, v.truth): (v.outcome, v.score) for v in va if v is not None}
    scores_b = {(v.pred, v.truth): (v.outcome, v.score) for v in vb if v is not None}
    assert len(scores_a) == 150 and scores_a == scores_b
    assert {o for o, _ in scores_a.values()} == {"ok"}


def test_strings_held_past_max_wait_are_embedded_anyway(tmp_path: Path) -> None:
    # another live holder keeps 3 strings' leases (renewed) and never answers: after the
    # cache's max_wait_s (0.5 s here) the judge embeds them itself, as claim does
    pairs = letter_pairs(3)
    holder, cache = JudgeCache(tmp_path), JudgeCache(tmp_path, max_wait_s=0.5)
    with FakeOpenAIServer() as srv:
        co, ctx, progress = _judge_in_process(srv.base_url, pairs, cache)
        judge_key = parse_judge_spec("openai-embedding:fake-embed",
                                     JudgeOptions(base_url=srv.base_url)).key  # type: ignore[attr-defined]
        held = [judge_key(p) for p, _ in pairs]

        async def run() -> tuple[list[Verdict | None], float]:
            async with holder.try_claim_many(held) as got:
                assert got.held == held
                t0 = time.monotonic()
                out = await co
                return out, time.monotonic() - t0

        verdicts, wall = asyncio.run(run())
        requests = [r.body["input"] for r in srv.log]
    # first the 3 free truths, then the 3 preds after waiting 0.5 s
    assert requests == [[t for _, t in pairs], [p for p, _ in pairs]]
    assert 0.5 <= wall < 3.0, wall
    assert [v.outcome for v in verdicts if v is not None] == ["ok"] * 3
    assert ctx.stats.judge_calls == 6 and sum(progress) == 3  # 6 strings → the 3 pairs


# ----------------------------------------------------------- JudgeCache.try_claim_many
KEYS = [f"k{i}" for i in range(5)]


def _claim(cache: JudgeCache, keys: list[str], limit: int | None = None,
           ) -> tuple[list[str], list[str], list[str]]:
    """held, busy, untried of a try_claim_many entered and left at once."""
    async def go() -> tuple[list[str], list[str], list[str]]:
        async with cache.try_claim_many(keys, limit) as got:
            return got.held, got.busy, got.untried
    return asyncio.run(go())


def test_try_claim_many_takes_only_free_leases_and_releases_them(tmp_path: Path) -> None:
    a, b = JudgeCache(tmp_path), JudgeCache(tmp_path)

    async def go() -> None:
        async with a.try_claim_many(KEYS[:3]) as mine:
            assert mine.held == KEYS[:3] and mine.busy == [] and mine.leased
            # another cache object (as another process would) gets the two free keys only,
            # at once, without waiting
            t0 = time.monotonic()
            async with b.try_claim_many(KEYS) as theirs:
                assert theirs.held == KEYS[3:] and theirs.busy == KEYS[:3]
            assert time.monotonic() - t0 < 1.0
            # b still waits for a's keys: not answered, not released
            assert not await b.wait_any(KEYS[:3], 0.3)
        # a left its body: its leases are free
        assert await b.wait_any(KEYS[:3], 0.0)

    asyncio.run(go())
    assert _claim(b, KEYS) == (KEYS, [], [])
    assert _claim(b, KEYS, limit=2) == (KEYS[:2], [], KEYS[2:])


def test_try_claim_many_limit_skips_busy_keys_to_fill_the_batch(tmp_path: Path) -> None:
    a, b = JudgeCache(tmp_path), JudgeCache(tmp_path)

    async def go() -> None:
        async with a.try_claim_many(["k0", "k2"]), b.try_claim_many(KEYS, limit=2) as got:
            # k0 busy, k1 held, k2 busy, k3 held: two held, k4 left untried
            assert (got.held, got.busy, got.untried) == (["k1", "k3"], ["k0", "k2"], ["k4"])

    asyncio.run(go())


@pytest.mark.parametrize("ending", ["error", "cancel"])
def test_try_claim_many_releases_on_error_and_cancellation(tmp_path: Path, ending: str) -> None:
    a, b = JudgeCache(tmp_path), JudgeCache(tmp_path)

    async def body(entered: asyncio.Event, fail: asyncio.Event) -> None:
        async with a.try_claim_many(KEYS):
            entered.set()
            await fail.wait()  # a cancellation ends this wait
            raise RuntimeError("request failed")

    async def go() -> None:
        entered, fail = asyncio.Event(), asyncio.Event()
        task = asyncio.ensure_future(body(entered, fail))
        await entered.wait()
        assert _held_by_other(b) == []  # a holds all five now
        if ending == "cancel":
            task.cancel()
        else:
            fail.set()
        with pytest.raises(RuntimeError if ending == "error" else asyncio.CancelledError):
            await task

    asyncio.run(go())
    assert _claim(b, KEYS) == (KEYS, [], [])


def _held_by_other(cache: JudgeCache) -> list[str]:
    """Keys of KEYS ``cache`` could lease now (leaving them again at once)."""
    async def go() -> list[str]:
        async with cache.try_claim_many(KEYS) as got:
            return got.held
    # run in a fresh loop in a thread: the caller's loop is busy
    import concurrent.futures
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, go()).result()


def test_try_claim_many_renews_leases_while_the_body_works(tmp_path: Path) -> None:
    a, b = JudgeCache(tmp_path, lease_ttl_s=0.3), JudgeCache(tmp_path)

    async def go() -> None:
        async with a.try_claim_many(KEYS):
            await asyncio.sleep(1.0)  # > 3 TTLs: renewed every 0.1 s, so still held
            assert _held_by_other(b) == []
        assert await b.wait_any(KEYS, 0.0)

    asyncio.run(go())


def test_lapsed_lease_is_taken_over(tmp_path: Path) -> None:
    a, b = JudgeCache(tmp_path, lease_ttl_s=0.3), JudgeCache(tmp_path)
    tokens: dict[str, str] = {}
    # taken, then never renewed nor released (a holder on another host that crashed: its
    # pid cannot be checked from here, only the TTL frees the lease)
    a._take_leases(KEYS[:2], 64, tokens)
    assert _claim(b, KEYS) == (KEYS[2:], KEYS[:2], [])
    time.sleep(0.4)  # past the TTL
    assert _claim(b, KEYS) == (KEYS, [], [])


def test_wait_any_returns_once_the_holder_stores_the_answer(tmp_path: Path) -> None:
    a, b = JudgeCache(tmp_path), JudgeCache(tmp_path)

    async def go() -> float:
        async with a.try_claim_many(KEYS[:1]):
            async def store_later() -> None:
                await asyncio.sleep(0.3)
                a.set("k0", {"answer": 1})

            storing = asyncio.ensure_future(store_later())
            t0 = time.monotonic()
            assert await b.wait_any(KEYS[:1], 10.0)  # answered while a still holds the lease
            waited = time.monotonic() - t0
            await storing
            return waited

    waited = asyncio.run(go())
    assert 0.25 < waited < 2.0, waited
    assert b.get("k0") == {"answer": 1}


@pytest.mark.parametrize("mode", ["read-only", "off"])
def test_try_claim_many_takes_no_lease_outside_read_write(tmp_path: Path, mode: str) -> None:
    JudgeCache(tmp_path).set("x", 1)  # a cache to read
    cache = JudgeCache(tmp_path, mode=mode)
    assert _claim(cache, KEYS, limit=3) == (KEYS[:3], [], KEYS[3:])
    assert not (tmp_path / "leases").exists()
