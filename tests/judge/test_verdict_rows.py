"""``Verdict.to_row`` is ``Verdict.model_dump`` (the verdict log's fast path, judge/matrix.py)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from judge.verdict import RAW_MAX_CHARS, Verdict

COMMON: dict[str, Any] = {"pred": "职位信息", "truth": "Job Information", "judge_id": "local",
                          "scorer": "usem3-cosine@v2"}


@pytest.mark.parametrize("fields", [
    {"score": 0.9, "rationale": "cosine 0.91", "raw": '{"cosine": 0.91}', "latency_s": 0.002},
    {"score": 0.0, "cached": True, "cache_key": "a+b"},
    {"outcome": "parse_error", "raw": "<html>" + "x" * (RAW_MAX_CHARS + 5)},  # raw cut
    {"outcome": "refused", "rationale": "policy"},
    {"score": 4 / 9, "distribution": {"3": 0.5, "5": 0.5}, "output_mode": "json_schema",
     "tokens_in": 12, "tokens_out": 3, "cost_usd": 1e-5},
    {"score": 1.0, "logprob_fallback": True, "distribution": None},
])
def test_to_row_equals_model_dump_for_every_kind_of_verdict(fields: dict[str, Any]) -> None:
    v = Verdict(**COMMON, **fields)
    row = v.to_row()
    assert row == v.model_dump()
    assert list(row) == list(v.model_dump())  # the same key order: the same JSON line
    # present exactly when set (model_serializer): a distribution, a fallback
    assert ("distribution" in row) == (fields.get("distribution") is not None)
    assert ("logprob_fallback" in row) == bool(fields.get("logprob_fallback"))


def test_to_row_is_a_new_dict_whose_distribution_is_a_copy() -> None:
    v = Verdict(**COMMON, score=0.5, distribution={"4": 1.0})
    row = v.to_row()
    row["distribution"]["4"] = 0.0
    row["score"] = 0.0
    assert v.distribution == {"4": 1.0} and v.score == 0.5


@given(score=st.floats(0, 1), latency=st.floats(0, 1e6), cached=st.booleans(),
       text=st.text(max_size=20))
def test_to_row_equals_model_dump_on_any_ok_verdict(score: float, latency: float,
                                                    cached: bool, text: str) -> None:
    v = Verdict(**COMMON, score=score, latency_s=latency, cached=cached, rationale=text,
                raw=text)
    assert v.to_row() == v.model_dump()
