"""``--max-usd`` holds (issue 28, "Budgets that hold"): calls are admitted at their worst case
(prompt bound + completion cap, the cap sent as the request's limit), so spent ≤ budget even when
every answer is far longer than the typical one, at concurrency 64, against the loopback fake."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge.cli import app
from judge.judges.base import JudgeStats
from judge.judges.budget import Budget
from judge.judges.llm.costs import (
    CAP_PAIRWISE,
    completion_cap,
    tokens_in_max,
    tokens_out_max,
)
from tests.cli_runs import letter_pairs, write_items
from tests.fake_openai import FakeOpenAIServer, FakeServerConfig

runner = CliRunner()


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def _prices(tmp_path: Path) -> Path:
    prices = tmp_path / "prices.toml"
    prices.write_text('[models.fake]\ninput = 10.0\noutput = 30.0\nas_of = "2026-11-22"\n',
                      encoding="utf-8")
    return prices


def _eval(srv: FakeOpenAIServer, data: Path, tmp_path: Path, out: str, *args: str) -> object:
    return runner.invoke(app, ["eval", str(data), "--judge", "openai:fake", "--base-url",
                               srv.base_url, "--prices", str(_prices(tmp_path)), "--cache-dir",
                               str(tmp_path / "c"), "--bootstrap", "0", "--out",
                               str(tmp_path / out), *args], env={"COLUMNS": "200"})


def test_worst_case_bounds_by_hand() -> None:
    # bytes + 16 framing per message + 16 for the reply + the schema's bytes
    msgs = [{"role": "system", "content": "abcd"}, {"role": "user", "content": "职位"}]
    assert tokens_in_max(msgs) == (4 + 16) + (6 + 16) + 16  # 职位 = 6 UTF-8 bytes
    assert tokens_in_max(msgs, schema_bytes=100) == 58 + 100
    assert completion_cap("pairwise", 1) == CAP_PAIRWISE == 512
    assert completion_cap("batch", 20) == 64 + 100 * 20
    assert tokens_out_max("pairwise", 1, {"n": 3}) == 512 * 3
    assert tokens_out_max("pairwise", 1, {"max_tokens": 90, "n": 2}) == 180  # the judge's own


def test_budget_admits_waits_and_refuses() -> None:
    stats = JudgeStats()
    budget = Budget(1.0, stats)

    async def scenario() -> list[object]:
        assert await budget.reserve(0.6)          # 0 + 0.6 <= 1
        waiter = asyncio.ensure_future(budget.reserve(0.6))  # 0 + 0.6 + 0.6 > 1: waits
        await asyncio.sleep(0.01)
        assert not waiter.done() and budget.waits == 1
        stats.cost_usd += 0.1                     # the first call cost 0.1 of its 0.6
        budget.settle(0.6, 0.1)
        admitted = await waiter                   # 0.1 + 0.6 <= 1
        stats.cost_usd += 0.35
        budget.settle(0.6, 0.35)
        refused = await budget.reserve(0.6)       # 0.45 + 0.6 > 1 even with nothing in flight
        return [admitted, refused, budget.reserved_usd, budget.in_flight]

    assert asyncio.run(scenario()) == [True, False, 0.0, 0]
    assert budget.refused_usd == 0.6 and budget.over_bound == 0
    budget.settle(0.1, 0.2)  # a server that billed beyond the limit it was sent is counted
    assert budget.over_bound == 1


def test_long_answers_at_concurrency_64_never_overspend(tmp_path: Path) -> None:
    # every answer is 400 completion tokens (the typical estimate is 60): before, the calls
    # were admitted at their 60-token estimate and 64 went out at once; a 0.5 USD budget was
    # overspent 128 %. Each call costs about 0.015 USD here (≈ 300 prompt tokens at 10 USD/M +
    # 400 completion tokens at 30 USD/M) and is admitted at its worst case (≈ 0.03 USD).
    n, budget = 300, 0.5
    data = write_items(tmp_path / "d.jsonl", letter_pairs(n))
    with FakeOpenAIServer(FakeServerConfig(completion_tokens=400, latency_s=0.05)) as srv:
        res = _eval(srv, data, tmp_path, "run", "--max-usd", str(budget), "--concurrency", "64")
        calls = len(srv.log)
        limits = {r.body.get("max_tokens") for r in srv.log}
    assert res.exit_code == 1, res.output  # type: ignore[attr-defined]
    summary = json.loads((tmp_path / "run" / "summary.json").read_text(encoding="utf-8"))
    spent = summary["cost_usd"]
    print(f"spent {spent:.4f} USD of {budget}; {calls} calls; budget {summary['budget']}")
    assert spent <= budget and summary["budget"]["spent_usd"] == spent
    # the budget was used, not left idle: the last call refused could not fit (≈ 0.03 USD)
    assert spent > budget - 0.05
    assert limits == {CAP_PAIRWISE}  # the cap went out with every call: 400 tokens fit it
    assert summary["outcomes"]["ok"] == calls == summary["judge_calls"]
    b = summary["budget"]
    assert b["stopped"] and b["pairs_not_attempted"] == n - calls and b["calls_over_bound"] == 0
    assert 0 < b["peak_reserved_usd"] <= budget and b["waits"] > 0
    (stop,) = summary["stopped_early"]
    assert stop["cause"] == "budget" and stop["pairs_not_attempted"] == n - calls
    text = " ".join(res.output.split())  # type: ignore[attr-defined]
    assert "the budget stopped judge openai:fake: budget: the next call could take the run " \
           "over --max-usd 0.5 USD" in text
    assert f"{n - calls} pair(s) not attempted" in text and "spent" in text
    rows = [json.loads(x) for x in (tmp_path / "run" / "verdicts.jsonl").read_text(
        encoding="utf-8").splitlines()]
    skipped = [r for r in rows if r["rationale"].startswith("not attempted: budget: ")]
    assert len(skipped) == n - calls and {r["outcome"] for r in skipped} == {"transport_error"}


def test_the_sent_limit_is_not_part_of_the_cache_key(tmp_path: Path) -> None:
    # answers bought under --max-usd (sent with the cap) are cache hits for a run without it:
    # a cap only cuts an answer short, and a cut answer is never cached
    data = write_items(tmp_path / "d.jsonl", letter_pairs(6))
    with FakeOpenAIServer(FakeServerConfig(completion_tokens=100)) as srv:
        res = _eval(srv, data, tmp_path, "a", "--max-usd", "5")
        assert res.exit_code == 0, res.output  # type: ignore[attr-defined]
        assert [r.body.get("max_tokens") for r in srv.log] == [CAP_PAIRWISE] * 6
        res = _eval(srv, data, tmp_path, "b")
        assert res.exit_code == 0 and len(srv.log) == 6  # type: ignore[attr-defined]
    assert json.loads((tmp_path / "b" / "summary.json").read_text())["cache_hits"] == 6


def test_an_answer_cut_by_the_cap_is_a_parse_error_and_counted(tmp_path: Path) -> None:
    # 700-token answers exceed the 512-token cap: the server cuts them (finish "length"), they
    # cost the capped tokens, fail to parse, and are not cached
    data = write_items(tmp_path / "d.jsonl", letter_pairs(3))
    with FakeOpenAIServer(FakeServerConfig(completion_tokens=700)) as srv:
        res = _eval(srv, data, tmp_path, "a", "--max-usd", "5")
    assert res.exit_code == 1, res.output  # type: ignore[attr-defined]
    s = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert {k: v for k, v in s["outcomes"].items() if v} == {"parse_error": 3}
    assert s["tokens_out"] == 3 * 512
    assert s["budget"]["calls_over_bound"] == 0


def test_batch_api_is_admitted_at_its_worst_case_and_never_overspends(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Before: --batch-api admitted its batches at the typical 60-token estimate and sent no
    # completion limit, so 300 answers of 400 tokens spent 2.2334 USD of a 1.0 USD budget
    # (exit 0). A call's worst case is ≈ 0.03 USD here (the prompt's token bound, ≈ 1,500, × 10
    # + the 512-token cap × 30, per 1e6; as in the direct test above), half that at the Batch
    # API price: ≈ 4.5 USD for 300, so a 1.0 USD budget is refused before anything is
    # uploaded, and a budget of the worst case is submitted, every body carrying the cap, and
    # spends no more than it.
    from tests.fake_batch import FakeBatchServer

    monkeypatch.setenv("SIMJUDGE_BATCH_POLL_S", "0.01")
    n = 300
    data = write_items(tmp_path / "d.jsonl", letter_pairs(n))
    with FakeBatchServer(FakeServerConfig(completion_tokens=400)) as srv:
        res = _eval(srv, data, tmp_path, "r1", "--batch-api", "--max-usd", "1.0")  # type: ignore[arg-type]
        text = " ".join(res.output.split())  # type: ignore[attr-defined]
        assert res.exit_code == 2 and "nothing submitted" in text, text  # type: ignore[attr-defined]
        assert srv.files == {} and srv.batches == {}
        worst, typical = (float(x) for x in re.search(  # type: ignore[union-attr]
            r"could cost up to ([0-9.]+) USD .*?typically ([0-9.]+) USD", text).groups())
        assert 3.5 < worst < 5.5 and typical < worst / 2
        budget = f"{worst + 1e-4:.4f}"
        res = _eval(srv, data, tmp_path, "r2", "--batch-api", "--max-usd", budget)  # type: ignore[arg-type]
        assert res.exit_code == 0, res.output  # type: ignore[attr-defined]
        bodies = [json.loads(x)["body"] for b in srv.batches.values()
                  for x in srv.files[b["input_file_id"]].splitlines()]
    assert len(bodies) == n and {b.get("max_tokens") for b in bodies} == {CAP_PAIRWISE}
    summary = json.loads((tmp_path / "r2" / "summary.json").read_text(encoding="utf-8"))
    spent = summary["cost_usd"]
    print(f"batch: worst {worst} typical {typical} spent {spent} of {budget}")
    assert typical < spent <= float(budget)  # long answers: above the estimate, within budget
