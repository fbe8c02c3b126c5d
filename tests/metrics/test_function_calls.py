"""Seed 003: score_fn semantics, fc_score on the 11-item set, ROUGE/BLEU vs rouge-score/nltk."""

from __future__ import annotations

import json
import warnings

import jieba
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu
from rouge_score import rouge_scorer

from metrics import (
    FC_KEYS,
    fc_score,
    fc_score_items,
    fns2str,
    jieba_tokenize,
    rouge_bleu,
    score_function_calls,
)
from tests.conftest import EXAMPLES


def _seed_items() -> list[dict]:
    path = EXAMPLES / "seed003_home_automation.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_seed_set_strict() -> None:
    res = fc_score(_seed_items())
    assert list(res) == list(FC_KEYS)
    assert res["eval_size"] == 11
    assert res["fn_acc_name"] == 1.0
    assert res["fn_acc_all"] == 0.72727  # 8/11: items 3 (22≠23), 5 (开启≠打开), 11 fail
    for key in ("rouge-1", "rouge-2", "rouge-l", "bleu-4"):
        assert 0.9 < res[key] < 1.0


def test_seed_set_per_item_and_partial() -> None:
    items = _seed_items()
    per = fc_score_items(items)
    assert [r["fn_acc_all"] for r in per] == [1, 1, 0, 1, 0, 1, 1, 1, 1, 1, 0]
    # partial credit: each failing item has 1 of 2 arguments right → 0.5
    part = fc_score(items, partial=True, round_digits=None)
    assert part["fn_acc_all"] == pytest.approx((8 + 3 * 0.5) / 11)


def _ascii_ids(ref: list[str], hyp: list[str]) -> tuple[str, str]:
    """Map each token to an ASCII id ("t0 t1 ...") so rouge-score's own default tokenizer keeps
    every token intact: an independent path to the same ROUGE numbers."""
    vocab: dict[str, str] = {}
    def ids(toks: list[str]) -> str:
        return " ".join(vocab.setdefault(t, f"t{len(vocab)}") for t in toks)
    return ids(ref), ids(hyp)


def test_seed_set_overlap_equals_reference_libraries() -> None:
    """Each item's ROUGE/BLEU equals rouge-score and nltk called directly on jieba tokens."""
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
    for item, got in zip(_seed_items(), fc_score_items(_seed_items()), strict=True):
        gold, pred = fns2str(item["gold_fn"]), fns2str(item["pred_fn"])
        ref = [t for t in jieba.cut(gold) if t.strip()]
        hyp = [t for t in jieba.cut(pred) if t.strip()]
        r = scorer.score(*_ascii_ids(ref, hyp))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            bleu = sentence_bleu([ref], hyp, smoothing_function=SmoothingFunction().method3)
        assert got["rouge-1"] == pytest.approx(r["rouge1"].fmeasure, abs=1e-12)
        assert got["rouge-2"] == pytest.approx(r["rouge2"].fmeasure, abs=1e-12)
        assert got["rouge-l"] == pytest.approx(r["rougeL"].fmeasure, abs=1e-12)
        assert got["bleu-4"] == pytest.approx(bleu, abs=1e-12)


def test_chinese_is_not_deleted() -> None:
    # rouge-score's default tokenizer would drop every Chinese character and score 0 here
    s = rouge_bleu("打开客厅的灯", "打开客厅的灯")
    assert s == {"rouge-1": 1.0, "rouge-2": 1.0, "rouge-l": 1.0, "bleu-4": pytest.approx(1.0)}
    assert rouge_bleu("", "打开")["rouge-1"] == 0.0


words = st.sampled_from(["打开", "关闭", "客厅", "卧室", "灯", "空调", "的", "温度", "22", "度"])


@settings(max_examples=150, deadline=None)
@given(st.lists(words, min_size=1, max_size=12), st.lists(words, min_size=1, max_size=12))
def test_rouge_bleu_agree_with_libraries(ref_words: list[str], hyp_words: list[str]) -> None:
    gold, pred = "".join(ref_words), "".join(hyp_words)
    ref, hyp = jieba_tokenize(gold), jieba_tokenize(pred)
    r = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"]).score(*_ascii_ids(ref, hyp))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bleu = sentence_bleu([ref], hyp, smoothing_function=SmoothingFunction().method3)
    got = rouge_bleu(gold, pred)
    assert got["rouge-1"] == pytest.approx(r["rouge1"].fmeasure, abs=1e-12)
    assert got["rouge-2"] == pytest.approx(r["rouge2"].fmeasure, abs=1e-12)
    assert got["rouge-l"] == pytest.approx(r["rougeL"].fmeasure, abs=1e-12)
    assert got["bleu-4"] == pytest.approx(bleu, abs=1e-12)


def test_score_fn_rules() -> None:
    a = {"name": "f", "arguments": {"x": 1}}
    b = {"name": "g", "arguments": {"y": "2"}}
    assert score_function_calls([], []) == (1.0, 1.0)
    assert score_function_calls([a], []) == (0.0, 0.0)
    assert score_function_calls([a, b], [a]) == (0.0, 0.0)
    assert score_function_calls([a, b], [b, a]) == (1.0, 1.0)  # order-free via sorting
    assert score_function_calls([a], [{"name": "f", "arguments": {"x": "1"}}]) == (1.0, 0.0)
    assert score_function_calls([a], [{"name": "h", "arguments": {"x": 1}}]) == (0.0, 0.0)
    # two calls, one wrong argument → 0.5
    assert score_function_calls([a, b], [a, {"name": "g", "arguments": {"y": "3"}}]) == (1.0, 0.5)
    # custom argument scorer
    assert score_function_calls([a], [b | {"name": "f"}], arg_scorer=lambda g, p: 0.25) == (
        1.0, 0.25)
    # missing "arguments" is an empty dict, as in the seed's .get("arguments", {})
    assert score_function_calls([{"name": "f"}], [{"name": "f", "arguments": {}}]) == (1.0, 1.0)


@pytest.mark.parametrize(
    ("pred", "message"),
    [
        ([{"arguments": {}}], r"pred\[0\]: field 'name'"),
        ([{"name": "f", "arguments": [1]}], r"pred\[0\]: field 'arguments'"),
        (["f()"], r"pred\[0\]: expected a call object"),
        ("f()", "expected a list of calls"),
        ([{"name": "f", "arguments": {"x": {1, 2}}}], "JSON-serialisable"),
    ],
)
def test_bad_calls(pred: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        score_function_calls([{"name": "f"}], pred)  # type: ignore[arg-type]


def test_fc_score_bad_input() -> None:
    with pytest.raises(ValueError, match="empty"):
        fc_score([])
    with pytest.raises(ValueError, match=r"items\[1\].gold_fn\[0\]"):
        fc_score([{"gold_fn": [], "pred_fn": []}, {"gold_fn": [{"nam": "x"}], "pred_fn": []}])


@settings(max_examples=100, deadline=None)
@given(st.lists(words, min_size=1, max_size=12))
def test_identical_texts_shortcut_equals_libraries(ws: list[str]) -> None:
    text = "".join(ws)
    toks = jieba_tokenize(text)
    vocab: dict[str, str] = {}
    ids = " ".join(vocab.setdefault(t, f"t{len(vocab)}") for t in toks)
    r = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"]).score(ids, ids)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bleu = sentence_bleu([toks], toks, smoothing_function=SmoothingFunction().method3)
    got = rouge_bleu(text, text)
    assert got["rouge-1"] == r["rouge1"].fmeasure
    assert got["rouge-2"] == r["rouge2"].fmeasure
    assert got["rouge-l"] == r["rougeL"].fmeasure
    assert got["bleu-4"] == bleu
