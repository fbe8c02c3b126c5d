"""Issue 36, item 12: conflicting scores in one reply are an outcome, not a silent mean.

A loopback server (a :class:`tests.fake_openai.FakeOpenAIServer` whose chat answers get an
extra choice) sends two choices to a request that asked for one. When their scores differ the
pair is a ``parse_error`` "conflicting scores in one reply: …" (before: the mean, 0.5, as an
``ok`` verdict), counted in ``summary.json``'s outcomes and never cached; extra choices that
agree are harmless, and the ``n`` choices asked for with ``--samples`` are still averaged.
Inside one batch answer, two entries for one item with different scores are that item's parse
error likewise.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from judge.judges.llm.choices import CONFLICT, conflicts, requested_choices
from judge.judges.llm.scorer import load_scorer
from tests.clirun import CliResult
from tests.fake_openai import GRADE_OTHER, FakeOpenAIServer, grade_logprobs

ITEMS = [{"id": k, "pred": [p], "truth": [p.lower() + "x"]}
         for k, p in enumerate(("Alpha", "Beta", "Gamma"))]


class ExtraChoice(FakeOpenAIServer):
    """Every chat answer gets one more choice, made by ``extra`` from the first one."""

    extra: Callable[[dict[str, Any]], dict[str, Any]] = staticmethod(lambda c: c)

    async def _answer(self, path: str, body: dict[str, Any],
                      ) -> tuple[int, dict[str, Any] | bytes, dict[str, str]]:
        code, obj, headers = await super()._answer(path, body)
        if code == 200 and isinstance(obj, dict) and obj.get("choices"):
            first = obj["choices"][0]
            obj["choices"] = [*obj["choices"], {**self.extra(first),
                                                "index": len(obj["choices"])}]
        return code, obj, headers


def _content(score: float) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda c: {**c, "message": {"role": "assistant", "content": json.dumps(
        {"score": score, "rationale": "the other choice"})}}


def _grade(c: dict[str, Any]) -> dict[str, Any]:
    return {**c, "message": {"role": "assistant", "content": "1"},
            "logprobs": {"content": grade_logprobs(GRADE_OTHER), "refusal": None}}


def _run(tmp_path: Path, cli: Callable[..., CliResult], extra: Callable[..., Any],
         *flags: str) -> tuple[list[dict[str, Any]], dict[str, Any], ExtraChoice]:
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(i) + "\n" for i in ITEMS), encoding="utf-8")
    srv = ExtraChoice()
    srv.extra = staticmethod(extra)  # type: ignore[method-assign]
    with srv:
        res = cli("eval", data, "--judge", "openai:fake", "--base-url", srv.base_url,
                  "--cache-dir", tmp_path / "cache", "--out", tmp_path / "run", "--overwrite",
                  "--bootstrap", "0", *flags, cwd=tmp_path, env={"OPENAI_API_KEY": "sk-x"})
    assert res.returncode in (0, 1) and res.exception is None, res.stderr
    run = tmp_path / "run"
    verdicts = [json.loads(x) for x in (run / "verdicts.jsonl").read_text("utf-8").splitlines()]
    summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
    return verdicts, summary, srv


@pytest.mark.parametrize(("extra", "flags", "shown"), [
    (_content(0.1), (), "scored 0.9, 0.1"),
    (_grade, ("--score-mode", "logprob"), "scored "),
])
def test_two_choices_that_disagree_are_a_parse_error(
        tmp_path: Path, cli: Callable[..., CliResult], extra: Callable[..., Any],
        flags: tuple[str, ...], shown: str) -> None:
    verdicts, summary, srv = _run(tmp_path, cli, extra, *flags)
    assert len(srv.log) == 3  # one request per pair, each answered with 2 choices
    assert [v["outcome"] for v in verdicts] == ["parse_error"] * 3
    assert all(v["score"] is None for v in verdicts)
    for v in verdicts:
        assert v["rationale"].startswith(
            f"{CONFLICT}: 2 choices (n=1 asked for) {shown}"), v["rationale"]
        assert v["rationale"].endswith("; none is used")
    assert summary["outcomes"]["parse_error"] == 3 and summary["outcomes"]["ok"] == 0
    # never cached: the rerun asks again
    verdicts, summary, srv = _run(tmp_path, cli, extra, *flags)
    assert len(srv.log) == 3 and summary["cache_hits"] == 0


def test_extra_choices_that_agree_and_asked_samples_are_used(
        tmp_path: Path, cli: Callable[..., CliResult]) -> None:
    verdicts, _, _ = _run(tmp_path, cli, _content(0.9))  # the fake's own score: they agree
    assert [(v["outcome"], v["score"]) for v in verdicts] == [("ok", 0.9)] * 3
    # --samples 2: the server's 2 choices (plus the extra one, 3 > 2, that disagrees) …
    verdicts, _, _ = _run(tmp_path, cli, _content(0.1), "--samples", "2",
                          "--cache-dir", str(tmp_path / "cache2"))
    assert [v["outcome"] for v in verdicts] == ["parse_error"] * 3
    assert "3 choices (n=2 asked for) scored 0.9, 0.9, 0.1" in verdicts[0]["rationale"]


def test_the_samples_asked_for_are_averaged() -> None:
    """``n`` choices when ``n`` were asked for are samples: no conflict, their mean is used."""
    answers = [{"a": (0.9, "x", None)}, {"a": (0.1, "y", None)}]
    assert conflicts(["a"], answers, requested=2) == {}
    assert conflicts(["a"], answers, requested=1) == {
        "a": f"{CONFLICT}: 2 choices (n=1 asked for) scored 0.9, 0.1; none is used"}
    # a choice that does not answer the item (a parse error) does not count against the others
    assert conflicts(["a"], [{"a": (0.9, "x", None)}, {"a": "no score"}], requested=1) == {}
    assert requested_choices({"n": 3}) == 3
    assert requested_choices({}) == requested_choices({"n": True}) == 1


def test_two_batch_entries_for_one_item_that_disagree() -> None:
    b = load_scorer("entity_similarity_batch@v1")
    entry = {"index": 1, "score": 0.9, "rationale": "same"}
    reply = json.dumps({"scores": [entry, {**entry, "score": 0.2},
                                   {"index": 2, "score": 0.4, "rationale": "a"},
                                   {"index": 2, "score": 0.4, "rationale": "b"}]})
    got = b.parse_batch(reply, 2)
    assert got[0] == f"{CONFLICT}: item 1 has entries scoring 0.9 and 0.2; none is used"
    assert got[1] == (0.4, "a")  # identical scores: the first entry is used, as before
