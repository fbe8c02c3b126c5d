"""The ``openai`` SDK client of chat judges, with less CPU per request.

A judge sends thousands of same-shaped ``POST /chat/completions`` requests that differ only in
their JSON body. Per request the SDK merges the default, auth and platform headers into a new
``Headers``, parses and joins the base URL and the path three times, lets ``httpx`` merge the
client's headers, cookies and query parameters again, then passes the request through
``httpx``'s auth, redirect and hook layers to the transport. At concurrency 64 against a 100 ms
server that CPU decides whether the client keeps up (``benchmarks/bench_judge_throughput.py``).

:class:`JudgeClient` is ``AsyncOpenAI`` with two changes:

- **Building.** For the options made by :func:`chat_options` it builds the ``httpx2.Request``
  from a template it *learns from the SDK itself*: the first such request is built twice by the
  SDK's own ``_build_request`` (two bodies, two idempotency keys, two retry counts), and the
  template is their method, URL, timeout extension and header list, where the only headers
  allowed to differ are ``Content-Length``, the retry count (``x-stainless-retry-count``) and
  the idempotency key. If the two differ in anything else, or the SDK's body is not
  ``openapi_dumps`` of the JSON data, there is no template and the SDK builds every request.
  (A header that changed over time but not between the two probes — a clock with second
  resolution — would be frozen; the SDK sets none such: checked on 3.0.0 and 3.54.0, whose
  chat requests the tests compare byte for byte.)
- **Sending.** When the ``httpx`` client has no auth, event hooks or cookies, the request goes
  straight to the client's transport and the body is read, which is all ``AsyncClient.send``
  does for such a client. A ``Set-Cookie`` reply fills the client's cookie jar (later requests
  then take the SDK's whole path); a redirect is sent again through that path, which follows
  it, and so are the client's later requests.

Everything else is the SDK's: its ``request`` loop (retries with backoff and ``Retry-After``,
timeouts, typed errors) and the aiohttp or httpx transport. Clients whose requests can change
per call (an API-key provider callable, a provider runtime, workload identity) always take the
SDK's whole path.

Every chat exchange has a wall-clock **deadline** (``--timeout``): see
:mod:`judge.judges.llm.deadline`.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import Any

from openai import AsyncOpenAI
from openai._models import FinalRequestOptions

from judge.judges.llm.deadline import CHAT_PATH, is_chat, send_within_deadline, transport_timeout

HTTP_BACKENDS = ("auto", "aiohttp", "httpx")
_VARYING = (b"content-length", b"x-stainless-retry-count")
_LOG = logging.getLogger("httpx2")


_TEMPLATE: list[FinalRequestOptions] = []
_PER_REQUEST = frozenset({"json_data", "idempotency_key"})


def chat_options(body: dict[str, Any]) -> FinalRequestOptions:
    """The SDK's ``FinalRequestOptions`` of ``POST /chat/completions`` with JSON ``body``
    (what ``AsyncOpenAI.post`` would build), as a shallow copy of one template: the SDK's
    ``post()`` builds them anew per call, deep-copying every field default (~0.2 ms)."""
    if not _TEMPLATE:
        _TEMPLATE.append(FinalRequestOptions.construct(method="post", url=CHAT_PATH))
    return _TEMPLATE[0].model_copy(update={"json_data": body})


def is_chat_options(options: FinalRequestOptions) -> bool:
    """True for options made by :func:`chat_options` (or the SDK's copies of them): every
    field but the body and the idempotency key is the template's own object."""
    if not _TEMPLATE:
        return False
    mine, tpl = options.__dict__, _TEMPLATE[0].__dict__
    return mine.keys() == tpl.keys() and all(mine[k] is tpl[k] for k in tpl
                                             if k not in _PER_REQUEST)


@dataclass(frozen=True)
class RequestTemplate:
    """What every plain chat request of one client shares, learnt from the SDK's builder.

    Attributes:
        method, url, extensions: the SDK-built request's (``url`` an ``httpx2.URL``).
        headers: raw ``(name, value)`` byte pairs in the SDK's order.
        varying: index in ``headers`` → which per-request value goes there
            (``content-length``, ``x-stainless-retry-count`` or ``idempotency``).
        encoding: the headers' encoding (``ascii`` for SDK headers).
    """

    method: str
    url: Any
    extensions: dict[str, Any]
    headers: tuple[tuple[bytes, bytes], ...]
    varying: dict[int, str]
    encoding: str

    def build(self, body: bytes, idempotency_key: str | None, retries_taken: int) -> Any:
        """The ``httpx2.Request`` the SDK would build for ``body`` (UTF-8 JSON bytes)."""
        import httpx2

        values = {"content-length": str(len(body)).encode(),
                  "x-stainless-retry-count": str(retries_taken).encode(),
                  "idempotency": (idempotency_key or "").encode()}
        headers = list(self.headers)
        for i, which in self.varying.items():
            headers[i] = (headers[i][0], values[which])
        request = httpx2.Request(self.method, self.url,
                                 headers=httpx2.Headers(headers, encoding=self.encoding),
                                 stream=httpx2.ByteStream(body), extensions=dict(self.extensions))
        request.read()  # the content is in memory: what the transport reads
        return request


def learn_template(client: AsyncOpenAI, options: FinalRequestOptions) -> RequestTemplate | None:
    """Build two requests like ``options`` with the SDK's own ``_build_request`` (different
    bodies, idempotency keys and retry counts) and return what they share, or None when they
    differ in anything but the three per-request headers, or the body is not
    ``openapi_dumps`` of the JSON data (then the SDK's builder is always used)."""
    from openai._utils._json import openapi_dumps

    idem = (client._idempotency_header or "").lower().encode()
    probes = [({"probe": "a"}, "simjudge-probe-a", 0), ({"probe": ["b", 2]}, "simjudge-b", 1)]
    built = []
    for data, key, retries in probes:
        opts = options.model_copy(update={"json_data": data, "idempotency_key": key})
        req = AsyncOpenAI._build_request(client, opts, retries_taken=retries)
        if req.read() != openapi_dumps(data):
            return None
        built.append((req, key, retries))
    (a, key_a, _), (b, key_b, retries_b) = built
    if (a.method, a.url, a.extensions) != (b.method, b.url, b.extensions):
        return None
    raw_a, raw_b = list(a.headers.raw), list(b.headers.raw)
    if [k.lower() for k, _ in raw_a] != [k.lower() for k, _ in raw_b]:
        return None
    expected = {b"content-length": str(len(b.read())).encode(),
                b"x-stainless-retry-count": str(retries_b).encode()}
    varying: dict[int, str] = {}
    for i, ((name, va), (_, vb)) in enumerate(zip(raw_a, raw_b, strict=True)):
        low = name.lower()
        if low in _VARYING:
            if vb != expected[low]:
                return None
            varying[i] = low.decode()
        elif idem and low == idem:
            if (va, vb) != (key_a.encode(), key_b.encode()):
                return None
            varying[i] = "idempotency"
        elif va != vb:  # a header that is not per-request differs: not a template
            return None
    if "content-length" not in varying.values():
        return None
    return RequestTemplate(a.method, a.url, dict(a.extensions), tuple(raw_a), varying,
                           a.headers.encoding)


class JudgeClient(AsyncOpenAI):
    """``AsyncOpenAI`` that builds :func:`chat_options` requests from a
    :class:`RequestTemplate` learnt from its own SDK builder (module docstring); any other
    request, and every request of a client whose requests can change per call, is built by the
    SDK. Same constructor as ``AsyncOpenAI``."""

    def __init__(self, *args: Any, deadline_s: float | None = None,
                 move_on_deadline: bool = True, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.deadline_s = deadline_s  # wall clock per exchange (module docstring)
        self.move_on_deadline = move_on_deadline  # a replica: not retried here at the deadline
        self.cancelled = 0  # exchanges cut at the deadline and cancelled here
        self.late_answers = 0  # answers that arrived while being cancelled (kept)
        self._chat_template: RequestTemplate | None = None
        self._template_tried = False
        self._direct = True  # False once the server redirected
        # request-changing machinery of the SDK (absent in older 3.x releases: then None)
        self._static = all(getattr(self, name, None) is None for name in
                           ("_api_key_provider", "_provider_runtime", "_workload_identity_auth"))

    @property
    def uses_template(self) -> bool:
        """True once plain chat requests are built from the learnt template."""
        return self._chat_template is not None

    def _build_request(self, options: FinalRequestOptions, *,
                       retries_taken: int = 0) -> Any:
        if not (self._static and isinstance(options.json_data, dict)
                and is_chat_options(options) and not self._client.cookies):
            return super()._build_request(options, retries_taken=retries_taken)
        if not self._template_tried:
            self._template_tried = True
            self._chat_template = learn_template(self, options)
        if self._chat_template is None:
            return super()._build_request(options, retries_taken=retries_taken)
        from openai._utils._json import openapi_dumps

        return self._chat_template.build(openapi_dumps(options.json_data),
                                         options.idempotency_key, retries_taken)

    async def _send_request(self, request: Any, *, stream: bool, **kwargs: Any) -> Any:
        if self.deadline_s is None or not (self.move_on_deadline or is_chat(request)):
            return await self._send_one(request, stream=stream, **kwargs)
        return await send_within_deadline(self, request, self._send_one(
            request, stream=stream, **kwargs))

    async def _send_one(self, request: Any, *, stream: bool, **kwargs: Any) -> Any:
        client = self._client
        if stream or kwargs or not (self._direct and self._static and _bare(client)):
            return await super()._send_request(request, stream=stream, **kwargs)
        # what httpx's AsyncClient.send does for a client without auth, event hooks or
        # cookies: hand the request to the transport, read the body, log it as httpx does
        response = await client._transport_for_url(request.url).handle_async_request(request)
        response.request = request
        response.default_encoding = getattr(client, "_default_encoding", "utf-8")
        try:
            await response.aread()
        except BaseException:
            await response.aclose()
            raise
        _LOG.info('HTTP Request: %s %s "%s %d %s"', request.method, request.url,
                  response.http_version, response.status_code, response.reason_phrase)
        if "set-cookie" in response.headers:  # kept: later requests take the full path
            client.cookies.extract_cookies(response)
        if response.has_redirect_location and client.follow_redirects:
            # a 3xx did no work: the full path sends it again and follows the redirect, as
            # will every later request of this client
            self._direct = False
            await response.aclose()
            return await super()._send_request(request, stream=stream, **kwargs)
        return response


def _bare(client: Any) -> bool:
    """True for an ``httpx2.AsyncClient`` whose ``send`` would only pass requests to its
    transport: open, no auth, no event hooks, no cookies."""
    import httpx2

    return (isinstance(client, httpx2.AsyncClient) and not client.is_closed
            and client.auth is None and not any(client.event_hooks.values())
            and not client.cookies and hasattr(client, "_transport_for_url"))


def resolve_http(http: str) -> str:
    """``auto`` → ``aiohttp`` when the SDK's aiohttp extra is installed, else ``httpx``.

    Raises:
        judge.errors.InputError: unknown backend, or ``aiohttp`` without the extra installed.
    """
    from judge.errors import InputError

    if http not in HTTP_BACKENDS:
        raise InputError(f"unknown HTTP backend {http!r}; expected one of "
                         f"{', '.join(HTTP_BACKENDS)}", field="http")
    try:
        import aiohttp  # noqa: F401
        have = True
    except ImportError:
        have = False
    if http == "aiohttp" and not have:
        raise InputError("the aiohttp backend needs: pip install 'openai[aiohttp]'", field="http")
    return ("aiohttp" if have else "httpx") if http == "auto" else http


def make_client(api_key_env: str, base_url: str | None, timeout_s: float, max_retries: int,
                http: str, deadline: bool = False) -> JudgeClient:
    """A :class:`JudgeClient` on the chosen transport (the SDK's aiohttp transport scales
    better to many concurrent calls than its default httpx pool). The key is read from the
    environment here and kept only in the client's memory.

    Args:
        api_key_env: environment variable of the key (unset: ``no-key-needed``, for servers
            that take none).
        base_url: the server's OpenAI-compatible root, or None for the OpenAI API.
        timeout_s: the deadline of each chat exchange, in seconds (the transport's own
            timeouts: :func:`judge.judges.llm.deadline.transport_timeout`).
        max_retries: the SDK's retries of 429/5xx/timeouts/connection errors.
        http: ``aiohttp`` or ``httpx`` (:func:`resolve_http`).
        deadline: a replica of several: the deadline's exchange is not retried on this
            endpoint but moved to another (module docstring). Otherwise (one endpoint) a chat
            exchange past the deadline is cancelled and retried here, ``max_retries`` times.
    """
    kwargs: dict[str, Any] = {}
    timeout = transport_timeout(timeout_s)  # the deadline ends chat exchanges, not a read
    if http == "aiohttp":  # the SDK's aiohttp client, half-closing at deadlines
        from judge.judges.llm.halfclose import HalfCloseAioHttpClient

        kwargs["http_client"] = HalfCloseAioHttpClient(timeout=timeout)
    return JudgeClient(api_key=os.environ.get(api_key_env) or "no-key-needed",
                       base_url=base_url, timeout=timeout, max_retries=max_retries,
                       deadline_s=timeout_s, move_on_deadline=deadline, **kwargs)
