"""ROUGE, BLEU and token F1 with every tokenizer, item by item, against the reference tools:
rouge-score (``RougeScorer``, ``score_multi``), nltk (``sentence_bleu``, ``method3``), sacrebleu
(``corpus_bleu``) and the SQuAD v1.1 evaluation script.

Each reference gets its tokens from the tokenizer's own library (jieba, rouge-score's default,
sacrebleu's ``13a`` and ``zh``) or from code written out here (whitespace, characters, SQuAD's
``normalize_answer``), never from :mod:`metrics.tokenize`. Data: the English and PAWS-X
Chinese fixtures (``tests/fixtures/generation``), the shipped short answers, and 300 pairs of
``../shared/data/pawsx_zh`` (skipped without it)."""

from __future__ import annotations

import csv
import json
import re
import string
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import jieba
import pytest
import sacrebleu
from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu
from rouge_score import rouge_scorer
from rouge_score.tokenizers import DefaultTokenizer
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

from metrics import RougeBleu, token_scores
from metrics.corpus_bleu import bleu_statistics, corpus_bleu
from metrics.tokenize import TOKENIZER_NAMES, get_tokenizer
from tests.conftest import EXAMPLES, REPO, shared_file

FIXTURES = REPO / "tests" / "fixtures" / "generation"
Pair = tuple[str, list[str]]


def _squad_normalize(s: str) -> str:
    """SQuAD v1.1 ``evaluate-v1.1.py``'s ``normalize_answer``, as written there."""
    def remove_articles(text: str) -> str:
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text: str) -> str:
        return " ".join(text.split())

    def remove_punc(text: str) -> str:
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    return white_space_fix(remove_articles(remove_punc(s.lower())))


def _squad_f1(prediction: str, ground_truth: str) -> float:
    """SQuAD v1.1 ``f1_score``, as written there."""
    prediction_tokens = _squad_normalize(prediction).split()
    ground_truth_tokens = _squad_normalize(ground_truth).split()
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0.0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    return (2 * precision * recall) / (precision + recall)


_13A, _ZH, _ROUGE = Tokenizer13a(), TokenizerZh(), DefaultTokenizer(use_stemmer=False)
REFERENCE_TOKENIZERS: dict[str, Callable[[str], list[str]]] = {
    "jieba": lambda s: [t for t in jieba.cut(s) if t.strip()],
    "whitespace": lambda s: s.split(),
    "char": lambda s: [c for c in s if not c.isspace()],
    "rouge-score": lambda s: list(_ROUGE.tokenize(s)),
    "sacrebleu-13a": lambda s: _13A(s.rstrip()).split(),
    "sacrebleu-zh": lambda s: _ZH(s.rstrip()).split(),
    "squad": lambda s: _squad_normalize(s).split(),
}
"""Each tokenizer as its own library (or the text defining it) splits a text."""
SACREBLEU_TOKENIZE = {"sacrebleu-13a": "13a", "sacrebleu-zh": "zh"}
"""The tokenizers sacrebleu applies itself to raw text (the others are fed pre-split text)."""


class _Adapter:
    def __init__(self, fn: Callable[[str], list[str]]) -> None:
        self.tokenize = fn


def _read(path: Path) -> list[Pair]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        truth = rec["truth"]
        out.append((rec["pred"], [truth] if isinstance(truth, str) else list(truth)))
    return out


DATASETS = {
    "overlap_en": lambda: _read(FIXTURES / "overlap_en.jsonl"),
    "pawsx_zh_dev40": lambda: _read(FIXTURES / "pawsx_zh_dev40.jsonl"),
    "short_answers": lambda: _read(EXAMPLES / "generation_short_answers.jsonl"),
}


def test_every_tokenizer_has_a_reference() -> None:
    assert set(REFERENCE_TOKENIZERS) == set(TOKENIZER_NAMES)


def _reference_overlap(tok: Callable[[str], list[str]], pred: str, refs: list[str],
                       default_rouge: bool) -> dict[str, float]:
    scorer = (rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"]) if default_rouge else
              rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], tokenizer=_Adapter(tok)))
    r = scorer.score_multi(refs, pred)
    hyp, ref_tokens = tok(pred), [tok(x) for x in refs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bleu = (0.0 if not hyp or not any(ref_tokens) else
                sentence_bleu(ref_tokens, hyp, smoothing_function=SmoothingFunction().method3))
    return {"rouge-1": r["rouge1"].fmeasure, "rouge-2": r["rouge2"].fmeasure,
            "rouge-l": r["rougeL"].fmeasure, "bleu-4": bleu}


def _check_items(name: str, pairs: list[Pair]) -> int:
    """Every item's ROUGE-1/2/L, BLEU-4 and sacrebleu BLEU equal the references'; returns the
    number of values compared."""
    tok = REFERENCE_TOKENIZERS[name]
    ours = RougeBleu(name)
    compared = 0
    for k, (pred, refs) in enumerate(pairs):
        want = _reference_overlap(tok, pred, refs, default_rouge=name == "rouge-score")
        got = ours.score_references(refs, pred)
        for key, value in want.items():
            assert got[key] == pytest.approx(value, abs=1e-12), (name, k, key, pred, refs)
        mode = SACREBLEU_TOKENIZE.get(name)
        hyp_in, refs_in = ((pred, refs) if mode else
                           (" ".join(tok(pred)), [" ".join(tok(r)) for r in refs]))
        sb = sacrebleu.corpus_bleu([hyp_in], [[r] for r in refs_in], tokenize=mode or "none",
                                   force=True)
        stats = bleu_statistics(list(get_tokenizer(name)(pred)),
                                [list(get_tokenizer(name)(r)) for r in refs])
        assert stats == [sb.sys_len, sb.ref_len, *sb.counts, *sb.totals], (name, k)
        assert corpus_bleu([stats]) * 100 == pytest.approx(sb.score, abs=1e-10), (name, k)
        compared += 5
    return compared


def _check_corpus(name: str, pairs: list[Pair]) -> None:
    """sacrebleu's corpus BLEU of the whole set, references padded with None where an item has
    fewer (sacrebleu's variable-reference convention)."""
    tok = REFERENCE_TOKENIZERS[name]
    mode = SACREBLEU_TOKENIZE.get(name)
    width = max(len(refs) for _, refs in pairs)
    hyps = [p if mode else " ".join(tok(p)) for p, _ in pairs]
    streams = [[(refs[j] if mode else " ".join(tok(refs[j]))) if j < len(refs) else None
                for _, refs in pairs] for j in range(width)]
    want = sacrebleu.corpus_bleu(hyps, streams, tokenize=mode or "none", force=True).score
    ours = get_tokenizer(name)
    got = corpus_bleu([bleu_statistics(list(ours(p)), [list(ours(r)) for r in refs])
                       for p, refs in pairs])
    assert got * 100 == pytest.approx(want, abs=1e-10), name


@pytest.mark.parametrize("dataset", sorted(DATASETS))
@pytest.mark.parametrize("name", TOKENIZER_NAMES)
def test_rouge_bleu_and_sacrebleu_equal_references_item_by_item(name: str, dataset: str,
                                                                ) -> None:
    pairs = DATASETS[dataset]()
    assert _check_items(name, pairs) == 5 * len(pairs)
    _check_corpus(name, pairs)


def test_squad_tokenizer_gives_squad_f1_item_by_item() -> None:
    """``token_scores(..., tokenizer="squad").f1`` is SQuAD v1.1's
    ``metric_max_over_ground_truths(f1_score, prediction, ground_truths)``."""
    for dataset in DATASETS.values():
        for pred, refs in dataset():
            want = max(_squad_f1(pred, r) for r in refs)
            assert token_scores(pred, refs, tokenizer="squad").f1 == pytest.approx(
                want, abs=1e-12), (pred, refs)


def test_tokenizers_differ_where_their_definitions_do() -> None:
    """The English numbers move with the tokenizer, by hand on one item (en-02)."""
    pred, ref = "It's 3:30 p.m. in New York, isn't it?", "It is 3:30 PM in New York."
    hyp = get_tokenizer("rouge-score")(pred)
    gold = get_tokenizer("rouge-score")(ref)
    assert hyp == ["it", "s", "3", "30", "p", "m", "in", "new", "york", "isn", "t", "it"]
    assert gold == ["it", "is", "3", "30", "pm", "in", "new", "york"]
    # rouge-score: shared unigrams (clipped) it, 3, 30, in, new, york = 6 → F = 2·6/(12 + 8)
    assert RougeBleu("rouge-score").score(ref, pred)["rouge-1"] == pytest.approx(0.6)
    # whitespace keeps case and punctuation: It's 3:30 p.m. in New York, isn't it? (8) and
    # It is 3:30 PM in New York. (7) share 3:30, in, New → F = 2·3/(8 + 7)
    assert RougeBleu("whitespace").score(ref, pred)["rouge-1"] == pytest.approx(0.4)
    # squad: it's→its, p.m.→pm, 3:30→330; its 330 pm in new york isnt it (8) against
    # it is 330 pm in new york (7) share it, 330, pm, in, new, york → F1 = 2·6/(8 + 7)
    assert token_scores(pred, ref, tokenizer="squad").f1 == pytest.approx(0.8)


def test_pawsx_dev_300_pairs_equal_references() -> None:
    """300 more pairs of ../shared/data's PAWS-X Chinese dev set (after the 40 of the fixture),
    with the Chinese-aware tokenizers (jieba, sacrebleu's zh)."""
    path = shared_file("pawsx_zh/dev_2k.tsv")
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))[40:340]
    pairs = [(r["sentence2"], [r["sentence1"]]) for r in rows]
    for name in ("jieba", "sacrebleu-zh"):
        assert _check_items(name, pairs) == 1500
        _check_corpus(name, pairs)
