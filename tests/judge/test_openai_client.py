"""JudgeClient (judge/judges/llm/openai_client.py): chat requests built from a template learnt from
the SDK must be byte-identical to what the SDK builds, sent directly only where httpx's send
would do nothing more, and every request whose shape can change per call takes the SDK's path.

The reference is the SDK itself: ``AsyncOpenAI._build_request`` on the same client and options.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from openai import AsyncOpenAI
from openai._models import FinalRequestOptions

from judge.cache import JudgeCache
from judge.judges.base import JudgeContext
from judge.judges.llm.openai_client import (
    JudgeClient,
    chat_options,
    is_chat_options,
    learn_template,
    make_client,
)
from judge.judges.options import JudgeOptions
from judge.judges.registry import parse_judge_spec
from tests.fake_openai import FakeOpenAIServer, FakeServerConfig, fake_score

BODIES = [
    {"model": "m", "messages": [{"role": "user", "content": "Job Information"}]},
    {"model": "m", "temperature": 0.0, "messages": [
        {"role": "system", "content": "判断相似度"},
        {"role": "user", "content": "职位信息 \u2028 🧪 \"quoted\" \\ back"}],
     "response_format": {"type": "json_object"}},
    {"model": "m", "messages": [{"role": "user", "content": "x" * 1_000_000}]},
]
PAIRS = [("Job Information", "job info"), ("职位信息", "Job Information"), ("Alpha", "apple")]


def _sdk_request(client: AsyncOpenAI, options: FinalRequestOptions, retries: int) -> Any:
    return AsyncOpenAI._build_request(client, options, retries_taken=retries)


def _same(a: Any, b: Any) -> None:
    assert a.method == b.method
    assert str(a.url) == str(b.url)
    assert list(a.headers.raw) == list(b.headers.raw)  # names, values and order
    assert a.read() == b.read()
    assert a.extensions == b.extensions


@pytest.mark.parametrize("http", ["aiohttp", "httpx"])
@pytest.mark.parametrize("base_url", ["http://127.0.0.1:9/v1", "https://api.example.com/v1/"])
def test_template_requests_equal_the_sdks(http: str, base_url: str) -> None:
    client = make_client("SIMJUDGE_TEST_NO_KEY", base_url, 7.5, 2, http)
    for body in BODIES:
        for retries in (0, 1, 2):
            opts = chat_options(body)
            opts.idempotency_key = f"stainless-python-retry-{retries}"
            fast = client._build_request(opts, retries_taken=retries)
            _same(fast, _sdk_request(client, opts, retries))
    assert client.uses_template
    # the retry count and the length really vary (a template frozen at its probes would fail)
    last = client._build_request(chat_options(BODIES[2]), retries_taken=2)
    assert last.headers["x-stainless-retry-count"] == "2"
    assert last.headers["content-length"] == str(len(last.read())) and len(last.read()) > 10**6


def test_other_options_are_built_by_the_sdk() -> None:
    client = make_client("SIMJUDGE_TEST_NO_KEY", "http://127.0.0.1:9/v1", 5.0, 2, "aiohttp")
    plain = chat_options(BODIES[0])
    assert is_chat_options(plain) and is_chat_options(plain.model_copy())
    with_headers = plain.model_copy(update={"headers": {"X-Trace": "1"}})
    elsewhere = FinalRequestOptions.construct(method="post", url="/embeddings",
                                              json_data={"input": ["a"]})
    assert not is_chat_options(with_headers) and not is_chat_options(elsewhere)
    for opts in (with_headers, elsewhere):
        built = client._build_request(opts)
        _same(built, _sdk_request(client, opts, 0))
    assert client._build_request(with_headers).headers["x-trace"] == "1"
    assert not client.uses_template  # no plain chat request was built yet


class _RotatingAuth(JudgeClient):
    """A client whose Authorization header changes on every request (like a token
    provider): requests must not be built from a template."""

    calls = 0

    def _auth_headers(self, security: Any) -> dict[str, str]:
        type(self).calls += 1
        return {"Authorization": f"Bearer token-{self.calls}"}


def test_no_template_when_the_sdk_headers_change_per_request() -> None:
    client = _RotatingAuth(api_key="unused", base_url="http://127.0.0.1:9/v1")
    assert learn_template(client, chat_options(BODIES[0])) is None
    tokens = {client._build_request(chat_options(BODIES[0])).headers["authorization"]
              for _ in range(3)}
    assert not client.uses_template
    assert len(tokens) == 3  # each request got its own fresh token, as the SDK builds it


def _judge_pairs(srv: FakeOpenAIServer, tmp_path: Any, **kw: Any) -> list[Any]:
    judge = parse_judge_spec("openai:fake-model", JudgeOptions(
        base_url=srv.base_url, timeout_s=5.0, max_retries=kw.pop("max_retries", 2), **kw))
    ctx = JudgeContext(cache=JudgeCache(tmp_path / "cache", "off"))
    return asyncio.run(judge.judge_pairs(PAIRS, ctx))


def test_retries_send_their_retry_count(tmp_path: Any) -> None:
    # every request 429s or 500s until the SDK's retries run out: the server sees each
    # request 3 times, counted 0, 1, 2 in x-stainless-retry-count (the template's varying
    # header), and the verdicts are transport_error outcomes
    config = FakeServerConfig(fault_rate=1.0, faults=("500",))
    with FakeOpenAIServer(config) as srv:
        verdicts = _judge_pairs(srv, tmp_path, concurrency=1, http="aiohttp")
    assert [v.outcome for v in verdicts] == ["transport_error"] * 3
    counts = [h["x-stainless-retry-count"] for _, h in srv.headers_log]
    assert counts == ["0", "1", "2"] * 3
    # the same header names on every try (only the retry count's value varies)
    names = {tuple(sorted(h)) for _, h in srv.headers_log}
    assert len(names) == 1


def test_cookies_set_by_the_server_are_sent_back(tmp_path: Any) -> None:
    with FakeOpenAIServer(FakeServerConfig(set_cookie="lb=node-a; Path=/")) as srv:
        verdicts = _judge_pairs(srv, tmp_path, concurrency=1)
    assert [v.score for v in verdicts] == [fake_score(p, t) for p, t in PAIRS]
    # the first request had no cookie; each later one carries the jar's; nothing sent twice
    assert [h.get("cookie") for _, h in srv.headers_log] == [None, "lb=node-a", "lb=node-a"]


def test_redirects_are_followed(tmp_path: Any) -> None:
    with FakeOpenAIServer(FakeServerConfig(redirect=True)) as srv:
        verdicts = _judge_pairs(srv, tmp_path, concurrency=1)
    assert [v.score for v in verdicts] == [fake_score(p, t) for p, t in PAIRS]
    # the first request met the 307 on the direct path and was sent again on the SDK's,
    # which followed it; later requests took the SDK's path: 1 extra 307 in all
    assert [p for p, _ in srv.headers_log] == (["/v1/chat/completions"] * 2
                                       + ["/v1/moved/chat/completions"]
                                       + ["/v1/chat/completions",
                                          "/v1/moved/chat/completions"] * 2)
