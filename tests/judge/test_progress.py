"""The progress bar counts pairs end to end: the judging row's total is the run's distinct
non-exact pairs and it reaches that total whatever the judge (embedding strings map onto pairs,
a batch-scorer request advances by the pairs it holds), then a matching row per item and a
writing row; the terminal bar shows an ETA and the live USD."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from judge.cache import JudgeCache
from judge.judges.embedding.local import LocalJudge
from judge.judges.options import JudgeOptions
from judge.judges.registry import parse_judge_spec
from judge.pipeline.evaluate import run_evaluation
from judge.tasks.registry import get_task
from tests.fake_openai import FakeOpenAIServer

ITEMS = [
    {"id": "1", "pred": ["Job Information", "Login"], "truth": ["职位信息", "login"]},
    {"id": "2", "pred": ["Alpha"], "truth": ["apple", "Alpha"]},
    {"id": "3", "pred": ["Job Information"], "truth": ["职位信息"]},
]
# distinct non-exact pairs by hand: (Job Information, 职位信息), (Job Information, login),
# (Login, 职位信息), (Alpha, apple) — Login/login and Alpha/Alpha are exact after
# normalisation, item 3 repeats a pair of item 1
PAIRS = 4


class Recorder:
    """A progress factory that records each row's total and advances."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []

    def __call__(self, total: int, stats: Any, phase: str | None = None) -> Any:
        row = {"phase": phase or "judging", "total": total, "done": 0}
        self.rows.append(row)

        def advance(n: int) -> None:
            row["done"] += n

        return advance


def _run(judge: Any, tmp_path: Path) -> Recorder:
    rec = Recorder()
    task = get_task("selection")
    run_evaluation(task.from_dicts(ITEMS), task, judge, cache=JudgeCache(tmp_path / "c"),
                   progress_factory=rec, bootstrap=0)
    return rec


def test_local_judge_counts_pairs_not_strings(tmp_path: Path) -> None:
    rec = _run(LocalJudge(), tmp_path)
    assert rec.rows == [{"phase": "judging", "total": PAIRS, "done": PAIRS},
                        {"phase": "matching", "total": 3, "done": 3}]
    # a second run: every string from the cache, still counted in pairs
    assert _run(LocalJudge(), tmp_path).rows[0] == {"phase": "judging", "total": PAIRS,
                                                    "done": PAIRS}


@pytest.mark.parametrize("scorer", ["entity_similarity@v1", "entity_similarity_batch@v1"])
def test_llm_judge_counts_pairs(tmp_path: Path, scorer: str) -> None:
    with FakeOpenAIServer() as srv:
        judge = parse_judge_spec("openai:fake-model",
                                 JudgeOptions(base_url=srv.base_url, scorer=scorer))
        rec = _run(judge, tmp_path)
    assert rec.rows[0] == {"phase": "judging", "total": PAIRS, "done": PAIRS}


def test_terminal_bar_shows_eta_and_usd(monkeypatch: pytest.MonkeyPatch) -> None:
    from judge.cli import common
    from judge.judges.base import JudgeStats

    buf = io.StringIO()
    monkeypatch.setattr(common, "err", Console(file=buf, width=160, force_terminal=True))
    stats = JudgeStats(judge_calls=3, cost_usd=0.0123)
    with common.progress() as factory:
        advance = factory(10, stats)
        advance(4)
        factory(2, None, "matching")(2)
    text = buf.getvalue()
    assert "judging" in text and "4/10" in text and "ETA" in text and "$0.0123" in text
    assert "matching" in text
