"""A loopback OpenAI-compatible chat server for tests and benchmarks (127.0.0.1 only).

It judges deterministically (score 0.9 when pred and truth share their first character after
case folding, else 0.1 — so tests can predict every score) and can inject faults: a fraction of
responses become HTTP 429 (with ``Retry-After``), HTTP 500, a timeout (the answer comes after the
client gave up), truncated JSON, or a refusal. It can also reject structured-output formats to
exercise the client's fallback chain, and it logs every request it receives.

Not a mock of the SDK: the real ``openai`` client talks HTTP to it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any

FAULTS = ("429", "500", "timeout", "truncated", "refusal")
_ITEM = re.compile(r"<<<(PRED_ITEM|GOLD_ITEM|ANCHOR|ITEM \d+)\n(.*?)\n"
                   r"(?:PRED_ITEM|GOLD_ITEM|ANCHOR|ITEM \d+)>>>", re.S)


def fake_score(pred: str, truth: str) -> float:
    """The fake judge's score: 0.9 if the first characters match (casefolded), else 0.1."""
    return 0.9 if pred[:1].casefold() == truth[:1].casefold() else 0.1


@dataclass
class LoggedRequest:
    """One request as the server saw it."""

    t: float
    path: str
    body: dict[str, Any]
    response: str  # "ok", a fault name, or "rejected-format"


@dataclass
class FakeServerConfig:
    """Behaviour of :class:`FakeOpenAIServer`.

    Attributes:
        latency_s: fixed delay before every answer.
        fault_rate: share of responses replaced by a fault, spread evenly over ``faults``.
        faults: fault kinds to draw from.
        timeout_sleep_s: how long a "timeout" response stalls.
        reject_formats: response_format types answered with HTTP 400.
        seed: random seed of the fault draws.
        batch_drop_last: batch answers leave out their last gold item (a partial answer).
    """

    latency_s: float = 0.0
    fault_rate: float = 0.0
    faults: tuple[str, ...] = FAULTS
    timeout_sleep_s: float = 2.0
    reject_formats: tuple[str, ...] = ()
    seed: int = 0
    batch_drop_last: bool = False


@dataclass
class FakeOpenAIServer:
    """Start with :meth:`start` (or as a context manager); ``base_url`` is then set."""

    config: FakeServerConfig = field(default_factory=FakeServerConfig)
    log: list[LoggedRequest] = field(default_factory=list)
    base_url: str = ""

    def __post_init__(self) -> None:
        self._rng = random.Random(self.config.seed)
        self._lock = threading.Lock()
        self._server: asyncio.AbstractServer | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread()

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self, port: int = 0) -> FakeOpenAIServer:
        """Serve on 127.0.0.1 (``port`` 0 = any free port) from an asyncio loop in a thread."""
        ready = threading.Event()

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop

            async def serve() -> None:
                self._server = await asyncio.start_server(self._connection, "127.0.0.1", port,
                                                          backlog=512)
                self.base_url = f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}/v1"
                ready.set()
                async with self._server:
                    await self._server.serve_forever()

            with contextlib.suppress(asyncio.CancelledError, RuntimeError):
                loop.run_until_complete(serve())

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    def stop(self) -> None:
        """Shut the server down."""
        if self._server is not None and self._loop is not None:
            self._loop.call_soon_threadsafe(self._server.close)
            for task in asyncio.all_tasks(self._loop):
                self._loop.call_soon_threadsafe(task.cancel)
            self._thread.join(5)
            self._server = None

    async def _connection(self, reader: asyncio.StreamReader,
                          writer: asyncio.StreamWriter) -> None:
        """HTTP/1.1 with keep-alive: one request after another until the client closes."""
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                path = lines[0].split(" ")[1]
                headers = {k.strip().lower(): v.strip() for k, _, v in
                           (ln.partition(":") for ln in lines[1:] if ln)}
                n = int(headers.get("content-length", 0))
                body = json.loads(await reader.readexactly(n) or b"{}") if n else {}
                code, obj, extra = await self._answer(path, body)
                data = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
                hdrs = "".join(f"{k}: {v}\r\n" for k, v in extra.items())
                writer.write(f"HTTP/1.1 {code} X\r\ncontent-type: application/json\r\n"
                             f"content-length: {len(data)}\r\n{hdrs}\r\n".encode() + data)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    # ------------------------------------------------------------------ answers
    def _draw(self) -> str:
        with self._lock:
            if self._rng.random() < self.config.fault_rate:
                return self._rng.choice(self.config.faults)
        return "ok"

    def _record(self, path: str, body: dict[str, Any], response: str) -> None:
        with self._lock:
            self.log.append(LoggedRequest(time.time(), path, body, response))

    async def _answer(self, path: str, body: dict[str, Any],
                      ) -> tuple[int, dict[str, Any], dict[str, str]]:
        if not path.endswith("/chat/completions"):
            self._record(path, body, "404")
            return 404, {"error": {"message": "unknown route"}}, {}
        fmt = (body.get("response_format") or {}).get("type")
        if fmt in self.config.reject_formats:
            self._record(path, body, "rejected-format")
            return 400, {"error": {"message": f"response_format type {fmt} is not supported "
                                   "by this server", "type": "invalid_request"}}, {}
        kind = self._draw()
        self._record(path, body, kind)
        if self.config.latency_s:
            await asyncio.sleep(self.config.latency_s)
        if kind == "429":
            return 429, {"error": {"message": "rate limited"}}, {"retry-after-ms": "20",
                                                                  "retry-after": "0"}
        if kind == "500":
            return 500, {"error": {"message": "internal error"}}, {}
        if kind == "timeout":
            await asyncio.sleep(self.config.timeout_sleep_s)
        user = next((m["content"] for m in body.get("messages", []) if m["role"] == "user"), "")
        items = _ITEM.findall(user)
        pred = next((v for k, v in items if k in ("PRED_ITEM", "ANCHOR")), "")
        truths = [v for k, v in items if k == "GOLD_ITEM" or k.startswith("ITEM ")]
        if kind == "refusal":
            message: dict[str, Any] = {"role": "assistant", "content": None,
                                       "refusal": "I can't help with that."}
        elif kind == "truncated":
            message = {"role": "assistant", "content": '{"score": 0.'}
        elif "<<<ITEM 1" in user:
            scores = [{"index": i + 1, "score": fake_score(pred, t), "rationale": "fake"}
                      for i, t in enumerate(truths)]
            if self.config.batch_drop_last:
                scores = scores[:-1]
            message = {"role": "assistant", "content": json.dumps({"scores": scores})}
        else:
            t = truths[0] if truths else ""
            message = {"role": "assistant", "content": json.dumps(
                {"score": fake_score(pred, t), "rationale": f"fake judge: {pred[:1]}/{t[:1]}"},
                ensure_ascii=False)}
        n = int(body.get("n", 1) or 1)
        prompt_tokens = len(json.dumps(body.get("messages", []))) // 4
        return 200, {
            "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "fake"),
            "choices": [{"index": i, "message": message,
                         "finish_reason": "stop"} for i in range(n)],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 20 * n,
                      "total_tokens": prompt_tokens + 20 * n},
        }, {}

def main() -> None:
    """``python -m tests.fake_openai --latency 0.1``: serve until killed; prints the base URL."""
    import argparse

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("--latency", type=float, default=0.0)
    ap.add_argument("--fault-rate", type=float, default=0.0)
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()
    srv = FakeOpenAIServer(FakeServerConfig(latency_s=args.latency,
                                            fault_rate=args.fault_rate)).start(args.port)
    print(srv.base_url, flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
