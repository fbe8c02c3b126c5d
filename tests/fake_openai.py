"""A loopback OpenAI-compatible chat server for tests and benchmarks (127.0.0.1 only).

It judges deterministically (score 0.9 when pred and truth share their first character after
case folding, else 0.1 — so tests can predict every score) and can inject faults: a fraction of
responses become HTTP 429 (with ``Retry-After``), HTTP 500, a timeout (the answer comes after the
client gave up), truncated JSON, or a refusal. It can also reject structured-output formats to
exercise the client's fallback chain, and it logs every request it receives.

Not a mock of the SDK: the real ``openai`` client talks HTTP to it.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULTS = ("429", "500", "timeout", "truncated", "refusal")
_ITEM = re.compile(r"<<<(PRED_ITEM|GOLD_ITEM(?: \d+)?)\n(.*?)\n(?:PRED_ITEM|GOLD_ITEM(?: \d+)?)>>>",
                   re.S)


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
        self._server: ThreadingHTTPServer | None = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self, port: int = 0) -> FakeOpenAIServer:
        """Serve on 127.0.0.1 (``port`` 0 = any free port) in a daemon thread."""
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                n = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(n) or b"{}")
                server._handle(self, body)

        class Server(ThreadingHTTPServer):
            def handle_error(self, request: object, client_address: object) -> None:
                pass  # clients that gave up (timeouts) reset their connections: expected

        self._server = Server(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        """Shut the server down."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    # ------------------------------------------------------------------ answers
    def _draw(self) -> str:
        with self._lock:
            if self._rng.random() < self.config.fault_rate:
                return self._rng.choice(self.config.faults)
        return "ok"

    def _record(self, path: str, body: dict[str, Any], response: str) -> None:
        with self._lock:
            self.log.append(LoggedRequest(time.time(), path, body, response))

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, code: int, obj: dict[str, Any],
              headers: dict[str, str] | None = None, raw: bytes | None = None) -> None:
        data = raw if raw is not None else json.dumps(obj).encode()
        handler.send_response(code)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(data)))
        for k, v in (headers or {}).items():
            handler.send_header(k, v)
        handler.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            handler.wfile.write(data)

    def _handle(self, h: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        if not h.path.endswith("/chat/completions"):
            self._record(h.path, body, "404")
            self._send(h, 404, {"error": {"message": "unknown route"}})
            return
        fmt = (body.get("response_format") or {}).get("type")
        if fmt in self.config.reject_formats:
            self._record(h.path, body, "rejected-format")
            self._send(h, 400, {"error": {"message": f"response_format type {fmt} is not "
                                          "supported by this server", "type": "invalid_request"}})
            return
        kind = self._draw()
        self._record(h.path, body, kind)
        if self.config.latency_s:
            time.sleep(self.config.latency_s)
        if kind == "429":
            self._send(h, 429, {"error": {"message": "rate limited"}},
                       {"retry-after-ms": "20", "retry-after": "0"})
            return
        if kind == "500":
            self._send(h, 500, {"error": {"message": "internal error"}})
            return
        if kind == "timeout":
            time.sleep(self.config.timeout_sleep_s)
        user = next((m["content"] for m in body.get("messages", []) if m["role"] == "user"), "")
        items = _ITEM.findall(user)
        pred = next((v for k, v in items if k == "PRED_ITEM"), "")
        truths = [v for k, v in items if k.startswith("GOLD_ITEM")]
        if kind == "refusal":
            message: dict[str, Any] = {"role": "assistant", "content": None,
                                       "refusal": "I can't help with that."}
        elif kind == "truncated":
            message = {"role": "assistant", "content": '{"score": 0.'}
        elif len(truths) > 1 or "GOLD_ITEM 1" in user:
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
        self._send(h, 200, {
            "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "fake"),
            "choices": [{"index": i, "message": message,
                         "finish_reason": "stop"} for i in range(n)],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 20 * n,
                      "total_tokens": prompt_tokens + 20 * n},
        })
