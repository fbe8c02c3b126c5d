"""Judge backends and judge-spec parsing."""

from __future__ import annotations

from judge.errors import InputError
from judge.judges.base import Judge, JudgeContext, JudgeStats, Pair
from judge.judges.lexical import LexicalJudge
from judge.judges.local import LocalJudge
from judge.judges.table import TableJudge, table_judge_from_spec

__all__ = ["Judge", "JudgeContext", "JudgeStats", "LexicalJudge", "LocalJudge", "Pair",
           "TableJudge", "parse_judge_spec"]

SPECS = ("local", "lexical", "table:PATH")


def parse_judge_spec(spec: str) -> Judge:
    """Build a judge from its spec string.

    Args:
        spec: ``local`` (embedded multilingual USE), ``lexical`` (surface overlap) or
            ``table:PATH`` (scores from a JSONL/CSV/TSV file).

    Raises:
        InputError: an unknown spec, or a bad table file (file and line named).
    """
    if spec == "local":
        return LocalJudge()
    if spec == "lexical":
        return LexicalJudge()
    if spec.startswith("table:"):
        return table_judge_from_spec(spec)
    raise InputError(f"unknown judge spec {spec!r}; expected one of: {', '.join(SPECS)}",
                     field="judge")
