"""Seed 002 worked examples for token, n-gram, weighted and multiple-choice precision."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics import (
    choice_precision,
    jieba_tokenize,
    ngram_precision,
    token_scores,
    weighted_precision,
)


def test_seed_example_1_exact_answer() -> None:
    tokens = ["人工智能", "是", "模拟", "人类", "智能", "的", "机器", "系统"]
    assert token_scores(tokens, [tokens]).precision == 1.0


def test_seed_example_2_extra_information_4_of_11() -> None:
    answer = "Python是一种高级编程语言，由Guido van Rossum创建"
    assert jieba_tokenize(answer) == ["Python", "是", "一种", "高级", "编程语言", "，", "由",
                                      "Guido", "van", "Rossum", "创建"]
    s = token_scores(answer, "Python是一种编程语言")
    assert s.precision == pytest.approx(4 / 11)
    assert s.recall == 1.0  # all 4 reference tokens are covered
    assert s.f1 == pytest.approx(2 * (4 / 11) / (4 / 11 + 1))


def test_seed_example_3_concise_answer() -> None:
    ref = ["深度学习", "是", "机器学习", "的", "一个", "子领域", "，", "使用", "神经网络"]
    ans = ["深度学习", "是", "机器学习", "子领域"]
    s = token_scores(ans, [ref])
    assert s.precision == 1.0
    assert s.recall == pytest.approx(4 / 9)


def test_seed_example_4_multi_reference_max() -> None:
    s = token_scores("Python是一种动态类型编程语言",
                     ["Python是一种高级编程语言", "Python是编程语言"])
    assert s.precision == pytest.approx(0.6667, abs=5e-5)  # max(4/6, 3/6)


def test_seed_section_10_test_cases_whitespace_tokens() -> None:
    # seed 002 §十 uses str.split(): a Chinese sentence without spaces is one token
    assert token_scores("Python是一种编程语言", ["Python是编程语言", "Python是一种高级编程语言"],
                        tokenizer="whitespace").precision == 0.0
    assert token_scores("今天天气很好", ["Python是编程语言"]).precision == 0.0


def test_metrics_are_maximised_separately_over_references() -> None:
    # ref A gives precision 1 (recall 1/4); ref B gives recall 1 (precision 1/2)
    s = token_scores(["a", "b"], [["a", "b", "c", "d"], ["a"]])
    assert s.precision == 1.0
    assert s.recall == 1.0


def test_edge_cases() -> None:
    assert token_scores("", ["Python是编程语言"]).precision == 0.0  # 边界情况1
    # 边界情况3: Counter intersection clips "Python" to its single reference occurrence → 1/3
    assert token_scores("Python Python Python", "Python是编程语言",
                        tokenizer="jieba").precision == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="references"):
        token_scores("a", [])
    with pytest.raises(ValueError, match="tokenizer"):
        token_scores("a", "a", tokenizer="nope")
    with pytest.raises(ValueError, match=r"answer\[1\]"):
        token_scores(["a", 1], "a")  # type: ignore[list-item]


def test_precision_recall_tradeoff_examples() -> None:
    ref = [f"w{i}" for i in range(10)]  # 10 reference words
    s = token_scores(["w0", "w1"], [ref])
    assert (s.precision, s.recall) == (1.0, 0.2)
    s = token_scores([*ref, "x", "y"], [ref])
    assert s.precision == pytest.approx(10 / 12) and s.recall == 1.0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from("abcde"), max_size=12),
       st.lists(st.lists(st.sampled_from("abcdef"), max_size=12), min_size=1, max_size=3))
def test_token_scores_match_squad_reference(ans: list[str], refs: list[list[str]]) -> None:
    def squad(a: list[str], r: list[str]) -> tuple[float, float, float]:
        same = sum((Counter(a) & Counter(r)).values())
        if not a or not r or same == 0:
            return 0.0, 0.0, 0.0
        p, rec = same / len(a), same / len(r)
        return p, rec, 2 * p * rec / (p + rec)

    s = token_scores(ans, refs)
    expect = [squad(ans, r) for r in refs]
    assert s.precision == pytest.approx(max(e[0] for e in expect))
    assert s.recall == pytest.approx(max(e[1] for e in expect))
    assert s.f1 == pytest.approx(max(e[2] for e in expect))


def test_ngram_precision_seed_example() -> None:
    answer = ["Python", "是", "一种", "编程", "语言"]
    reference = [["Python", "是", "高级", "编程", "语言"]]
    assert ngram_precision(answer, reference, n=1) == pytest.approx(4 / 5)
    assert ngram_precision(answer, reference, n=2) == pytest.approx(2 / 4)
    # clipping: answer bigram ("a","a") twice, reference once
    assert ngram_precision(["a", "a", "a"], [["a", "a"]], n=2) == 0.5
    assert ngram_precision(["a", "a", "a"], [["a", "a"]], n=2, clip=False) == 1.0
    assert ngram_precision(["a"], [["a"]], n=2) == 0.0
    with pytest.raises(ValueError, match="n-gram order"):
        ngram_precision("a", "a", n=0)


def test_weighted_precision_seed_weights() -> None:
    weights = {"Python": 2.0, "编程语言": 1.5, "是": 0.5, "一种": 0.5}
    answer = ["Python", "是", "一种", "高级", "编程语言"]
    reference = [["Python", "是", "编程语言"]]
    # correct: Python 2 + 是 0.5 + 编程语言 1.5 = 4; total = 4 + 一种 0.5 + 高级 1.0 = 5.5
    assert weighted_precision(answer, reference, weights) == pytest.approx(4 / 5.5)
    assert weighted_precision([], reference, weights) == 0.0
    with pytest.raises(ValueError, match="weights"):
        weighted_precision(answer, reference, {"Python": -1.0})


def test_choice_precision_seed_cases() -> None:
    correct = [1, 0, 1, 0]
    assert choice_precision([1, 0, 1, 0], correct) == 1.0
    assert choice_precision([1, 1, 1, 0], correct) == pytest.approx(0.6667, abs=5e-5)
    assert choice_precision([1, 0, 0, 0], correct) == 1.0
    assert choice_precision([0, 0, 0, 0], correct) == 0.0
    assert choice_precision([0, 0, 0, 0], correct, zero_division=1.0) == 1.0
    with pytest.raises(ValueError, match=r"selected\[2\]"):
        choice_precision([1, 0, 2, 0], correct)
    with pytest.raises(ValueError, match="same length"):
        choice_precision([1, 0], correct)
