"""Judging the judge: ``--score-mode logprob``, ``--probe swap`` and ``--repeats`` against the
scripted loopback server (tests/fake_openai.py), and the probe statistics by hand.

Data: item a pred [apple, banana, cherry] vs gold [Apfel, Birne, Kirsche]; item b pred [dog,
eagle] vs gold [Dachs, Esel, Fuchs] → 15 distinct pairs, 4 of which share their first letter
(apple/Apfel, banana/Birne, dog/Dachs, eagle/Esel; cherry/Kirsche does not). The fake judge
scores 0.9 for those and 0.1 for the others.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge.cli import app
from judge.judges.llm.grades import (
    expected_score,
    grade_answer,
    grade_distribution,
    p_above,
    parse_grade_text,
)
from judge.judges.llm.jsonreply import ParseError
from judge.probes.stats import repeat_summary, swap_summary, wilson_ci
from judge.probes.swap import sample_keys
from judge.record.store import load_run
from judge.runs.audit import report_data
from judge.runs.rescore import rescore
from tests.fake_openai import FakeOpenAIServer, FakeServerConfig, grade_logprobs

ROWS = [{"id": "a", "pred": ["apple", "banana", "cherry"], "truth": ["Apfel", "Birne", "Kirsche"]},
        {"id": "b", "pred": ["dog", "eagle"], "truth": ["Dachs", "Esel", "Fuchs"]}]


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key-000000")


def _data(tmp_path: Path) -> Path:
    p = tmp_path / "data.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return p


def _eval(tmp_path: Path, srv: FakeOpenAIServer, *args: str, out: str = "run") -> object:
    return CliRunner().invoke(app, [
        "eval", str(_data(tmp_path)), "--judge", "openai:fake", "--base-url", srv.base_url,
        "--out", str(tmp_path / out), "--cache-dir", str(tmp_path / "c"), "--bootstrap", "200",
        *args])


def _summary(tmp_path: Path, out: str = "run") -> dict:  # type: ignore[type-arg]
    return json.loads((tmp_path / out / "summary.json").read_text(encoding="utf-8"))


# ------------------------------------------------------------------ statistics, by hand
def test_wilson_interval_by_hand() -> None:
    # Wilson with z = 1.959964: 0 of 50 → upper z²/(n + z²) = 3.8415/53.8415 = 0.07135
    assert wilson_ci(0, 50)[0] == pytest.approx(0.0, abs=1e-12)
    assert wilson_ci(0, 50)[1] == pytest.approx(3.841459 / 53.841459, rel=1e-5)
    # 4 of 15: centre (4 + z²/2)/(15 + z²) = 5.92073/18.84146; half-width
    # z·sqrt(p(1-p)/n + z²/4n²)/(1 + z²/n) with p = 4/15
    z, n, p = 1.959964, 15, 4 / 15
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert wilson_ci(4, 15) == pytest.approx([centre - half, centre + half], rel=1e-5)
    assert wilson_ci(0, 0) == [None, None]


def test_wilson_interval_equals_statsmodels() -> None:
    # the leaderboard's TPR/TNR intervals and the probes' flip-rate intervals
    from statsmodels.stats.proportion import proportion_confint

    for k, n in ((0, 1), (1, 1), (0, 50), (4, 15), (37, 40), (123, 1000), (999, 1000)):
        lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
        assert wilson_ci(k, n) == pytest.approx([lo, hi], abs=1e-12)


def test_swap_summary_by_hand() -> None:
    # τ 0.7: pair 1 0.9 vs 0.6 flips (Δ 0.3), pair 2 0.1 vs 0.2 (Δ -0.1), pair 3 equal
    s = swap_summary([0.9, 0.1, 0.5], [0.6, 0.2, 0.5], 0.7, n_boot=0)
    assert (s["pairs"], s["flips"]) == (3, 1)
    assert s["flip_rate"] == pytest.approx(1 / 3)
    assert s["mean_abs_delta"] == pytest.approx(0.4 / 3)
    assert s["mean_delta"] == pytest.approx(0.2 / 3)
    # numpy's linear 95th percentile of |Δ| = [0, 0.1, 0.3]: 0.1 + 0.9·(0.3 − 0.1) = 0.28
    assert s["p95_abs_delta"] == pytest.approx(0.28)
    assert swap_summary([], [], 0.7)["flip_rate"] is None


def test_repeat_summary_by_hand() -> None:
    # pair 1 [0.6, 0.8]: SD = 0.1414 (ddof 1), flips at 0.7; pair 2 [0.1, 0.1]: SD 0;
    # pair 3 has one sample: skipped
    s = repeat_summary([[0.6, 0.8], [0.1, 0.1], [0.5]], 0.7, n_boot=0)
    assert (s["pairs"], s["pairs_skipped"], s["flips"]) == (2, 1, 1)
    assert s["mean_sd"] == pytest.approx(math.sqrt(0.02) / 2)
    assert s["mean_range"] == pytest.approx(0.1)


def test_sample_keys_is_seeded_and_ordered() -> None:
    keys = list(range(100))
    a = sample_keys(keys, 0.1, seed=3)
    assert len(a) == 10 and a == sorted(a) and a == sample_keys(keys, 0.1, seed=3)
    assert a != sample_keys(keys, 0.1, seed=4)
    assert sample_keys(keys, 1.0, 0) == keys and len(sample_keys(keys[:3], 0.01, 0)) == 1
    with pytest.raises(ValueError):
        sample_keys(keys, 0.0, 0)


# ------------------------------------------------------------------ grades and logprobs
def test_grade_distribution_expectation_by_hand() -> None:
    # {9: 0.6, 8: 0.3, 7: 0.1}: E = (5.4 + 2.4 + 0.7)/9 = 8.5/9; P(score > 0.7) = all three
    # grades (7/9 = 0.778 > 0.7); P(score > 0.8) = grades 8, 9 (8/9 = 0.889) = 0.9
    dist, mass = grade_distribution(grade_logprobs({"9": 0.6, "8": 0.3, "7": 0.1}))  # type: ignore[misc]
    assert mass == pytest.approx(1.0)
    assert dist == pytest.approx({9: 0.6, 8: 0.3, 7: 0.1})
    assert expected_score(dist) == pytest.approx(8.5 / 9)
    assert p_above(dist, 0.7) == pytest.approx(1.0) and p_above(dist, 0.8) == pytest.approx(0.9)
    # " 7" and "7" are one grade; a non-grade alternative ("The") is left out of the mass
    content = [{"token": " ", "logprob": -0.01, "top_logprobs": []},
               {"token": "7", "logprob": math.log(0.5), "top_logprobs": [
                   {"token": "7", "logprob": math.log(0.5)},
                   {"token": " 7", "logprob": math.log(0.2)},
                   {"token": "The", "logprob": math.log(0.2)},
                   {"token": "3", "logprob": math.log(0.1)}]}]
    dist, mass = grade_distribution(content)  # type: ignore[misc]
    assert mass == pytest.approx(0.8)
    assert dist == pytest.approx({7: 0.7 / 0.8, 3: 0.1 / 0.8})
    assert grade_distribution([{"token": "Sure", "logprob": -0.1}]) is None


def test_grade_answer_fallback_and_parse_errors() -> None:
    g = grade_answer(["7"], None)
    assert g.score == pytest.approx(7 / 9) and g.distribution is None
    assert "fell back" in g.rationale
    assert "fell back" not in grade_answer(["7"], None, requested=False).rationale
    assert [parse_grade_text(t) for t in ("7", " 7.", '"8"', "Grade: 3", "9 - same")] == [
        7, 7, 8, 3, 9]
    for bad in ("10", "7.5", "same", ""):
        with pytest.raises(ParseError):
            parse_grade_text(bad)


def test_logprob_scores_reproduce_the_hand_expectation(tmp_path: Path) -> None:
    with FakeOpenAIServer() as srv:
        res = _eval(tmp_path, srv, "--score-mode", "logprob")
        bodies = [r.body for r in srv.log if r.path.endswith("/chat/completions")]
    assert res.exit_code == 0, res.output  # type: ignore[attr-defined]
    assert len(bodies) == 15 and all(b["logprobs"] is True and b["top_logprobs"] == 10
                                     and "response_format" not in b for b in bodies)
    rows = [json.loads(x) for x in (tmp_path / "run" / "verdicts.jsonl").read_text(
        encoding="utf-8").splitlines()]
    by = {(r["pred"], r["truth"]): r for r in rows}
    # first letters shared: E = 8.5/9; others {1: .5, 0: .3, 2: .2}: E = 0.9/9 = 0.1
    assert by[("apple", "Apfel")]["score"] == pytest.approx(8.5 / 9)
    assert by[("apple", "Apfel")]["distribution"] == {"7": 0.1, "8": 0.3, "9": 0.6}
    assert by[("cherry", "Kirsche")]["score"] == pytest.approx(0.1)
    assert all(r["scorer"] == "entity_similarity_grade@v1" for r in rows)
    s = _summary(tmp_path)
    assert s["logprobs"] == {"verdicts": 15, "with_distribution": 15, "fallback": 0}
    # 4 matches of 0.944 among 5 predictions and 6 gold items: micro P 4·0.944/5, R 4·0.944/6
    assert s["metrics"]["micro_precision"] == pytest.approx(4 * 8.5 / 9 / 5)
    assert "logprob scores: 15 of 15" in " ".join(res.output.split())  # type: ignore[attr-defined]


def test_server_without_logprobs_is_a_recorded_fallback(tmp_path: Path) -> None:
    with FakeOpenAIServer(FakeServerConfig(no_logprobs=True)) as srv:
        res = _eval(tmp_path, srv, "--score-mode", "logprob")
    assert res.exit_code == 0, res.output  # type: ignore[attr-defined]
    rows = [json.loads(x) for x in (tmp_path / "run" / "verdicts.jsonl").read_text(
        encoding="utf-8").splitlines()]
    # the text is the most likely grade: 9 (score 1.0) or 1 (1/9), no distribution
    assert sorted({round(r["score"], 6) for r in rows}) == [round(1 / 9, 6), 1.0]
    assert all("distribution" not in r and "fell back" in r["rationale"] for r in rows)
    assert _summary(tmp_path)["logprobs"]["fallback"] == 15
    assert "15 fell back to the sampled grade" in " ".join(res.output.split())  # type: ignore[attr-defined]
    assert all(r["logprob_fallback"] is True for r in rows)  # the count reads this field


def test_fallbacks_are_counted_from_the_field_not_the_rationale() -> None:
    """A verdict's words are the judge's (or the model's); only the field says fallback."""
    from judge.pipeline.evaluate import _logprob_counts

    grade = "entity_similarity_grade@v1"
    rows = [  # 1: a real fallback; 2, 3: ok verdicts whose rationale merely says "fell back"
        {"outcome": "ok", "scorer": grade, "rationale": "sampled", "logprob_fallback": True},
        {"outcome": "ok", "scorer": grade, "rationale": "the model fell back to 7"},
        {"outcome": "ok", "scorer": grade, "rationale": "it fell back", "distribution": None},
        {"outcome": "ok", "scorer": grade, "rationale": "x", "distribution": {"7": 1.0}},
    ]  # counting by the words gave 2 fallbacks (rows 2 and 3) and missed row 1
    assert _logprob_counts(rows) == {"logprobs": {"verdicts": 4, "with_distribution": 1,
                                                  "fallback": 1}}


# ------------------------------------------------------------------ swap probe
def test_swap_probe_catches_a_planted_position_bias(tmp_path: Path) -> None:
    with FakeOpenAIServer(FakeServerConfig(position_bias=0.3)) as srv:
        res = _eval(tmp_path, srv, "--probe", "swap=1")
        calls = len(srv.log)
    assert res.exit_code == 0, res.output  # type: ignore[attr-defined]
    assert calls == 30  # 15 pairs, then each swapped
    swap = _summary(tmp_path)["probes"]["swap"]
    # every pred is lower-case and every gold capitalised, so "pred" < "gold" never holds:
    # forward = base − 0.3, swapped = base + 0.3 (clipped): 0.6 vs 1.0 and 0.0 vs 0.4, so
    # |Δ| = 0.4 everywhere and the 4 first-letter pairs flip at τ 0.7 (0.6 ≤ 0.7 < 1.0)
    assert (swap["sampled"], swap["flips"]) == (15, 4)
    assert swap["mean_abs_delta"] == pytest.approx(0.4)
    assert swap["mean_delta"] == pytest.approx(-0.4)
    assert swap["flip_rate_ci95"][0] > 0  # the bias is caught
    rows = [json.loads(x) for x in (tmp_path / "run" / "swap_probe.jsonl").read_text(
        encoding="utf-8").splitlines()]
    assert {(r["pred"], r["truth"]) for r in rows if r["flip"]} == {
        ("apple", "Apfel"), ("banana", "Birne"), ("dog", "Dachs"), ("eagle", "Esel")}
    d = report_data(load_run(tmp_path / "run"))
    assert len(d["queues"]["asymmetric"]) == 15
    assert any("swap probe" in x for x in d["header"]["probe_lines"])
    # rescore recomputes the flip rate at another τ from swap_probe.jsonl (no call): at the
    # run's τ it reproduces the summary; at τ 0.5 neither 0.6/1.0 nor 0.0/0.4 straddles it (0
    # flips); at τ 0.3 the 11 pairs scored 0.0/0.4 flip and the 4 at 0.6/1.0 do not
    assert rescore(load_run(tmp_path / "run"), n_boot=200)["probes"]["swap"] == swap
    assert rescore(load_run(tmp_path / "run"), tau=0.5)["probes"]["swap"]["flips"] == 0
    at_03 = rescore(load_run(tmp_path / "run"), tau=0.3)["probes"]["swap"]
    assert (at_03["flips"], at_03["tau"], at_03["sampled"]) == (11, 0.3, 15)
    assert at_03["mean_abs_delta"] == pytest.approx(0.4)  # |Δ| does not depend on τ
    res = CliRunner().invoke(app, ["rescore", str(tmp_path / "run"), "--tau", "0.3"])
    assert res.exit_code == 0 and "flip rate at τ 0.733" in res.output, res.output


def test_swap_probe_of_a_symmetric_judge_and_its_cache(tmp_path: Path) -> None:
    with FakeOpenAIServer() as srv:
        res = _eval(tmp_path, srv, "--probe", "swap")  # default: a seeded 10 %
        res2 = _eval(tmp_path, srv, "--probe", "swap", out="run2")
        calls = len(srv.log)
    assert res.exit_code == 0 and res2.exit_code == 0, res.output  # type: ignore[attr-defined]
    swap = _summary(tmp_path)["probes"]["swap"]
    # round(0.1 · 15) = 2 pairs; symmetric judge: no flip, Δ 0; Wilson [0, 0.658] holds 0
    assert (swap["sampled"], swap["flips"], swap["mean_abs_delta"]) == (2, 0, 0.0)
    assert swap["flip_rate_ci95"][0] == pytest.approx(0.0, abs=1e-12)
    assert calls == 17  # the rerun's 17 answers all came from the cache
    assert _summary(tmp_path, "run2")["probes"]["swap"] == swap
    assert _summary(tmp_path, "run2")["judge_calls"] == 0


# ------------------------------------------------------------------ repeat probe
def test_repeat_probe_catches_planted_noise(tmp_path: Path) -> None:
    with FakeOpenAIServer(FakeServerConfig(noise=0.3)) as srv:
        res = _eval(tmp_path, srv, "--repeats", "4", "--temperature", "1")
        calls = len(srv.log)
    assert res.exit_code == 0, res.output  # type: ignore[attr-defined]
    assert calls == 60  # 15 pairs × 4 separate calls
    rec = load_run(tmp_path / "run")
    members = [v for v in rec.verdict_rows() if v.get("member_of")]
    assert {v["judge_id"] for v in members} == {"openai:fake", "openai:fake#1", "openai:fake#2",
                                                "openai:fake#3"}
    assert len({v["cache_key"] for v in members}) == 60  # the sample index is in every key
    rep = _summary(tmp_path)["probes"]["repeat"]
    assert rep["repeats"] == 4 and rep["pairs"] == 15
    # only the 4 first-letter pairs (0.9 ± 0.3) can cross τ 0.7; others stay in [0, 0.4]
    assert 1 <= rep["flips"] <= 4 and rep["flip_rate_ci95"][0] > 0
    assert rep["mean_sd"] > 0
    assert rec.config.judge is not None and rec.config.judge.method == "repeats@v1"
    d = report_data(rec)
    assert d["queues"]["unstable"] and len(d["queues"]["unstable"]) <= 15
    # at the run's τ, resamples and seed: the run's summary
    assert rescore(rec, n_boot=200)["probes"]["repeat"] == rep
    at_1 = rescore(rec, tau=1.0)["probes"]["repeat"]  # no score exceeds 1: nothing can flip
    assert (at_1["flips"], at_1["pairs"], at_1["mean_sd"]) == (0, 15, rep["mean_sd"])


def test_repeats_of_a_stable_judge_do_not_flip(tmp_path: Path) -> None:
    with FakeOpenAIServer() as srv:
        res = _eval(tmp_path, srv, "--repeats", "3")
    assert res.exit_code == 0, res.output  # type: ignore[attr-defined]
    rep = _summary(tmp_path)["probes"]["repeat"]
    assert rep["flips"] == 0 and rep["mean_sd"] == pytest.approx(0.0, abs=1e-12)
    # Wilson upper bound of 0/15: z²/(15 + z²) = 3.8415/18.8415 = 0.2039
    assert rep["flip_rate_ci95"][1] == pytest.approx(3.841459 / 18.841459, rel=1e-5)


# ------------------------------------------------------------------ bad input, before any call
@pytest.mark.parametrize(("args", "message"), [
    (["--probe", "swap=0"], "share in (0, 1]"),
    (["--probe", "swap=abc"], "share in (0, 1]"),
    (["--probe", "order"], "unknown probe"),
    (["--repeats", "0"], "--repeats"),
    (["--score-mode", "logprob", "--scorer", "entity_similarity_batch@v1"], "grade scorer"),
    (["--score-mode", "sometimes"], "--score-mode"),
])
def test_bad_probe_options_exit_2_before_any_call(tmp_path: Path, args: list[str],
                                                   message: str) -> None:
    with FakeOpenAIServer() as srv:
        res = _eval(tmp_path, srv, *args)
        calls = len(srv.log)
    assert res.exit_code == 2 and calls == 0, res.output  # type: ignore[attr-defined]
    assert message in res.output  # type: ignore[attr-defined]
    assert not (tmp_path / "run").exists()


def test_repeats_of_a_deterministic_judge_and_probes_of_function_calls(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["eval", str(_data(tmp_path)), "--judge", "lexical",
                                   "--repeats", "3", "--out", str(tmp_path / "r")])
    assert res.exit_code == 2 and "deterministic" in res.output
    fc = tmp_path / "fc.jsonl"
    fc.write_text(json.dumps({"pred_fn": {"name": "f", "arguments": {"x": "a"}},
                              "gold_fn": {"name": "f", "arguments": {"x": "b"}}}) + "\n",
                  encoding="utf-8")
    res = CliRunner().invoke(app, ["eval", str(fc), "--task", "function-call", "--arg-judge",
                                   "lexical", "--probe", "swap", "--out", str(tmp_path / "f")])
    assert res.exit_code == 2 and "parameter's own context" in res.output
