"""How a remote judge's failed call is described, and when repeated failures stop a judge.

**Describing a failure.** The ``openai`` SDK wraps every network problem in
``APIConnectionError`` / ``APITimeoutError``, and its aiohttp transport even maps a refused
connection to a connect *timeout*, so "Request timed out." is what a dead port or a misspelt
host used to show. :func:`describe_sdk_error` walks the exception chain (``__cause__`` /
``__context__``) down to the operating system's error and says what happened:

- ``connection refused to http://127.0.0.1:8000/v1 (after 2 retries)``
- ``name resolution failed for host api.example.invalid: Name or service not known (...)``
- ``timed out after 60 s (after 2 retries)``
- ``HTTP 401 Unauthorized (not retried): Incorrect API key provided``
- ``HTTP 503 Service Unavailable (after 2 retries): overloaded``

Retries are the SDK's own (backoff, ``Retry-After``); the count stated is the one the SDK
reports on the last request it sent (its ``x-stainless-retry-count`` header), so a 4xx the SDK
does not retry says "not retried" and a 5xx says how many retries it took. Error texts and
server bodies pass through :func:`judge.redact.redact`: an echoed API key is never kept.

**Early stop.** A call that fails with a *fatal* cause — HTTP 401, 403 or 404, a refused
connection, a failed name resolution — will fail the same way for every other pair. When
``limit`` calls in a row (default :data:`DEFAULT_STOP_AFTER` = 8, ``--stop-after``; 0 = never)
fail with the same fatal cause, :class:`EarlyStop` stops that judge: requests not yet sent are
not sent, and their pairs get ``transport_error`` verdicts whose rationale starts with
``not attempted: run stopped after N consecutive calls failed with <cause>``. Nothing is cached
for them, so a rerun retries them. Any other result (an answer, a parse error, a timeout, a 5xx)
resets the count. Until a call has ended with anything but a fatal failure, calls go out one at a
time (a "slow start"), so a dead endpoint receives exactly ``limit`` requests whatever the
concurrency; the first non-fatal result opens full concurrency. In a panel only the dead
member stops; the others go on judging.
"""

from __future__ import annotations

import asyncio
import contextlib
import http
import json
import socket
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

from judge.redact import redact

DEFAULT_STOP_AFTER = 8
"""Consecutive calls failing with the same fatal cause after which a judge stops. 8 is enough
to rule out a transient blip (the SDK has already retried each retryable one) and costs at most
eight wasted requests on a dead endpoint."""

FATAL_STATUS = (401, 403, 404)
"""HTTP statuses that fail every call alike (bad key, no access, wrong URL or model)."""


class TransportError(Exception):
    """A call that produced no judge answer: the backend could not be reached, kept failing
    after the SDK's retries, or sent a reply that is not a valid response of its protocol.

    Args:
        message: what happened, one line (becomes the verdict's rationale).
        raw: what the server sent, if anything (error body, malformed reply), kept in the
            verdict's ``raw`` (capped there).
        cause: the failure class, e.g. ``HTTP 401 Unauthorized``, ``connection refused`` —
            consecutive fatal failures are grouped by it.
        fatal: True when the cause will fail every call alike (see :data:`FATAL_STATUS`).
    """

    def __init__(self, message: str, *, raw: str = "", cause: str = "",
                 fatal: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.raw = raw
        self.cause = cause or message
        self.fatal = fatal


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and every exception it was raised from (``__cause__`` or ``__context__``)."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        yield e
        e = e.__cause__ or e.__context__


def retries_taken(exc: BaseException) -> int:
    """How many retries the openai SDK made before giving up with ``exc`` (read from the
    ``x-stainless-retry-count`` header of the last request it sent; 0 when unknown)."""
    request = getattr(getattr(exc, "response", None), "request", None)
    if request is None:
        with contextlib.suppress(Exception):  # APIConnectionError.request
            request = exc.request  # type: ignore[attr-defined]
    try:
        return int(request.headers.get("x-stainless-retry-count", 0)) if request else 0
    except (AttributeError, TypeError, ValueError):
        return 0


def _retries_text(n: int) -> str:
    return "not retried" if n == 0 else f"after {n} retr{'y' if n == 1 else 'ies'}"


def status_phrase(code: int) -> str:
    """``401`` → ``HTTP 401 Unauthorized`` (the standard reason phrase, when there is one)."""
    try:
        return f"HTTP {code} {http.HTTPStatus(code).phrase}"
    except ValueError:
        return f"HTTP {code}"


def server_message(body: str, limit: int = 300) -> str:
    """The human-readable part of an error body: OpenAI's ``{"error": {"message": …}}``,
    ``{"message": …}``, ``{"detail": …}``, or else the body text itself; on one line, cut
    to ``limit`` characters, keys redacted."""
    text = body
    try:
        obj: Any = json.loads(body)
    except (ValueError, RecursionError):
        obj = None
    if isinstance(obj, dict):
        err = obj.get("error")
        for cand in ((err.get("message") if isinstance(err, dict) else err),
                     obj.get("message"), obj.get("detail")):
            if isinstance(cand, str) and cand.strip():
                text = cand
                break
    text = " ".join(redact(text).split())
    return text if len(text) <= limit else text[:limit] + "…"


def describe_sdk_error(exc: BaseException, base_url: str | None, timeout_s: float
                       ) -> TransportError:
    """A :class:`TransportError` saying what really happened to an ``openai`` SDK call.

    Args:
        exc: an ``openai.APIStatusError``, ``APITimeoutError`` or ``APIConnectionError``
            (any other exception is described by its type and text).
        base_url: the endpoint the client was configured with (named in connection errors).
        timeout_s: the per-request timeout in seconds (named in timeouts).

    Returns:
        The error with ``cause`` and ``fatal`` set (see the module docstring).
    """
    import openai

    retries = _retries_text(retries_taken(exc))
    where = redact(base_url) if base_url else "the OpenAI API"  # no secret of its URL
    if isinstance(exc, openai.APIStatusError):
        code = exc.status_code
        try:
            body = exc.response.text
        except Exception:  # a streamed body that cannot be read any more
            body = str(exc.body or exc.message)
        cause = status_phrase(code)
        return TransportError(f"{cause} ({retries}): {server_message(body)}",
                              raw=redact(body), cause=cause, fatal=code in FATAL_STATUS)
    chain = list(_chain(exc))
    root = chain[-1]
    for e in chain:
        if isinstance(e, ConnectionRefusedError):
            return TransportError(f"connection refused to {where} ({retries})",
                                  cause="connection refused", fatal=True)
        if isinstance(e, socket.gaierror):
            request = getattr(exc, "request", None)
            host = getattr(getattr(request, "url", None), "host", None) or where
            return TransportError(f"name resolution failed for host {host}: "
                                  f"{e.strerror or e} ({retries})",
                                  cause="name resolution failure", fatal=True)
    if _timed_out(exc, chain):
        return TransportError(f"timed out after {timeout_s:g} s ({retries})",
                              cause="timeout")
    detail = " ".join(redact(f"{type(root).__name__}: {root}").split())[:300]
    return TransportError(f"connection failed to {where} ({retries}): {detail}",
                          cause=f"connection failure ({type(root).__name__})")


def _timed_out(exc: BaseException, chain: list[BaseException]) -> bool:
    """Whether a failed SDK call really timed out. The SDK says ``APITimeoutError`` for every
    ``httpx`` timeout, but the aiohttp transport maps *any* ``aiohttp.ClientConnectionError``
    (a dropped connection, a server that hung up) to a connect timeout: then the aiohttp
    exception in the chain decides."""
    import openai

    try:
        import aiohttp
    except ImportError:  # pragma: no cover - the httpx transport only
        aiohttp = None  # type: ignore[assignment]
    if aiohttp is not None:
        for e in chain:
            if isinstance(e, aiohttp.ClientError):
                return isinstance(e, TimeoutError)  # ServerTimeoutError, SocketTimeoutError
    return isinstance(exc, openai.APITimeoutError) or any(
        isinstance(e, TimeoutError) for e in chain)


@dataclass
class EarlyStop:
    """One judge's early-stop state for one run (see the module docstring).

    Attributes:
        judge_id: the judge it belongs to.
        limit: consecutive fatal failures with one cause that stop the judge (0 = never).
        streak: current count of consecutive fatal failures with ``cause``.
        cause: the cause of the current streak.
        last_error: the full message of the latest fatal failure.
        reason: set when the judge stopped: the one-line message for the user.
        not_attempted: pairs that got a "not attempted" verdict.
    """

    judge_id: str
    limit: int = DEFAULT_STOP_AFTER
    streak: int = 0
    cause: str = ""
    last_error: str = ""
    reason: str | None = None
    not_attempted: int = 0
    _open: bool = False
    _lock: asyncio.Lock | None = field(default=None, repr=False)

    @property
    def stopped(self) -> bool:
        """True once the judge has stopped."""
        return self.reason is not None

    def record(self, error: TransportError | None) -> None:
        """Count one finished call: ``error`` None for any reply that is not a fatal failure
        (an answer, a parse error, a refusal), else its :class:`TransportError`."""
        if error is None or not error.fatal:
            self.streak, self.cause, self._open = 0, "", True
            return
        if error.cause == self.cause:
            self.streak += 1
        else:
            self.streak, self.cause = 1, error.cause
        self.last_error = error.message
        if self.limit and self.streak >= self.limit and self.reason is None:
            self.reason = f"{self.streak} consecutive calls failed: {self.last_error}"

    def not_attempted_text(self) -> str:
        """The rationale of a pair that was never sent."""
        if self.cause == "budget":
            return f"not attempted: {self.reason}"
        return (f"not attempted: run stopped after {self.streak} consecutive calls failed "
                f"with {self.cause}")

    def stop_for_budget(self, max_usd: float, spent_usd: float = 0.0,
                        worst_usd: float = 0.0) -> None:
        """Stop the judge because its next call could take the run over its budget
        (``--max-usd``): ``spent_usd`` so far plus that call's worst case ``worst_usd``
        (:mod:`judge.judges.budget`) exceed ``max_usd``."""
        if self.reason is None:
            self.cause = "budget"
            self.reason = (f"budget: the next call could take the run over --max-usd "
                           f"{max_usd:g} USD (spent {spent_usd:.4f} USD; the call's worst case "
                           f"{worst_usd:.4f} USD)")

    def summary(self) -> dict[str, Any]:
        """The ``summary.json`` entry of a stopped judge."""
        return {"judge": self.judge_id, "reason": self.reason, "cause": self.cause,
                "consecutive_failures": self.streak, "last_error": self.last_error,
                "pairs_not_attempted": self.not_attempted}

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold around one call: serialises calls until one ends without a fatal failure (the
        slow start), then admits everyone at once."""
        if self._open or not self.limit:
            yield
            return
        if self._lock is None:
            self._lock = asyncio.Lock()
        await self._lock.acquire()
        if self._open:  # opened while we waited: do not serialise this call
            self._lock.release()
            yield
            return
        try:
            yield
        finally:
            self._lock.release()


def early_stop_of(ctx: Any, judge_id: str, limit: int) -> EarlyStop:
    """The :class:`EarlyStop` of ``judge_id`` in this run's context (created on first use)."""
    stops: dict[str, EarlyStop] = ctx.early_stops
    if judge_id not in stops:
        stops[judge_id] = EarlyStop(judge_id, limit)
    return stops[judge_id]
