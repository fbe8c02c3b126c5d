"""The jieba tokenizer's path without the dictionary (issue 34: jieba's dictionary, ~0.8 s to
load, only for a string that needs it) gives jieba's own tokens, checked against ``jieba.cut``
itself on generated strings."""

from __future__ import annotations

import re
from pathlib import Path

import jieba
import jieba.finalseg
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics import tokenize as tk

# what a text of an English, a European or a Japanese UI holds, and the characters jieba's
# patterns treat specially: its block characters, CJK just outside its Chinese range
# (U+9FD6, U+3400 extension A), kana, and whitespace of every kind
ALPHABET = ("abcXYZ019+#&._%-" + " \t\r\n\u3000\xa0" + "éßЖ" + "かカ" + "\u9fd6\u3400"
            + ",;:!?()[]'\"/@$" + "🙂")


def _jieba(text: str) -> list[str]:
    return [t for t in jieba.cut(text) if t.strip()]


def test_the_patterns_are_jiebas_own() -> None:
    assert tk._JIEBA_BLOCK.pattern == jieba.re_han_default.pattern
    assert tk._FINALSEG_SKIP.pattern == jieba.finalseg.re_skip.pattern
    assert "(" + tk._JIEBA_HAN.pattern + "+)" == jieba.finalseg.re_han.pattern


def test_the_non_chinese_dictionary_words_are_the_dictionarys() -> None:
    """Read jieba's dict.txt: its words without a Chinese character are the five listed (a new
    jieba with another one would make the dictionary-free path wrong)."""
    han = re.compile("[\u4e00-\u9fd5]")
    words = [line.split(" ")[0] for line in
             (Path(jieba.__file__).parent / "dict.txt").read_text(encoding="utf-8").splitlines()]
    assert sorted(w for w in words if not han.search(w)) == sorted(tk.JIEBA_DICT_NON_CJK)


@settings(max_examples=1500, deadline=None)
@given(st.text(alphabet=ALPHABET, max_size=40))
def test_without_the_dictionary_the_tokens_are_jiebas(text: str) -> None:
    if tk._needs_jieba_dictionary(text):  # e.g. "c++": the dictionary's path
        return
    assert tk._cut_without_dictionary(text) == _jieba(text)


def test_hand_picked_strings() -> None:
    # by hand: a decimal and a percent stay whole ("v3.11", "50%"), other block characters
    # between letter runs are their own runs ("--", "_", "."), punctuation outside blocks is
    # one token a character
    text = "Guido van Rossum, v3.11 is 50% faster -- a_b.c (ok)"
    assert tk._cut_without_dictionary(text) == [
        "Guido", "van", "Rossum", ",", "v3.11", "is", "50%", "faster", "--", "a", "_", "b", ".",
        "c", "(", "ok", ")"]
    assert tk._cut_without_dictionary(text) == _jieba(text)
    for needs in ("C++ code", "AT&T", "职位信息", "c#"):
        assert tk._needs_jieba_dictionary(needs)
    assert not tk._needs_jieba_dictionary("Job Information \u9fd6")


def test_the_tokenizer_takes_the_path_the_text_needs() -> None:
    tk._jieba_cached.cache_clear()
    assert tk.jieba_tokenize("use C++ and AT&T") == _jieba("use C++ and AT&T") == [
        "use", "C++", "and", "AT&T"]  # dictionary words, whole (by the dictionary)
    assert tk.jieba_tokenize("职位信息 Job") == ["职位", "信息", "Job"]


@settings(max_examples=800, deadline=None)
@given(st.text(alphabet=ALPHABET + "职位信息设置开关灯C", max_size=16),
       st.text(alphabet=ALPHABET + "职位信息设置开关灯C", max_size=16))
def test_disjoint_only_when_jiebas_tokens_share_none(a: str, b: str) -> None:
    """jieba_disjoint(a, b) is True only when jieba's own segmentations of a and b (with its
    dictionary) have no token in common."""
    if tk.jieba_disjoint(a, b):
        assert not set(_jieba(a)) & set(_jieba(b)), (a, b)


def test_disjoint_hand_picked() -> None:
    # by hand: "job"/"information" occur nowhere in the Chinese term; "API" occurs in
    # "API设置", where jieba makes it a token; "c++" is a dictionary word, "设置" is Chinese:
    # both sides need the dictionary, so the answer is "may share"
    assert tk.jieba_disjoint("Job Information", "职位信息")
    assert tk.jieba_disjoint("职位信息", "Job Information")
    assert not tk.jieba_disjoint("API settings", "API设置")
    assert "API" in _jieba("API设置")
    assert not tk.jieba_disjoint("c++设置", "c++")
    assert not tk.jieba_disjoint("职位信息", "信息")


def test_lexical_judge_on_the_glossary_needs_no_dictionary(monkeypatch) -> None:
    """Every pair of examples/glossary_en_zh.jsonl (Chinese pred, English gold) has token F1 0
    without jieba's dictionary, as jieba's own tokens give it."""
    import json

    from judge.judges.lexical import token_f1
    from metrics import token_scores

    rows = [json.loads(x) for x in (Path(__file__).parents[2] / "examples" /
                                    "glossary_en_zh.jsonl").read_text("utf-8").splitlines()]
    pairs = [(p, t) for r in rows for p in r["pred"] for t in r["truth"]]
    assert len(pairs) == 384  # 381 distinct
    expected = [token_scores(p.casefold(), t.casefold(), tokenizer="jieba").f1 for p, t in pairs]
    tk._jieba_cached.cache_clear()

    def no_dictionary() -> None:
        raise AssertionError("jieba's dictionary was asked for")

    monkeypatch.setattr(tk, "_jieba", no_dictionary)
    assert [token_f1(p, t) for p, t in pairs] == expected == [0.0] * 384
