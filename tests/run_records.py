"""Small run records built by hand (no judge, no CLI) for the tests of :mod:`judge.runs`.

The selection run has two items, τ 0.7, judged by ``lexical`` (scores chosen, not measured):

* ``a``: pred ["User Login", "Report"], gold ["user login", "Reports list"], scores
  [[1.0, 0.1], [0.2, 0.75]]: "User Login" = "user login" exactly (normalised-equal, 1.0, no
  verdict), Report ↔ Reports list judged 0.75 > τ → matched; TP 1.75, P = R = F1 = 0.875;
* ``b``: pred ["Audit"], gold ["Audit trail", "Budget"], scores [[0.65, null]] (the Budget
  verdict failed with a parse error): 0.65 ≤ τ → no match; TP 0, P = R = F1 = 0.

Dataset at τ 0.7: macro P = R = F1 = (0.875 + 0) / 2 = 0.4375; micro TP 1.75 over 3 predictions
and 4 gold strings → P 7/12, R 7/16, F1 = 2·(7/12)·(7/16) / (7/12 + 7/16) = 0.5.
"""

from __future__ import annotations

from typing import Any

from judge.record.runrecord import RunRecord
from judge.record.store import record_from_parts

LEXICAL = {"id": "lexical", "backend": "lexical", "method": "lexical@v1"}


def _verdict(pred: str, truth: str, score: float | None, outcome: str = "ok",
             **more: Any) -> dict[str, Any]:
    return {"pred": pred, "truth": truth, "score": score, "outcome": outcome,
            "judge_id": "lexical", "scorer": "lexical@v1",
            "rationale": f"lexical overlap {score}" if score is not None else "no number",
            "raw": "" if score is None else str(score), "cached": False, "latency_s": 0.0,
            **more}


def selection_items() -> list[dict[str, Any]]:
    """The two item rows (as :func:`judge.tasks.matching.match_row` writes them)."""
    return [
        {"id": "a", "source": "d.jsonl:1", "n_pred": 2, "n_truth": 2, "n_exact": 1,
         "tp_fuzzy": 1.75, "precision": 0.875, "recall": 0.875, "f1": 0.875,
         "matches": [{"pred_index": 0, "truth_index": 0, "pred": "User Login",
                      "truth": "user login", "score": 1.0, "exact": True, "judge_id": None},
                     {"pred_index": 1, "truth_index": 1, "pred": "Report",
                      "truth": "Reports list", "score": 0.75, "exact": False,
                      "judge_id": "lexical"}],
         "unmatched_pred": [], "unmatched_truth": [], "cells_without_verdict": 0,
         "pred": ["User Login", "Report"], "truth": ["user login", "Reports list"],
         "scores": [[1.0, 0.1], [0.2, 0.75]]},
        {"id": "b", "source": "d.jsonl:2", "n_pred": 1, "n_truth": 2, "n_exact": 0,
         "tp_fuzzy": 0.0, "precision": 0.0, "recall": 0.0, "f1": 0.0, "matches": [],
         "unmatched_pred": ["Audit"], "unmatched_truth": ["Audit trail", "Budget"],
         "cells_without_verdict": 1, "pred": ["Audit"], "truth": ["Audit trail", "Budget"],
         "scores": [[0.65, None]]},
    ]


def selection_verdicts() -> list[dict[str, Any]]:
    """The judged pairs' verdict rows (the exact pair has none)."""
    return [_verdict("User Login", "Reports list", 0.1), _verdict("Report", "user login", 0.2),
            _verdict("Report", "Reports list", 0.75), _verdict("Audit", "Audit trail", 0.65),
            _verdict("Audit", "Budget", None, "parse_error")]


SELECTION_METRICS = {"tau": 0.7, "n_items": 2, "macro_precision": 0.4375,
                     "macro_recall": 0.4375, "macro_f1": 0.4375, "micro_precision": 7 / 12,
                     "micro_recall": 7 / 16, "micro_f1": 0.5, "tp_fuzzy": 1.75, "n_exact": 1,
                     "n_pred": 3, "n_truth": 4}


def selection_record(**config: Any) -> RunRecord:
    """The selection run described in the module docstring (``config`` overrides entries of
    ``config.json``)."""
    cfg = {"created_at": "2026-01-01T00:00:00+00:00", "task": "selection", "tau": 0.7,
           "judge": LEXICAL, "data": {"path": "d.jsonl", "sha256": "0" * 64}, **config}
    summary = {"task": "selection", "n_items": 2, "metrics": SELECTION_METRICS,
               "outcomes": {"ok": 4, "parse_error": 1}}
    return record_from_parts(cfg, summary, selection_items(), selection_verdicts())


def judgment_record(correct: list[bool], run: str = "j") -> RunRecord:
    """A judgment run whose items ``q0, q1, …`` have gold true and a prediction that is right
    where ``correct`` says so (no judge, no verdicts)."""
    items = [{"id": f"q{k}", "source": f"j.jsonl:{k + 1}", "query": f"question {k}",
              "pred": ok, "truth": True, "correct": ok} for k, ok in enumerate(correct)]
    acc = sum(correct) / len(correct)
    return record_from_parts({"task": "judgment", "run": run},
                             {"task": "judgment", "n_items": len(items),
                              "metrics": {"accuracy": acc}}, items, [])
