"""``--task generation``: each item is a generated text against one or more reference texts.

Per item (seed 002, seed 003): token precision, recall and F1, each the best over the
references (SQuAD's token-overlap F1, :func:`metrics.token_scores`); ROUGE-1/2/L F, the best
over the references (rouge-score), and multi-reference sentence BLEU-4 (nltk, ``method3``
smoothing) (:meth:`metrics.RougeBleu.score_references`). The dataset metrics are their means.
With ``--bleu corpus`` each row also keeps sacrebleu's n-gram counts of the item, and the
summary adds sacrebleu's corpus BLEU over them (:mod:`metrics.corpus_bleu`). One tokenizer
(``--tokenizer``, default jieba) feeds every measure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from judge import io
from judge.errors import InputError
from judge.items import Item
from judge.record.itemrows import GenerationRow
from judge.tasks.base import Judged, Params, Task
from judge.tasks.columns import column_means, column_means_resampled
from judge.tasks.genoptions import GenerationOptions
from judge.tasks.inputs import run_source
from judge.tasks.selection import query_of
from judge.tasks.views import texts_view
from metrics import token_scores

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from judge.record.runrecord import RunRecord

_COLUMNS: dict[str, Callable[[GenerationRow], float]] = {
    "precision": lambda r: r.precision, "recall": lambda r: r.recall, "f1": lambda r: r.f1}
_OVERLAP: dict[str, Callable[[GenerationRow], Any]] = {
    "rouge-1": lambda r: r.rouge_1, "rouge-2": lambda r: r.rouge_2,
    "rouge-l": lambda r: r.rouge_l, "bleu-4": lambda r: r.bleu_4}


def _columns(rows: Sequence[GenerationRow]) -> dict[str, Callable[[GenerationRow], Any]]:
    """The mean columns the rows hold: token P/R/F1, and the text overlap ones when the run
    computed them (for every item or for none)."""
    return {**_COLUMNS, **(_OVERLAP if rows and rows[0].rouge_1 is not None else {})}


def _corpus(rows: Sequence[GenerationRow]) -> list[list[int]] | None:
    """The rows' sacrebleu counts (``--bleu corpus``), None when the run kept none."""
    if not rows or rows[0].bleu_stats is None:
        return None
    return [list(r.bleu_stats or ()) for r in rows]


def generation_metrics(rows: Sequence[GenerationRow]) -> dict[str, float]:
    """Means of token precision, recall and F1 (and of ROUGE-1/2/L and BLEU-4 when the rows
    hold them); ``corpus_bleu`` (sacrebleu) from the rows' counts when they hold them."""
    from metrics.corpus_bleu import corpus_bleu

    metrics = column_means(_columns(rows), rows)
    stats = _corpus(rows)
    if stats is not None:
        metrics["corpus_bleu"] = corpus_bleu(stats)
    return metrics


def score_generation(items: Sequence[Item], options: GenerationOptions,
                     ) -> tuple[list[GenerationRow], dict[str, Any]]:
    """Rows ``{id, source, query?, pred, truth, precision, recall, f1, rouge-1, rouge-2,
    rouge-l, bleu-4, bleu_stats?}`` of the items (overlap ones with ``options.overlap()``,
    ``bleu_stats`` with ``options.bleu == "corpus"``) and the summary (``tokenizer`` and
    :func:`generation_metrics`).

    Raises:
        ValueError: an item without references (the readers refuse it before).
    """
    from metrics import RougeBleu
    from metrics.corpus_bleu import bleu_statistics
    from metrics.tokenize import get_tokenizer

    tokenize = get_tokenizer(options.tokenizer)
    overlap = RougeBleu(options.tokenizer) if options.overlap() else None
    rows: list[GenerationRow] = []
    for i in items:
        refs = list(i.truth)
        row: dict[str, Any] = {"id": i.id, "source": i.source, **query_of(i), "pred": i.pred,
                               "truth": refs,
                               **token_scores(i.pred, refs, tokenizer=tokenize).to_dict()}
        if overlap is not None:
            row.update(overlap.score_references(refs, i.pred))
            if options.bleu == "corpus":
                row["bleu_stats"] = bleu_statistics(
                    list(tokenize(i.pred)), [list(tokenize(r)) for r in refs])
        rows.append(GenerationRow.model_validate(row))
    return rows, {"tokenizer": options.tokenizer, **generation_metrics(rows)}


class GenerationTask(Task[GenerationRow]):
    """Generated text against references: token P/R/F1, ROUGE-1/2/L, BLEU-4."""

    name = "generation"
    row_model = GenerationRow
    Options = GenerationOptions
    summary = "text against reference texts: token P/R/F1, ROUGE-1/2/L, BLEU-4"
    no_judge_reason = "its metrics are lexical"
    extractors = (io.text, io.text_or_list)

    def __init__(self, tokenizer: str = "jieba") -> None:
        """``tokenizer``: the tokenizer whose rows :meth:`metrics_from_rows` reads (rows of
        two tokenizers measure different things; :meth:`scoring`)."""
        self.tokenizer = tokenizer

    def __eq__(self, other: object) -> bool:
        """Same task with the same tokenizer."""
        return isinstance(other, GenerationTask) and other.tokenizer == self.tokenizer

    def __hash__(self) -> int:
        """Hash of the name and tokenizer."""
        return hash((self.name, self.tokenizer))

    def scoring(self, options: Any) -> GenerationTask:
        """The task scoring rows tokenised as ``options`` say (:class:`GenerationOptions`, or
        a run's recorded ``task_options``: ``tokenizer``, jieba when none): ``compare``
        refuses runs of two tokenizers, whose differences would be the tokenizers'."""
        tokenizer = (options.tokenizer if isinstance(options, GenerationOptions)
                     else dict(options or {}).get("tokenizer") or "jieba")
        return GenerationTask(str(tokenizer))

    def config_entries(self, params: Params) -> dict[str, Any]:
        """``{"tokenizer", "bleu", "text_overlap"}`` for ``config.json`` (what
        :meth:`rescore` reads back)."""
        opts: GenerationOptions = self.options(params)
        return opts.config()

    def settled_options(self, items: Sequence[Item], options: Any) -> Any:
        """``options`` as given, once checked together.

        Raises:
            InputError: ``--bleu corpus`` with ``--no-text-overlap`` (BLEU left out), field
                ``bleu``.
        """
        opts = options if isinstance(options, GenerationOptions) else GenerationOptions()
        if opts.bleu == "corpus" and not opts.overlap():
            raise InputError("--bleu corpus computes BLEU, which --no-text-overlap leaves out; "
                             "drop one of them", field="bleu")
        return options

    def score(self, items: Sequence[Item], judged: Judged, params: Params,
              ) -> tuple[list[GenerationRow], dict[str, Any]]:
        """See :func:`score_generation`."""
        return score_generation(items, self.options(params))

    def rescore(self, record: RunRecord, tau: float, rule: str | None = None,
                quorum: int | None = None, overrides: Any = None,
                ) -> tuple[list[GenerationRow], dict[str, Any]] | None:
        """The run's items read again from its input files and scored with the options it
        recorded (:meth:`GenerationOptions.from_config`; ``tau`` ignored).

        Raises:
            InputError: an input file of the run is missing or changed since the run.
        """
        source = run_source(record)
        items = source.first(self.load(source))
        return score_generation(items, GenerationOptions.from_config(record.config))

    def metrics_from_rows(self, rows: Sequence[GenerationRow]) -> dict[str, float]:
        """See :func:`generation_metrics`."""
        return generation_metrics(rows)

    def resampled(self, rows: Sequence[GenerationRow],
                  ) -> Callable[[NDArray[np.intp]], dict[str, float]]:
        """:meth:`metrics_from_rows` of a resample, the rows' values read once (the corpus
        BLEU counts as one integer array, summed per resample: the same integers)."""
        from metrics.corpus_bleu import corpus_bleu

        means = column_means_resampled(_columns(rows), rows)
        stats = _corpus(rows)
        if stats is None:
            return means
        counts = np.asarray(stats, dtype=np.int64)
        return lambda idx: {**means(idx), "corpus_bleu": corpus_bleu(counts[idx])}

    def view(self, row: GenerationRow) -> dict[str, Any]:
        """The ``texts`` view: the prediction and its references."""
        return texts_view(row)
