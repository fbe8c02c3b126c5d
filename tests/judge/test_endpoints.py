"""Several endpoints for one judge (``--base-url A,B``): balancing, failover when one endpoint dies
mid-run (two loopback servers), per-endpoint statistics, order-free cache keys, server flavours
(``vllm:`` the field of each server's version, ``sglang:`` response_format), and the static
system block first."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge.cache import JudgeCache
from judge.cli import app
from judge.errors import InputError
from judge.judges.base import JudgeContext
from judge.judges.failures import TransportError
from judge.judges.llm.endpoints import EndpointPool, endpoint_key
from judge.judges.options import JudgeOptions
from judge.judges.registry import parse_judge_spec
from tests.fake_openai import FakeOpenAIServer, FakeServerConfig, closed_port, fake_score

runner = CliRunner()
PAIRS = [(f"Alpha {k}", f"{'a' if k % 2 else 'b'}pple {k}") for k in range(40)]


def _judge(urls: str, spec: str = "openai:fake-model", **kw):  # type: ignore[no-untyped-def]
    opts = JudgeOptions(base_url=urls, max_retries=kw.pop("max_retries", 0),
                        timeout_s=kw.pop("timeout_s", 5.0), **kw)
    return parse_judge_spec(spec, opts)


def _run(judge, pairs, tmp_path):  # type: ignore[no-untyped-def]
    ctx = JudgeContext(cache=JudgeCache(tmp_path / "cache", "read-write"))
    return asyncio.run(judge.judge_pairs(pairs, ctx)), ctx


def test_least_outstanding_requests_spreads_the_load(tmp_path: Path) -> None:
    cfg = FakeServerConfig(latency_s=0.05)
    with FakeOpenAIServer(cfg) as a, FakeOpenAIServer(cfg) as b:
        judge = _judge(f"{a.base_url},{b.base_url}", concurrency=8)
        verdicts, ctx = _run(judge, PAIRS, tmp_path)
        stats = judge.endpoint_pool.stats()
    assert [v.score for v in verdicts] == [fake_score(p, t) for p, t in PAIRS]
    assert len(a.log) + len(b.log) == 40 == ctx.stats.judge_calls
    # equal replicas, 8 in flight: the least busy one gets each request → about half each
    assert 12 <= len(a.log) <= 28 and 12 <= len(b.log) <= 28
    assert stats[a.base_url]["requests"] == len(a.log) == stats[a.base_url]["ok"]
    assert stats[b.base_url]["failures"] == 0


def test_a_replica_killed_mid_run_fails_over(tmp_path: Path) -> None:
    cfg = FakeServerConfig(latency_s=0.05)
    with FakeOpenAIServer(cfg) as a:
        b = FakeOpenAIServer(cfg).start()
        stopped = threading.Event()

        def kill_b() -> None:  # B dies after answering a few requests, with others in flight
            while len(b.log) < 5:
                time.sleep(0.005)
            b.stop()
            stopped.set()

        threading.Thread(target=kill_b, daemon=True).start()
        judge = _judge(f"{a.base_url},{b.base_url}", concurrency=6)
        verdicts, _ = _run(judge, PAIRS, tmp_path)
        stats = judge.endpoint_pool.stats()
    assert stopped.is_set()
    # every pair still judged, with the right score: nothing lost, nothing silently 0
    assert all(v.outcome == "ok" for v in verdicts)
    assert [v.score for v in verdicts] == [fake_score(p, t) for p, t in PAIRS]
    sa, sb = stats[a.base_url], stats[b.base_url]
    assert sb["failures"] >= 1 and sb["moved_away"] == sb["failures"]
    assert sb["last_error"] and sa["failures"] == 0
    assert sa["ok"] + sb["ok"] == 40  # each pair answered exactly once
    assert sa["requests"] + sb["requests"] == 40 + sb["failures"]


def test_every_endpoint_dead_is_a_transport_error(tmp_path: Path) -> None:
    urls = f"http://127.0.0.1:{closed_port()}/v1,http://127.0.0.1:{closed_port()}/v1"
    judge = _judge(urls, stop_after=0)
    verdicts, _ = _run(judge, PAIRS[:3], tmp_path)
    assert [v.outcome for v in verdicts] == ["transport_error"] * 3
    assert all(v.rationale.startswith("every endpoint failed (2); last: connection refused")
               for v in verdicts)


def test_pool_picks_by_outstanding_then_skips_cooling_endpoints() -> None:
    pool = EndpointPool(["u1", "u2", "u3", "u1"], lambda url: url)  # u1 twice: one endpoint
    assert [e.url for e in pool.endpoints] == ["u1", "u2", "u3"]
    pool.endpoints[0].in_flight = 2
    pool.endpoints[1].in_flight = 1
    assert pool.pick(set()) == 2  # u3: nothing in flight
    pool.endpoints[2].down_until = time.monotonic() + 60
    assert pool.pick(set()) == 1  # u3 cools down: u2 (1 in flight) before u1 (2)
    assert pool.pick({0, 1}) == 2  # only u3 left: tried even while cooling down
    assert pool.pick({0, 1, 2}) is None

    async def fail(ep):  # type: ignore[no-untyped-def]
        raise TransportError(f"HTTP 503 from {ep.url}")

    pool2 = EndpointPool(["x", "y"], lambda url: url, cooldown_s=0)
    with pytest.raises(TransportError, match=r"every endpoint failed \(2\); last: HTTP 503"):
        asyncio.run(pool2.request(fail))
    assert [e.failures for e in pool2.endpoints] == [1, 1]


def test_cache_key_ignores_endpoint_order(tmp_path: Path) -> None:
    assert endpoint_key("http://b/v1,http://a/v1") == ["http://a/v1", "http://b/v1"]
    assert endpoint_key("http://a/v1") == "http://a/v1"  # single endpoint: unchanged key
    with FakeOpenAIServer() as a, FakeOpenAIServer() as b:
        _run(_judge(f"{a.base_url},{b.base_url}"), PAIRS[:4], tmp_path)
        verdicts, ctx = _run(_judge(f"{b.base_url},{a.base_url}"), PAIRS[:4], tmp_path)
    assert ctx.stats.cache_hits == 4 and ctx.stats.judge_calls == 0
    assert all(v.cached for v in verdicts)


@pytest.mark.parametrize("spec,field,mode", [
    ("vllm:fake-model", "response_format", "json_schema"),  # a server without GET /version
    ("sglang:fake-model", "response_format", "json_schema"),
])
def test_server_flavours_send_their_structured_output_field(tmp_path: Path, spec: str,
                                                            field: str, mode: str) -> None:
    with FakeOpenAIServer() as srv:
        verdicts, _ = _run(_judge(srv.base_url, spec), PAIRS[:2], tmp_path)
    body = srv.log[0].body
    assert field in body and not {"guided_json", "structured_outputs"} & set(body)
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema["required"] == ["score", "rationale"]
    assert all(v.outcome == "ok" and v.output_mode == mode for v in verdicts)


# vLLM's fields by version (docs.vllm.ai "Structured Outputs"): structured_outputs from 0.10.2,
# guided_json until 0.11 (removed in 0.12.0, then ignored silently), response_format always
@pytest.mark.parametrize("version,field", [
    ("0.12.0", "structured_outputs"), ("0.13.1", "structured_outputs"),
    ("0.10.2", "structured_outputs"), ("0.10.1", "guided_json"), ("0.6.3", "guided_json"),
    (None, "response_format"),  # no GET /version: the field vLLM never ignores
])
def test_vllm_request_body_per_version(tmp_path: Path, version: str | None, field: str) -> None:
    with FakeOpenAIServer(FakeServerConfig(vllm_version=version)) as srv:
        judge = _judge(srv.base_url, "vllm:fake-model", concurrency=8)
        verdicts, _ = _run(judge, PAIRS[:12], tmp_path)
        asked = srv.version_requests
    mode = "json_schema" if field == "response_format" else field
    assert asked == 1  # once per endpoint, shared by the 8 calls that started together
    for r in srv.log:
        assert {"structured_outputs", "guided_json", "response_format"} & set(r.body) == {field}
    schema = {"structured_outputs": lambda b: b["structured_outputs"]["json"],
              "guided_json": lambda b: b["guided_json"],
              "response_format": lambda b: b["response_format"]["json_schema"]["schema"]}[field](
        srv.log[0].body)
    assert schema["required"] == ["score", "rationale"]
    # what each verdict claims is what the server honoured: never a constraint it ignored
    assert [v.output_mode for v in verdicts] == [mode] * 12
    assert [r.constraint for r in srv.log] == [mode] * 12
    assert judge.describe()["server_versions"] == {srv.base_url: version}


def test_vllm_replicas_of_different_versions_get_their_own_field(tmp_path: Path) -> None:
    with FakeOpenAIServer(FakeServerConfig(vllm_version="0.9.2", latency_s=0.02)) as old, \
            FakeOpenAIServer(FakeServerConfig(vllm_version="0.12.0", latency_s=0.02)) as new:
        judge = _judge(f"{old.base_url},{new.base_url}", "vllm:fake-model", concurrency=6)
        verdicts, _ = _run(judge, PAIRS, tmp_path)
    assert old.log and new.log and len(old.log) + len(new.log) == len(PAIRS)
    assert {r.constraint for r in old.log} == {"guided_json"}
    assert {r.constraint for r in new.log} == {"structured_outputs"}
    by_field = {"guided_json": 0, "structured_outputs": 0}
    for v in verdicts:
        by_field[v.output_mode] += 1
    assert by_field == {"guided_json": len(old.log), "structured_outputs": len(new.log)}


def test_vllm_refusing_structured_outputs_falls_back_to_response_format(tmp_path: Path) -> None:
    cfg = FakeServerConfig(vllm_version="0.11.0", reject_formats=("structured_outputs",))
    with FakeOpenAIServer(cfg) as srv:
        verdicts, _ = _run(_judge(srv.base_url, "vllm:fake-model"), PAIRS[:2], tmp_path)
    assert all(v.outcome == "ok" and v.output_mode == "json_schema" for v in verdicts)
    assert srv.log[0].response == "rejected-format"


@pytest.mark.parametrize("forced,version,mode", [
    ("response_format", "0.12.0", "json_schema"), ("guided_json", "0.11.0", "guided_json"),
    ("structured_outputs", None, "structured_outputs"),  # unknown version: trusted
])
def test_structured_field_forced(tmp_path: Path, forced: str, version: str | None,
                                 mode: str) -> None:
    with FakeOpenAIServer(FakeServerConfig(vllm_version=version)) as srv:
        verdicts, _ = _run(_judge(srv.base_url, "vllm:fake-model", structured_field=forced),
                           PAIRS[:2], tmp_path)
    assert [v.output_mode for v in verdicts] == [mode] * 2
    assert [r.constraint for r in srv.log] == [mode] * 2


@pytest.mark.parametrize("forced,version", [("guided_json", "0.12.0"),
                                            ("structured_outputs", "0.10.1")])
def test_a_forced_field_the_server_ignores_is_refused_before_any_call(
        tmp_path: Path, forced: str, version: str) -> None:
    with FakeOpenAIServer(FakeServerConfig(vllm_version=version)) as srv:
        judge = _judge(srv.base_url, "vllm:fake-model", structured_field=forced)
        with pytest.raises(InputError, match=f"is vLLM {version}; .*ignores it") as exc:
            _run(judge, PAIRS[:4], tmp_path)
        assert exc.value.field == "structured_field" and srv.log == []
    with pytest.raises(InputError, match="chooses the field of vllm: judges, not openai:"):
        _judge("http://127.0.0.1:9/v1", structured_field="guided_json")


def test_flavour_and_endpoint_options_are_checked() -> None:
    with pytest.raises(InputError, match="give --base-url"):
        parse_judge_spec("vllm:m", JudgeOptions())
    with pytest.raises(InputError, match="not langchain:"):
        parse_judge_spec("langchain:openai:m", JudgeOptions(base_url="http://a/v1,http://b/v1"))
    with pytest.raises(InputError, match="comma-separated"):
        parse_judge_spec("openai:m", JudgeOptions(base_url="http://a/v1,ftp://b"))


def test_static_system_block_comes_first() -> None:
    # servers cache the longest common prefix (vLLM/SGLang prefix caching): the system message,
    # identical for every pair and prompt context, is sent first; the pair goes last
    judge = _judge("http://127.0.0.1:9/v1,http://127.0.0.1:10/v1")
    a = judge.requests_for([("Job Information", "职位信息")], "")[0].messages
    b = judge.requests_for([("Alpha", "apple")], "a function argument")[0].messages
    assert a[0]["role"] == b[0]["role"] == "system" and a[0] == b[0]
    assert a[-1]["role"] == "user" and "职位信息" in a[-1]["content"]


def test_eval_summary_has_per_endpoint_stats(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"id": str(k), "pred": [p], "truth": [t]}) + "\n"
                            for k, (p, t) in enumerate(PAIRS[:10])), encoding="utf-8")
    with FakeOpenAIServer() as a, FakeOpenAIServer() as b:
        res = runner.invoke(app, ["eval", str(data), "--judge", "openai:fake-model",
                                  "--base-url", f"{a.base_url},{b.base_url}", "--out",
                                  str(tmp_path / "run"), "--cache-dir", str(tmp_path / "c"),
                                  "--bootstrap", "0"])
    assert res.exit_code == 0, res.output
    summary = json.loads((tmp_path / "run" / "summary.json").read_text(encoding="utf-8"))
    eps = summary["endpoints"]["openai:fake-model"]
    assert set(eps) == {a.base_url, b.base_url}
    assert sum(e["ok"] for e in eps.values()) == 10 == summary["judge_calls"]
    config = json.loads((tmp_path / "run" / "config.json").read_text(encoding="utf-8"))
    assert sorted(config["judge"]["base_url"]) == sorted([a.base_url, b.base_url])


def test_judges_file_lists_replicas(tmp_path: Path) -> None:
    from judge.judges.judgesfile import load_judges_file

    path = tmp_path / "judges.toml"
    path.write_text('[[judges]]\nid = "q"\nbackend = "vllm"\nmodel = "qwen"\n'
                    'base_url = ["http://gpu1:8000/v1", "http://gpu2:8000/v1"]\n',
                    encoding="utf-8")
    spec, opts = load_judges_file(path)["q"]
    judge = parse_judge_spec(spec, opts)
    assert spec == "vllm:qwen" and judge.backend == "vllm"
    assert [e.url for e in judge.endpoint_pool.endpoints] == ["http://gpu1:8000/v1",
                                                              "http://gpu2:8000/v1"]


def test_a_repeated_url_is_one_endpoint_with_the_plain_key() -> None:
    judge = _judge("http://127.0.0.1:9/v1,http://127.0.0.1:9/v1")
    assert judge.endpoint_pool is None  # one distinct endpoint: no balancing
    assert judge.config.base_url == "http://127.0.0.1:9/v1"  # the client gets the plain URL
    assert endpoint_key("http://a/v1, http://a/v1") == "http://a/v1"


def test_eval_refuses_an_ignored_field_and_records_server_versions(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"id": str(k), "pred": [p], "truth": [t]}) + "\n"
                            for k, (p, t) in enumerate(PAIRS[:4])), encoding="utf-8")
    args = ["eval", str(data), "--judge", "vllm:fake-model", "--cache-dir", str(tmp_path / "c"),
            "--bootstrap", "0"]
    with FakeOpenAIServer(FakeServerConfig(vllm_version="0.12.0")) as srv:
        res = runner.invoke(app, [*args, "--base-url", srv.base_url, "--structured-field",
                                  "guided_json", "--out", str(tmp_path / "bad")])
        assert res.exit_code == 2 and srv.log == [], res.output
        assert "vLLM 0.12.0 removed guided_json" in res.output
        assert not (tmp_path / "bad").exists()
        res = runner.invoke(app, [*args, "--base-url", srv.base_url, "--out",
                                  str(tmp_path / "run")])
    assert res.exit_code == 0, res.output
    config = json.loads((tmp_path / "run" / "config.json").read_text(encoding="utf-8"))
    assert config["judge"]["server_versions"] == {srv.base_url: "0.12.0"}
    rows = [json.loads(x) for x in (tmp_path / "run" / "verdicts.jsonl").read_text(
        encoding="utf-8").splitlines()]
    assert {r["output_mode"] for r in rows} == {"structured_outputs"}


def test_a_request_moved_off_a_slow_replica_is_cancelled_first_and_paid_once(
        tmp_path: Path) -> None:
    # B answers after 60 s, --timeout is 0.5 s, --max-retries the default 2: each request B
    # gets is cut at 0.5 s, its connection closed (B sees the client leave, so a vLLM would
    # abort it), and only then sent to A; B is not asked again for it (the SDK would retry a
    # timeout twice on B, each time starting another generation there). B's answers are far
    # past any delay a busy machine adds, so what happens does not depend on the load (an
    # answer that arrives while the client is leaving is another case: issue 36, late answers)
    with FakeOpenAIServer(FakeServerConfig(latency_s=0.02)) as a, \
            FakeOpenAIServer(FakeServerConfig(latency_s=60.0)) as b:
        judge = _judge(f"{a.base_url},{b.base_url}", concurrency=8, timeout_s=0.5,
                       max_retries=2)
        verdicts, ctx = _run(judge, PAIRS, tmp_path)
        stats = judge.endpoint_pool.stats()
        time.sleep(0.2)
        slow, fast = list(b.log), list(a.log)
    assert [v.score for v in verdicts] == [fake_score(p, t) for p, t in PAIRS]
    sb, sa = stats[b.base_url], stats[a.base_url]
    assert slow and sb["requests"] == len(slow) == sb["cancelled"] == sb["moved_away"]
    assert sb["ok"] == 0 and sb["late_answers"] == 0 and sa["ok"] == len(fast) == 40
    # one attempt per moved request on B (no retry of the timeout there)
    assert len({json.dumps(r.body["messages"]) for r in slow}) == len(slow)
    for r in slow:
        # B saw the client leave at the 0.5 s deadline (its thread may notice later on a busy
        # machine), long before its 60 s answer: nothing delivered
        assert r.answered_at is None and r.client_left_at is not None
        assert 0.4 < r.client_left_at - r.t < 30
    # paid once per pair: 40 answers delivered in all
    assert sum(r.answered_at is not None for r in fast + slow) == 40 == ctx.stats.judge_calls


def test_the_slow_exchange_is_cancelled_before_the_request_moves_on(tmp_path: Path) -> None:
    # the slow endpoint's exchange takes 0.3 s to wind down once cancelled (closing its
    # connection): the request reaches the other endpoint only after that
    import httpx2

    from judge.judges.llm.openai_client import JudgeClient

    events: list[tuple[str, float]] = []

    async def handler(request: httpx2.Request) -> httpx2.Response:
        if "slow" in str(request.url):
            try:
                await asyncio.sleep(5)
            except asyncio.CancelledError:
                await asyncio.sleep(0.3)
                events.append(("slow cancelled", time.monotonic()))
                raise
        events.append(("sent to fast", time.monotonic()))
        return httpx2.Response(200, json=_REPLY)

    judge = _judge("http://slow.invalid/v1,http://fast.invalid/v1", timeout_s=0.2)
    judge.endpoint_pool.endpoints[1].requests = 1  # the slow one is tried first
    judge.endpoint_pool._make_client = lambda url: JudgeClient(  # type: ignore[method-assign]
        api_key="k", base_url=url, max_retries=2, deadline_s=0.2,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)))
    verdicts, _ = _run(judge, PAIRS[:1], tmp_path)
    assert verdicts[0].outcome == "ok"
    assert [e for e, _ in events] == ["slow cancelled", "sent to fast"]
    assert events[1][1] >= events[0][1]
    stats = judge.endpoint_pool.stats()
    assert stats["http://slow.invalid/v1"]["cancelled"] == 1


_REPLY = {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
          "choices": [{"index": 0, "finish_reason": "stop", "message": {
              "role": "assistant", "content": '{"score": 0.9, "rationale": "late"}'}}],
          "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10}}


def test_an_answer_arriving_while_cancelled_is_kept_and_counted(tmp_path: Path) -> None:
    # a transport whose answer lands exactly as the deadline cancels the exchange: the answer
    # is used (not sent again elsewhere) and counted as a late answer
    import httpx2

    from judge.judges.llm.openai_client import JudgeClient

    sent: list[str] = []

    async def handler(request: httpx2.Request) -> httpx2.Response:
        sent.append(str(request.url))
        # the reply was already in: the exchange ends with it despite the cancel
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(5)
        return httpx2.Response(200, json=_REPLY)

    judge = _judge("http://slow.invalid/v1,http://other.invalid/v1", timeout_s=0.2)
    pool = judge.endpoint_pool
    pool._make_client = lambda url: JudgeClient(  # type: ignore[method-assign]
        api_key="k", base_url=url, max_retries=2, deadline_s=0.2,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(handler)))
    verdicts, _ = _run(judge, PAIRS[:1], tmp_path)
    stats = pool.stats()
    assert verdicts[0].outcome == "ok" and verdicts[0].rationale == "late"
    assert len(sent) == 1  # answered by the first endpoint, never re-sent
    assert sum(s["late_answers"] for s in stats.values()) == 1
    assert sum(s["cancelled"] for s in stats.values()) == 0
