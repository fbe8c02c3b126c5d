"""``--timeout`` bounds a whole chat exchange on every path (issue 36, item 4), and an answer
whose bytes are in when the deadline fires is taken, not bought again (issue 36, late answers).
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from judge.cache import JudgeCache
from judge.judges.base import JudgeContext
from judge.judges.options import JudgeOptions
from judge.judges.registry import parse_judge_spec

_REPLY = {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
          "choices": [{"index": 0, "finish_reason": "stop", "message": {
              "role": "assistant", "content": '{"score": 0.9, "rationale": "late"}'}}],
          "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10}}


class DripServer:
    """An HTTP server that answers every request with a 200 header promising 10,000 bytes,
    then sends one byte every ``every_s`` seconds until ``stop_after_s`` (or the client goes):
    a reply no per-read timeout ever ends."""

    def __init__(self, every_s: float = 0.1, stop_after_s: float = 40.0) -> None:
        self.every_s, self.stop_after_s = every_s, stop_after_s
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.requests = 0
        self._stop = threading.Event()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            conn.recv(65536)  # the request (small: one pair)
            self.requests += 1
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 10000\r\n\r\n")
            end = time.monotonic() + self.stop_after_s
            try:
                while time.monotonic() < end and not self._stop.is_set():
                    conn.sendall(b" ")
                    time.sleep(self.every_s)
            except OSError:  # the client closed the exchange
                return

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def __enter__(self) -> DripServer:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self.sock.close()


@pytest.fixture
def drip() -> Iterator[DripServer]:
    with DripServer() as srv:
        yield srv


@pytest.mark.parametrize("http", ["httpx", "aiohttp"])
def test_a_dripping_reply_is_cut_at_the_timeout_on_a_single_endpoint(
        tmp_path: Path, drip: DripServer, http: str) -> None:
    # before: the per-read timeout restarted with every byte, so the call lasted as long as
    # the drip (40 s here; 119.5 s and "never" on held-out servers). Now: 1 s per attempt,
    # 2 attempts (--max-retries 1), and a transport_error
    judge = parse_judge_spec("openai:drip", JudgeOptions(
        base_url=f"http://127.0.0.1:{drip.port}/v1", timeout_s=1.0, max_retries=1, http=http))
    ctx = JudgeContext(cache=JudgeCache(tmp_path / "cache", "read-write"))
    start = time.monotonic()
    verdicts = asyncio.run(judge.judge_pairs([("a", "b")], ctx))
    took = time.monotonic() - start
    assert verdicts[0].outcome == "transport_error"
    assert "timed out" in verdicts[0].rationale.lower() or "timeout" in \
        verdicts[0].rationale.lower(), verdicts[0].rationale
    assert drip.requests == 2  # the SDK retried the cut exchange once, as any timeout
    assert took < 20  # 2 × 1 s plus backoff; the drip itself lasts 40 s


def test_an_answer_in_when_the_deadline_fires_is_taken_not_bought_again(
        tmp_path: Path) -> None:
    # the answer is complete just past the deadline, while the event loop was busy (a
    # blocking 0.3 s step, as a CPU-bound neighbour causes): the loop runs the deadline's timer
    # before the exchange's last steps. Before, the exchange was cancelled and the
    # request bought again from the other replica (paid twice, late_answers 0); now the grace
    # turns let it finish: taken, counted as a late answer, sent once
    import httpx2

    from judge.judges.llm.openai_client import JudgeClient

    sent: list[str] = []

    async def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(str(request.url))
        if "slow" in str(request.url):
            await asyncio.sleep(0.1)
            time.sleep(0.3)  # the loop is blocked past the 0.2 s deadline
            for _ in range(5):  # the reply's last steps (read, parse) after the timer's
                await asyncio.sleep(0)
        return httpx2.Response(200, json=_REPLY)

    opts = JudgeOptions(base_url="http://slow.invalid/v1,http://other.invalid/v1",
                        timeout_s=0.2, max_retries=0)
    judge = parse_judge_spec("openai:fake-model", opts)
    pool = judge.endpoint_pool
    pool.endpoints[1].requests = 1  # the slow one is tried first
    pool._make_client = lambda url: JudgeClient(  # type: ignore[method-assign]
        api_key="k", base_url=url, max_retries=0, deadline_s=0.2,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)))
    ctx = JudgeContext(cache=JudgeCache(tmp_path / "cache", "read-write"))
    verdicts = asyncio.run(judge.judge_pairs([("Alpha", "apple")], ctx))
    stats = pool.stats()
    assert verdicts[0].outcome == "ok" and verdicts[0].rationale == "late"
    assert sent == ["http://slow.invalid/v1/chat/completions"]  # never re-sent
    assert stats["http://slow.invalid/v1"]["late_answers"] == 1
    assert sum(s["cancelled"] for s in stats.values()) == 0
