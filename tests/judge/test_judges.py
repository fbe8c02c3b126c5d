"""The local, lexical and table judges."""

from __future__ import annotations

import asyncio
import itertools
import json
import math

import numpy as np
import pytest

from judge.cache import JudgeCache
from judge.errors import InputError
from judge.judges.base import JudgeContext
from judge.judges.embedding.local import LocalJudge, is_cross_lingual, load_calibration
from judge.judges.lexical import LexicalJudge, char_dice, token_f1
from judge.judges.registry import parse_judge_spec
from judge.judges.table import TableJudge
from tests.conftest import REPO


def _ctx(tmp_path, mode: str = "read-write") -> JudgeContext:  # type: ignore[no-untyped-def]
    return JudgeContext(cache=JudgeCache(tmp_path / "cache", mode))


# ------------------------------------------------------------------------------ lexical

def test_lexical_by_hand(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # "userlogin" vs "userlogout": bigrams us se er rl lo og gi in (8) vs
    # us se er rl lo og go ou ut (9); common 6 → Dice 12/17
    assert char_dice("User Login", "User Logout") == pytest.approx(12 / 17)
    # jieba tokens: [user, login] vs [user, logout] → one common token: P = R = F1 = 1/2
    assert token_f1("User Login", "User Logout") == pytest.approx(0.5)
    v = asyncio.run(LexicalJudge().judge_pairs([("User Login", "User Logout"),
                                                ("Job Information", "职位信息")], _ctx(tmp_path)))
    assert v[0].score == pytest.approx((12 / 17 + 0.5) / 2)
    assert v[1].score == 0.0 and v[1].outcome == "ok"
    assert "Dice" in v[0].rationale


# -------------------------------------------------------------------------------- table

def test_table_jsonl_and_missing_pairs(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"pred": "职位信息", "truth": "Job Information", "score": 0.9,
                                "rationale": "same"}, ensure_ascii=False) + "\n")
    j = TableJudge(path)
    out = asyncio.run(j.judge_pairs([("职位信息", "JOB INFORMATION"), ("a", "b")], _ctx(tmp_path)))
    assert out[0] is not None and out[0].score == 0.9 and out[0].rationale == "same"
    assert out[1] is None  # missing → no verdict, never 0
    assert j.describe()["pairs"] == 1


def test_table_csv(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "t.csv"
    path.write_text("pred,truth,score\nopen,打开,1\nclose,打开,0.1\n", encoding="utf-8")
    out = asyncio.run(TableJudge(path).judge_pairs([("close", "打开")], _ctx(tmp_path)))
    assert out[0] is not None and out[0].score == pytest.approx(0.1)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"pred": "a", "truth": "b", "score": 1.2}\n', r"t.jsonl:1: field 'score': score 1.2 is "
                                                       r"outside \[0, 1\]"),
        ('{"pred": "a", "truth": "b", "score": 0.5}\n{"pred": "a", "truth": "b"}\n',
         r"t.jsonl:2: field 'score': missing"),
        ('{"pred": "a", "truth": "b", "score": "high"}\n', r"t.jsonl:1: field 'score': expected a"),
        ('{"pred": "a", "truth": 3, "score": 0.5}\n', r"t.jsonl:1: field 'truth': expected a str"),
        ('{"pred": "a", "truth": "b", "score": 0.5}\n{"pred": "A", "truth": "b", "score": 0.6}\n',
         r"t.jsonl:2: field 'score': pair listed again"),
        ('{"pred": "a", "truth": "b", "score": 0.5\n', r"t.jsonl:1: malformed JSON"),
    ],
)
def test_table_bad_rows(tmp_path, content: str, message: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "t.jsonl"
    path.write_text(content)
    with pytest.raises(InputError, match=message):
        TableJudge(path)


def test_spec_parsing(tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert parse_judge_spec("lexical").id == "lexical"
    assert parse_judge_spec("local").id == "local"
    with pytest.raises(InputError, match="unknown judge spec 'gpt'"):
        parse_judge_spec("gpt")
    with pytest.raises(InputError, match="needs a file path"):
        parse_judge_spec("table:")
    with pytest.raises(InputError, match="cannot read file"):
        parse_judge_spec(f"table:{tmp_path / 'absent.jsonl'}")


# -------------------------------------------------------------------------------- local

def test_calibration_record() -> None:
    cal = load_calibration()
    assert cal["script"] == "scripts/fit_local_judge.py"
    assert (REPO / cal["script"]).exists()
    assert cal["created"] and set(cal["data"]) >= {"multisimlex_en_zh/derived_en_zh_pairs.tsv"}
    for setting in ("cross-lingual", "same-language"):
        p = cal["settings"][setting]
        assert 0.0 < p["centre"] < 1.0 and p["slope"] > 0
        assert p["train"]["auc"] > 0.8


def test_mapping_is_monotone_and_centre_maps_to_tau() -> None:
    j = LocalJudge()
    cal = j.calibration
    assert cal is not None
    for xl, setting in ((True, "cross-lingual"), (False, "same-language")):
        centre = cal["settings"][setting]["centre"]
        assert j.map_score(centre, xl) == pytest.approx(0.7)
        grid = [j.map_score(c, xl) for c in np.linspace(-1, 1, 201)]
        assert all(b > a for a, b in itertools.pairwise(grid))
        assert grid[0] > 0.0 and grid[-1] < 1.0
    assert is_cross_lingual("Job Information", "职位信息")
    assert not is_cross_lingual("开灯", "关灯") and not is_cross_lingual("a", "b")


def test_measured_limits_quoted_in_readme() -> None:
    j = LocalJudge()
    c = j.raw_cosines([("User Login", "User Logout"), ("开灯", "关灯"),
                       ("Screen Security", "界面权限控制"), ("Job Information", "职位信息")])
    assert c.tolist() == pytest.approx([0.88, 0.80, 0.29, 0.83], abs=0.01)


def test_matrix_is_dot_products_and_cache_avoids_recalls(tmp_path) -> None:  # type: ignore[no-untyped-def]
    j = LocalJudge()
    pairs = [("职位信息", "Job Information"), ("职位信息", "Suspended job"),
             ("员工", "Job Information")]
    ctx = _ctx(tmp_path)
    first = asyncio.run(j.judge_pairs(pairs, ctx))
    assert ctx.stats.judge_calls == 4 and ctx.stats.cache_hits == 0  # 4 distinct strings
    emb = j.embed(["职位信息", "Job Information"])
    cos = float(emb[0].astype(np.float64) @ emb[1].astype(np.float64))
    v = first[0]
    assert v is not None and json.loads(v.raw)["cosine"] == pytest.approx(cos, abs=1e-6)
    assert v.score == pytest.approx(j.map_score(cos, True), abs=1e-6)
    assert "cross-lingual pair" in v.rationale and "no reasoning model" in v.rationale
    ctx2 = _ctx(tmp_path)
    second = asyncio.run(LocalJudge().judge_pairs(pairs, ctx2))
    assert ctx2.stats.judge_calls == 0 and ctx2.stats.cache_hits == 4
    assert [s.score for s in second if s] == pytest.approx([f.score for f in first if f])
    assert all(s is not None and s.cached for s in second)


def test_raw_mode_clips_to_unit_interval() -> None:
    j = LocalJudge(calibration=None)
    assert j.map_score(-0.2, True) == 0.0 and j.map_score(0.5, False) == 0.5
    assert not math.isnan(j.map_score(1.0, True))


def test_table_item_scoped_rows_win(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "t.jsonl"
    path.write_text(
        '{"pred": "a", "truth": "b", "score": 0.5}\n'
        '{"id": "item-2", "pred": "a", "truth": "b", "score": 0.85}\n'
        '{"id": 7, "pred": "a", "truth": "b", "score": 0.9}\n')
    j = TableJudge(path)
    assert j.item_scoped and j.describe()["item_scoped"]
    ctx = _ctx(tmp_path)
    scores = []
    for item in (None, "item-1", "item-2", "7"):
        ctx.item_id = item
        v = asyncio.run(j.judge_pairs([("a", "b")], ctx))[0]
        scores.append(v.score if v else None)
    assert scores == [0.5, 0.5, 0.85, 0.9]
