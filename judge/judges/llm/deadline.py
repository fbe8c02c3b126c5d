"""The wall-clock deadline of one HTTP exchange with a judge server (``--timeout``).

Every chat exchange has a **deadline** (``--timeout``, wall clock, for the whole exchange: a
server that drips its reply a byte at a time cannot hold it past the deadline, which the
transport's per-read timeout alone allowed — 119.5 s under ``--timeout 3``, issue 36). When it
passes, the exchange's connection is half-closed (:mod:`judge.judges.llm.halfclose`: the
server then either answers, and the answer is read and taken, or drops the request and
closes) and the exchange gets the linger to end; where no half-close is possible (TLS, no
connection yet) it gets a short grace (:func:`grace_s`: a tenth of the deadline, 20 ms to
1 s) to finish — an answer that is arriving is read and taken. Then it is cancelled: its
connection closed, so a server that aborts on disconnect (vLLM, SGLang) stops generating, and
the cancellation is
awaited before the error is raised. On a single endpoint the SDK then retries it
(``--max-retries``, as any timeout). A client of one replica among several
(:mod:`judge.judges.llm.endpoints`) raises ``APITimeoutError`` instead, which the SDK does not
retry, so the request is moved to another replica only once this one has really been given up.
An answer that arrived in the grace or while being cancelled is a *late answer*: it is
kept (the request is not sent again) and counted.

The counters live on the client (:class:`judge.judges.llm.openai_client.JudgeClient`):
``cancelled`` (exchanges cut at the deadline) and ``late_answers`` (answers taken after it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, Protocol

from judge.judges.llm.halfclose import Exchange, linger_s, track, untrack

CHAT_PATH = "/chat/completions"


class DeadlineClient(Protocol):
    """What :func:`send_within_deadline` reads and counts on the client."""

    deadline_s: float | None
    move_on_deadline: bool
    cancelled: int
    late_answers: int


GRACE_SHARE = 0.1
"""Past its deadline an exchange gets this share of the deadline more (at least
:data:`GRACE_MIN_S`, at most :data:`GRACE_MAX_S`) to finish before it is cancelled: an answer
that is arriving is taken instead of being dropped with the connection and bought again from
another replica (issue 36: on a loaded machine 1–9 pairs per run were paid twice)."""
GRACE_MIN_S = 0.02
GRACE_MAX_S = 1.0


def grace_s(deadline_s: float) -> float:
    """Seconds of grace past a deadline of ``deadline_s`` seconds (:data:`GRACE_SHARE`)."""
    return min(GRACE_MAX_S, max(GRACE_MIN_S, GRACE_SHARE * deadline_s))


def transport_timeout(deadline_s: float) -> Any:
    """The transport's own timeouts (an ``httpx2.Timeout``) under a deadline of
    ``deadline_s`` seconds: connect, write and pool at the deadline, the per-read timeout
    past the deadline plus its linger and grace.

    A per-read timeout equal to the deadline fired in the linger, before the server's answer
    or close, and closed the connection both ways: an answer written then was paid and the
    pair bought again (issue 36; 2 pairs in 5 loaded runs). The deadline, not the transport,
    decides when a chat exchange ends; the longer per-read bound still ends a silent
    connection of any other request.
    """
    import httpx2

    return httpx2.Timeout(deadline_s, read=deadline_s + linger_s(deadline_s)
                          + grace_s(deadline_s))


async def _finished(task: asyncio.Future[Any], deadline_s: float, exchange: Exchange) -> bool:
    """Whether ``task`` finishes, with a result or an error, once its deadline has passed:
    after a half-close of its connection (:mod:`judge.judges.llm.halfclose`) within the
    linger, when the server answers or closes; otherwise within the grace."""
    wait = linger_s(deadline_s) if exchange.half_close() else grace_s(deadline_s)
    await asyncio.wait({task}, timeout=wait)
    return task.done() and not task.cancelled()


def is_chat(request: Any) -> bool:
    """Whether ``request`` is a chat completion (the calls ``--timeout`` bounds end to end on
    a single endpoint; Batch API file transfers are not bounded by it)."""
    return str(getattr(getattr(request, "url", None), "path", "")).endswith(CHAT_PATH)


async def send_within_deadline(client: DeadlineClient, request: Any,
                               exchange: Coroutine[Any, Any, Any]) -> Any:
    """Run ``exchange`` (the transport's send of ``request``) within ``client.deadline_s``
    seconds (module docstring).

    Returns:
        The transport's response (also a late one).

    Raises:
        httpx2.ReadTimeout: the deadline passed on a single endpoint (the SDK retries it).
        openai.APITimeoutError: the deadline (or the transport's own timeout) passed on a
            replica of several (the SDK does not retry it; the pool moves the request).
        asyncio.CancelledError: the caller itself was cancelled (the exchange is cancelled and
            awaited first).
    """
    from openai import APITimeoutError
    from openai._httpx2 import timeout_exceptions

    tracked, token = track()
    task = asyncio.ensure_future(exchange)  # the task keeps ``tracked`` in its context
    untrack(token)
    try:
        done, _ = await asyncio.wait({task}, timeout=client.deadline_s)
        past = task not in done  # the deadline passed: the half-close or grace follows
        if past and await _finished(task, client.deadline_s or 0.0, tracked):
            done = {task}
            if task.exception() is None:  # its answer was arriving: taken, not bought again
                client.late_answers += 1
    except BaseException:  # the caller gave up: so does the exchange
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        raise
    try:
        if task not in done:
            task.cancel()  # closes its connection; awaited before the request moves on
            response = await task
            client.late_answers += 1  # it finished while being cancelled: kept
            return response
        return task.result()
    except asyncio.CancelledError:
        cancelling = getattr(asyncio.current_task(), "cancelling", None)  # 3.11+
        if cancelling is not None and cancelling():
            raise  # the caller itself is being cancelled
        client.cancelled += 1
        if not client.move_on_deadline:  # one endpoint: the SDK retries it (--max-retries)
            import httpx2

            raise httpx2.ReadTimeout(f"no complete answer within the {client.deadline_s:g} s "
                                     "deadline (--timeout)", request=request) from None
        raise APITimeoutError(request=request) from None  # the SDK does not retry it
    except timeout_exceptions() as exc:  # the transport's own timeout
        client.cancelled += past  # in the grace: the exchange was cut at the deadline
        if not client.move_on_deadline:
            raise
        raise APITimeoutError(request=request) from exc
