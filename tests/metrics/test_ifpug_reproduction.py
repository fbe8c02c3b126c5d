"""The IFPUG study's own judge scores through fuzzy_match reproduce its evaluator's numbers.

Reads ../shared/data/ifpug/ilf_runs.jsonl (skipped when absent). For each ilf_selection row,
the similarity matrix holds the study's LLM-judge scores from ``semantic_matches``
("pred <-> gold (score)") and 0 elsewhere; precision, recall, f1_score and exact_matches must
equal the upstream values to 1e-9.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from metrics import fuzzy_match
from tests.conftest import shared_file

_MATCH = re.compile(r"^(?P<pred>.*) <-> (?P<truth>.*) \((?P<score>[0-9.]+)\)$")


def _rows() -> list[dict]:
    path = shared_file("ifpug/ilf_runs.jsonl")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [r for r in rows if r["task"] == "ilf_selection"]


def _matrix(row: dict) -> np.ndarray:
    pred, truth = row["final_answer"], row["ground_truth"]
    sim = np.zeros((len(pred), len(truth)))
    for text in row["evaluation_metrics"]["semantic_matches"]:
        m = _MATCH.match(text)
        assert m, text
        for i, p in enumerate(pred):
            for j, t in enumerate(truth):
                if p == m["pred"] and t == m["truth"]:
                    sim[i, j] = float(m["score"])
    return sim


def test_every_selection_row_reproduces_upstream() -> None:
    rows = _rows()
    assert len(rows) == 96
    n_semantic = 0
    for row in rows:
        up = row["evaluation_metrics"]
        r = fuzzy_match(row["final_answer"], row["ground_truth"], _matrix(row), tau=0.7)
        where = f"{row['run']} doc {row['doc_id']}"
        assert r.precision == pytest.approx(up["precision"], abs=1e-9), where
        assert r.recall == pytest.approx(up["recall"], abs=1e-9), where
        assert r.f1 == pytest.approx(up["f1_score"], abs=1e-9), where
        assert r.n_exact == up["exact_matches"], where
        assert r.tp_fuzzy - r.n_exact == pytest.approx(up["fuzzy_score"], abs=1e-9), where
        n_semantic += len(r.semantic_matches)
    assert n_semantic > 0  # the file does exercise the semantic path
