"""``simjudge eval --task generation`` with ROUGE/BLEU: ``--tokenizer``, ``--bleu corpus`` and
``--no-text-overlap`` from the command line, each item's row and the summary against
rouge-score, nltk and sacrebleu (their tokenisers taken from
``tests/metrics/test_overlap_references.py``, never from :mod:`metrics.tokenize`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import sacrebleu

from judge.record.store import load_run
from judge.runs.rescore import rescore
from judge.tasks.base import Judged, Params
from judge.tasks.genoptions import GenerationOptions
from judge.tasks.inputs import Source
from judge.tasks.registry import get_task
from tests.clirun import CliResult
from tests.conftest import EXAMPLES
from tests.metrics.test_overlap_references import (
    FIXTURES,
    REFERENCE_TOKENIZERS,
    SACREBLEU_TOKENIZE,
    _read,
    _reference_overlap,
)

Cli = Callable[..., CliResult]
OVERLAP = ("rouge-1", "rouge-2", "rouge-l", "bleu-4")


def _files(out: Path) -> tuple[dict, list[dict], dict]:
    config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    items = [json.loads(x) for x in (out / "items.jsonl").read_text(encoding="utf-8").split("\n")
             if x]
    return config, items, json.loads((out / "summary.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(("data", "tokenizer"), [
    ("overlap_en.jsonl", "rouge-score"),
    ("overlap_en.jsonl", "sacrebleu-13a"),
    ("pawsx_zh_dev40.jsonl", "sacrebleu-zh"),
    ("pawsx_zh_dev40.jsonl", "jieba"),
])
def test_rows_and_summary_equal_the_reference_tools(cli: Cli, tmp_path: Path, data: str,
                                                    tokenizer: str) -> None:
    out = tmp_path / "run"
    res = cli("eval", FIXTURES / data, "--task", "generation", "--tokenizer", tokenizer,
              "--bleu", "corpus", "--bootstrap", "0", "--out", out)
    assert res.returncode == 0, res.output
    config, items, summary = _files(out)
    assert (config["tokenizer"], config["bleu"], config["text_overlap"]) == (
        tokenizer, "corpus", True)
    pairs = _read(FIXTURES / data)
    tok = REFERENCE_TOKENIZERS[tokenizer]
    want_rows = [_reference_overlap(tok, p, refs, default_rouge=tokenizer == "rouge-score")
                 for p, refs in pairs]
    assert len(items) == len(pairs)
    for row, want in zip(items, want_rows, strict=True):
        for key in OVERLAP:
            assert row[key] == pytest.approx(want[key], abs=1e-12), (row["id"], key)
    metrics = summary["metrics"]
    assert metrics["tokenizer"] == tokenizer
    for key in OVERLAP:
        assert metrics[key] == pytest.approx(np.mean([w[key] for w in want_rows]), abs=1e-12)
    mode = SACREBLEU_TOKENIZE.get(tokenizer)
    hyps = [p if mode else " ".join(tok(p)) for p, _ in pairs]
    refs = [[r if mode else " ".join(tok(r)) for r in rs] for _, rs in pairs]
    width = max(len(r) for r in refs)
    streams = [[r[j] if j < len(r) else None for r in refs] for j in range(width)]
    want = sacrebleu.corpus_bleu(hyps, streams, tokenize=mode or "none", force=True).score
    assert metrics["corpus_bleu"] * 100 == pytest.approx(want, abs=1e-10)


def test_default_is_jieba_sentence_bleu_and_the_shipped_f1_stays(cli: Cli, tmp_path: Path,
                                                                ) -> None:
    """The seeds' defaults: jieba, sentence BLEU (no corpus BLEU, no counts in the rows); the
    token F1 of the shipped short answers stays 0.8182 (docs/getting-started.md)."""
    out = tmp_path / "run"
    res = cli("eval", EXAMPLES / "generation_short_answers.jsonl", "--task", "generation",
              "--bootstrap", "0", "--out", out)
    assert res.returncode == 0, res.output
    config, items, summary = _files(out)
    assert (config["tokenizer"], config["bleu"]) == ("jieba", "sentence")
    assert summary["metrics"]["f1"] == pytest.approx(0.8182, abs=5e-5)
    assert "corpus_bleu" not in summary["metrics"]
    assert all("bleu_stats" not in r and "rouge-l" in r for r in items)
    # gen-04: 北京 against 北京 — one token each side: ROUGE-1 = 1, ROUGE-2 = 0 (no bigram)
    row = next(r for r in items if r["id"] == "gen-04")
    assert (row["rouge-1"], row["rouge-2"], row["rouge-l"]) == (1.0, 0.0, 1.0)


def test_no_text_overlap_leaves_them_out(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = cli("eval", EXAMPLES / "generation_short_answers.jsonl", "--task", "generation",
              "--no-text-overlap", "--bootstrap", "0", "--out", out)
    assert res.returncode == 0, res.output
    config, items, summary = _files(out)
    assert config["text_overlap"] is False
    assert not any(k in r for r in items for k in OVERLAP)
    assert set(summary["metrics"]) == {"tokenizer", "precision", "recall", "f1"}


@pytest.mark.parametrize(("args", "message"), [
    (["--tokenizer", "spacy"], "unknown tokenizer 'spacy'; expected one of jieba, whitespace, "
                               "char, rouge-score, sacrebleu-13a, sacrebleu-zh, squad"),
    (["--bleu", "macro"], "unknown BLEU mode 'macro'; expected one of sentence, corpus"),
])
def test_a_bad_value_is_refused_with_exit_2_and_nothing_written(cli: Cli, tmp_path: Path,
                                                                args: list[str],
                                                                message: str) -> None:
    out = tmp_path / "run"
    res = cli("eval", EXAMPLES / "generation_short_answers.jsonl", "--task", "generation",
              *args, "--out", out)
    assert res.returncode == 2, res.output
    assert message in res.stderr
    assert "Traceback" not in res.output
    assert not out.exists()


def test_corpus_bleu_without_text_overlap_is_refused(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = cli("eval", EXAMPLES / "generation_short_answers.jsonl", "--task", "generation",
              "--bleu", "corpus", "--no-text-overlap", "--out", out)
    assert res.returncode == 2, res.output
    assert "--bleu corpus computes BLEU, which --no-text-overlap leaves out" in res.stderr
    assert not out.exists()


def test_tokenizer_belongs_to_generation_only(cli: Cli, tmp_path: Path) -> None:
    res = cli("eval", EXAMPLES / "multilabel_support_tickets.jsonl", "--task", "multilabel",
              "--tokenizer", "jieba", "--out", tmp_path / "run")
    assert res.returncode == 2, res.output
    assert "--tokenizer is used by --task generation only, not --task multilabel" in res.stderr


def test_rescore_reproduces_a_corpus_run_and_resamples_match_rows(cli: Cli, tmp_path: Path,
                                                                  ) -> None:
    out = tmp_path / "run"
    res = cli("eval", FIXTURES / "overlap_en.jsonl", "--task", "generation", "--tokenizer",
              "squad", "--bleu", "corpus", "--bootstrap", "0", "--out", out)
    assert res.returncode == 0, res.output
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert rescore(load_run(out), n_boot=0)["metrics"] == summary["metrics"]
    task = get_task("generation")
    rows = task.rows(load_run(out))
    assert rows[0].bleu_stats is not None
    rng = np.random.default_rng(3)
    of = task.resampled(rows)
    for _ in range(10):
        idx = rng.integers(0, len(rows), len(rows))
        assert of(idx) == task.metrics_from_rows([rows[i] for i in idx])


def test_a_run_older_than_the_options_rescores_without_overlap(tmp_path: Path) -> None:
    """A run whose config.json has no tokenizer (before ROUGE/BLEU) is scored as it was."""
    opts = GenerationOptions.from_config({"task": "generation"})
    assert (opts.tokenizer, opts.overlap()) == ("jieba", False)
    task = get_task("generation")
    items = task.load(Source(EXAMPLES / "generation_short_answers.jsonl"))
    rows, summary = task.score(items, Judged(), Params(options=opts))
    assert set(summary) == {"tokenizer", "precision", "recall", "f1"}
    assert all(r.rouge_1 is None for r in rows)


def test_compare_refuses_runs_of_two_tokenizers(cli: Cli, tmp_path: Path) -> None:
    data = EXAMPLES / "generation_short_answers.jsonl"
    for name, tok in (("a", "jieba"), ("b", "char"), ("c", "jieba")):
        res = cli("eval", data, "--task", "generation", "--tokenizer", tok, "--bootstrap", "0",
                  "--out", tmp_path / name)
        assert res.returncode == 0, res.output
    res = cli("compare", tmp_path / "a", tmp_path / "b", "--bootstrap", "0")
    assert res.returncode == 2, res.output
    assert "the runs score their items differently" in res.stderr
    res = cli("compare", tmp_path / "a", tmp_path / "c", "--bootstrap", "0", "--out",
              tmp_path / "cmp")
    assert res.returncode == 0, res.output
    cmp = json.loads((tmp_path / "cmp" / "compare.json").read_text(encoding="utf-8"))
    diff = cmp["differences"][0]["metrics"]
    assert diff["rouge-l"]["diff"] == 0.0 and diff["f1"]["diff"] == 0.0
