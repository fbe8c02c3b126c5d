"""``eval --dry-run`` (requests, cache hits, estimated tokens and USD, no call, nothing written)
and ``--max-usd`` (LLM judges stop before a call that would exceed the budget; the run is
written, exit 1), against the scripted loopback server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge.cli import app
from judge.judges.llm.costs import OUT_PAIRWISE, tokens_in, tokens_out
from tests.fake_openai import FakeOpenAIServer, FakeServerConfig

runner = CliRunner()
ITEMS = [{"id": "1", "pred": ["apple", "dog"], "truth": ["Apfel", "Hund", "Katze"]},
         {"id": "2", "pred": ["eagle"], "truth": ["Esel", "Adler"]}]  # 6 + 2 = 8 pairs


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def _files(tmp_path: Path, price_in: float = 1.0, price_out: float = 2.0) -> tuple[Path, Path]:
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(i) + "\n" for i in ITEMS), encoding="utf-8")
    prices = tmp_path / "prices.toml"
    prices.write_text(f'[models.fake]\ninput = {price_in}\noutput = {price_out}\n'
                      'as_of = "2026-11-22"\n', encoding="utf-8")
    return data, prices


def _eval(srv: FakeOpenAIServer, data: Path, prices: Path, tmp_path: Path, *args: str) -> object:
    return runner.invoke(app, ["eval", str(data), "--judge", "openai:fake", "--base-url",
                               srv.base_url, "--prices", str(prices), "--cache-dir",
                               str(tmp_path / "c"), "--bootstrap", "0", *args],
                         env={"COLUMNS": "200"})  # one table row per line


def test_token_estimates_by_hand() -> None:
    assert tokens_in([{"role": "user", "content": "abcd" * 10}]) == 4 + 10  # 40 ASCII / 4
    assert tokens_in([{"role": "user", "content": "职位信息"}]) == 4 + 4    # one per CJK char
    assert tokens_in([{"role": "user", "content": "éèêë"}]) == 4 + 2       # 2 per token
    assert tokens_in([{"content": "a"}, {"content": ""}]) == (4 + 1) + 4
    assert tokens_out("pairwise", 1, {}) == OUT_PAIRWISE == 60
    assert tokens_out("batch", 20, {}) == 10 + 25 * 20
    assert tokens_out("grade", 1, {"n": 3}) == 2 * 3
    assert tokens_out("pairwise", 1, {"max_tokens": 100, "n": 2}) == 200


def test_dry_run_calls_nothing_and_writes_nothing(tmp_path: Path) -> None:
    data, prices = _files(tmp_path)
    with FakeOpenAIServer() as srv:
        res = _eval(srv, data, prices, tmp_path, "--dry-run", "--out", str(tmp_path / "run"))
        assert res.exit_code == 0, res.output  # type: ignore[attr-defined]
        assert srv.log == [] and not (tmp_path / "run").exists()
        text = " ".join(res.output.split())  # type: ignore[attr-defined]
        assert "8 distinct pairs to judge; nothing called, nothing written" in text
        # 8 requests, none cached; tokens out = 8 × 60 = 480
        row = text[text.index("openai:fake"):]
        assert row.split()[1:4] == ["8", "0", "8"] and row.split()[5] == "480"
        tin = int(row.split()[4])
        usd = (tin * 1.0 + 480 * 2.0) / 1e6  # the price table's input / output USD per 1M
        assert row.split()[6] == f"{usd:.4f}" and "prices as of 2026-11-22 (openai:fake)" in text
        # after the real run every request is cached: nothing to call, 0 USD
        res = _eval(srv, data, prices, tmp_path, "--out", str(tmp_path / "run"))
        assert res.exit_code == 0 and len(srv.log) == 8  # type: ignore[attr-defined]
        res = _eval(srv, data, prices, tmp_path, "--dry-run")
        row = " ".join(res.output.split())  # type: ignore[attr-defined]
        row = row[row.index("openai:fake"):]
        assert row.split()[1:4] == ["8", "8", "0"] and "0.0000" in row and len(srv.log) == 8


def test_max_usd_stops_before_the_budget_and_writes_the_run(tmp_path: Path) -> None:
    # expensive model: each call's worst case is about 0.037 USD (≈ 1,100 prompt bytes at 10
    # USD/M + the 512-token cap at 50 USD/M) and it costs about 0.004 as the fake server
    # reports usage, so a budget of 0.05 allows a few calls (concurrency 1: in order) and
    # stops before the one whose worst case would cross it
    data, prices = _files(tmp_path, price_in=10.0, price_out=50.0)
    with FakeOpenAIServer(FakeServerConfig()) as srv:
        res = _eval(srv, data, prices, tmp_path, "--max-usd", "0.05", "--concurrency", "1",
                    "--out", str(tmp_path / "run"))
        calls = len(srv.log)
    assert res.exit_code == 1, res.output  # type: ignore[attr-defined]
    assert "budget" in res.output  # type: ignore[attr-defined]
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert 0 < calls < 8 and summary["judge_calls"] == calls
    assert summary["cost_usd"] <= 0.05
    (stop,) = summary["stopped_early"]
    assert stop["reason"].startswith("budget: the next call could take the run over "
                                     "--max-usd 0.05 USD")
    assert stop["pairs_not_attempted"] == 8 - calls
    rows = [json.loads(x) for x in (tmp_path / "run" / "verdicts.jsonl").read_text(
        encoding="utf-8").splitlines()]
    skipped = [r for r in rows if r["rationale"].startswith("not attempted: budget")]
    assert len(skipped) == 8 - calls and all(r["outcome"] == "transport_error" for r in skipped)


def test_max_usd_needs_a_priced_model_and_a_positive_budget(tmp_path: Path) -> None:
    data, _ = _files(tmp_path)
    empty = tmp_path / "none.toml"
    empty.write_text("", encoding="utf-8")
    with FakeOpenAIServer() as srv:
        for budget, prices, message in (("1", empty, "has no price"),
                                        ("0", data.with_name("prices.toml"), "must be > 0")):
            res = _eval(srv, data, prices, tmp_path, "--max-usd", budget, "--out",
                        str(tmp_path / "x"))
            assert res.exit_code == 2 and message in res.output  # type: ignore[attr-defined]
        assert srv.log == [] and not (tmp_path / "x").exists()


def test_dry_run_needs_no_api_key_but_still_refuses_a_bad_spec(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # issue 27: --dry-run refused to start without OPENAI_API_KEY though it calls nothing
    from tests.fake_openai import closed_port

    monkeypatch.delenv("OPENAI_API_KEY")
    # the SDK's own endpoint variable at a closed loopback port: a call could not leave here
    monkeypatch.setenv("OPENAI_BASE_URL", f"http://127.0.0.1:{closed_port()}/v1")
    data, _ = _files(tmp_path)
    base = ["eval", str(data), "--judge", "openai:gpt-4o-mini", "--cache-dir",
            str(tmp_path / "c"), "--out", str(tmp_path / "run")]
    res = runner.invoke(app, [*base, "--dry-run"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    text = " ".join(res.stdout.split())
    assert "8 distinct pairs to judge; nothing called, nothing written" in text
    assert text.endswith("openai:gpt-4o-mini: OPENAI_API_KEY is not set: the run itself would "
                         "refuse to start (exit 2); set it first")
    row = text[text.index("openai:gpt-4o-mini "):]
    assert row.split()[1:4] == ["8", "0", "8"]  # 8 requests, none cached, 8 to call
    assert not (tmp_path / "run").exists() and not (tmp_path / "c").exists()
    # the spec is still checked: a bad scorer and a bad judge are refused as before
    res = runner.invoke(app, [*base, "--dry-run", "--scorer", "nope@v9"])
    assert res.exit_code == 2 and "unknown scorer 'nope@v9'" in res.stderr
    res = runner.invoke(app, [*base[:3], "nosuch:judge", *base[4:], "--dry-run"])
    assert res.exit_code == 2 and res.stderr.startswith("simjudge: error: ")
    # and the run itself still refuses without the key, before any call
    res = runner.invoke(app, base)
    assert res.exit_code == 2
    assert res.stderr == ("simjudge: error: field 'judge': OPENAI_API_KEY is not set (needed "
                          "for the OpenAI API)\n")
    assert not (tmp_path / "run").exists()
