"""Issue 11, "a bad reply or a dead endpoint must not kill or mislead the run".

Everything here talks real HTTP to the loopback fault server (tests/fake_openai.py) or to a
closed loopback port, through the real ``simjudge eval`` command (typer's CliRunner, in
process) where the behaviour is about the command:

- judge replies whose score is not a JSON number in [0, 1] are ``parse_error`` (raw kept), never
  a score, never cached — pairwise and per item of the batch scorer;
- malformed HTTP 200 replies (HTML, cut-off JSON, a JSON array, ``message`` a string,
  ``content`` a list, non-numeric ``usage``) are that request's ``transport_error`` with the raw
  reply kept (capped), in runs that complete with exit status 1 (here a few hundred pairs;
  ``benchmarks/bench_malformed_replies.py`` runs the same checks on 2,000);
- failures name their real cause (refused connection, failed name resolution, HTTP 4xx not
  retried, 5xx with the SDK's real retry count);
- an endpoint failing alike with a fatal error stops early: exactly ``--stop-after`` requests,
  one message, the run directory written, the rest "not attempted" and retried by a rerun;
- a panel with one dead member still judges with the others.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from judge.cache import JudgeCache
from judge.cli import app
from judge.judges.base import JudgeContext
from judge.judges.llm.jsonreply import ParseError
from judge.judges.llm.scorer import load_scorer
from judge.judges.options import JudgeOptions
from judge.judges.registry import parse_judge_spec
from judge.verdict import RAW_MAX_CHARS, Verdict
from tests.fake_openai import (
    EMBEDDING_SHAPES,
    HTML_PAGE,
    MALFORMED_SHAPES,
    FakeOpenAIServer,
    FakeServerConfig,
    closed_port,
    fake_embedding,
    fake_score,
)

runner = CliRunner()
N = 240
"""Pairs of the malformed-reply runs here: the six (eight for embeddings) bad replies are
spread over the run as in the 2,000-pair runs of ``benchmarks/bench_malformed_replies.py``,
which calls the same checks (:func:`check_malformed_chat`, :func:`check_malformed_batch`,
:func:`check_malformed_embeddings`) with 2,000."""


# ----------------------------------------------------------------------------- helpers
def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").split("\n") if x]


def _write_items(path: Path, pairs: list[tuple[str, str]]) -> Path:
    path.write_text("".join(json.dumps({"id": f"i{k}", "pred": [p], "truth": [t]},
                                       ensure_ascii=False) + "\n"
                            for k, (p, t) in enumerate(pairs)), encoding="utf-8")
    return path


def _eval(data: Path, out: Path, cache: Path, *args: str) -> Any:
    return runner.invoke(app, ["eval", str(data), "--id-field", "id", "--out", str(out),
                               "--cache-dir", str(cache), "--bootstrap", "0", *args])


def _cache_entries(cache: Path) -> int:
    return int(JudgeCache(cache).stats()["entries"])


# ------------------------------------------------- 1. score types in a judge reply
S = load_scorer("entity_similarity@v1")
BAD_SCORES = ['{"score": true, "rationale": "x"}', '{"score": false}', '{"score": "0.8"}',
              '{"score": "1"}', '{"score": null}', '{"score": NaN}', '{"score": Infinity}',
              '{"score": -Infinity}', '{"score": 1.5}', '{"score": -0.2}', '{"score": 1e400}',
              '{"score": [0.8]}', '{"score": 0.8, "rationale": 7}', "score: 1e-3",
              "score: 8/10", "score: 80%", '{"score": 1' + "0" * 5000 + "}",
              "[" * 100_000 + "]" * 100_000, "{" * 50_000]


@pytest.mark.parametrize("raw", BAD_SCORES, ids=lambda r: r[:24])
def test_non_numbers_and_out_of_range_scores_are_parse_errors(raw: str) -> None:
    with pytest.raises(ParseError):
        S.parse(raw)


@pytest.mark.parametrize(("raw", "score"), [('{"score": 1}', 1.0), ('{"score": 0}', 0.0),
                                            ("score: 0.8.", 0.8), ("Score = 1", 1.0)])
def test_integers_and_plain_decimals_are_still_scores(raw: str, score: float) -> None:
    assert S.parse(raw).score == score  # type: ignore[attr-defined]


def test_bad_score_types_over_http_are_parse_errors_and_never_cached(tmp_path) -> None:  # type: ignore[no-untyped-def]
    bad = {f"bad {k}": text for k, text in enumerate(BAD_SCORES[:13])}
    pairs = [(p, "gold") for p in bad] + [("good", "gold")]
    cache = JudgeCache(tmp_path / "cache")
    with FakeOpenAIServer(FakeServerConfig(contents=bad)) as srv:
        judge = parse_judge_spec("openai:fake-model", JudgeOptions(base_url=srv.base_url))
        first = _judge(judge, pairs, cache)
        # an answer cached by an older, laxer parser is asked again, not re-served
        key = judge.requests_for([("stale", "gold")], "")[0].key  # type: ignore[attr-defined]
        cache.set(key, {"texts": ['{"score": true}'], "mode": "json_schema"})
        srv.log.clear()
        second = _judge(judge, [*pairs, ("stale", "gold")], cache)
        asked_again = sorted(r.body["messages"][1]["content"].count("bad ") +
                             r.body["messages"][1]["content"].count("stale") for r in srv.log)
    for v in first[:-1]:
        assert v.outcome == "parse_error" and v.score is None
        assert v.raw == bad[v.pred]  # the raw text is kept
    assert first[-1].outcome == "ok" and first[-1].score == fake_score("good", "gold")
    # 13 bad pairs + the stale entry asked again; the good pair came from the cache
    assert len(asked_again) == 14 and asked_again == [1] * 14
    assert second[-2].cached and second[-2].outcome == "ok"
    assert second[-1].outcome == "ok" and not second[-1].cached  # fake server: 0.1
    assert second[-1].score == fake_score("stale", "gold")


def test_batch_scorer_judges_each_entry_on_its_own(tmp_path) -> None:  # type: ignore[no-untyped-def]
    reply = json.dumps({"scores": [
        {"index": 1, "score": True, "rationale": "bool"},
        {"index": 2, "score": 0.3, "rationale": "fine"},
        {"index": 3, "score": "0.8", "rationale": "string"},
        {"index": 4, "score": None, "rationale": "null"},
        {"index": 5, "score": 2, "rationale": "out of range"},
        {"index": "6", "score": 0.5, "rationale": "string index"},
    ]})
    golds = ["g1", "g2", "g3", "g4", "g5", "g6"]
    pairs = [("anchor", g) for g in golds]
    cache = JudgeCache(tmp_path / "cache")
    with FakeOpenAIServer(FakeServerConfig(contents={"anchor": reply})) as srv:
        judge = parse_judge_spec("openai:fake-model", JudgeOptions(
            base_url=srv.base_url, scorer="entity_similarity_batch@v1"))
        verdicts = _judge(judge, pairs, cache)
        _judge(judge, pairs, cache)
        calls = len(srv.log)
    assert [v.outcome for v in verdicts] == ["parse_error", "ok", "parse_error", "parse_error",
                                             "parse_error", "parse_error"]
    assert verdicts[1].score == 0.3 and all(v.score is None for v in verdicts if v is not
                                            verdicts[1])
    assert "scores.0.score: Input should be a valid number" in verdicts[0].rationale
    assert verdicts[5].rationale == "the answer has no score for this item"
    assert all(v.raw == reply for v in verdicts)
    assert calls == 2  # a partly bad answer is never cached: the second pass asked again


def _judge(judge: Any, pairs: list[tuple[str, str]], cache: JudgeCache) -> list[Verdict]:
    import asyncio

    out = asyncio.run(judge.judge_pairs(pairs, JudgeContext(cache=cache)))
    assert all(v is not None for v in out)
    return out  # type: ignore[no-any-return]


# ------------------------------------------------------- 2. malformed HTTP 200 replies
def _bad_pairs(n: int, shapes: tuple[str, ...]) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """n pairs; the pred of pair k·(n // len(shapes)) + 7 triggers shape k."""
    pairs = [(f"pred {i:04d}", f"{'p' if i % 3 else 'g'}old {i:04d}") for i in range(n)]
    step = n // len(shapes)
    trig = {pairs[k * step + 7][0]: s for k, s in enumerate(shapes)}
    return pairs, trig


def test_six_malformed_replies_in_a_run_complete_with_exit_1(tmp_path: Path) -> None:
    check_malformed_chat(tmp_path, N)


def check_malformed_chat(tmp_path: Path, n: int) -> None:
    """``eval`` of ``n`` pairs, six of which get a malformed HTTP 200 reply (one of each
    :data:`MALFORMED_SHAPES`): exit 1, exactly those six are transport errors with their raw
    reply, nothing of theirs cached (a rerun asks exactly them)."""
    pairs, shapes = _bad_pairs(n, MALFORMED_SHAPES)
    data = _write_items(tmp_path / "d.jsonl", pairs)
    cache = tmp_path / "cache"
    with FakeOpenAIServer(FakeServerConfig(shapes=shapes)) as srv:
        res = _eval(data, tmp_path / "run", cache, "--judge", "openai:fake-model",
                    "--base-url", srv.base_url, "--concurrency", "32")
        served = Counter(r.response for r in srv.log)
        srv.config.shapes = {}
        srv.log.clear()
        again = _eval(data, tmp_path / "run2", cache, "--judge", "openai:fake-model",
                      "--base-url", srv.base_url)
        asked_again = {r.body["messages"][1]["content"] for r in srv.log}
    assert res.exit_code == 1, res.output
    assert "Traceback" not in res.output
    assert served == {"ok": n - 6, **{s: 1 for s in MALFORMED_SHAPES}}
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["outcomes"] == {"ok": n - 6, "parse_error": 0, "transport_error": 6,
                                   "refused": 0}
    # the six failed pairs have no score: counted, and the terminal says the metrics are
    # lower bounds (a failure is never a silent 0)
    assert summary["pairs_without_verdict"] == 6
    assert "6 distinct pair(s) have no score" in res.output
    verdicts = _jsonl(tmp_path / "run" / "verdicts.jsonl")
    assert len(verdicts) == n  # every pair has an outcome
    failed = {v["pred"]: v for v in verdicts if v["outcome"] != "ok"}
    assert set(failed) == set(shapes)  # exactly the six bad pairs
    for pred, shape in shapes.items():
        v = failed[pred]
        assert v["score"] is None and v["raw"], shape
        assert v["rationale"].startswith("malformed chat.completion reply: "), v["rationale"]
    html = next(v for p, v in failed.items() if shapes[p] == "html")
    # the 19 kB page is kept up to the cap and marked as cut
    assert html["raw"].startswith("<!DOCTYPE html>") and html["raw_truncated"] is True
    assert html["raw"].endswith(f"…[truncated: {len(HTML_PAGE)} characters in all]")
    assert len(html["raw"]) <= RAW_MAX_CHARS + 50 and "content-type text/html" in \
        html["rationale"]
    usage = next(v for p, v in failed.items() if shapes[p] == "usage_string")
    assert "usage.prompt_tokens: Input should be a valid integer" in usage["rationale"]
    assert '"prompt_tokens": "many"' in usage["raw"]
    # the good ones are right and nothing bad was cached: the rerun asks exactly the six
    for v in verdicts:
        if v["outcome"] == "ok":
            assert v["score"] == fake_score(v["pred"], v["truth"])
    assert again.exit_code == 0, again.output
    assert len(asked_again) == 6 and all(any(p in c for p in shapes) for c in asked_again)


def test_batch_scorer_six_malformed_replies(tmp_path: Path) -> None:
    check_malformed_batch(tmp_path, N)


def check_malformed_batch(tmp_path: Path, n: int) -> None:
    """The batch scorer on ``n`` predictions against ``n // 20`` gold names (anchored on the
    gold names, 20 items a request), six requests answered with a malformed reply: exactly
    their 6 × 20 pairs fail."""
    golds = n // 20
    pairs = [(f"{'g' if i % 3 else 'p'}red {i:04d}", f"gold {i % golds:03d}") for i in range(n)]
    # prediction k·(golds + 1) is judged against gold name k: six distinct requests
    shapes = {pairs[k * (golds + 1)][0]: s for k, s in enumerate(MALFORMED_SHAPES)}
    data = _write_items(tmp_path / "d.jsonl", pairs)
    with FakeOpenAIServer(FakeServerConfig(shapes=shapes)) as srv:
        res = _eval(data, tmp_path / "run", tmp_path / "cache", "--judge", "openai:fake-model",
                    "--base-url", srv.base_url, "--scorer", "entity_similarity_batch@v1")
        bad_requests = [r.body["messages"][1]["content"] for r in srv.log
                        if r.response in MALFORMED_SHAPES]
    assert res.exit_code == 1, res.output
    assert len(srv.log) == golds and len(bad_requests) == 6
    # the pairs whose request got a malformed reply, from what the server saw
    in_bad = {(p, t) for p, t in pairs for c in bad_requests
              if f"\n{p}\n" in c and f"<<<ANCHOR\n{t}\nANCHOR>>>" in c}
    assert len(in_bad) == 6 * 20
    verdicts = _jsonl(tmp_path / "run" / "verdicts.jsonl")
    assert len(verdicts) == n
    failed = {(v["pred"], v["truth"]) for v in verdicts if v["outcome"] != "ok"}
    assert failed == in_bad
    assert all(v["outcome"] == "transport_error" and v["raw"] for v in verdicts
               if (v["pred"], v["truth"]) in in_bad)
    ok = [v for v in verdicts if v["outcome"] == "ok"]
    assert all(v["score"] == fake_score(v["pred"], v["truth"]) for v in ok)


def test_embeddings_malformed_replies(tmp_path: Path) -> None:
    check_malformed_embeddings(tmp_path, 2 * N)


def check_malformed_embeddings(tmp_path: Path, n: int) -> None:
    """The embedding judge on ``n`` pairs, eight of whose 64-string requests get a malformed
    reply (one of each :data:`EMBEDDING_SHAPES`): exactly the pairs with a string in those
    requests fail, nothing of theirs is cached."""
    pairs, shapes = _bad_pairs(n, EMBEDDING_SHAPES)
    data = _write_items(tmp_path / "d.jsonl", pairs)
    cache = tmp_path / "cache"
    with FakeOpenAIServer(FakeServerConfig(shapes=shapes)) as srv:
        res = _eval(data, tmp_path / "run", cache, "--judge", "openai-embedding:fake-embed",
                    "--base-url", srv.base_url)
        bad_inputs = {s for r in srv.log if r.response in EMBEDDING_SHAPES
                      for s in r.body["input"]}
        served = Counter(r.response for r in srv.log)
        srv.config.shapes = {}
        srv.log.clear()
        again = _eval(data, tmp_path / "run2", cache, "--judge", "openai-embedding:fake-embed",
                      "--base-url", srv.base_url)
        embedded_again = {s for r in srv.log for s in r.body["input"]}
    assert res.exit_code == 1, res.output
    assert {s: served[s] for s in EMBEDDING_SHAPES} == {s: 1 for s in EMBEDDING_SHAPES}
    verdicts = _jsonl(tmp_path / "run" / "verdicts.jsonl")
    assert len(verdicts) == n
    failed = {(v["pred"], v["truth"]) for v in verdicts if v["outcome"] != "ok"}
    assert failed == {(p, t) for p, t in pairs if p in bad_inputs or t in bad_inputs}
    for v in verdicts:
        if v["outcome"] == "ok":  # cosine of the fake vectors: 1.0 or 0.5
            a, b = fake_embedding(v["pred"]), fake_embedding(v["truth"])
            cos = sum(x * y for x, y in zip(a, b, strict=True)) / math.sqrt(
                sum(x * x for x in a) * sum(y * y for y in b))
            assert v["score"] == pytest.approx(cos, abs=1e-6)
        else:
            assert v["outcome"] == "transport_error"
            assert v["rationale"].startswith("malformed embeddings reply: ") and v["raw"]
    # nothing of the bad batches was cached: the rerun embeds exactly those strings
    assert again.exit_code == 0, again.output
    assert embedded_again == bad_inputs


# ------------------------------------------------------- 3. the real cause of a failure
def _one_call(base_url: str, tmp_path: Path, **kw: Any) -> Verdict:
    judge = parse_judge_spec("openai:fake-model", JudgeOptions(base_url=base_url, **kw))
    return _judge(judge, [("alpha", "beta")], JudgeCache(tmp_path / "c"))[0]


@pytest.mark.parametrize("http", ["aiohttp", "httpx"])
def test_refused_connection_is_named_not_a_timeout(tmp_path, http) -> None:  # type: ignore[no-untyped-def]
    port = closed_port()
    v = _one_call(f"http://127.0.0.1:{port}/v1", tmp_path, http=http, max_retries=1)
    assert v.outcome == "transport_error"
    assert v.rationale == f"connection refused to http://127.0.0.1:{port}/v1 (after 1 retry)"


@pytest.mark.parametrize("http", ["aiohttp", "httpx"])
def test_failed_name_resolution_is_named(tmp_path, http) -> None:  # type: ignore[no-untyped-def]
    # a 305-character name: glibc's resolver rejects it before sending any query (checked with
    # strace: no socket to port 53), so this needs no network and is a real resolution failure
    host = ("a" * 60 + ".") * 5 + "invalid"
    v = _one_call(f"http://{host}/v1", tmp_path, http=http, max_retries=0)
    assert v.rationale.startswith(f"name resolution failed for host {host}: ")
    assert v.rationale.endswith("(not retried)") and "timed out" not in v.rationale


@pytest.mark.parametrize("http", ["aiohttp", "httpx"])
def test_a_real_timeout_and_a_hangup_are_told_apart(tmp_path, http) -> None:  # type: ignore[no-untyped-def]
    cfg = FakeServerConfig(fault_rate=1.0, faults=("timeout",), timeout_sleep_s=1.5)
    with FakeOpenAIServer(cfg) as srv:
        v = _one_call(srv.base_url, tmp_path / "t", http=http, timeout_s=0.3, max_retries=0)
        srv.config.faults = ("hangup",)
        hung = _one_call(srv.base_url, tmp_path / "h", http=http, max_retries=1)
        assert len(srv.log) == 3  # the hangup was retried once by the SDK
    assert v.rationale == "timed out after 0.3 s (not retried)"
    assert hung.rationale.startswith(f"connection failed to {srv.base_url} (after 1 retry): ")
    assert "timed out" not in hung.rationale


def test_4xx_is_not_retried_and_says_so(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with FakeOpenAIServer(FakeServerConfig(status_all=401)) as srv:
        v = _one_call(srv.base_url, tmp_path, max_retries=2)
        assert len(srv.log) == 1
    assert v.rationale == ("HTTP 401 Unauthorized (not retried): Incorrect API key provided: "
                           "sk-fake-*****. You can find your key.")
    assert json.loads(v.raw)["error"]["code"] == "fake_error"  # the server's body is kept


def test_an_echoed_key_is_redacted_from_the_error_and_the_raw_body(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    key = "sk-test-ECHOED0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    with FakeOpenAIServer(FakeServerConfig(status_all=401,
                                           status_message=f"bad key {key}")) as srv:
        v = _one_call(srv.base_url, tmp_path)
    assert key not in v.rationale and key not in v.raw
    assert v.rationale == "HTTP 401 Unauthorized (not retried): bad key [REDACTED]"


def test_5xx_states_the_sdks_real_retry_count(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with FakeOpenAIServer(FakeServerConfig(status_all=503, status_message="overloaded")) as srv:
        v = _one_call(srv.base_url, tmp_path, max_retries=2)
        assert len(srv.log) == 3  # one request and two retries
    assert v.rationale == "HTTP 503 Service Unavailable (after 2 retries): overloaded"


# ------------------------------------------------------------------------ 4. early stop
def test_401_everywhere_stops_after_8_calls_and_writes_the_run(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pairs = [(f"pred {i:03d}", f"gold {i:03d}") for i in range(100)]
    data = _write_items(tmp_path / "d.jsonl", pairs)
    cache = tmp_path / "cache"
    with FakeOpenAIServer(FakeServerConfig(status_all=401)) as srv:
        res = _eval(data, tmp_path / "run", cache, "--judge", "openai:fake-model",
                    "--base-url", srv.base_url, "--concurrency", "64")
        calls = len(srv.log)
        srv.config.status_all = None  # the key is fixed: a rerun judges everything
        srv.log.clear()
        again = _eval(data, tmp_path / "run2", cache, "--judge", "openai:fake-model",
                      "--base-url", srv.base_url)
        calls_again = len(srv.log)
    assert res.exit_code == 1
    assert calls == 8  # calls go one at a time until one does not fail fatally
    assert res.stderr.count("stopped early") == 1, res.stderr
    assert ("simjudge: judge openai:fake-model stopped early: 8 consecutive calls failed: "
            "HTTP 401 Unauthorized (not retried): Incorrect API key provided") in res.stderr
    assert " 92 pair(s) not attempted" in res.stderr
    verdicts = _jsonl(tmp_path / "run" / "verdicts.jsonl")
    why = Counter(v["rationale"].split(":")[0] for v in verdicts)
    assert why == {"HTTP 401 Unauthorized (not retried)": 8, "not attempted": 92}
    assert all(v["outcome"] == "transport_error" for v in verdicts)
    assert {v["rationale"] for v in verdicts if v["rationale"].startswith("not")} == {
        "not attempted: run stopped after 8 consecutive calls failed with HTTP 401 "
        "Unauthorized"}
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["judge_calls"] == 8 and summary["outcomes"]["transport_error"] == 100
    assert summary["stopped_early"][0]["pairs_not_attempted"] == 92
    assert (tmp_path / "run" / "report.html").exists()
    assert calls_again == 100 and again.exit_code == 0, again.output


def test_langchain_judge_also_stops_on_a_dead_endpoint(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # LangChain's OpenAI provider raises the openai SDK's errors: they are described (and
    # judged fatal) like the openai backend's, so a 401 endpoint stops after 8 calls too.
    monkeypatch.setenv("OPENAI_API_KEY", "local-test-not-a-secret")
    pairs = [(f"pred {i:03d}", f"gold {i:03d}") for i in range(60)]
    data = _write_items(tmp_path / "d.jsonl", pairs)
    with FakeOpenAIServer(FakeServerConfig(status_all=401)) as srv:
        res = _eval(data, tmp_path / "run", tmp_path / "cache", "--judge",
                    "langchain:openai:fake-model", "--base-url", srv.base_url,
                    "--max-retries", "0")
        calls = len(srv.log)
    assert res.exit_code == 1, res.output
    assert calls == 8  # one at a time until a call does not fail fatally: 8, then stop
    assert "HTTP 401 Unauthorized (not retried)" in res.stderr
    assert "52 pair(s) not attempted" in res.stderr  # 60 − 8


def test_refused_port_stops_after_8_calls(tmp_path) -> None:  # type: ignore[no-untyped-def]
    port = closed_port()
    data = _write_items(tmp_path / "d.jsonl", [(f"p{i}", f"g{i}") for i in range(100)])
    res = _eval(data, tmp_path / "run", tmp_path / "cache", "--judge", "openai:fake-model",
                "--base-url", f"http://127.0.0.1:{port}/v1", "--max-retries", "0")
    assert res.exit_code == 1
    assert res.stderr.count("stopped early") == 1
    assert (f"8 consecutive calls failed: connection refused to http://127.0.0.1:{port}/v1 "
            "(not retried); 92 pair(s) not attempted") in res.stderr
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["judge_calls"] == 8 and summary["outcomes"]["transport_error"] == 100
    assert _cache_entries(tmp_path / "cache") == 0


def test_stop_after_option_and_non_fatal_errors_do_not_stop(tmp_path) -> None:  # type: ignore[no-untyped-def]
    data = _write_items(tmp_path / "d.jsonl", [(f"p{i}", f"g{i}") for i in range(30)])
    with FakeOpenAIServer(FakeServerConfig(status_all=404)) as srv:
        res = _eval(data, tmp_path / "r1", tmp_path / "c", "--judge", "openai:fake-model",
                    "--base-url", srv.base_url, "--stop-after", "3")
        assert res.exit_code == 1 and len(srv.log) == 3
        srv.log.clear()
        res = _eval(data, tmp_path / "r2", tmp_path / "c", "--judge", "openai:fake-model",
                    "--base-url", srv.base_url, "--stop-after", "0")
        assert res.exit_code == 1 and len(srv.log) == 30 and "stopped early" not in res.stderr
    # 400 is about one request, not the endpoint: every pair is tried
    with FakeOpenAIServer(FakeServerConfig(status_all=400, status_message="bad")) as srv:
        res = _eval(data, tmp_path / "r3", tmp_path / "c", "--judge", "openai:fake-model",
                    "--base-url", srv.base_url)
        assert res.exit_code == 1 and len(srv.log) == 30 and "stopped early" not in res.stderr
    res = _eval(data, tmp_path / "r4", tmp_path / "c", "--stop-after", "-1")
    assert res.exit_code == 2 and "--stop-after must be an integer >= 0" in res.output


# --------------------------------------------------------------- 5. a panel, one member dead
def test_panel_with_a_dead_member_still_judges(tmp_path) -> None:  # type: ignore[no-untyped-def]
    pairs = [(f"pred {i:03d}", f"{'p' if i % 2 else 'g'}old {i:03d}") for i in range(60)]
    data = _write_items(tmp_path / "d.jsonl", pairs)
    port = closed_port()
    with FakeOpenAIServer() as srv:
        toml = tmp_path / "judges.toml"
        toml.write_text(f'[[judges]]\nid = "alive"\nbackend = "openai"\nmodel = "m"\n'
                        f'base_url = "{srv.base_url}"\n'
                        f'[[judges]]\nid = "dead"\nbackend = "openai"\nmodel = "m"\n'
                        f'base_url = "http://127.0.0.1:{port}/v1"\n')
        res = _eval(data, tmp_path / "run", tmp_path / "cache", "--judges", str(toml),
                    "--max-retries", "0")
        assert len(srv.log) == 60  # the live member judged every pair
    assert res.exit_code == 1  # a member stopped: said once, exit 1
    assert res.stderr.count("stopped early") == 1 and "judge dead stopped early" in res.stderr
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["outcomes"]["ok"] == 60 and summary["panel"]["undecided"] == 0
    verdicts = _jsonl(tmp_path / "run" / "verdicts.jsonl")
    members = Counter((v.get("judge_id"), v["outcome"]) for v in verdicts if v.get("member_of"))
    assert members == {("alive", "ok"): 60, ("dead", "transport_error"): 60}
    votes = [v for v in verdicts if not v.get("member_of")]
    # mean of the members that answered = the live member's score
    assert all(v["score"] == fake_score(v["pred"], v["truth"]) for v in votes)


# ---------------------------------------------------------------------------- raw cap
def test_failed_raw_is_capped_and_marked_ok_raw_is_not() -> None:
    long = "x" * 10_000
    v = Verdict(pred="a", truth="b", outcome="parse_error", raw=long, judge_id="j", scorer="s")
    assert v.raw_truncated and v.raw == "x" * RAW_MAX_CHARS + \
        "…[truncated: 10000 characters in all]"
    again = Verdict(**v.model_dump())  # a stored row read back is not cut twice
    assert again.raw == v.raw and again.raw_truncated
    ok = Verdict(pred="a", truth="b", outcome="ok", score=0.5, raw=long, judge_id="j",
                 scorer="s")
    assert ok.raw == long and not ok.raw_truncated
