"""A key that a server echoes inside a well-formed reply's *content* (HTTP 200, the judge's
rationale) is redacted before the answer is cached, not only in the run files (issue 27).

The loopback server (tests/fake_openai.py) answers a pair judging one of the ``ECHO`` strings
with the completion text given in ``contents``: a valid pairwise answer whose rationale quotes
the key. Every file under the cache and run directories — SQLite's ``cache.db`` (and its WAL)
included — is read as bytes and searched for the key.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from judge.cli import app
from judge.redact import MASK
from tests.fake_openai import FakeOpenAIServer, FakeServerConfig

KEY = "sk-live-ECHOinCONTENT-0123456789abcdef"
PLAIN = "plainEchoValue-do-not-cache-4242"  # not key-shaped: redacted as the --api-key-env
ECHO = ("Alpha", "Beta", "Gamma", "Delta")


def _files(*dirs: Path) -> list[Path]:
    return [p for d in dirs for p in d.rglob("*") if p.is_file()]


@pytest.mark.parametrize(("env", "key"), [("OPENAI_API_KEY", KEY),
                                          ("SIMJUDGE_TEST_ECHO_ACCESS", PLAIN)])
def test_key_echoed_in_reply_content_is_not_cached(tmp_path: Path, monkeypatch, env: str,
                                                   key: str) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv(env, key)
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"id": k, "pred": [p], "truth": [p.lower() + "x"]}) + "\n"
                            for k, p in enumerate(ECHO)), encoding="utf-8")
    contents = {p: json.dumps({"score": 0.9, "rationale": f"same; you sent the key {key}"})
                for p in ECHO}
    cache, runs = tmp_path / "cache", tmp_path / "runs"
    args = ["eval", str(data), "--judge", "openai:fake", "--api-key-env", env,
            "--cache-dir", str(cache), "--bootstrap", "0"]
    with FakeOpenAIServer(FakeServerConfig(contents=contents)) as srv:
        first = CliRunner().invoke(app, [*args, "--base-url", srv.base_url,
                                         "--out", str(runs / "first")])
        again = CliRunner().invoke(app, [*args, "--base-url", srv.base_url,
                                         "--out", str(runs / "again")])
        calls = [r for r in srv.log if r.path.endswith("/chat/completions")]
    assert first.exit_code == 0 and again.exit_code == 0, first.output + again.output
    # the server was asked once per pair (4 calls), and the rerun was served by the cache
    assert len(calls) == 4
    summary = json.loads((runs / "again" / "summary.json").read_text(encoding="utf-8"))
    assert summary["cache_hits"] == 4 and summary["judge_calls"] == 0
    # the cache holds the 4 answers, their rationale redacted (what this test can fail on:
    # before the fix, 4 rows of cache.db held the key verbatim)
    con = sqlite3.connect(cache / "cache.db")
    try:
        (rows,) = con.execute("SELECT COUNT(*) FROM Cache").fetchone()
    finally:
        con.close()
    assert rows == 4
    stored = _files(cache, runs)
    assert any(p.name == "cache.db" for p in stored)
    assert any(p.name == "verdicts.jsonl" for p in stored)
    for p in stored:
        assert key.encode() not in p.read_bytes(), p
    # the verdicts keep the score and say where the key was
    for run in ("first", "again"):
        rows_ = [json.loads(x) for x in (runs / run / "verdicts.jsonl").read_text(
            encoding="utf-8").splitlines()]
        assert [v["score"] for v in rows_] == [0.9] * 4
        assert all(v["rationale"] == f"same; you sent the key {MASK}" for v in rows_)
    assert key not in first.output and key not in again.output


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["sk-", "abcdefghij", "0123456789", "Bearer ", "bearer%20",
                                 "secretvalue-42", "x", " ", "_", "-", "Authorization: ",
                                 "http://", "u:p@", "?api-key=", "&sig=", "h/v1", "BEARER\t",
                                 "=", "sk", "://", "@"]),
                max_size=12).map("".join))
def test_redactor_skips_only_texts_without_a_secret(text: str) -> None:
    """Redactor.text's shortcuts (the substring test, then one search) change nothing: it
    equals the masking of every pattern's matches applied unconditionally, on texts built from
    pieces of keys, bearer headers, URL credentials and an environment secret."""
    import os

    from judge.redact import Redactor, _masked

    os.environ["SIMJUDGE_TEST_REDACT_TOKEN"] = "secretvalue-42"
    try:
        r = Redactor()
        assert r.text(text) == _masked(text, r._spans(text))
    finally:
        del os.environ["SIMJUDGE_TEST_REDACT_TOKEN"]


def test_redact_row_passes_scalars_and_walks_containers() -> None:
    """Numbers, booleans and None come out as they are (same type: 1 stays an int, True a
    bool); strings inside nested dicts and lists are masked; the judged fields never are."""
    from judge.redact import MASK, redact_row

    key = "sk-" + "A1" * 10
    row = {"pred": key, "score": 0.25, "tokens_in": 3, "cached": True, "member_of": None,
           "raw": f"echo {key}", "distribution": {"probs": [0.5, f"{key}"], "n": 1}}
    out = redact_row(row)
    assert out == {"pred": key, "score": 0.25, "tokens_in": 3, "cached": True,
                   "member_of": None, "raw": f"echo {MASK}",
                   "distribution": {"probs": [0.5, MASK], "n": 1}}
    assert type(out["tokens_in"]) is int and type(out["cached"]) is bool
