"""The review loop of the calibration tutorial (docs/tutorials/calibrate.md), run as written:
``eval`` → ``review`` → ``calibrate`` → ``eval --tau-from``. The reviewer is played over
HTTP; the τ ``calibrate`` finds from ``labels.db`` with the run as its pool must equal the τ̂
the review page showed (same population, strata and weights), and the last ``eval`` must use
it.

The review server is a real subprocess here: the tutorial's ``review`` command names its run
and its ``labels.db`` relative to the working folder, as the other three commands do, and an
in-process server would share the test process's one working folder."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from tests.clirun import CliResult, run_cli
from tests.conftest import REPO
from tests.review_server import start


def _loop_commands() -> list[list[str]]:
    """The commands of the first ```bash block of the tutorial's loop section (its fence says
    {.skip …}: the docs snippet test leaves this block to this test)."""
    text = (REPO / "docs" / "tutorials" / "calibrate.md").read_text(encoding="utf-8")
    section = text[text.index("## The loop"):]
    block = re.search(r"```bash[^\n]*\n(.*?)```", section, flags=re.S)
    assert block is not None
    lines = block.group(1).replace("\\\n", " ").splitlines()
    return [shlex.split(line.split("#")[0])[1:] for line in lines if line.strip()]


def _label(pred: str, truth: str, score: float) -> int:
    """The played reviewer: agrees with the judge above 0.6, except on the pairs whose
    prediction's code points sum to a multiple of 5 (then the other way) — a reviewer the judge
    does not predict perfectly, and a fixed function of the pair."""
    base = score > 0.6
    return int(base != (sum(map(ord, pred)) % 5 == 0))


def test_the_documented_loop_end_to_end(tmp_path: Path) -> None:
    """The tutorial's four commands in ``tmp_path``; the review server is a real subprocess
    (its paths are relative to its working folder, as written: module docstring)."""
    cmds = _loop_commands()
    assert [c[0] for c in cmds] == ["eval", "review", "calibrate", "eval"]
    (tmp_path / "examples").symlink_to(REPO / "examples")
    env_cache = ["--cache-dir", str(tmp_path / "cache")]

    def run(args: list[str]) -> CliResult:  # in-process; the review server is a process
        got = run_cli(*args, *env_cache, cwd=tmp_path)
        assert got.returncode == 0, (args, got.stderr)
        return got

    run(cmds[0])
    items = [json.loads(x) for x in (tmp_path / "runs/glossary/items.jsonl").read_text()
             .splitlines()]
    score = {(it["id"], p, t): it["scores"][i][j] for it in items
             for i, p in enumerate(it["pred"]) for j, t in enumerate(it["truth"])}
    server = start([*cmds[1][1:], *env_cache], tmp_path, process=True)  # relative paths
    try:
        pair = server.post("/api/next", {"reviewer": "ann"})["pair"]
        for _ in range(80):
            key = (pair["item_id"], pair["pred"], pair["truth"])
            pair = server.label("ann", pair, _label(key[1], key[2], score[key]))["pair"]
        page = server.call("GET", "/api/stats")[1]["estimate"]
    finally:
        server.stop()
    assert page["available"] and page["labels"] == 80
    run(cmds[2])
    cal = json.loads((tmp_path / "cal/calibration.json").read_text())
    entry = cal["judges"]["local"]
    # the same population (384 judged cells), strata and weights as the page: the same τ̂
    assert entry["stratified"]["population"] == 384
    assert entry["tau"] == pytest.approx(page["tau"], abs=1e-12)
    run(cmds[3])
    runs = sorted((tmp_path / "runs").iterdir())
    last = max(runs, key=lambda p: (p / "config.json").stat().st_mtime)
    config = json.loads((last / "config.json").read_text())
    assert config["tau"] == pytest.approx(entry["tau"], abs=1e-12)
    assert config["tau_from"]["sha256"] and not config["tau_from"].get("stale")


def test_loop_commands_are_the_readme_s() -> None:
    """The loop block names the files the other sections document."""
    cmds = _loop_commands()
    assert cmds[1][:3] == ["review", "runs/glossary", "--labels"]
    assert "--pool" in cmds[2] and "--tau-from" in cmds[3]
    assert shlex.join(cmds[0]).startswith("eval examples/glossary_en_zh.jsonl")
