"""``eval --batch-api`` against a loopback fake of the OpenAI Batch API: the round trip (one upload,
one batch, no direct call, answers in the cache, half price), partial, expired and failed
batches as outcomes, bad combinations refused before any call, and SIGKILL-and-resume (the
resumed run adopts the running batch instead of submitting again)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge.cli import app
from tests.clirun import run_cli
from tests.conftest import REPO
from tests.fake_batch import FakeBatchServer
from tests.fake_openai import fake_score

runner = CliRunner()
PAIRS = [("Alpha", "apple"), ("Beta", "gamma"), ("职位信息", "Job Information"),
         ("Delta", "dune"), ("Echo", "zulu"), ("Foxtrot", "fox")]


@pytest.fixture(autouse=True)
def _fast_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIMJUDGE_BATCH_POLL_S", "0.01")


def _files(tmp_path: Path) -> tuple[Path, Path]:
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"id": str(k), "pred": [p], "truth": [t]},
                                       ensure_ascii=False) + "\n"
                            for k, (p, t) in enumerate(PAIRS)), encoding="utf-8")
    prices = tmp_path / "prices.toml"
    prices.write_text('[models.fake-model]\ninput = 2.0\noutput = 8.0\n', encoding="utf-8")
    return data, prices


def _eval(srv: FakeBatchServer, tmp_path: Path, out: str, *extra: str) -> tuple[int, str]:
    data, prices = _files(tmp_path)
    res = runner.invoke(app, ["eval", str(data), "--judge", "openai:fake-model", "--base-url",
                              srv.base_url, "--prices", str(prices), "--cache-dir",
                              str(tmp_path / "cache"), "--out", str(tmp_path / out),
                              "--bootstrap", "0", *extra])
    return res.exit_code, res.output


def _verdicts(run: Path) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(x) for x in (run / "verdicts.jsonl").read_text(encoding="utf-8")
            .splitlines()]


def _direct_calls(srv: FakeBatchServer) -> int:
    return sum(r.path == "/v1/chat/completions" for r in srv.log)


def test_round_trip_one_batch_no_direct_call_half_price(tmp_path: Path) -> None:
    with FakeBatchServer(polls_until_done=2) as srv:
        code, text = _eval(srv, tmp_path, "r1", "--batch-api")
        assert code == 0, text
        assert len(srv.batches) == 1 and _direct_calls(srv) == 0
        (batch,) = srv.batches.values()
        assert srv.retrieves[batch["id"]] == 3  # in_progress twice, then completed
        lines = [json.loads(x) for x in srv.files[batch["input_file_id"]].splitlines()]
        assert len(lines) == 6 and {x["url"] for x in lines} == {"/v1/chat/completions"}
        assert lines[0]["body"]["response_format"]["type"] == "json_schema"
        summary = json.loads((tmp_path / "r1" / "summary.json").read_text(encoding="utf-8"))
        assert summary["batch_api"] == [{"judge": "openai:fake-model", "requests": 6,
                                         "answered": 6, "failed": 0, "batches": [
                                             {"batch_id": batch["id"], "status": "completed",
                                              "requests": 6, "answered": 6, "failed": 0}]}]
        assert not list((tmp_path / "cache" / "batches").glob(".*"))  # no scratch left
        verdicts = _verdicts(tmp_path / "r1")
        assert [v["score"] for v in verdicts] == [fake_score(p, t) for p, t in PAIRS]
        assert all(v["outcome"] == "ok" and not v["cached"] for v in verdicts)
        # half the synchronous price: (tokens_in · 2 + tokens_out · 8) / 1e6 · 0.5
        usd = (summary["tokens_in"] * 2 + summary["tokens_out"] * 8) / 1e6 * 0.5
        assert summary["cost_usd"] == pytest.approx(usd, rel=1e-6) and usd > 0
        assert summary["judge_calls"] == 6
        # the answers are in the cache: a direct run afterwards calls nothing
        code, text = _eval(srv, tmp_path, "r2")
        assert code == 0, text
        summary2 = json.loads((tmp_path / "r2" / "summary.json").read_text(encoding="utf-8"))
        assert summary2["cache_hits"] == 6 and summary2["judge_calls"] == 0
        assert _direct_calls(srv) == 0
        # and --batch-api with everything cached submits nothing
        code, text = _eval(srv, tmp_path, "r3", "--batch-api")
        assert code == 0 and len(srv.batches) == 1, text


def test_failed_lines_are_transport_errors_never_resent_directly(tmp_path: Path) -> None:
    with FakeBatchServer(error_every=3) as srv:
        code, text = _eval(srv, tmp_path, "r1", "--batch-api")
        assert code == 1, text  # some pairs failed: the run is written, exit 1
        assert _direct_calls(srv) == 0
    by_pair = {(v["pred"], v["truth"]): v for v in _verdicts(tmp_path / "r1")}
    bad = [PAIRS[2], PAIRS[5]]  # lines 3 and 6 of the batch's input
    for p in PAIRS:
        v = by_pair[p]
        if p in bad:
            assert v["outcome"] == "transport_error" and v["score"] is None
            assert "HTTP 400: bad request line" in v["rationale"]
        else:
            assert v["outcome"] == "ok" and v["score"] == fake_score(*p)


def test_expired_batch_keeps_what_it_answered(tmp_path: Path) -> None:
    with FakeBatchServer(outcome="expired", expire_after=4) as srv:
        code, text = _eval(srv, tmp_path, "r1", "--batch-api")
        assert code == 1, text
    verdicts = _verdicts(tmp_path / "r1")
    assert sum(v["outcome"] == "ok" for v in verdicts) == 4
    expired = [v for v in verdicts if v["outcome"] != "ok"]
    assert len(expired) == 2 and all("completion window expired" in v["rationale"]
                                     for v in expired)
    summary = json.loads((tmp_path / "r1" / "summary.json").read_text(encoding="utf-8"))
    assert summary["batch_api"][0]["batches"][0]["status"] == "expired"
    assert summary["batch_api"][0]["answered"] == 4


def test_failed_batch_is_every_pairs_outcome(tmp_path: Path) -> None:
    with FakeBatchServer(outcome="failed") as srv:
        code, text = _eval(srv, tmp_path, "r1", "--batch-api")
        assert code == 1, text
    assert {v["outcome"] for v in _verdicts(tmp_path / "r1")} == {"transport_error"}
    assert all("ended failed" in v["rationale"] for v in _verdicts(tmp_path / "r1"))


@pytest.mark.parametrize("extra,message", [
    (["--judge", "vllm:fake-model"], "is not one"),  # vLLM has no Batch API
    (["--cache-mode", "off"], "needs --cache-mode read-write"),
])
def test_refused_before_any_call(tmp_path: Path, extra: list[str], message: str) -> None:
    with FakeBatchServer() as srv:
        code, text = _eval(srv, tmp_path, "r1", "--batch-api", *extra)
        assert code == 2 and message in text, text
        assert srv.log == [] and srv.files == {}
    assert not (tmp_path / "r1").exists()


def test_sigkill_while_polling_then_resume(tmp_path: Path) -> None:
    data, prices = _files(tmp_path)
    with FakeBatchServer(polls_until_done=10_000) as srv:
        cmd = [sys.executable, "-m", "judge.cli", "eval", str(data), "--judge",
               "openai:fake-model", "--base-url", srv.base_url, "--prices", str(prices),
               "--cache-dir", str(tmp_path / "cache"), "--bootstrap", "0", "--batch-api"]
        env = {**os.environ, "SIMJUDGE_BATCH_POLL_S": "0.05"}
        proc = subprocess.Popen([*cmd, "--out", str(tmp_path / "r1")], cwd=REPO, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while not any(n >= 2 for n in srv.retrieves.values()):  # submitted, polling
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        assert len(srv.batches) == 1 and not (tmp_path / "r1").exists()
        (state_file,) = (tmp_path / "cache" / "batches").glob("*.json")
        state = json.loads(state_file.read_text(encoding="utf-8"))
        assert state["batch_id"] in srv.batches
        # a kill between creating the batch and saving its id: the resumed run must find the
        # batch by its input file rather than create a second one
        del state["batch_id"]
        state_file.write_text(json.dumps(state), encoding="utf-8")
        srv.polls_until_done = 0  # the provider finishes meanwhile
        res = run_cli(*cmd[3:], "--out", tmp_path / "r2", cwd=REPO,
                      env={"SIMJUDGE_BATCH_POLL_S": "0.05"})  # the rerun: in-process
        assert res.returncode == 0, res.stderr
        assert len(srv.batches) == 1 and len(srv.files) == 2  # input + output, no re-upload
        assert _direct_calls(srv) == 0
    verdicts = _verdicts(tmp_path / "r2")
    assert [v["score"] for v in verdicts] == [fake_score(p, t) for p, t in PAIRS]


def test_dry_run_prices_the_batch_and_max_usd_guards_the_submission(tmp_path: Path) -> None:
    with FakeBatchServer() as srv:
        code, direct = _eval(srv, tmp_path, "r0", "--dry-run")
        code2, batch = _eval(srv, tmp_path, "r0", "--dry-run", "--batch-api")
        assert code == code2 == 0 and srv.log == []
        usd = [float(re.search(r"total ≈ ([0-9.]+) USD", t).group(1))  # type: ignore[union-attr]
               for t in (direct, batch)]
        assert usd[1] == pytest.approx(usd[0] / 2, abs=1e-4) and usd[0] > 0
        assert "Batch API's half price" in batch
        # a budget under the batch's estimate: refused before anything is uploaded
        code, text = _eval(srv, tmp_path, "r1", "--batch-api", "--max-usd", f"{usd[1] / 4:.6f}")
        assert code == 2 and "nothing submitted" in text, text
        assert srv.files == {} and srv.batches == {}
        # a budget that covers it: submitted and answered
        code, text = _eval(srv, tmp_path, "r2", "--batch-api", "--max-usd", "1")
        assert code == 0 and len(srv.batches) == 1, text
