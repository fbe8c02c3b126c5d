"""A loopback OpenAI-compatible chat server for tests and benchmarks (127.0.0.1 only).

It judges deterministically (score 0.9 when pred and truth share their first character after
case folding, else 0.1 — so tests can predict every score) and can inject faults: a fraction of
responses become HTTP 429 (with ``Retry-After``), HTTP 500, a timeout (the answer comes after the
client gave up), truncated JSON, or a refusal. It can also reject structured-output formats to
exercise the client's fallback chain, answer every request with one HTTP error status (a dead
endpoint: 401, 404…), serve malformed HTTP 200 replies (:data:`MALFORMED_SHAPES`, chosen per
judged string with ``FakeServerConfig.shapes``), and it logs every request it receives.

``POST /v1/embeddings`` answers with deterministic vectors (:func:`fake_embedding`), as base64
float32 when asked for (``encoding_format: "base64"``, what the openai SDK sends) or as
numbers, with its own malformed shapes (:data:`EMBEDDING_SHAPES`).

Not a mock of the SDK: the real ``openai`` client talks HTTP to it.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import contextvars
import json
import random
import re
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from typing import Any

FAULTS = ("429", "500", "timeout", "truncated", "refusal")
"""The default fault kinds; ``"hangup"`` (close the connection without replying) can be added
to ``FakeServerConfig.faults``."""
MALFORMED_SHAPES = ("html", "cut_json", "json_array", "message_string", "content_list",
                    "usage_string")
"""HTTP 200 chat replies that break the protocol: an HTML page (content-type text/html, ~20 kB),
the JSON body cut off halfway, a JSON array around the completion object, ``message`` as a
string, ``message.content`` as a list of parts, ``usage.prompt_tokens`` = ``"many"``."""
EMBEDDING_SHAPES = ("html", "cut_json", "json_array", "data_string", "embedding_text",
                    "missing_vector", "nan_vector", "usage_string")
"""HTTP 200 embeddings replies that break the protocol (same first three as the chat ones;
``data`` as a string, a vector of strings, one vector fewer than inputs, a NaN in a vector,
``usage.prompt_tokens`` = ``"many"``)."""
HTML_PAGE = ("<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>"
             "<h1>Bad Gateway</h1><p>The proxy received an invalid response.</p>"
             + "<!-- padding -->" * 1200 + "</body></html>")
_ITEM = re.compile(r"<<<(PRED_ITEM|GOLD_ITEM|ANCHOR|ITEM \d+)\n(.*?)\n"
                   r"(?:PRED_ITEM|GOLD_ITEM|ANCHOR|ITEM \d+)>>>", re.S)


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed): connecting is refused."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = int(s.getsockname()[1])
    s.close()
    return port


def fake_score(pred: str, truth: str) -> float:
    """The fake judge's score: 0.9 if the first characters match (casefolded), else 0.1."""
    return 0.9 if pred[:1].casefold() == truth[:1].casefold() else 0.1


GRADE_MATCH = {"9": 0.6, "8": 0.3, "7": 0.1}
"""Grade distribution of the fake judge for pairs sharing their first character."""
GRADE_OTHER = {"1": 0.5, "0": 0.3, "2": 0.2}
"""Grade distribution of the fake judge for other pairs."""


def grade_logprobs(dist: dict[str, float]) -> list[dict[str, Any]]:
    """``logprobs.content`` of a one-token grade answer with this distribution (the chosen
    token is the most likely grade; alternatives in decreasing probability, as OpenAI lists
    them)."""
    import math

    alts = sorted(dist.items(), key=lambda x: -x[1])
    top = [{"token": g, "logprob": math.log(p), "bytes": list(g.encode())} for g, p in alts]
    return [{"token": alts[0][0], "logprob": math.log(alts[0][1]),
             "bytes": list(alts[0][0].encode()), "top_logprobs": top}]


def fake_embedding(text: str) -> list[float]:
    """The fake embedding server's vector: 8 dimensions, 1 in dimension 0 and in dimension
    1 + (code point of the casefolded first character mod 7). So two strings whose first
    characters agree mod 7 have cosine 1.0, others cosine 0.5 (= 1 / (√2·√2))."""
    v = [0.0] * 8
    v[0] = 1.0
    v[1 + ord((text[:1] or " ").casefold()[0]) % 7] = 1.0
    return v


@dataclass
class LoggedRequest:
    """One request as the server saw it."""

    t: float
    path: str
    body: dict[str, Any]
    response: str  # "ok", a fault name, or "rejected-format"
    constraint: str = ""  # the structured-output field the server honoured ("" = none)
    client_left_at: float | None = None  # the client closed the connection before the answer
    answered_at: float | None = None  # the answer was ready and the client still there


_CONN: contextvars.ContextVar[dict[str, Any]] = contextvars.ContextVar("conn")
"""Per connection (each is its own task): ``eof`` — when the client closed it, if it did —
and ``entry``, the logged request being answered on it."""


@dataclass
class FakeServerConfig:
    """Behaviour of :class:`FakeOpenAIServer`.

    Attributes:
        latency_s: fixed delay before every answer.
        fault_rate: share of responses replaced by a fault, spread evenly over ``faults``.
        faults: fault kinds to draw from.
        timeout_sleep_s: how long a "timeout" response stalls.
        reject_formats: response_format types answered with HTTP 400 (``guided_json``,
            ``structured_outputs``: a request carrying that vLLM field).
        seed: random seed of the fault draws.
        batch_drop_last: batch answers leave out their last gold item (a partial answer).
        echo_auth_status: when non-zero, every request is answered with this HTTP status and
            an error body that echoes the request's API key and ``Authorization`` header (as
            some servers and proxies do), to test that simjudge stores and prints no key.
        shapes: judged string → malformed shape (:data:`MALFORMED_SHAPES`, or for embeddings
            :data:`EMBEDDING_SHAPES`): a request that judges or embeds that string gets that
            HTTP 200 reply instead of the answer.
        contents: judged string → completion text sent verbatim as ``message.content`` of a
            well-formed reply (e.g. ``'{"score": true}'``) for a request judging that string.
        status_all: when set, every request is answered with this HTTP status and an
            OpenAI-style error body carrying ``status_message`` (a dead endpoint).
        position_bias: a planted order bias: the score gains this much when the string in the
            PRED slot sorts before the one in the GOLD slot and loses it otherwise (clipped to
            [0, 1]), so s(a, b) ≠ s(b, a) — what the swap probe must catch.
        noise: planted sampling noise: each answer's score moves by up to ± this much, drawn
            from a hash of the request's messages, its ``seed`` and how many times the same
            request was seen before (deterministic whatever the order of concurrent
            requests), so separate calls for one pair disagree — what the repeat probe must
            catch.
        no_logprobs: ignore ``logprobs`` in requests (a server that does not serve them).
        set_cookie: when set, every reply carries ``Set-Cookie: <this>`` (a sticky-session
            load balancer).
        redirect: answer ``/v1/...`` with HTTP 307 to ``/v1/moved/...``, which is served as
            usual (a moved endpoint).
        completion_tokens: when set, the completion tokens of each choice of a chat answer
            as reported in ``usage`` (None: 20), the pairwise answer's rationale padded to 4
            characters a token ("long answers"), and a request's ``max_tokens`` (or
            ``max_completion_tokens``) honoured as a real server does: a longer answer is cut
            at 4 characters a token of the limit, ``finish_reason`` ``length``, and ``usage``
            reports the limit.
        drift_shift: a planted drift of the model behind the same name: every pairwise
            score gains this much (clipped to [0, 1]). Changed on a running server
            (``server.config.drift_shift = 0.1``), the model name stays the same — what the
            drift canary (``calibrate --check --rejudge``) must catch.
        drift_flip: planted flips: for this share of pairs (chosen by a hash of the pair's
            two strings and ``drift_seed``: the same pairs on every call) the pairwise score
            becomes 1 − score, before the shift, noise and bias.
        drift_seed: the seed of the flipped pairs' hash.
        vllm_version: when set, the server is that vLLM: ``GET /version`` answers
            ``{"version": …}`` (else HTTP 404), and its structured-output fields are honoured
            as that version does — ``structured_outputs`` from 0.10.2, ``guided_json`` before
            0.12.0, ``response_format`` always — the others ignored silently, as vLLM does.
            Each logged request's ``constraint`` names the field honoured ("" = none).

    Every request's path and headers (lower-cased names) are kept in
    ``FakeOpenAIServer.headers_log``, in arrival order.

    Grade requests (the ``entity_similarity_grade`` scorer, asked with ``logprobs: true``) are
    answered with one digit and ``logprobs.content``: a pair sharing its first character has
    grade distribution {9: 0.6, 8: 0.3, 7: 0.1}, any other {1: 0.5, 0: 0.3, 2: 0.2}
    (:data:`GRADE_MATCH`, :data:`GRADE_OTHER`); the text is the most likely grade.
    """

    latency_s: float = 0.0
    fault_rate: float = 0.0
    faults: tuple[str, ...] = FAULTS
    timeout_sleep_s: float = 2.0
    reject_formats: tuple[str, ...] = ()
    seed: int = 0
    batch_drop_last: bool = False
    echo_auth_status: int = 0
    shapes: dict[str, str] = field(default_factory=dict)
    contents: dict[str, str] = field(default_factory=dict)
    status_all: int | None = None
    status_message: str = "Incorrect API key provided: sk-fake-*****. You can find your key."
    position_bias: float = 0.0
    noise: float = 0.0
    no_logprobs: bool = False
    set_cookie: str = ""
    redirect: bool = False
    completion_tokens: int | None = None
    vllm_version: str | None = None
    drift_shift: float = 0.0
    drift_flip: float = 0.0
    drift_seed: int = 0


@dataclass
class FakeOpenAIServer:
    """Start with :meth:`start` (or as a context manager); ``base_url`` is then set."""

    config: FakeServerConfig = field(default_factory=FakeServerConfig)
    log: list[LoggedRequest] = field(default_factory=list)
    base_url: str = ""

    def __post_init__(self) -> None:
        self._rng = random.Random(self.config.seed)
        self._seen: dict[str, int] = {}
        self._lock = threading.Lock()
        self._server: asyncio.AbstractServer | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread()
        self.headers_log: list[tuple[str, dict[str, str]]] = []
        self.version_requests = 0

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
            # let cancelled connection handlers finish (they close their sockets), then close
            # the loop: no "Task was destroyed but it is pending" / "Event loop is closed"
            pending = asyncio.all_tasks(loop)
            for task in pending:
                task.cancel()
            with contextlib.suppress(RuntimeError):
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.close()

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    def stop(self) -> None:
        """Shut the server down."""
        if self._server is not None and self._loop is not None:
            server, loop = self._server, self._loop

            def shutdown() -> None:  # runs in the server's loop: no race with its closing
                server.close()
                for task in asyncio.all_tasks(loop):
                    task.cancel()

            with contextlib.suppress(RuntimeError):  # the loop already ended
                loop.call_soon_threadsafe(shutdown)
            self._thread.join(5)
            self._server = None

    async def _connection(self, reader: asyncio.StreamReader,
                          writer: asyncio.StreamWriter) -> None:
        """HTTP/1.1 with keep-alive: one request after another until the client closes.

        A request whose client closed the connection before its answer was ready (a client
        that gave up and cancelled) is marked ``client_left_at`` in the log and gets no
        answer: a server that aborts on disconnect (vLLM, SGLang) generates and bills nothing
        more for it. An answer delivered to a client still there is marked ``answered_at``."""
        conn: dict[str, Any] = {"eof": None, "entry": None}
        _CONN.set(conn)
        feed_eof = reader.feed_eof

        def eof_seen() -> None:  # called by the protocol when the client closes
            conn["eof"] = time.time()
            entry = conn["entry"]
            if entry is not None and entry.answered_at is None:
                entry.client_left_at = conn["eof"]
            feed_eof()

        reader.feed_eof = eof_seen  # type: ignore[method-assign]
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path = lines[0].split(" ")[:2]
                headers = {k.strip().lower(): v.strip() for k, _, v in
                           (ln.partition(":") for ln in lines[1:] if ln)}
                n = int(headers.get("content-length", 0))
                raw = await reader.readexactly(n) if n else b""
                ctype_in = headers.get("content-type", "")
                body = ({"_multipart": raw, "_content_type": ctype_in}
                        if ctype_in.startswith("multipart/") else json.loads(raw or b"{}"))
                self.headers_log.append((path, headers))
                if self.config.redirect and not path.startswith("/v1/moved/"):
                    code, obj, extra = 307, b"", {"location": "/v1/moved" + path[3:]}
                else:
                    code, obj, extra = (self._echo_auth(path, body, headers)
                                        if self.config.echo_auth_status else
                                        await self._route(method, path, body))
                if self.config.set_cookie:
                    extra["set-cookie"] = self.config.set_cookie
                if code == 0 or conn["eof"]:  # the "hangup" fault, or the client is gone
                    break
                data = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
                ctype = extra.pop("content-type", "application/json")
                hdrs = "".join(f"{k}: {v}\r\n" for k, v in extra.items())
                writer.write(f"HTTP/1.1 {code} X\r\ncontent-type: {ctype}\r\n"
                             f"content-length: {len(data)}\r\n{hdrs}\r\n".encode() + data)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            pass
        except asyncio.CancelledError:  # server stopping: end quietly (Python 3.11's stream
            pass                        # callback would log a cancelled handler as an error)
        finally:
            writer.close()

    # ------------------------------------------------------------------ answers
    def _echo_auth(self, path: str, body: dict[str, Any], headers: dict[str, str],
                   ) -> tuple[int, dict[str, Any], dict[str, str]]:
        auth = headers.get("authorization", "")
        self._record(path, body, f"echo-auth-{self.config.echo_auth_status}")
        return self.config.echo_auth_status, {"error": {
            "message": f"Incorrect API key provided: {auth.removeprefix('Bearer ')}. "
                       f"Request header was 'Authorization: {auth}'.",
            "type": "invalid_request_error", "code": "invalid_api_key"}}, {}

    def _draw(self) -> str:
        with self._lock:
            if self._rng.random() < self.config.fault_rate:
                return self._rng.choice(self.config.faults)
        return "ok"

    def _record(self, path: str, body: dict[str, Any], response: str,
                constraint: str = "") -> LoggedRequest:
        entry = LoggedRequest(time.time(), path, body, response, constraint)
        with self._lock:
            self.log.append(entry)
        conn = _CONN.get(None)
        if conn is not None:
            conn["entry"] = entry
        return entry

    def _constraint(self, body: dict[str, Any]) -> str:
        """The structured-output field this server honours in ``body`` ("" = none): as the
        configured vLLM version does (``vllm_version``), else the first one present."""
        fmt = (body.get("response_format") or {}).get("type") or ""
        present = [f for f in ("structured_outputs", "guided_json") if f in body]
        if fmt:
            present.append(fmt)
        if self.config.vllm_version is None:
            return present[0] if present else ""
        v = tuple(int(x) for x in self.config.vllm_version.split(".")[:3])
        honoured = {"structured_outputs": v >= (0, 10, 2), "guided_json": v < (0, 12, 0),
                    "json_schema": True, "json_object": True}
        return next((f for f in present if honoured.get(f)), "")

    async def _route(self, method: str, path: str, body: dict[str, Any],
                     ) -> tuple[int, dict[str, Any] | bytes, dict[str, str]]:
        """Answer one request (subclasses add routes, e.g. :mod:`tests.fake_batch`)."""
        return await self._answer(path, body)

    async def _answer(self, path: str, body: dict[str, Any],
                      ) -> tuple[int, dict[str, Any] | bytes, dict[str, str]]:
        if self.config.status_all is not None:
            self._record(path, body, str(self.config.status_all))
            return self.config.status_all, {"error": {
                "message": self.config.status_message, "type": "invalid_request_error",
                "code": "fake_error"}}, {}
        if path.rstrip("/").endswith("/version"):  # vLLM's GET /version (not logged)
            self.version_requests += 1
            if self.config.vllm_version is None:
                return 404, {"detail": "Not Found"}, {}
            return 200, {"version": self.config.vllm_version}, {}
        if path.endswith("/embeddings"):
            return self._embeddings(path, body)
        if not path.endswith("/chat/completions"):
            self._record(path, body, "404")
            return 404, {"error": {"message": "unknown route"}}, {}
        fmt = (body.get("response_format") or {}).get("type")
        for name in ("guided_json", "structured_outputs"):
            if name in body and name in self.config.reject_formats:
                self._record(path, body, "rejected-format")
                return 400, {"error": {"message": f"{name} is not supported by this server",
                                       "type": "invalid_request"}}, {}
        if fmt in self.config.reject_formats:
            self._record(path, body, "rejected-format")
            return 400, {"error": {"message": f"response_format type {fmt} is not supported "
                                   "by this server", "type": "invalid_request"}}, {}
        user = next((m["content"] for m in body.get("messages", []) if m["role"] == "user"), "")
        items = _ITEM.findall(user)
        pred = next((v for k, v in items if k in ("PRED_ITEM", "ANCHOR")), "")
        truths = [v for k, v in items if k == "GOLD_ITEM" or k.startswith("ITEM ")]
        shape = next((self.config.shapes[s] for s in (pred, *truths)
                      if s in self.config.shapes), None)
        kind = shape or self._draw()
        entry = self._record(path, body, kind, self._constraint(body))
        if self.config.latency_s:
            await asyncio.sleep(self.config.latency_s)
        conn = _CONN.get(None)
        if conn is not None and conn["eof"]:  # the client gave up meanwhile: no answer
            return 0, b"", {}
        entry.answered_at = time.time()
        if kind == "429":
            return 429, {"error": {"message": "rate limited"}}, {"retry-after-ms": "20",
                                                                  "retry-after": "0"}
        if kind == "hangup":
            return 0, b"", {}
        if kind == "500":
            return 500, {"error": {"message": "internal error"}}, {}
        if kind == "timeout":
            await asyncio.sleep(self.config.timeout_sleep_s)
        dist: dict[str, float] | None = None
        if kind == "refusal":
            message: dict[str, Any] = {"role": "assistant", "content": None,
                                       "refusal": "I can't help with that."}
        elif kind == "truncated":
            message = {"role": "assistant", "content": '{"score": 0.'}
        elif any(s in self.config.contents for s in (pred, *truths)):
            text = next(self.config.contents[s] for s in (pred, *truths)
                        if s in self.config.contents)
            message = {"role": "assistant", "content": text}
        elif "Grade (one digit" in user:
            dist = GRADE_MATCH if fake_score(pred, truths[0] if truths else "") > 0.5 \
                else GRADE_OTHER
            grade = max(dist, key=lambda g: dist[g])
            message = {"role": "assistant", "content": grade}
        elif "<<<ITEM 1" in user:
            scores = [{"index": i + 1, "score": fake_score(pred, t), "rationale": "fake"}
                      for i, t in enumerate(truths)]
            if self.config.batch_drop_last:
                scores = scores[:-1]
            message = {"role": "assistant", "content": json.dumps({"scores": scores})}
        else:
            t = truths[0] if truths else ""
            rationale = f"fake judge: {pred[:1]}/{t[:1]}"
            if self.config.completion_tokens:  # a long answer: ~4 characters a token
                rationale += " because" * max(0, (self.config.completion_tokens * 4 - 60) // 8)
            message = {"role": "assistant", "content": json.dumps(
                {"score": self._planted(pred, t, body), "rationale": rationale},
                ensure_ascii=False)}
        n = int(body.get("n", 1) or 1)
        prompt_tokens = len(json.dumps(body.get("messages", []))) // 4
        per_choice, finish = self.config.completion_tokens or 20, "stop"
        limit = body.get("max_tokens") or body.get("max_completion_tokens")
        if self.config.completion_tokens and isinstance(limit, int) and per_choice > limit:
            # cut at the limit, as servers do
            per_choice, finish = limit, "length"
            if isinstance(message.get("content"), str):
                message = {**message, "content": message["content"][:4 * limit]}
        reply: dict[str, Any] = {
            "id": "chatcmpl-fake", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", "fake"),
            "choices": [{"index": i, "message": message,
                         "finish_reason": finish} for i in range(n)],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": per_choice * n,
                      "total_tokens": prompt_tokens + per_choice * n},
        }
        if dist is not None and body.get("logprobs") and not self.config.no_logprobs:
            for c in reply["choices"]:
                c["logprobs"] = {"content": grade_logprobs(dist), "refusal": None}
        if shape is not None:
            return self._malformed(shape, reply)
        return 200, reply, {}

    def _planted(self, pred: str, truth: str, body: dict[str, Any]) -> float:
        """The pairwise score with the planted position bias and noise (see the config)."""
        import hashlib

        score = fake_score(pred, truth)
        if self.config.drift_flip:
            h = hashlib.sha256(json.dumps([pred, truth, self.config.drift_seed]).encode())
            if int.from_bytes(h.digest()[:8], "big") / 2 ** 64 < self.config.drift_flip:
                score = 1.0 - score
        score += self.config.drift_shift
        if self.config.position_bias:
            score += self.config.position_bias if pred < truth else -self.config.position_bias
        if self.config.noise:
            key = json.dumps([body.get("messages"), body.get("seed")], sort_keys=True)
            with self._lock:
                k = self._seen.get(key, 0)
                self._seen[key] = k + 1
            h = hashlib.sha256(f"{key}|{k}|{self.config.seed}".encode()).digest()
            u = int.from_bytes(h[:8], "big") / 2 ** 64  # uniform in [0, 1)
            score += self.config.noise * (2 * u - 1)
        return round(min(1.0, max(0.0, score)), 4)

    @staticmethod
    def _malformed(shape: str, reply: dict[str, Any],
                   ) -> tuple[int, dict[str, Any] | bytes, dict[str, str]]:
        """An HTTP 200 reply of a malformed ``shape`` built from a good ``reply``."""
        if shape == "html":
            return 200, HTML_PAGE.encode(), {"content-type": "text/html; charset=utf-8"}
        if shape == "cut_json":
            data = json.dumps(reply).encode()
            return 200, data[:len(data) // 2], {}
        if shape == "json_array":
            return 200, json.dumps([reply]).encode(), {}
        bad = json.loads(json.dumps(reply))
        if shape == "message_string":
            bad["choices"][0]["message"] = bad["choices"][0]["message"].get("content") or ""
        elif shape == "content_list":
            msg = bad["choices"][0]["message"]
            msg["content"] = [{"type": "text", "text": msg.get("content") or ""}]
        elif shape == "usage_string":
            bad["usage"]["prompt_tokens"] = "many"
        elif shape == "data_string":
            bad["data"] = "embeddings unavailable"
        elif shape == "embedding_text":
            bad["data"][0]["embedding"] = ["0.1", "0.2"]
        elif shape == "missing_vector":
            bad["data"] = bad["data"][:-1]
        elif shape == "nan_vector":
            return 200, json.dumps(reply).replace("1.0", "NaN", 1).encode(), {}
        else:
            raise ValueError(f"unknown malformed shape {shape!r}")
        return 200, bad, {}

    def _embeddings(self, path: str, body: dict[str, Any],
                    ) -> tuple[int, dict[str, Any] | bytes, dict[str, str]]:
        inputs = body.get("input") or []
        inputs = [inputs] if isinstance(inputs, str) else list(inputs)
        shape = next((self.config.shapes[s] for s in inputs if s in self.config.shapes), None)
        self._record(path, body, shape or "ok")
        b64 = body.get("encoding_format") == "base64"
        data = []
        for i, text in enumerate(inputs):
            vec = fake_embedding(text)
            data.append({"object": "embedding", "index": i, "embedding": (
                base64.b64encode(struct.pack(f"<{len(vec)}f", *vec)).decode() if b64 and
                shape != "nan_vector" else vec)})
        reply = {"object": "list", "model": body.get("model", "fake"), "data": data,
                 "usage": {"prompt_tokens": 2 * len(inputs), "total_tokens": 2 * len(inputs)}}
        if shape is not None:
            return self._malformed(shape, reply)
        return 200, reply, {}

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
