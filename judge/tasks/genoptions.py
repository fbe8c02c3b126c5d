"""Options of ``--task generation`` (:attr:`judge.tasks.generation.GenerationTask.Options`);
standard library only, read by the command line without importing the task
(:mod:`judge.tasks.options`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

GenTokenizer = Literal["jieba", "whitespace", "char", "rouge-score", "sacrebleu-13a",
                       "sacrebleu-zh", "squad"]
"""The tokenizers of :mod:`metrics.tokenize` a generation run may use (their definitions are
there)."""
BleuMode = Literal["sentence", "corpus"]
"""``sentence``: the mean of the items' BLEU-4; ``corpus``: also sacrebleu's corpus BLEU."""


@dataclass(frozen=True)
class GenerationOptions:
    """Options of ``--task generation``.

    Attributes:
        tokenizer: how texts become tokens, for the token P/R/F1 and for ROUGE and BLEU
            (:data:`GenTokenizer`; default ``jieba``, the seeds' choice for Chinese).
            ``rouge-score`` gives rouge-score's default English ROUGE, ``squad`` SQuAD v1.1's
            token F1, ``sacrebleu-13a``/``sacrebleu-zh`` sacrebleu's tokenisations.
        bleu: ``sentence`` (default): each item's BLEU-4 (nltk, ``method3`` smoothing, seed
            003) and their mean; ``corpus``: besides, sacrebleu's corpus BLEU over the items
            (``corpus_bleu``), from each item's n-gram counts, stored in its row.
        text_overlap: compute ROUGE-1/2/L and BLEU-4; None = on (``--no-text-overlap``
            leaves them out: the token P/R/F1 alone, as runs before them).
    """

    tokenizer: GenTokenizer = field(default="jieba", metadata={
        "help": "generation: tokenizer of token P/R/F1, ROUGE and BLEU: jieba (default), "
                "whitespace, char, rouge-score, sacrebleu-13a, sacrebleu-zh or squad.",
        "what": "tokenizer"})
    bleu: BleuMode = field(default="sentence", metadata={
        "help": "generation: sentence (mean of the items' BLEU-4, nltk method3) or corpus "
                "(also sacrebleu's corpus BLEU).",
        "what": "BLEU mode"})
    text_overlap: bool | None = field(default=None, metadata={
        "help": "function-call, generation: ROUGE-1/2/L and BLEU-4 of the texts (default: on; "
                "function-call: off with --format bfcl)."})

    def overlap(self) -> bool:
        """Whether ROUGE and BLEU are computed: ``text_overlap``, on when not given."""
        return self.text_overlap is not False

    def config(self) -> dict[str, Any]:
        """The options as ``config.json`` records them (``text_overlap``: whether the run
        computed ROUGE and BLEU)."""
        return {"tokenizer": self.tokenizer, "bleu": self.bleu, "text_overlap": self.overlap()}

    @classmethod
    def from_config(cls, config: Any) -> GenerationOptions:
        """The options a run recorded (:meth:`config`) in ``config`` (its ``config.json``:
        anything with ``.get(key, default)``); a run older than them (no ``tokenizer``
        recorded) used jieba and had no ROUGE or BLEU."""
        if config.get("tokenizer") is None:
            return cls(text_overlap=False)
        return cls(tokenizer=config.get("tokenizer"), bleu=config.get("bleu", "sentence"),
                   text_overlap=bool(config.get("text_overlap", True)))
