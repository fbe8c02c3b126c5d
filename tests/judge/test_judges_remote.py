"""Remote LLM judges over real HTTP to a loopback OpenAI-compatible server (tests/fake_openai).

Covers the openai backend (structured output and its fallbacks, usage and cost, n > 1), the
batch scorer, the LangChain backend, faults (429/500/timeouts/truncated JSON/refusals) as
outcomes, what is and is not cached, crash-safety (SIGKILL mid-run) and API-key hygiene.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time

import pytest
from typer.testing import CliRunner

from judge.cache import JudgeCache
from judge.cli import app
from judge.errors import InputError
from judge.judges.base import JudgeContext
from judge.judges.judgesfile import load_judges_file
from judge.judges.options import JudgeOptions
from judge.judges.registry import parse_judge_spec
from judge.pipeline.evaluate import run_evaluation
from judge.prices import Price
from judge.ratelimit import RateLimiter
from judge.record.store import write_run
from judge.tasks.registry import get_task
from tests.clirun import run_cli
from tests.conftest import REPO
from tests.fake_openai import FakeOpenAIServer, FakeServerConfig, fake_score

runner = CliRunner()
PAIRS = [("Job Information", "job info"), ("职位信息", "Job Information"), ("Alpha", "apple"),
         ("Beta", "gamma")]


def _judge(server: FakeOpenAIServer, **kw):  # type: ignore[no-untyped-def]
    opts = JudgeOptions(base_url=server.base_url, max_retries=kw.pop("max_retries", 2),
                        timeout_s=kw.pop("timeout_s", 5.0), **kw)
    return parse_judge_spec(kw.pop("spec", "openai:fake-model") if "spec" in kw else
                            "openai:fake-model", opts)


def _run(judge, pairs, tmp_path, mode="read-write"):  # type: ignore[no-untyped-def]
    ctx = JudgeContext(cache=JudgeCache(tmp_path / "cache", mode))
    return asyncio.run(judge.judge_pairs(pairs, ctx)), ctx


def test_structured_output_usage_and_cost(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with FakeOpenAIServer() as srv:
        opts = JudgeOptions(base_url=srv.base_url, prices={"fake-model": Price(1.0, 2.0)})
        judge = parse_judge_spec("openai:fake-model", opts)
        verdicts, ctx = _run(judge, PAIRS, tmp_path)
    assert [v.score for v in verdicts] == [fake_score(p, t) for p, t in PAIRS]
    assert all(v.outcome == "ok" and v.output_mode == "json_schema" for v in verdicts)
    body = srv.log[0].body
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["strict"] is True
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema["additionalProperties"] is False and schema["required"] == ["score", "rationale"]
    assert body["temperature"] == 0.0 and body["model"] == "fake-model"
    assert ctx.stats.judge_calls == 4 and ctx.stats.tokens_out == 80
    # USD = (tokens_in · 1 + tokens_out · 2) / 1e6
    assert ctx.stats.cost_usd == pytest.approx((ctx.stats.tokens_in + 2 * 80) / 1e6)
    assert sum(v.cost_usd for v in verdicts) == pytest.approx(ctx.stats.cost_usd)


@pytest.mark.parametrize(("rejected", "mode"), [(("json_schema",), "json_object"),
                                                (("json_schema", "json_object"), "text")])
def test_structured_output_fallback_is_recorded(tmp_path, rejected, mode) -> None:  # type: ignore[no-untyped-def]
    with FakeOpenAIServer(FakeServerConfig(reject_formats=rejected)) as srv:
        verdicts, _ = _run(_judge(srv, concurrency=1), PAIRS, tmp_path)
    assert all(v.outcome == "ok" and v.output_mode == mode for v in verdicts)
    # each rejected format was tried once, then remembered for the rest of the run
    assert sum(r.response == "rejected-format" for r in srv.log) == len(rejected)


def test_cache_hits_reparse_and_key_excludes_secrets(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-NEVER-STORE-ME-123")
    with FakeOpenAIServer() as srv:
        _run(_judge(srv), PAIRS, tmp_path)
        second, ctx = _run(_judge(srv), PAIRS, tmp_path)
        assert len(srv.log) == 4  # the second pass made no request
    assert ctx.stats.judge_calls == 0 and ctx.stats.cache_hits == 4
    assert all(v.cached and v.outcome == "ok" for v in second)
    for f in (tmp_path / "cache").rglob("*"):
        if f.is_file():
            assert b"NEVER-STORE-ME" not in f.read_bytes(), f


def test_samples_average(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with FakeOpenAIServer() as srv:
        verdicts, _ = _run(_judge(srv, params={"temperature": 0.7, "n": 3}), PAIRS[:1], tmp_path)
    assert srv.log[0].body["n"] == 3 and verdicts[0].score == pytest.approx(0.9)
    assert json.loads(verdicts[0].raw) and len(json.loads(verdicts[0].raw)) == 3


def test_batch_scorer_one_call_per_prediction(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pairs = [("Alpha", "apple"), ("Alpha", "beta"), ("Alpha", "ant"), ("Beta", "bee")]
    with FakeOpenAIServer() as srv:
        verdicts, ctx = _run(_judge(srv, scorer="entity_similarity_batch@v1"), pairs, tmp_path)
    assert len(srv.log) == 2 and ctx.stats.judge_calls == 2
    assert [v.score for v in verdicts] == [fake_score(p, t) for p, t in pairs]
    assert {v.scorer for v in verdicts} == {"entity_similarity_batch@v1"}


def test_batch_anchors_on_the_smaller_side_and_chunks(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # 25 predictions against one gold name: anchored on the gold name, 20 + 5 items
    pairs = [(f"{'S' if i % 2 else 'x'}creen item {i}", "Screen security") for i in range(25)]
    with FakeOpenAIServer() as srv:
        verdicts, _ = _run(_judge(srv, scorer="entity_similarity_batch@v1"), pairs, tmp_path)
    assert len(srv.log) == 2
    user = srv.log[0].body["messages"][1]["content"]
    assert "The anchor is a gold item" in user and "<<<ANCHOR\nScreen security\nANCHOR>>>" in user
    assert [(v.pred, v.truth) for v in verdicts] == pairs
    assert [v.score for v in verdicts] == [fake_score(p, t) for p, t in pairs]


def test_batch_missing_cells_are_parse_errors_and_not_cached(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pairs = [("Alpha", "apple"), ("Alpha", "beta"), ("Alpha", "ant")]
    with FakeOpenAIServer(FakeServerConfig(batch_drop_last=True)) as srv:
        judge = _judge(srv, scorer="entity_similarity_batch@v1")
        verdicts, _ = _run(judge, pairs, tmp_path)
        assert [v.outcome for v in verdicts] == ["ok", "ok", "parse_error"]
        assert verdicts[2].score is None and "no score for this item" in verdicts[2].rationale
        _run(judge, pairs, tmp_path)
        assert len(srv.log) == 2  # a partial answer is not cached: the rerun asks again


def test_langchain_backend(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with FakeOpenAIServer() as srv:
        opts = JudgeOptions(base_url=srv.base_url, api_key_env="SIMJUDGE_TEST_NO_KEY")
        os.environ.setdefault("OPENAI_API_KEY", "sk-local-test")
        judge = parse_judge_spec("langchain:openai:fake-model", opts)
        verdicts, ctx = _run(judge, PAIRS, tmp_path)
    assert [v.score for v in verdicts] == [fake_score(p, t) for p, t in PAIRS]
    assert all(v.outcome == "ok" and v.raw for v in verdicts)
    assert ctx.stats.tokens_out == 80 and ctx.stats.judge_calls == 4
    assert judge.describe()["backend"] == "langchain"


def _pairs(n: int) -> list[tuple[str, str]]:
    return [(f"pred {i:04d}", f"{'p' if i % 3 else 'g'}old {i:04d}") for i in range(n)]


def test_faults_become_outcomes_and_only_successes_are_cached(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # 400 pairs, 20 % faults spread over 5 kinds: about 16 of each kind, so every kind occurs
    # (asserted below on the server's log). 2,000 pairs took 14 s here for no other check:
    # the client and the server share this process, so the time is their CPU per request
    n = 400
    pairs = _pairs(n)
    cfg = FakeServerConfig(fault_rate=0.2, timeout_sleep_s=1.0, seed=7)
    srv = FakeOpenAIServer(cfg).start()
    judge = _judge(srv, concurrency=64, timeout_s=0.5, max_retries=2)
    verdicts, _ = _run(judge, pairs, tmp_path)
    assert all(v is not None for v in verdicts)  # every pair scored or recorded
    outcomes = {o: sum(v.outcome == o for v in verdicts) for o in
                ("ok", "parse_error", "transport_error", "refused")}
    assert sum(outcomes.values()) == n
    # refusals and truncations (8 % of answers) are not retried; 429/500/timeouts are, so
    # nearly all of those end ok: well over 3 in 4 pairs are ok
    assert outcomes["refused"] > 0 and outcomes["parse_error"] > 0 and outcomes["ok"] > 0.75 * n
    assert all((v.score is None) == (v.outcome != "ok") for v in verdicts)
    kinds = {r.response for r in srv.log}
    assert {"429", "500", "timeout", "truncated", "refusal", "ok"} <= kinds
    # the second pass (same server, faults off) asks again exactly for the failed pairs
    failed = {(v.pred, v.truth) for v in verdicts if v.outcome != "ok"}
    srv.config.fault_rate = 0.0
    srv.log.clear()
    try:
        again, ctx2 = _run(_judge(srv, concurrency=64, timeout_s=0.5), pairs, tmp_path)
        assert len(srv.log) == len(failed) == ctx2.stats.judge_calls
    finally:
        srv.stop()
    assert ctx2.stats.cache_hits == n - len(failed)
    assert all(v.outcome == "ok" for v in again)


def test_cli_exit_status_counts_and_no_key_anywhere(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    secret = "sk-test-ZYX987-do-not-leak"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"id": i, "pred": [p], "truth": [t]}) + "\n"
                            for i, (p, t) in enumerate(_pairs(60))))
    with FakeOpenAIServer(FakeServerConfig(fault_rate=0.5, faults=("refusal", "truncated"),
                                           seed=3)) as srv:
        res = runner.invoke(app, ["eval", str(data), "--id-field", "id", "--judge",
                                  "openai:fake-model", "--base-url", srv.base_url,
                                  "--out", str(tmp_path / "run"), "--cache-dir",
                                  str(tmp_path / "cache")])
    assert res.exit_code == 1, res.output
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    o = summary["outcomes"]
    assert o["refused"] > 0 and o["parse_error"] > 0 and sum(o.values()) == 60
    assert summary["judge_calls"] == 60 and summary["tokens_in"] > 0
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    assert config["judge"]["api_key_env"] == "OPENAI_API_KEY"
    for f in [*(tmp_path / "run").iterdir(), *(tmp_path / "cache").rglob("*")]:
        if f.is_file():
            assert secret.encode() not in f.read_bytes(), f
    assert secret not in res.output


def test_sigkill_mid_run_loses_no_completed_call(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pairs = _pairs(240)
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"id": i, "pred": [p], "truth": [t]}) + "\n"
                            for i, (p, t) in enumerate(pairs)))
    cache = tmp_path / "cache"
    with FakeOpenAIServer(FakeServerConfig(latency_s=0.05)) as srv:
        cmd = [sys.executable, "-m", "judge.cli", "eval", str(data), "--id-field", "id",
               "--judge", "openai:fake-model", "--base-url", srv.base_url, "--concurrency", "4",
               "--cache-dir", str(cache)]
        env = {**os.environ, "OPENAI_API_KEY": "sk-local"}
        proc = subprocess.Popen([*cmd, "--out", str(tmp_path / "r1")], cwd=REPO, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while len(srv.log) < 80 and time.time() < deadline:
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        first = list(srv.log)
        assert 80 <= len(first) < 240 and not (tmp_path / "r1").exists()
        srv.log.clear()
        srv.config.latency_s = 0.0  # the rerun's pace is not what is tested
        res = run_cli(*cmd[3:], "--out", tmp_path / "r2", cwd=REPO,
                      env={"OPENAI_API_KEY": "sk-local"})  # the rerun: in-process
        assert res.returncode == 0, res.stderr
        second = list(srv.log)

    def pair_of(body: dict) -> str:
        return body["messages"][1]["content"]

    summary = json.loads((tmp_path / "r2" / "summary.json").read_text())
    cached = summary["cache_hits"]
    assert cached > 0 and summary["judge_calls"] == len(second) == 240 - cached
    asked_again = {pair_of(r.body) for r in second} & {pair_of(r.body) for r in first}
    # only requests in flight at the kill (at most --concurrency of them) are asked again
    assert len(asked_again) <= 4
    assert len({pair_of(r.body) for r in first}) + len(second) - len(asked_again) == 240


def test_rate_limiter_spaces_requests() -> None:
    # rpm 3 in a 0.3 s window: 7 requests go 3 at once, 3 once the first three have left the
    # window, 1 once those have. Checked on the grant times the limiter records, not on a
    # tight total: a loaded machine may stall the loop, never make a grant come early
    async def go() -> list[float]:
        lim = RateLimiter(rpm=3, window_s=0.3)
        granted: list[float] = []
        for _ in range(7):
            await lim.acquire()
            granted.append(lim._events[-1][0])  # the grant's time, as the limiter counts it
        return granted

    g = asyncio.run(go())
    assert all(g[k + 3] - g[k] >= 0.3 for k in range(4))  # never 4 grants in one window
    assert g[6] - g[0] < 10  # it waits for the window (0.6 s), not for 60 s or forever
    with pytest.raises(ValueError, match="rpm"):
        RateLimiter(rpm=0)


def test_tpm_paces_calls_by_the_dry_run_estimate(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # four pairs of equal length: each call is estimated alike; a limit of two calls' worth
    # of tokens per 1 s window sends two in the first window and the other two only once the
    # first has left it. Checked on the limiter's own record (the calls it holds at each
    # grant), not on a tight wall time: a loaded machine may stall the loop, not the order
    pairs = [(f"pred {c}", f"gold {c}") for c in "abcd"]
    with FakeOpenAIServer() as srv:
        judge = _judge(srv, concurrency=4)
        estimates = [sum(judge.estimated_tokens(r)) for r in judge.requests_for(pairs, "")]
        assert len(set(estimates)) == 1 and estimates[0] > 60  # prompt + 60 answer tokens
        judge.limiter = RateLimiter(tpm=2 * estimates[0], window_s=1.0)
        asked: list[int] = []
        granted: list[float] = []
        held: list[int] = []  # calls in the limiter's window right after each grant
        acquire = judge.limiter.acquire

        async def noting(tokens: int = 0) -> None:
            asked.append(tokens)
            await acquire(tokens)
            granted.append(time.monotonic())
            held.append(len(judge.limiter._events))

        judge.limiter.acquire = noting  # type: ignore[method-assign]
        verdicts, _ = _run(judge, pairs, tmp_path, mode="off")
    assert [v.outcome for v in verdicts] == ["ok"] * 4
    assert asked == estimates  # what `eval --dry-run` prints per call
    assert held[:2] == [1, 2]  # the first two share the first window
    assert granted[2] - granted[0] >= 0.99  # the third waited for the first to leave it
    assert len(srv.log) == 4


def test_judges_toml(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "judges.toml"
    path.write_text('[[judges]]\nid = "fake"\nbackend = "openai"\nmodel = "fake-model"\n'
                    'base_url = "http://127.0.0.1:9/v1"\nconcurrency = 3\n'
                    'params = { temperature = 0.2, max_tokens = 50 }\n'
                    '[[judges]]\nid = "floor"\nbackend = "lexical"\n')
    declared = load_judges_file(path)
    spec, opts = declared["fake"]
    assert spec == "openai:fake-model" and opts.concurrency == 3
    judge = parse_judge_spec(spec, opts)
    assert judge.id == "fake" and judge.describe()["params"] == {"temperature": 0.2,
                                                                  "max_tokens": 50}
    assert declared["floor"][0] == "lexical"
    bad = tmp_path / "bad.toml"
    bad.write_text('[[judges]]\nid = "x"\nbackend = "openai"\nmodel = "m"\napi_key = "sk-1"\n')
    with pytest.raises(InputError, match="api_key_env instead"):
        load_judges_file(bad)


def test_missing_key_for_openai_itself(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(InputError, match="OPENAI_API_KEY is not set"):
        parse_judge_spec("openai:gpt-4o-mini")
    with pytest.raises(InputError, match="needs a model name"):
        parse_judge_spec("openai:")


def test_run_evaluation_with_remote_judge_end_to_end(tmp_path) -> None:  # type: ignore[no-untyped-def]
    task = get_task("selection")
    items = task.from_dicts([{"pred": ["Alpha", "Beta"], "truth": ["apple", "gamma"]}])
    with FakeOpenAIServer() as srv:
        judge = _judge(srv)
        r = run_evaluation(items, task, judge, cache=JudgeCache(tmp_path / "c"))
    write_run(r, tmp_path / "run")
    # Alpha–apple 0.9 is the only score above τ: TP 0.9, P = R = 0.45
    assert r.summary.metrics["macro_precision"] == pytest.approx(0.45)
    assert r.summary.judge_calls == 4 and r.summary.outcomes["ok"] == 4
    lines = (tmp_path / "run" / "verdicts.jsonl").read_text().splitlines()
    v = json.loads(lines[0])
    assert v["template_sha256"] and v["cache_key"] and v["output_mode"] == "json_schema"


def test_first_calls_go_out_before_all_requests_are_rendered(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import dataclasses

    from judge.judges.llm.llmjudge import FEED_EVERY

    pairs = [(f"pred {i}", f"gold {i}") for i in range(200)]
    rendered: list[int] = []
    at_first_call: list[int] = []
    with FakeOpenAIServer() as srv:
        judge = _judge(srv, concurrency=8)
        render, call = judge.config.scorer.render, judge.call

        def counting_render(**kw):  # type: ignore[no-untyped-def]
            rendered.append(1)
            return render(**kw)

        async def noting_call(messages):  # type: ignore[no-untyped-def]
            if not at_first_call:
                at_first_call.append(len(rendered))
            return await call(messages)

        # a copy of the (shared, frozen) scorer whose render counts
        scorer = dataclasses.replace(judge.config.scorer)
        object.__setattr__(scorer, "render", counting_render)
        judge.config = dataclasses.replace(judge.config, scorer=scorer)
        judge.call = noting_call
        verdicts, ctx = _run(judge, pairs, tmp_path, mode="off")
    assert len(rendered) == 200 and ctx.stats.judge_calls == 200
    assert all(v.outcome == "ok" for v in verdicts)
    # the first call started when the first FEED_EVERY (8) requests were rendered, not 200
    assert at_first_call == [FEED_EVERY] and FEED_EVERY == 8
