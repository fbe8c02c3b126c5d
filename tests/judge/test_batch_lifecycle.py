"""The lifecycle of ``eval --batch-api`` batches against the loopback Batch API fake
(tests/fake_batch.py): a batch that ended without answers is never adopted again (its requests
are submitted anew, the server's ``errors`` in the run and on the terminal); state keyed by the
input content (one item added: only it is submitted); stale batches collected, or cancelled with
``--cancel-stale``; splitting at the request and byte limits; pacing at the enqueued-token
limit; duplicated ``custom_id`` lines; ``simjudge batches list|cancel|clean``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge.cli import app
from tests.fake_batch import FakeBatchServer
from tests.fake_openai import fake_score

runner = CliRunner()
PAIRS = [("Alpha", "apple"), ("Beta", "gamma"), ("职位信息", "Job Information"),
         ("Delta", "dune"), ("Echo", "zulu"), ("Foxtrot", "fox")]
OTHER = [("Golf", "gulf"), ("Hotel", "motel"), ("India", "indigo")]


@pytest.fixture(autouse=True)
def _fast_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SIMJUDGE_BATCH_POLL_S", "0.01")


def _eval(srv: FakeBatchServer, tmp_path: Path, out: str, pairs: list[tuple[str, str]],
          *extra: str) -> tuple[int, str]:
    data = tmp_path / f"{out}.jsonl"
    data.write_text("".join(json.dumps({"id": str(k), "pred": [p], "truth": [t]},
                                       ensure_ascii=False) + "\n"
                            for k, (p, t) in enumerate(pairs)), encoding="utf-8")
    prices = tmp_path / "prices.toml"
    prices.write_text('[models.fake-model]\ninput = 2.0\noutput = 8.0\n', encoding="utf-8")
    res = runner.invoke(app, ["eval", str(data), "--judge", "openai:fake-model", "--base-url",
                              srv.base_url, "--prices", str(prices), "--cache-dir",
                              str(tmp_path / "cache"), "--out", str(tmp_path / out),
                              "--bootstrap", "0", *extra])
    return res.exit_code, res.output


def _batches(srv: FakeBatchServer, tmp_path: Path, *args: str) -> tuple[int, str]:
    res = runner.invoke(app, ["batches", *args, "--cache-dir", str(tmp_path / "cache")])
    return res.exit_code, res.output


def _verdicts(run: Path) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(x) for x in (run / "verdicts.jsonl").read_text(encoding="utf-8")
            .splitlines()]


def _summary(run: Path) -> dict:  # type: ignore[type-arg]
    return json.loads((run / "summary.json").read_text(encoding="utf-8"))


def _lines(srv: FakeBatchServer, batch_id: str) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(x) for x in
            srv.files[srv.batches[batch_id]["input_file_id"]].splitlines()]


def _direct_calls(srv: FakeBatchServer) -> int:
    return sum(r.path == "/v1/chat/completions" for r in srv.log)


def _left_running(srv: FakeBatchServer, tmp_path: Path, out: str,
                  pairs: list[tuple[str, str]]) -> str:
    """Submit a batch and lose track of it (the provider refuses retrieves): it runs on."""
    srv.retrieve_status = 400
    code, text = _eval(srv, tmp_path, out, pairs, "--batch-api")
    assert code == 1 and "keeps running at the provider" in text, text
    srv.retrieve_status = 0
    return list(srv.batches)[-1]


@pytest.mark.parametrize("outcome,why", [
    ("failed", "invalid_json_line: the input file is invalid (line 1)"),
    ("expired", "completion window expired"),
    ("cancelled", "ended cancelled without answering this request"),
])
def test_dead_batch_is_never_adopted_again_its_requests_go_anew(
        tmp_path: Path, outcome: str, why: str) -> None:
    with FakeBatchServer(outcome=outcome, expire_after=0) as srv:
        code, text = _eval(srv, tmp_path, "r1", PAIRS, "--batch-api")
        assert code == 1, text
        (dead,) = srv.batches
        v1 = _verdicts(tmp_path / "r1")
        assert {v["outcome"] for v in v1} == {"transport_error"}
        assert all(why in v["rationale"] and dead in v["rationale"] for v in v1)
        s1 = _summary(tmp_path / "r1")["batch_api"][0]
        assert s1["answered"] == 0 and s1["failed"] == 6
        assert s1["batches"][0]["status"] == outcome
        if outcome == "failed":  # the server's errors: in the summary and on the terminal
            assert s1["batches"][0]["errors"] == [why]
            assert why in text
        # the rerun submits the same six requests in a new batch, from the same upload
        srv.outcome = "completed"
        code, text = _eval(srv, tmp_path, "r2", PAIRS, "--batch-api")
        assert code == 0, text
        assert len(srv.batches) == 2
        fresh = next(b for b in srv.batches if b != dead)
        assert len(_lines(srv, fresh)) == 6
        assert srv.batches[fresh]["input_file_id"] == srv.batches[dead]["input_file_id"]
        assert [v["score"] for v in _verdicts(tmp_path / "r2")] == [fake_score(*p)
                                                                    for p in PAIRS]
        (row,) = _summary(tmp_path / "r2")["batch_api"][0]["batches"]
        assert row["batch_id"] == fresh and row["previous"] == [dead]
        # and a third run has nothing left to submit
        code, _ = _eval(srv, tmp_path, "r3", PAIRS, "--batch-api")
        assert code == 0 and len(srv.batches) == 2 and _direct_calls(srv) == 0


def test_one_item_added_adopts_the_running_batch_and_submits_one_request(
        tmp_path: Path) -> None:
    with FakeBatchServer() as srv:
        first = _left_running(srv, tmp_path, "r1", PAIRS)
        code, text = _eval(srv, tmp_path, "r2", [*PAIRS, OTHER[0]], "--batch-api")
        assert code == 0, text
        assert len(srv.batches) == 2 and f"resuming batch {first}" in text
        second = next(b for b in srv.batches if b != first)
        assert len(_lines(srv, first)) == 6 and len(_lines(srv, second)) == 1
        assert _lines(srv, second)[0]["body"]["messages"][-1]["content"].count("Golf") >= 1
        verdicts = _verdicts(tmp_path / "r2")
        assert [v["score"] for v in verdicts] == [fake_score(*p) for p in [*PAIRS, OTHER[0]]]
        s = _summary(tmp_path / "r2")["batch_api"][0]
        assert s["requests"] == 7 and {b["batch_id"] for b in s["batches"]} == {first, second}
        assert _direct_calls(srv) == 0


def test_stale_batch_is_collected_into_the_cache(tmp_path: Path) -> None:
    with FakeBatchServer() as srv:
        stale = _left_running(srv, tmp_path, "r1", PAIRS)
        code, text = _eval(srv, tmp_path, "r2", OTHER, "--batch-api")
        assert code == 0, text
        assert f"batch {stale} (6 requests) is not needed by this run: collecting" in text
        s = _summary(tmp_path / "r2")["batch_api"][0]
        assert s["stale"] == [{"batch_id": stale, "status": "completed", "requests": 6,
                               "action": "collected"}]
        assert s["requests"] == 3 and len(s["batches"]) == 1 and srv.cancels == []
        # its answers are in the cache: the first data set now costs nothing
        code, text = _eval(srv, tmp_path, "r3", PAIRS)
        assert code == 0, text
        assert _summary(tmp_path / "r3")["cache_hits"] == 6 and _direct_calls(srv) == 0


def test_stale_batch_is_cancelled_with_cancel_stale(tmp_path: Path) -> None:
    with FakeBatchServer(answer_before_cancel=2) as srv:
        stale = _left_running(srv, tmp_path, "r1", PAIRS)
        code, text = _eval(srv, tmp_path, "r2", OTHER, "--batch-api", "--cancel-stale")
        assert code == 0, text
        assert srv.cancels == [stale]
        assert f"batch {stale} (6 requests) is not needed by this run: cancelled" in text
        s = _summary(tmp_path / "r2")["batch_api"][0]
        assert s["stale"][0]["action"] == "cancelled"
        # a later run collects what the cancelled batch answered before it stopped (2 lines)
        code, text = _eval(srv, tmp_path, "r3", OTHER, "--batch-api")
        assert code == 0, text
        assert srv.batches[stale]["status"] == "cancelled" and srv.cancels == [stale]
        assert _summary(tmp_path / "r3")["batch_api"][0]["stale"] == [
            {"batch_id": stale, "status": "cancelled", "requests": 6, "action": "collected"}]
        code, _ = _eval(srv, tmp_path, "r4", PAIRS[:2])
        assert code == 0 and _summary(tmp_path / "r4")["cache_hits"] == 2


def test_split_within_the_request_and_byte_limits(tmp_path: Path) -> None:
    with FakeBatchServer() as srv:
        code, text = _eval(srv, tmp_path, "r1", PAIRS, "--batch-api",
                           "--batch-max-requests", "4")
        assert code == 0, text
        assert sorted(len(_lines(srv, b)) for b in srv.batches) == [2, 4]
    with FakeBatchServer() as srv:  # bytes: each line is ~1.8 kB, so 4 kB holds two
        code, text = _eval(srv, tmp_path, "r2", PAIRS, "--batch-api", "--cache-dir",
                           str(tmp_path / "cache2"), "--batch-max-bytes", "4000")
        assert code == 0, text
        sizes = [len(srv.files[b["input_file_id"]]) for b in srv.batches.values()]
        assert len(sizes) == 3 and max(sizes) <= 4000
        ids = [x["custom_id"] for b in srv.batches for x in _lines(srv, b)]
        assert len(ids) == len(set(ids)) == 6
        assert [v["score"] for v in _verdicts(tmp_path / "r2")] == [fake_score(*p)
                                                                    for p in PAIRS]


@pytest.mark.parametrize("flag,value,message", [
    ("--batch-max-requests", "0", "field 'batch-max-requests': must be >= 1"),
    ("--batch-queue-tokens", "fake-model=lots", "field 'batch-queue-tokens'"),
])
def test_bad_limits_refused_before_any_call(tmp_path: Path, flag: str, value: str,
                                            message: str) -> None:
    with FakeBatchServer() as srv:
        code, text = _eval(srv, tmp_path, "r1", PAIRS, "--batch-api", flag, value)
        assert code == 2 and message in text, text
        assert srv.log == [] and len(srv.files) == 0


def test_paced_at_the_enqueued_token_limit(tmp_path: Path) -> None:
    # three batches of two requests; the provider takes ~1.5 batches of tokens at once
    with FakeBatchServer() as srv:
        code, text = _eval(srv, tmp_path, "r0", PAIRS[:2], "--batch-api")
        assert code == 0, text
        (probe,) = srv.batches
        per_batch = sum(len(json.dumps(x["body"]["messages"])) // 4
                        for x in _lines(srv, probe))
    with FakeBatchServer(queue_tokens={"fake-model": per_batch * 3 // 2}) as srv:
        # no client-side limit: the server refuses two; they are resubmitted as others end
        code, text = _eval(srv, tmp_path, "r1", PAIRS, "--batch-api", "--cache-dir",
                           str(tmp_path / "c1"), "--batch-max-requests", "2")
        assert code == 0, text
        statuses = [b["status"] for b in srv.batches.values()]
        assert statuses.count("completed") == 3 and statuses.count("failed") >= 1
        assert "refused for the enqueued-token limit of fake-model" in text
        assert all(v["outcome"] == "ok" for v in _verdicts(tmp_path / "r1"))
    with FakeBatchServer(queue_tokens={"fake-model": per_batch * 3 // 2}) as srv:
        # the limit given: never over it, nothing refused
        code, text = _eval(srv, tmp_path, "r2", PAIRS, "--batch-api", "--cache-dir",
                           str(tmp_path / "c2"), "--batch-max-requests", "2",
                           "--batch-queue-tokens", "fake-model=1")
        assert code == 0, text
        assert [b["status"] for b in srv.batches.values()] == ["completed"] * 3


def test_duplicated_custom_id_is_a_parse_error_identical_copies_are_harmless(
        tmp_path: Path) -> None:
    # lines 2, 4, 6 come twice with different scores; line 3 twice alike
    with FakeBatchServer(duplicate_every=2, duplicate_same_every=3) as srv:
        code, text = _eval(srv, tmp_path, "r1", PAIRS, "--batch-api")
        assert code == 1, text
        (bid,) = srv.batches
        verdicts = _verdicts(tmp_path / "r1")
        for k, (v, p) in enumerate(zip(verdicts, PAIRS, strict=True), 1):
            if k % 2 == 0:
                assert v["outcome"] == "parse_error" and v["score"] is None
                assert f"batch {bid}" in v["rationale"]
                assert "appears more than once" in v["rationale"]
            else:  # line 3's identical copy changes nothing
                assert v["outcome"] == "ok" and v["score"] == fake_score(*p)
        # no copy of a conflicting answer was cached: a direct run asks those three again
        code, _ = _eval(srv, tmp_path, "r2", PAIRS)
        assert _direct_calls(srv) == 3 and _summary(tmp_path / "r2")["cache_hits"] == 3


def test_batches_list_cancel_clean(tmp_path: Path) -> None:
    with FakeBatchServer(polls_until_done=10_000) as srv:
        code, text = _batches(srv, tmp_path, "list")
        assert code == 0 and "no batches recorded" in text
        bid = _left_running(srv, tmp_path, "r1", PAIRS)
        code, text = _batches(srv, tmp_path, "list")
        assert code == 0 and bid in text and "in_progress" in text, text
        assert "0/6" in text
        code, text = _batches(srv, tmp_path, "cancel", "batch_nope")
        assert code == 2 and "no batch batch_nope recorded" in text
        code, text = _batches(srv, tmp_path, "cancel", bid)
        assert code == 0 and f"{bid}: cancelling" in text and srv.cancels == [bid]
        # uncollected: clean keeps it
        code, text = _batches(srv, tmp_path, "clean")
        assert code == 0 and "kept 1" in text and srv.deleted == []
        # the next run collects the cancelled batch (nothing answered: transport errors) ...
        code, text = _eval(srv, tmp_path, "r2", PAIRS, "--batch-api")
        assert code == 1 and f"batch {bid} cancelled: 0 answered, 6 failed" in text
        assert all("ended cancelled" in v["rationale"] for v in _verdicts(tmp_path / "r2"))
        # ... and the one after submits the six requests anew
        srv.polls_until_done = 1
        code, text = _eval(srv, tmp_path, "r3", PAIRS, "--batch-api")
        assert code == 0, text
        code, text = _batches(srv, tmp_path, "list", "--local")
        assert "cancelled (earlier)" in text and "completed" in text
        inputs = {b["input_file_id"] for b in srv.batches.values()}
        outputs = {b["output_file_id"] for b in srv.batches.values()} - {None}
        code, text = _batches(srv, tmp_path, "clean")
        assert code == 0 and "removed 1 batch state" in text, text
        assert set(srv.deleted) == inputs | outputs and len(srv.files) == 0
        assert not list((tmp_path / "cache" / "batches").iterdir())
        code, text = _batches(srv, tmp_path, "list")
        assert "no batches recorded" in text
        # the answers stay in the cache
        code, _ = _eval(srv, tmp_path, "r4", PAIRS)
        assert code == 0 and _summary(tmp_path / "r4")["cache_hits"] == 6


def test_progress_row_counts_batches_cost_and_eta(monkeypatch: pytest.MonkeyPatch) -> None:
    """The batch wait's progress text, by hand: 3 batches of 100 requests needed (one stale
    batch not counted), each estimated at 0.02 USD a request at the direct price (0.01 at the
    Batch API's half price). At the first look 100 requests are done (an adopted batch,
    collected, 0.8 USD really spent): no rate yet, ETA ``?``. 60 s later 50 more are done in
    a running batch: rate 50 / 60 s, 150 left → 180 s = 00:03:00; cost 0.8 + 50 × 0.01."""
    from judge.judges.llm import batchwait
    from judge.judges.llm.batchstate import BatchState
    from judge.judges.llm.batchwait import Job, Tracker

    def state(done: int, collected: bool, batch_id: str | None) -> BatchState:
        s = BatchState(digest="d", judge="openai:m", model="m", identity="i", base_url=None,
                       api_key_env="OPENAI_API_KEY", mode="json_schema", requests=100,
                       bytes=1, tokens=1, usd=2.0, batch_id=batch_id, done=done)
        s.collected = collected
        return s

    clock = [1000.0]
    monkeypatch.setattr(batchwait.time, "monotonic", lambda: clock[0])
    adopted, running, queued = (state(100, True, "b1"), state(0, False, "b2"),
                                state(0, False, None))
    stale = Job(None, state(40, False, "b0"), stale=True)
    t = Tracker(jobs=[Job(None, adopted), Job(None, running), Job(None, queued), stale],
                spent_usd=0.8)
    assert t.live_text() == "batches 1/3 (1 in flight)  ≈$0.8000  ETA ?"
    clock[0] += 60.0
    running.done = 50
    assert t.done() == 150
    assert t.live_text() == "batches 1/3 (1 in flight)  ≈$1.3000  ETA 00:03:00"
