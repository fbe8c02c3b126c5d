"""Half-closing an exchange at its deadline, so that a judge server and simjudge agree on who
has the request (issue 36, "late answers").

At the deadline (:mod:`judge.judges.llm.deadline`) the client used to close the connection and
buy the pair from another replica. A server that finished at that same moment had already
written its answer, and was paid for it, into a socket the client was closing: the pair was
paid twice (1–9 pairs in 5 runs on a loaded machine). No client-side timer closes that race,
because the two sides decide at about the same moment on two clocks.

A **half-close** moves the decision to the server. At the deadline the client shuts only its
sending side (``shutdown(SHUT_WR)``: a FIN, TCP's half-close, RFC 9293 §3.6) and keeps reading:

- a server that aborts on disconnect (vLLM, SGLang, and simjudge's test fake) sees the end of
  its input at once, drops the request unanswered and closes: the client sees the close within
  a round trip and moves on, with nothing paid;
- a server that had already written its answer, or writes it before it notices, has that
  answer read and used (a *late answer*): the pair is not bought again.

Either way exactly one of the two happens. A server that does neither within the linger
(:func:`linger_s`) is cut off as before. A TLS connection cannot be half-closed (TLS has no
half-close), nor can a request that is still waiting for a connection (nothing was sent): both
keep the plain deadline.

This works on the SDK's aiohttp transport (simjudge's default, ``--http aiohttp``): the
connector (:class:`TrackingConnector`) notes the connection each exchange is sent on, in the
exchange's own :class:`Exchange` (a context variable, so concurrent exchanges never see each
other's). A half-closed connection is never reused: it is closed once its answer is read.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass
from typing import Any

import aiohttp
import httpx2
from httpx2._config import DEFAULT_LIMITS
from openai import DefaultAioHttpClient
from openai._vendor.httpx_aiohttp import AiohttpTransport

_EXCHANGE: contextvars.ContextVar[Exchange | None] = contextvars.ContextVar(
    "simjudge_exchange", default=None)


@dataclass
class Exchange:
    """The connection one chat exchange was sent on (set by :class:`TrackingConnector`).

    Attributes:
        connection: the aiohttp ``Connection``, or None while the exchange has none (waiting
            for the pool or connecting, or on the httpx transport, which is not tracked).
        half_closed: :meth:`half_close` shut the connection's sending side.
    """

    connection: Any = None
    half_closed: bool = False

    def half_close(self) -> bool:
        """Shut the sending side of the exchange's connection, if it has one that can be
        half-closed (plain TCP, still open), and mark it never to be reused.

        Returns:
            True when the FIN was sent (the server now decides: answer or close), False when
            there is nothing to half-close (no connection yet, TLS, already closed).
        """
        conn = self.connection
        transport = getattr(conn, "transport", None)
        if transport is None or transport.is_closing() or not transport.can_write_eof():
            return False
        protocol = conn.protocol
        if protocol is not None:
            protocol.force_close()  # closed, not pooled, once its answer is read
        try:
            transport.write_eof()
        except OSError:  # the peer is already gone: nothing more will arrive
            return False
        self.half_closed = True
        return True


def track() -> tuple[Exchange, contextvars.Token[Exchange | None]]:
    """Start tracking the exchange whose task is created next (in the current context).

    Returns:
        The :class:`Exchange` the connector fills in, and the token to pass to
        :func:`untrack` once the exchange's task is created (tasks copy the context when
        created, so the task keeps the exchange and the caller's context is restored).
    """
    exchange = Exchange()
    return exchange, _EXCHANGE.set(exchange)


def untrack(token: contextvars.Token[Exchange | None]) -> None:
    """Restore the caller's context after :func:`track` (``token`` from it)."""
    _EXCHANGE.reset(token)


LINGER_SHARE = 0.5
"""After a half-close the client reads on for this share of the deadline (at least
:data:`LINGER_MIN_S`, at most :data:`LINGER_MAX_S`) for the server's answer or its close. A
server that aborts on disconnect closes within a round trip, so the linger is spent only on a
server that ignores the half-close; the transport's own per-read timeout is set past it
(:func:`judge.judges.llm.deadline.transport_timeout`), so it does not cut the linger short.
On the test fake at a load of 8–15 on 2 cores, 0 pairs were paid twice in 20 runs
(bench_late_answers.py)."""
LINGER_MIN_S = 0.5
LINGER_MAX_S = 2.0


def linger_s(deadline_s: float) -> float:
    """Seconds to read on after a half-close at a deadline of ``deadline_s`` seconds."""
    return min(LINGER_MAX_S, max(LINGER_MIN_S, LINGER_SHARE * deadline_s))


class TrackingConnector(aiohttp.TCPConnector):
    """aiohttp's ``TCPConnector`` that records, in the current :class:`Exchange`, the
    connection each request is sent on (pooled or new)."""

    async def connect(self, req: Any, traces: Any, timeout: Any) -> Any:
        """aiohttp's ``connect``; the connection is also noted in the exchange."""
        conn = await super().connect(req, traces, timeout)
        exchange = _EXCHANGE.get()
        if exchange is not None:
            exchange.connection = conn
        return conn


class HalfCloseTransport(AiohttpTransport):
    """The SDK's aiohttp transport on a :class:`TrackingConnector` (the same connector
    settings as the SDK's own: pool limit, keep-alive expiry, TLS context, local address)."""

    def get_client(self) -> aiohttp.ClientSession:
        """The transport's aiohttp session, built on a :class:`TrackingConnector`."""
        if self.client is not None or self.uds:
            return super().get_client()
        most = self.limits.max_connections
        connector = TrackingConnector(
            keepalive_timeout=self.limits.keepalive_expiry, ssl=self.ssl_context,
            local_addr=(self.local_address, 0) if self.local_address else None,
            limit=100 if most is None else most)  # 100: aiohttp's default, as the SDK's
        return aiohttp.ClientSession(connector=connector)


class HalfCloseAioHttpClient(DefaultAioHttpClient):
    """``openai.DefaultAioHttpClient`` (the SDK's defaults) whose transport is a
    :class:`HalfCloseTransport`; proxies from the environment keep the SDK's transport."""

    def _init_transport(self, verify: Any = True, cert: Any = None, trust_env: bool = True,
                        http1: bool = True, http2: bool = False,
                        limits: httpx2.Limits = DEFAULT_LIMITS,
                        transport: httpx2.AsyncBaseTransport | None = None,
                        ) -> httpx2.AsyncBaseTransport:
        if transport is not None:
            return transport
        return HalfCloseTransport(verify=verify, cert=cert, trust_env=trust_env, http1=http1,
                                  http2=http2, limits=limits)
