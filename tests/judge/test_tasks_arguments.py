"""Issue 12 ride-along: ``--arg-judge`` judges each string value pair per function and
parameter — the ``argument_equivalence@v1`` prompt names them, value pairs are deduplicated on
(function, parameter, pred, gold), a pair judged equivalent for one parameter is not credited
for another, and ``verdicts.jsonl`` rows carry ``function`` and ``parameter``.

Real CLI runs against the loopback fake OpenAI server (tests/fake_openai.py); its chat answers
are replaced here by a policy that reads the prompt's "Function and parameter" line.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from judge.cli import app
from tests.fake_openai import FakeOpenAIServer, LoggedRequest, fake_embedding

runner = CliRunner()

# "on" vs "开启" is the same action for the light's state but, for this test's policy, not an
# acceptable value of set_mode.mode: the policy credits the pair only under set_light.state
LIGHT = "function set_light, parameter state"
MODE = "function set_mode, parameter mode"
ITEMS = [
    {"id": "a", "query": "开灯", "gold_fn": [{"name": "set_light", "arguments": {"state": "开启"}}],
     "pred_fn": [{"name": "set_light", "arguments": {"state": "on"}}]},
    {"id": "b", "query": "开模式", "gold_fn": [{"name": "set_mode", "arguments": {"mode": "开启"}}],
     "pred_fn": [{"name": "set_mode", "arguments": {"mode": "on"}}]},
    # both parameters in one item: the light's pair is credited, the mode's is not
    {"id": "c", "query": "都开",
     "gold_fn": [{"name": "set_light", "arguments": {"state": "开启"}},
                 {"name": "set_mode", "arguments": {"mode": "开启"}}],
     "pred_fn": [{"name": "set_light", "arguments": {"state": "on"}},
                 {"name": "set_mode", "arguments": {"mode": "on"}}]},
]
_CONTEXT = re.compile(r"^Function and parameter: (.*)$", re.M)
_VALUE = re.compile(r"<<<(PRED|GOLD)_VALUE\n(.*?)\n(?:PRED|GOLD)_VALUE>>>", re.S)


class ParameterPolicyServer(FakeOpenAIServer):
    """The fake server, but each chat answer's score is 1.0 when the prompt names
    ``set_light.state`` and 0.0 for any other function and parameter. Each answer takes
    0.2 s; ``max_inflight`` is the most requests it held at once."""

    inflight = 0
    max_inflight = 0

    async def _answer(self, path: str, body: dict[str, Any],
                      ) -> tuple[int, dict[str, Any] | bytes, dict[str, str]]:
        if not path.endswith("/chat/completions"):
            return await super()._answer(path, body)
        self._record(path, body, "ok")
        self.inflight += 1  # one event loop serves every connection: no lock needed
        self.max_inflight = max(self.max_inflight, self.inflight)
        await asyncio.sleep(0.2)
        self.inflight -= 1
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        found = _CONTEXT.search(user)
        score = 1.0 if found and found.group(1) == LIGHT else 0.0
        content = json.dumps({"score": score, "rationale": "policy"})
        return 200, {"id": "chatcmpl-policy", "object": "chat.completion", "created": 0,
                     "model": body.get("model", "fake"),
                     "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                  "finish_reason": "stop"}],
                     "usage": {"prompt_tokens": 10, "completion_tokens": 5,
                               "total_tokens": 15}}, {}


def _write(tmp_path: Path) -> Path:
    data = tmp_path / "calls.jsonl"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in ITEMS),
                    encoding="utf-8")
    return data


def _eval(data: Path, out: Path, cache: Path, *extra: str) -> None:
    res = runner.invoke(app, ["eval", str(data), "--task", "function-call", "--id-field", "id",
                              "--out", str(out), "--cache-dir", str(cache), "--bootstrap", "0",
                              *extra], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def _user_messages(log: list[LoggedRequest]) -> list[str]:
    return [next(m["content"] for m in r.body["messages"] if m["role"] == "user")
            for r in log if r.path.endswith("/chat/completions")]


def test_llm_arg_judge_names_function_and_parameter_per_pair(tmp_path: Path) -> None:
    data = _write(tmp_path)
    with ParameterPolicyServer() as srv:
        _eval(data, tmp_path / "run", tmp_path / "cache", "--arg-judge", "openai:fake-model",
              "--base-url", srv.base_url)
        users = _user_messages(srv.log)
    # the same value pair under two parameters: two requests (not one), and the pair of
    # item "c" repeats those of "a" and "b" exactly, so it costs nothing more
    assert len(users) == 2
    assert sorted(_CONTEXT.search(u).group(1) for u in users) == [LIGHT, MODE]  # type: ignore[union-attr]
    assert all(_VALUE.findall(u) == [("PRED", "on"), ("GOLD", "开启")] for u in users)

    rows = {r["id"]: r for r in _jsonl(tmp_path / "run" / "items.jsonl")}
    # a: credited (policy 1.0 > τ 0.7); b: the same pair under set_mode scored 0.0 → not
    assert rows["a"]["correct"] and rows["a"]["fn_acc_all"] == 1.0
    assert not rows["b"]["correct"] and rows["b"]["error_type"] == "value_mismatch"
    assert rows["b"]["fn_acc_all"] == 0.0
    # c: the BFCL check fails on set_mode.mode; seed fn_acc_all = mean(1, 0) over its 2 calls
    assert not rows["c"]["correct"] and rows["c"]["error_type"] == "value_mismatch"
    assert "'mode'" in rows["c"]["error"]
    assert rows["c"]["fn_acc_all"] == 0.5
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["arg_judge"]["pairs_judged"] == 2
    assert summary["metrics"]["accuracy"] == pytest.approx(1 / 3)
    assert summary["metrics"]["fn_acc_all"] == pytest.approx((1.0 + 0.0 + 0.5) / 3)

    verdicts = _jsonl(tmp_path / "run" / "verdicts.jsonl")
    assert sorted((v["function"], v["parameter"], v["pred"], v["truth"], v["score"])
                  for v in verdicts) == [("set_light", "state", "on", "开启", 1.0),
                                         ("set_mode", "mode", "on", "开启", 0.0)]
    assert all(v["rationale"] == "policy" for v in verdicts)


def test_llm_arg_judge_parameters_are_judged_concurrently(tmp_path: Path) -> None:
    """Three parameters' requests share the judge's concurrency limit instead of running one
    parameter after the other. The judge's slow start (judge.judges.failures.EarlyStop.slot)
    sends the first call alone; the other two then overlap: 2 in flight (1 if sequential)."""
    rows = [{"id": f"x{i}", "query": "开",
             "gold_fn": [{"name": f"set_{i}", "arguments": {"p": "开启"}}],
             "pred_fn": [{"name": f"set_{i}", "arguments": {"p": "on"}}]} for i in range(3)]
    data = tmp_path / "three.jsonl"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")
    srv = ParameterPolicyServer()
    with srv:
        _eval(data, tmp_path / "run", tmp_path / "cache", "--arg-judge", "openai:fake-model",
              "--base-url", srv.base_url, "--concurrency", "4")
        users = _user_messages(srv.log)
    assert sorted(_CONTEXT.search(u).group(1) for u in users) == [  # type: ignore[union-attr]
        f"function set_{i}, parameter p" for i in range(3)]
    assert srv.max_inflight == 2


def test_llm_arg_judge_cache_is_per_parameter(tmp_path: Path) -> None:
    """A second identical run is served from the cache: the keys include the context."""
    data = _write(tmp_path)
    with ParameterPolicyServer() as srv:
        _eval(data, tmp_path / "r1", tmp_path / "cache", "--arg-judge", "openai:fake-model",
              "--base-url", srv.base_url)
        _eval(data, tmp_path / "r2", tmp_path / "cache", "--arg-judge", "openai:fake-model",
              "--base-url", srv.base_url)
        assert len(_user_messages(srv.log)) == 2  # all from the first run
    second = _jsonl(tmp_path / "r2" / "verdicts.jsonl")
    assert all(v["cached"] for v in second)
    assert {(v["parameter"], v["score"]) for v in second} == {("state", 1.0), ("mode", 0.0)}
    assert (tmp_path / "r1" / "items.jsonl").read_text() == (
        tmp_path / "r2" / "items.jsonl").read_text()


def test_context_free_judge_scores_each_value_pair_once(tmp_path: Path) -> None:
    """An embedding judge ignores the context: "on" and "开启" are embedded once each, and the
    one verdict is recorded for both parameters (and so credits both)."""
    data = _write(tmp_path)
    # fake vectors: "o" (111 mod 7 = 6) and "开" (24320 mod 7 = 2) differ → cosine 0.5
    assert fake_embedding("on") != fake_embedding("开启")
    with FakeOpenAIServer() as srv:
        _eval(data, tmp_path / "run", tmp_path / "cache", "--arg-judge",
              "openai-embedding:fake-embed", "--base-url", srv.base_url, "--arg-tau", "0.4")
        inputs = [s for r in srv.log if r.path.endswith("/embeddings")
                  for s in r.body["input"]]
    assert sorted(inputs) == sorted(["on", "开启"])
    verdicts = _jsonl(tmp_path / "run" / "verdicts.jsonl")
    assert sorted((v["function"], v["parameter"]) for v in verdicts) == [
        ("set_light", "state"), ("set_mode", "mode")]
    assert all(v["score"] == pytest.approx(0.5) for v in verdicts)
    rows = _jsonl(tmp_path / "run" / "items.jsonl")
    assert all(r["correct"] and r["fn_acc_all"] == 1.0 for r in rows)  # 0.5 > τ 0.4
