"""At its deadline an exchange half-closes its connection and reads on, so that the server
decides: an answer it writes is taken, a request it drops is moved (issue 36, late answers;
``judge/judges/llm/halfclose.py``).

The servers here act on events, not on time: they hold each request until they see the
client's end of input, then either answer (a server that finished as the client gave up) or
close (a server that aborts on disconnect, as vLLM and SGLang do).
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judge.cache import JudgeCache
from judge.judges.base import JudgeContext
from judge.judges.options import JudgeOptions
from judge.judges.registry import parse_judge_spec

HOLD = b"zzhold"  # in a pair's text: the server holds that request (no prompt says it)


def _reply(rationale: str) -> bytes:
    body = json.dumps({
        "id": "x", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant",
            "content": json.dumps({"score": 0.9, "rationale": rationale})}}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10}}).encode()
    return (b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
            b"content-length: %d\r\n\r\n" % len(body)) + body


class EofServer:
    """A keep-alive HTTP/1.1 server (``on_eof``: ``answer`` or ``close``).

    A request whose body holds :data:`HOLD` gets no answer until the client ends its input
    (``recv`` returns b""); then it is answered
    ``after_eof_s`` seconds later (``answer``: counted in ``answered_late``) or the connection
    closed unanswered (``close``). Any other request is answered at once.
    """

    def __init__(self, on_eof: str, holds: bool = True, after_eof_s: float = 0.0) -> None:
        self.on_eof, self.holds, self.after_eof_s = on_eof, holds, after_eof_s
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"
        self.connections = 0
        self.requests: list[bytes] = []
        self.answered_late = 0
        self.dropped = 0

    def _read_request(self, conn: socket.socket, buf: bytes) -> tuple[bytes, bytes] | None:
        while b"\r\n\r\n" not in buf:
            chunk = conn.recv(65536)
            if not chunk:
                return None
            buf += chunk
        head, _, rest = buf.partition(b"\r\n\r\n")
        length = next(int(ln.split(b":")[1]) for ln in head.split(b"\r\n")
                      if ln.lower().startswith(b"content-length"))
        while len(rest) < length:
            chunk = conn.recv(65536)
            if not chunk:
                return None
            rest += chunk
        return rest[:length], rest[length:]

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            buf = b""
            while True:
                got = self._read_request(conn, buf)
                if got is None:
                    return
                body, buf = got
                self.requests.append(body)
                if not self.holds or HOLD not in body:
                    conn.sendall(_reply("at once"))
                    continue
                while conn.recv(65536):  # held until the client's FIN
                    pass
                if self.on_eof == "close":
                    self.dropped += 1
                    return
                self.answered_late += 1
                time.sleep(self.after_eof_s)  # the answer's last tokens, after the FIN
                try:
                    conn.sendall(_reply("answered at the client's FIN"))
                except OSError:  # the client had closed both ways: nobody reads it
                    self.answered_late -= 1
                return

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def __enter__(self) -> EofServer:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.sock.close()


@pytest.fixture
def other() -> Iterator[EofServer]:
    with EofServer("answer", holds=False) as srv:  # answers everything at once
        yield srv


def _judge(first: EofServer, second: EofServer, timeout_s: float = 2.0) -> object:
    # a 2 s deadline: a linger of 1 s, so a loaded machine cannot stall the server past it
    judge = parse_judge_spec("openai:fake-model", JudgeOptions(
        base_url=f"{first.url},{second.url}", timeout_s=timeout_s, max_retries=0,
        concurrency=1, http="aiohttp"))
    judge.endpoint_pool.endpoints[1].requests = 1  # type: ignore[attr-defined]  # first first
    return judge


def _run(first: EofServer, other: EofServer, pairs: list[tuple[str, str]], tmp_path: Path,
         ) -> tuple[list[Any], dict[str, Any]]:
    """Judge ``pairs`` with ``first`` tried first: the verdicts and the pool's stats."""
    judge = _judge(first, other)
    ctx = JudgeContext(cache=JudgeCache(tmp_path / "cache", "read-write"))
    verdicts = asyncio.run(judge.judge_pairs(pairs, ctx))  # type: ignore[attr-defined]
    return verdicts, judge.endpoint_pool.stats()  # type: ignore[attr-defined]


def test_an_answer_written_at_the_clients_fin_is_taken_and_paid_once(
        tmp_path: Path, other: EofServer) -> None:
    # the server answers only once it sees the client give up: the race at the deadline made
    # deterministic. Before, the client closed both ways at the deadline (plus grace), so that
    # answer went to a closed socket, was paid, and the pair was bought again from the other
    # replica. Now the client half-closes, reads on, and takes it.
    with EofServer("answer") as late:
        verdicts, stats = _run(late, other, [("zzhold Alpha", "apple"), ("Beta", "banana")],
                               tmp_path)
    assert [v.outcome for v in verdicts] == ["ok", "ok"]
    assert verdicts[0].rationale == "answered at the client's FIN"
    assert late.answered_late == 1
    assert not any(HOLD in body for body in other.requests)  # never bought twice
    assert stats[late.url]["late_answers"] == 1
    assert stats[late.url]["cancelled"] == 0
    # the half-closed connection was not reused: the next request to ``late`` (if the pool
    # sent it there) came on a new connection
    assert late.connections == len(late.requests)


def test_a_server_that_drops_at_the_fin_has_the_request_moved_unpaid(
        tmp_path: Path, other: EofServer) -> None:
    # a server that aborts on disconnect sees the half-close, drops the request and closes;
    # the client sees that close and moves the pair to the other replica: paid once, there
    with EofServer("close") as dropping:
        verdicts, stats = _run(dropping, other, [("zzhold Gamma", "grape")], tmp_path)
    assert verdicts[0].outcome == "ok" and verdicts[0].rationale == "at once"
    assert dropping.dropped == 1 and dropping.answered_late == 0
    assert [b"zzhold Gamma" in body for body in other.requests] == [True]
    assert stats[dropping.url]["late_answers"] == 0
    assert stats[dropping.url]["cancelled"] == 1


def test_an_answer_finished_in_the_linger_is_not_cut_by_the_read_timeout(
        tmp_path: Path, other: EofServer) -> None:
    # the server writes its answer 0.15 s after the client's FIN, well inside the linger
    # (0.5 s). Before, the transport's per-read timeout equalled the deadline and fired in
    # the linger, closing the connection both ways: the answer was paid, the pair bought again
    with EofServer("answer", after_eof_s=0.15) as late:
        verdicts, stats = _run(late, other, [("zzhold Delta", "date")], tmp_path)
    assert verdicts[0].rationale == "answered at the client's FIN"
    assert not any(HOLD in body for body in other.requests)
    assert stats[late.url]["late_answers"] == 1
