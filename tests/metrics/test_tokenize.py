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
