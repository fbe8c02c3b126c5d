"""A full disk under the cache mid-run (issue 28, item 7): no paid answer is lost. The cache's
writes (answers and leases) raise ENOSPC after N entries, in process; calls go to the loopback
fake server, whose log counts what a provider would bill."""

from __future__ import annotations

import errno
import json
from pathlib import Path
from typing import Any

import diskcache
import pytest
from typer.testing import CliRunner

from judge.cache import JudgeCache
from judge.cli import app
from tests.cli_runs import letter_pairs, write_items
from tests.fake_openai import FakeOpenAIServer, FakeServerConfig

runner = CliRunner()


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def _full_after(monkeypatch: pytest.MonkeyPatch, n: int) -> None:
    """diskcache writes (``set``: answers; ``add``: leases) fail with ENOSPC once ``n`` answers
    were stored."""
    real_set, real_add = diskcache.Cache.set, diskcache.Cache.add
    done = {"answers": 0}

    def full() -> OSError:
        return OSError(errno.ENOSPC, "No space left on device")

    def set_(self: Any, key: Any, value: Any, *a: Any, **kw: Any) -> Any:
        if done["answers"] >= n:
            raise full()
        done["answers"] += 1
        return real_set(self, key, value, *a, **kw)

    def add(self: Any, *a: Any, **kw: Any) -> Any:
        if done["answers"] >= n:
            raise full()
        return real_add(self, *a, **kw)

    monkeypatch.setattr(diskcache.Cache, "set", set_)
    monkeypatch.setattr(diskcache.Cache, "add", add)


def _eval(srv: FakeOpenAIServer, data: Path, tmp_path: Path, out: str, *more: str) -> Any:
    return runner.invoke(app, ["eval", str(data), "--judge", "openai:fake", "--base-url",
                               srv.base_url, "--cache-dir", str(tmp_path / "c"), "--bootstrap",
                               "0", "--out", str(tmp_path / out), *more])


def _summary(run: Path) -> dict[str, Any]:
    return json.loads((run / "summary.json").read_text())  # type: ignore[no-any-return]


def test_in_flight_answers_survive_a_full_disk_and_reruns_progress(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the case: 18 calls in flight, the cache takes 2 answers and then refuses; before,
    # the run stopped at the refusal and 16 of the 18 paid answers were lost
    n = 18
    data = write_items(tmp_path / "d.jsonl", letter_pairs(n))
    with FakeOpenAIServer(FakeServerConfig(latency_s=0.05)) as srv:
        with monkeypatch.context() as mp:
            _full_after(mp, 2)
            res = _eval(srv, data, tmp_path, "r1", "--concurrency", "18")
        paid = len(srv.log)
        assert res.exit_code == 1, res.output
        s = _summary(tmp_path / "r1")
        assert paid == n == s["judge_calls"] and s["outcomes"]["ok"] == n
        assert s["cache_refused"] == {"reason": "No space left on device", "stored": 2,
                                      "unstored": n - 2, "dropped": 0}
        rows = (tmp_path / "r1" / "unstored_answers.jsonl").read_text().splitlines()
        verdict_keys = {json.loads(x)["cache_key"] for x in
                        (tmp_path / "r1" / "verdicts.jsonl").read_text().splitlines()}
        assert len(rows) == n - 2 and {json.loads(r)["key"] for r in rows} <= verdict_keys
        text = " ".join(res.output.split())
        assert "refused a write (No space left on device) after 2 answer(s)" in text
        assert "16 paid answer(s) it refused are kept in" in text
        # a rerun with a little more room (5 answers) reuses the 2, completes, keeps the rest
        srv.log.clear()
        with monkeypatch.context() as mp:
            _full_after(mp, 5)
            res = _eval(srv, data, tmp_path, "r2")
        s2 = _summary(tmp_path / "r2")
        assert res.exit_code == 1 and s2["outcomes"]["ok"] == n, res.output
        assert s2["cache_hits"] == 2 and len(srv.log) == s2["judge_calls"] == n - 2
        assert s2["cache_refused"]["stored"] == 5 and s2["cache_refused"]["unstored"] == n - 7
        # with room again: import what the first run kept, and nothing is paid again
        res = runner.invoke(app, ["cache", "import", str(tmp_path / "r1"), "--cache-dir",
                                  str(tmp_path / "c")])
        assert res.exit_code == 0 and f"stored {n - 2} answer(s)" in res.output, res.output
        srv.log.clear()
        res = _eval(srv, data, tmp_path, "r3")
        assert res.exit_code == 0 and srv.log == [], res.output
    assert _summary(tmp_path / "r3")["cache_hits"] == n
    assert JudgeCache(tmp_path / "c").stats()["entries"] == n


def test_a_cache_that_takes_writes_again_stores_what_it_held(tmp_path: Path) -> None:
    cache = JudgeCache(tmp_path / "c")
    real = diskcache.Cache.set
    failing = {"on": True}

    def set_(self: Any, *a: Any, **kw: Any) -> Any:
        if failing["on"]:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, *a, **kw)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(diskcache.Cache, "set", set_)
        with pytest.warns(UserWarning, match="refused a write"):
            assert cache.set("a" * 64, {"texts": ["1"]}) is False
        assert cache.get("a" * 64) == {"texts": ["1"]}  # served from memory
        assert cache.set("b" * 64, {"texts": ["2"]}) is False  # within RETRY_S: not tried
        failing["on"] = False
        assert cache.flush() == 2 and cache.unstored == {}
    assert cache.stats()["entries"] == 2 and cache.storage_summary()["cache_refused"] == {
        "reason": "No space left on device", "stored": 2, "unstored": 0, "dropped": 0}


def test_cache_import_checks_every_line_before_storing(tmp_path: Path) -> None:
    good = {"key": "a" * 64, "sha256": "", "value": {"texts": ["x"]}}
    from judge.jsoncache import dumps_value, sha256_hex

    good["sha256"] = sha256_hex(dumps_value(good["value"]))
    bad = dict(good, key="b" * 64, value={"texts": ["tampered"]})
    path = tmp_path / "unstored_answers.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    res = runner.invoke(app, ["cache", "import", str(path), "--cache-dir", str(tmp_path / "c")])
    assert res.exit_code == 2
    assert f"{path}:2: field 'sha256': sha256 does not match the value" in res.output
    assert JudgeCache(tmp_path / "c").stats()["entries"] == 0  # nothing half-imported
    path.write_text("")
    res = runner.invoke(app, ["cache", "import", str(path), "--cache-dir", str(tmp_path / "c")])
    assert res.exit_code == 2 and "no answers in this file" in res.output
