"""Several endpoints for one LLM judge (``--base-url URL1,URL2,…``): replicas of one model behind
the OpenAI API (vLLM / SGLang / llama.cpp servers), used as one judge.

* **Balancing**: each request goes to the endpoint with the fewest requests in flight
  ("least outstanding requests"; ties to the one that has served fewest, then the first listed),
  so a slower replica gets fewer requests without any configuration.
* **Failover**: a call that finally fails on an endpoint (after the SDK's own retries:
  connection refused, timeout, HTTP error, a reply that breaks the protocol) is sent to the next
  endpoint not yet tried for that request, and the failed endpoint is avoided for
  :data:`COOLDOWN_S` seconds (a success clears that). Only when every endpoint failed does the
  request become a ``transport_error`` verdict, with the last endpoint's error. When all
  endpoints are cooling down they are still tried, soonest-back first: a judge never refuses to
  call, and its early stop (:mod:`judge.judges.failures`) ends a run against a dead cluster.
* **Slow replicas**: each endpoint's client has a wall-clock deadline per exchange
  (``--timeout``): an exchange past it is cancelled client side (its connection closed) and the
  cancellation is awaited *before* the request is sent to the next endpoint; a timeout is not
  retried on the slow endpoint. An answer that arrives in a short grace past the deadline, or
  while being cancelled, is kept — the request is not sent again — and counted as a late answer
  (:mod:`judge.judges.llm.deadline`); its endpoint is then avoided as a failed one would be
  (it missed the deadline), so a replica as slow as ``--timeout`` is not kept racing it.
* **Statistics** per endpoint (requests, ``ok``, failures, requests moved to another endpoint,
  exchanges cancelled at the deadline, late answers, mean latency, the last error) go to
  ``summary.json`` as ``endpoints``, with the run's ``late_answers`` beside them.

The cache key holds the sorted list of endpoints (:func:`endpoint_key`), so a run on the same
set of replicas in another order is a cache hit; a single endpoint keeps its plain URL.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from judge.judges.failures import TransportError

COOLDOWN_S = 30.0
"""Seconds an endpoint is avoided after a failed call (unless every endpoint is)."""

T = TypeVar("T")


def split_urls(base_url: str | None) -> list[str]:
    """The endpoints of a ``base_url`` option: comma-separated URLs, blanks and repeats
    dropped, in the order given ([] for None)."""
    if base_url is None:
        return []
    return list(dict.fromkeys(u.strip() for u in base_url.split(",") if u.strip()))


def endpoint_key(base_url: str | None) -> str | list[str] | None:
    """The ``base_url`` part of a cache key: the URL itself for one endpoint (unchanged from
    single-endpoint runs), the sorted distinct URLs for several."""
    urls = sorted(set(split_urls(base_url)))
    if len(urls) <= 1:
        return urls[0] if urls else base_url
    return urls


@dataclass
class Endpoint:
    """One endpoint and its counters (see :meth:`stats`)."""

    url: str
    client: Any = None
    in_flight: int = 0
    requests: int = 0
    ok: int = 0
    failures: int = 0
    moved: int = 0
    latency_s: float = 0.0
    down_until: float = 0.0
    last_error: str | None = None
    cancelled: int = 0
    late_answers: int = 0

    def count(self, name: str) -> int:
        """``cancelled`` or ``late_answers`` of this endpoint: those of closed clients plus
        those of the live one."""
        return int(getattr(self, name)) + int(getattr(self.client, name, 0) or 0)

    def stats(self) -> dict[str, Any]:
        """``{"requests", "ok", "failures", "moved_away", "cancelled", "late_answers",
        "mean_latency_s", "last_error"}``: calls sent here, answered (HTTP 200 with a valid
        reply), finally failed, of those retried on another endpoint, exchanges cut at the
        deadline and cancelled client side, answers that arrived while being cancelled (kept,
        not sent again), mean seconds per call (answered or not), the last failure's
        message."""
        return {"requests": self.requests, "ok": self.ok, "failures": self.failures,
                "moved_away": self.moved, "cancelled": self.count("cancelled"),
                "late_answers": self.count("late_answers"),
                "mean_latency_s": round(self.latency_s / self.requests, 6) if self.requests
                else None, "last_error": self.last_error}


class EndpointPool:
    """Least-outstanding-requests balancing with failover over several endpoints.

    Args:
        urls: the endpoints (>= 1; duplicates are one endpoint).
        make_client: builds the client of one URL (called lazily, once per endpoint).
        cooldown_s: seconds a failed endpoint is avoided (>= 0).

    Raises:
        ValueError: no URL, or a negative cooldown.
    """

    def __init__(self, urls: Sequence[str], make_client: Callable[[str], Any],
                 cooldown_s: float = COOLDOWN_S) -> None:
        distinct = list(dict.fromkeys(urls))
        if not distinct:
            raise ValueError("an endpoint pool needs at least one URL")
        if cooldown_s < 0:
            raise ValueError(f"cooldown_s must be >= 0, got {cooldown_s}")
        self.endpoints = [Endpoint(u) for u in distinct]
        self._make_client = make_client
        self.cooldown_s = cooldown_s

    def fresh(self) -> EndpointPool:
        """A pool of the same endpoints with new clients and zeroed counters."""
        return EndpointPool([ep.url for ep in self.endpoints], self._make_client, self.cooldown_s)

    def client(self, ep: Endpoint) -> Any:
        """The endpoint's client (built on first use)."""
        if ep.client is None:
            ep.client = self._make_client(ep.url)
        return ep.client

    def pick(self, tried: set[int]) -> int | None:
        """Index of the endpoint for the next attempt of a request that already failed on
        ``tried`` (None when every endpoint was tried)."""
        now = time.monotonic()
        left = [i for i in range(len(self.endpoints)) if i not in tried]
        if not left:
            return None
        up = [i for i in left if self.endpoints[i].down_until <= now]
        if up:
            return min(up, key=lambda i: (self.endpoints[i].in_flight,
                                          self.endpoints[i].requests, i))
        return min(left, key=lambda i: (self.endpoints[i].down_until, i))

    async def request(self, send: Callable[[Endpoint], Awaitable[T]]) -> T:
        """Run ``send`` on the chosen endpoint, failing over on :class:`TransportError`.

        Raises:
            TransportError: every endpoint failed (the last one's error, its message naming
                how many endpoints were tried).
        """
        tried: set[int] = set()
        last: TransportError | None = None
        while (i := self.pick(tried)) is not None:
            tried.add(i)
            ep = self.endpoints[i]
            ep.in_flight += 1
            ep.requests += 1
            t0 = time.perf_counter()
            try:
                result = await send(ep)
            except TransportError as exc:
                ep.failures += 1
                ep.last_error = exc.message
                ep.down_until = time.monotonic() + self.cooldown_s
                last = exc
                if len(tried) < len(self.endpoints):
                    ep.moved += 1
                continue
            finally:
                ep.in_flight -= 1
                ep.latency_s += time.perf_counter() - t0
            ep.ok += 1
            deadline = getattr(ep.client, "deadline_s", None)
            late = deadline is not None and time.perf_counter() - t0 > deadline
            # a late answer is used, but its endpoint missed the deadline: avoided as a failed
            # one, so a replica as slow as --timeout is not kept busy (and racing it)
            ep.down_until = time.monotonic() + self.cooldown_s if late else 0.0
            return result
        assert last is not None
        if len(self.endpoints) > 1:
            raise TransportError(f"every endpoint failed ({len(self.endpoints)}); last: "
                                 f"{last.message}", raw=last.raw, cause=last.cause,
                                 fatal=last.fatal)
        raise last

    def stats(self) -> dict[str, dict[str, Any]]:
        """URL → :meth:`Endpoint.stats`."""
        return {ep.url: ep.stats() for ep in self.endpoints}

    async def aclose(self) -> None:
        """Close every client that was built."""
        for ep in self.endpoints:
            if ep.client is not None:
                ep.cancelled, ep.late_answers = ep.count("cancelled"), ep.count("late_answers")
                await ep.client.close()
                ep.client = None


def endpoint_summary(judge: Any) -> dict[str, Any]:
    """``{"endpoints": {judge id: {url: stats}}, "late_answers": n}`` (n: late answers summed
    over every endpoint) for the judges that balance over several
    endpoints (:mod:`judge.judges.llm.endpoints`; a panel's members and a repeated judge's samples
    each with their own pool); ``{}`` when none does."""
    from judge.judges.panel import leaf_judges

    out = {j.id: pool.stats() for j in leaf_judges(judge)
           if (pool := getattr(j, "endpoint_pool", None)) is not None}
    late = sum(s["late_answers"] for eps in out.values() for s in eps.values())
    return {"endpoints": out, "late_answers": late} if out else {}
