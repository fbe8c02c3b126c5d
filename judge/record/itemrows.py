"""The typed ``items.jsonl`` row of each task: what the task writes per item, named.

A task names its model (:attr:`judge.tasks.base.Task.row_model`); its ``score`` and ``rescore``
make rows of it, and its ``metrics_from_rows``, ``view`` and ``matrices`` read them by
attribute. A row read from disk is an :class:`~judge.record.rows.ItemRow` until its task first
reads it (:meth:`judge.record.runrecord.RunRecord.rows_as`): then it is validated into the
model once, naming the file, line and field of a bad value.

The models are the schema of the run files, so they live with the rest of the record on the
ground floor (importing nothing of :mod:`judge` but :mod:`judge.record.rows`); the record never
picks a model by task name — the task hands it over.

Writing a row back gives the same JSON object, key for key and in the same order
(:meth:`~judge.record.rows.ItemRow.to_row`): fields are declared in the order the task writes
them, a field the row did not carry stays absent, numbers keep their JSON type (:data:`Number`),
and fields a model does not name (a row of another simjudge version) are kept after the named
ones. A field that is ``None`` by default is content an older simjudge did not write (the
report then shows the row's metrics only); the fields the metrics need are required.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from judge.record.rows import ItemRow

Number = int | float
"""A JSON number as written: an int stays an int and a float a float (NaN included), so a row
read back is written byte for byte as it was (a ``float`` field would turn ``0`` into ``0.0``)."""

RANK_CUTOFF = 10
"""k of the ranking rows' AP@k, NDCG@k and ERR@k (their JSON names say it: ``ap@10``; the
field aliases of :class:`RankingRow` spell it out, as a type checker needs literal aliases)."""

FcErrorType = Literal["wrong_count", "wrong_name", "missing_required", "unexpected_param",
                      "type_mismatch", "value_mismatch", "missing_optional", "unparseable",
                      "called_function"]
"""Why a function-call item is wrong (:data:`metrics.fc_check.ERROR_TYPES`, BFCL's checker)."""


class Match(BaseModel):
    """One chosen pair of a similarity matrix's one-to-one matching (seed 001).

    Attributes:
        pred_index, truth_index: the row (prediction) and column (gold) of the pair, >= 0.
        pred, truth: their strings (span texts for ``spans``).
        score: the pair's similarity in [0, 1] (1.0 for an exact pair).
        exact: the pair is an exact match (normalised-equal strings; same offsets for spans).
        kind: ``exact`` or ``fuzzy`` (``spans``; selection rows and older runs carry only
            ``exact``: :attr:`is_exact` reads either).
        judge_id: the judge whose verdict matched the pair; None for an exact pair (absent in
            ``rescore``'s rows of a selection run).
    """

    model_config = ConfigDict(extra="allow")

    pred_index: int = Field(ge=0)
    truth_index: int = Field(ge=0)
    pred: str | None = None
    truth: str | None = None
    score: Number
    exact: bool = False
    kind: str | None = None
    judge_id: str | None = None

    @property
    def is_exact(self) -> bool:
        """Whether the match is exact (``kind`` ``exact``, or ``exact`` true)."""
        return self.kind == "exact" or self.exact is True


class SelectionRow(ItemRow):
    """``--task selection``: one item's fuzzy matching at τ (:func:`metrics.fuzzy_match`).

    Attributes:
        query: the record's ``query`` (absent when it has none).
        n_pred, n_truth, n_exact: |pred|, |gold| and exact (normalised-equal) matches, >= 0.
        tp_fuzzy: N_exact + the matched pairs' scores, in [0, min(n_pred, n_truth)].
        precision, recall, f1: fuzzy P/R/F1 in [0, 1] (``zero_division`` when undefined).
        matches: the chosen pairs (:class:`Match`), exact ones first.
        unmatched_pred, unmatched_truth: the strings left unmatched (FP and FN).
        cells_without_verdict: judged cells without a score (failed verdicts).
        pred, truth: the item's strings; scores: the n_pred×n_truth matrix in [0, 1], None =
            no verdict — what ``rescore`` re-matches (None: a run written before rows stored
            them).
    """

    query: str | None = None
    n_pred: int = Field(ge=0)
    n_truth: int = Field(ge=0)
    n_exact: int = Field(ge=0)
    tp_fuzzy: Number
    precision: Number
    recall: Number
    f1: Number
    matches: list[Match] = Field(default_factory=list)
    unmatched_pred: list[str] | None = None
    unmatched_truth: list[str] | None = None
    cells_without_verdict: int | None = None
    pred: list[str] | None = None
    truth: list[str] | None = None
    scores: list[list[float | None]] | None = None


class SpanTypeRow(BaseModel):
    """``--task spans``: one entity type of one item — its spans, matrix, matching and scores.

    Attributes:
        type: the entity type.
        pred, truth: the span texts of this type; pred_offsets, truth_offsets: their
            ``[start, end)`` character offsets, one pair per text.
        scores: the len(pred)×len(truth) matrix in [0, 1] (exact spans 1.0; None = never
            judged).
        matches: the chosen pairs (:class:`Match` with ``kind``).
        unmatched_pred, unmatched_truth: indices of the spans left unmatched.
        n_pred, n_truth, n_exact: span counts; tp_fuzzy: N_exact + matched scores.
        precision, recall, f1: fuzzy; strict_precision, strict_recall, strict_f1: exact
            offsets only (CoNLL-2003 strict) — all in [0, 1].
        nervaluate: this type's spans alone under nervaluate's schemes, ``{scheme: {correct,
            incorrect, partial, missed, spurious}}`` (:mod:`metrics.nerschemes`); None in
            older runs.
    """

    model_config = ConfigDict(extra="allow")

    type: str
    pred: list[str]
    truth: list[str]
    pred_offsets: list[list[int]]
    truth_offsets: list[list[int]]
    scores: list[list[float | None]]
    matches: list[Match] = Field(default_factory=list)
    unmatched_pred: list[int] = Field(default_factory=list)
    unmatched_truth: list[int] = Field(default_factory=list)
    n_pred: int = Field(ge=0)
    n_truth: int = Field(ge=0)
    n_exact: int = Field(ge=0)
    tp_fuzzy: Number
    precision: Number
    recall: Number
    f1: Number
    strict_precision: Number
    strict_recall: Number
    strict_f1: Number
    nervaluate: dict[str, dict[str, int]] | None = None


class SpansRow(ItemRow):
    """``--task spans``: one item's spans matched per entity type.

    Attributes:
        query: the sentence (absent when the record has none).
        invalid: why the item's spans could not be scored as given (a span with an empty
            type): a prediction's → scored as predicting nothing; a gold one's → left out of
            every measure. None for a valid item.
        n_pred … strict_f1: as :class:`SpanTypeRow`, over all of the item's types.
        nervaluate: the item's spans, all types together in the order given, under
            nervaluate's schemes (``{scheme: counts}``, :mod:`metrics.nerschemes`); None in
            older runs.
        types: one :class:`SpanTypeRow` per entity type, sorted (None: a row written without
            them, which ``rescore`` cannot re-match).
    """

    query: str | None = None
    invalid: str | None = None
    n_pred: int = Field(ge=0)
    n_truth: int = Field(ge=0)
    n_exact: int = Field(ge=0)
    tp_fuzzy: Number
    precision: Number
    recall: Number
    f1: Number
    strict_precision: Number
    strict_recall: Number
    strict_f1: Number
    nervaluate: dict[str, dict[str, int]] | None = None
    types: list[SpanTypeRow] | None = None


class JudgmentRow(ItemRow):
    """``--task judgment``: a boolean prediction against a boolean gold label.

    Attributes:
        query: the record's ``query`` (absent when it has none).
        pred, truth: the prediction and the gold label.
        correct: pred == truth (None: not stored).
    """

    query: str | None = None
    pred: bool
    truth: bool
    correct: bool | None = None


class GenerationRow(ItemRow):
    """``--task generation``: a generated text against its references (seed 002).

    Attributes:
        query: the record's ``query`` (absent when it has none).
        pred: the generated text; truth: the reference texts (None: not stored).
        precision, recall, f1: token overlap in [0, 1], each the best over the references.
        rouge_1, rouge_2, rouge_l, bleu_4 (``rouge-1``…``bleu-4``): ROUGE F (best over the
            references) and multi-reference sentence BLEU-4, in [0, 1]; None when the run
            left text overlap out (``--no-text-overlap``, or a run older than them).
        bleu_stats: sacrebleu's counts of the item ``[hyp_len, ref_len, correct_1..4,
            total_1..4]`` (:func:`metrics.corpus_bleu.bleu_statistics`), with ``--bleu
            corpus`` only.
    """

    query: str | None = None
    pred: str | None = None
    truth: list[str] | None = None
    precision: Number
    recall: Number
    f1: Number
    rouge_1: Number | None = Field(default=None, alias="rouge-1")
    rouge_2: Number | None = Field(default=None, alias="rouge-2")
    rouge_l: Number | None = Field(default=None, alias="rouge-l")
    bleu_4: Number | None = Field(default=None, alias="bleu-4")
    bleu_stats: list[int] | None = None


class MultilabelRow(ItemRow):
    """``--task multilabel``: a predicted label set against the gold one (seed 004).

    Attributes:
        query: the record's ``query`` (absent when it has none).
        pred, truth: the sorted label sets, as given (labels outside ``--labels`` too).
        precision, recall, f1, jaccard: the item's own scores over the run's label space,
            as scikit-learn's ``average="samples"`` computes each sample's before their
            mean (:func:`metrics.multilabel.sample_scores`); absent in older runs.
    """

    query: str | None = None
    pred: list[str]
    truth: list[str]
    precision: Number | None = None
    recall: Number | None = None
    f1: Number | None = None
    jaccard: Number | None = None


class RankingRow(ItemRow):
    """``--task ranking``: one query's ranked documents against its qrels (trec_eval).

    Attributes:
        retrieved: documents ranked; relevant: documents with grade >= 1 in the qrels.
        ap, ndcg: average precision and NDCG of the whole ranking, in [0, 1].
        ap_at_k, ndcg_at_k, err_at_k (``ap@10``, ``ndcg@10``, ``err@10``): at the cut-off
            :data:`RANK_CUTOFF`; ERR with the run's largest grade as its maximum.
        measures: the trec_eval measures ``--measure`` asked for, by trec_eval's printed name
            (``P_5``, ``recip_rank``; ``gm_map`` as its log), as pytrec_eval computes them;
            None when none was asked for.
        ranked: the document ids in rank order; qrels: document → grade (None: not stored).
    """

    retrieved: int = Field(ge=0)
    relevant: int = Field(ge=0)
    ap: Number
    ap_at_k: Number = Field(alias="ap@10")
    ndcg: Number
    ndcg_at_k: Number = Field(alias="ndcg@10")
    err_at_k: Number = Field(alias="err@10")
    measures: dict[str, float] | None = None
    ranked: list[str] | None = None
    qrels: dict[str, int] | None = None

    def metric_values(self) -> dict[str, Number]:
        """The per-query metrics by JSON name: ``ap``, ``ap@10``, ``ndcg``, ``ndcg@10``,
        ``err@10``."""
        return {"ap": self.ap, f"ap@{RANK_CUTOFF}": self.ap_at_k, "ndcg": self.ndcg,
                f"ndcg@{RANK_CUTOFF}": self.ndcg_at_k, f"err@{RANK_CUTOFF}": self.err_at_k}


class FunctionCallRow(ItemRow):
    """``--task function-call``: predicted calls checked against gold calls (BFCL's rules and
    seed 003's metrics).

    Attributes:
        correct: the prediction passes BFCL's checker.
        error_type: why not (:data:`FcErrorType`), None when correct; error: the checker's
            explanation, None when correct.
        matching: ``[gold index, pred index]`` of the calls matched one-to-one.
        query: the record's query (None when it has none).
        fn_acc_name, fn_acc_all: seed 003's name and name+arguments accuracy, in [0, 1].
        rouge_1, rouge_2, rouge_l, bleu_4 (``rouge-1``…``bleu-4``): overlap of the calls' texts,
            in [0, 1]; None when the run left text overlap out (``--no-text-overlap``, the
            default with ``--format bfcl``).
        gold_calls: the gold calls as read (``[{"name", "arguments"}]``; BFCL: its
            ``[{function: {parameter: [acceptable values]}}]``), the user's JSON unchanged.
        pred_calls: the predicted calls ``[{"name", "arguments"}]`` in the order ``matching``
            indexes, or the model's raw output when it could not be parsed.
        category: BFCL's test category (absent for other formats).
        verdicts: BFCL: the item's verdict under each rule — ``official`` and ``optimal``
            matching, and ``arg_judge`` (official matching with the argument judge's
            equivalences, an extension beyond BFCL) when one was used; ``correct`` is the
            verdict of the run's ``--fc-matching`` without the judge.
    """

    correct: bool
    error_type: FcErrorType | None = None
    error: str | None = None
    matching: list[list[int]] = Field(default_factory=list)
    query: str | None = None
    fn_acc_name: Number
    fn_acc_all: Number
    rouge_1: Number | None = Field(default=None, alias="rouge-1")
    rouge_2: Number | None = Field(default=None, alias="rouge-2")
    rouge_l: Number | None = Field(default=None, alias="rouge-l")
    bleu_4: Number | None = Field(default=None, alias="bleu-4")
    gold_calls: Any = None
    pred_calls: Any = None
    category: str | None = None
    verdicts: dict[str, bool] | None = None

    def seed_metrics(self) -> dict[str, Number | None]:
        """Seed 003's per-item metrics by JSON name (``fn_acc_name`` … ``bleu-4``; the text
        overlap ones None when the run left them out)."""
        return {"fn_acc_name": self.fn_acc_name, "fn_acc_all": self.fn_acc_all,
                "rouge-1": self.rouge_1, "rouge-2": self.rouge_2, "rouge-l": self.rouge_l,
                "bleu-4": self.bleu_4}


__all__ = ["RANK_CUTOFF", "FcErrorType", "FunctionCallRow", "GenerationRow", "ItemRow",
           "JudgmentRow", "Match", "MultilabelRow", "Number", "RankingRow", "SelectionRow",
           "SpanTypeRow", "SpansRow"]
