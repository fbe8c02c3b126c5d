"""simjudge's deterministic metrics: usable on their own, no LLM package imported.

>>> from metrics import fuzzy_match
>>> fuzzy_match(["Job Information"], ["职位信息"], [[0.9]]).f1
0.9

Definitions and their public sources (papers, trec_eval, scikit-learn, rouge-score, nltk,
BFCL) are in each module's docstring, with every decision the sources leave open stated there;
each public function has a worked ``Examples`` section, run by ``pytest`` as a doctest.
This package never imports ``judge``.
"""

from metrics.agreement import (
    cohen_kappa,
    gwet_ac1_from_counts,
    kappa_from_counts,
    krippendorff_alpha,
    mcc_from_counts,
    pearson,
    pr_auc,
    roc_auc,
    spearman,
)
from metrics.alttest import AltTest, AnnotatorTest, alt_test, by_rejections
from metrics.binary import (
    BinaryScores,
    Confusion,
    binary_scores,
    confusion_counts,
    scores_from_counts,
)
from metrics.corpus_bleu import bleu_statistics, corpus_bleu
from metrics.fc_check import (
    CallCheck,
    ItemCheck,
    check_call,
    check_item,
    standardize_string,
)
from metrics.function_calls import (
    FC_KEYS,
    fc_score,
    fc_score_items,
    fn2str,
    fns2str,
    partial_argument_score,
    score_function_calls,
    strict_argument_score,
)
from metrics.generation import (
    TokenScores,
    choice_precision,
    ngram_precision,
    ngrams,
    token_scores,
    weighted_precision,
)
from metrics.independence import effective_judges, error_phi, mean_error_phi
from metrics.multilabel import MultilabelScores, f_beta, multilabel_scores, sample_scores
from metrics.normalize import normalize
from metrics.overlap import RougeBleu, bleu4, rouge_bleu
from metrics.ppi import MeanEstimate, classical_mean, ppi_mean, ppi_ratio
from metrics.ranking import (
    average_precision,
    dcg_at_k,
    err_at_k,
    mean_average_precision,
    mean_err,
    mean_ndcg,
    ndcg_at_k,
    read_qrels,
    read_run,
)
from metrics.replicates import auc_replicates, counts_per_resample
from metrics.resampling import bootstrap_indices, percentile_ci, stratified_folds
from metrics.selection import (
    DEFAULT_TAU,
    FuzzyAggregate,
    FuzzyMatchResult,
    Match,
    aggregate_fuzzy,
    exact_assignment,
    fuzzy_match,
    fuzzy_prf,
    max_weight_matching,
)
from metrics.thresholds import (
    OBJECTIVES,
    ThresholdPoint,
    best_index,
    best_threshold,
    candidate_thresholds,
    rate_from_counts,
    rates_from_counts,
    sweep_arrays,
    threshold_sweep,
)
from metrics.tokenize import (
    TOKENIZER_NAMES,
    char_tokenize,
    jieba_tokenize,
    rouge_score_tokenize,
    sacrebleu_13a_tokenize,
    sacrebleu_zh_tokenize,
    squad_tokenize,
    whitespace_tokenize,
)

__all__ = [
    "DEFAULT_TAU",
    "FC_KEYS",
    "OBJECTIVES",
    "TOKENIZER_NAMES",
    "AltTest",
    "AnnotatorTest",
    "BinaryScores",
    "CallCheck",
    "Confusion",
    "FuzzyAggregate",
    "FuzzyMatchResult",
    "ItemCheck",
    "Match",
    "MeanEstimate",
    "MultilabelScores",
    "RougeBleu",
    "ThresholdPoint",
    "TokenScores",
    "aggregate_fuzzy",
    "alt_test",
    "auc_replicates",
    "average_precision",
    "best_index",
    "best_threshold",
    "binary_scores",
    "bleu4",
    "bleu_statistics",
    "bootstrap_indices",
    "by_rejections",
    "candidate_thresholds",
    "char_tokenize",
    "check_call",
    "check_item",
    "choice_precision",
    "classical_mean",
    "cohen_kappa",
    "confusion_counts",
    "corpus_bleu",
    "counts_per_resample",
    "dcg_at_k",
    "effective_judges",
    "err_at_k",
    "error_phi",
    "exact_assignment",
    "f_beta",
    "fc_score",
    "fc_score_items",
    "fn2str",
    "fns2str",
    "fuzzy_match",
    "fuzzy_prf",
    "gwet_ac1_from_counts",
    "jieba_tokenize",
    "kappa_from_counts",
    "krippendorff_alpha",
    "max_weight_matching",
    "mcc_from_counts",
    "mean_average_precision",
    "mean_err",
    "mean_error_phi",
    "mean_ndcg",
    "multilabel_scores",
    "ndcg_at_k",
    "ngram_precision",
    "ngrams",
    "normalize",
    "partial_argument_score",
    "pearson",
    "percentile_ci",
    "ppi_mean",
    "ppi_ratio",
    "pr_auc",
    "rate_from_counts",
    "rates_from_counts",
    "read_qrels",
    "read_run",
    "roc_auc",
    "rouge_bleu",
    "rouge_score_tokenize",
    "sacrebleu_13a_tokenize",
    "sacrebleu_zh_tokenize",
    "sample_scores",
    "score_function_calls",
    "scores_from_counts",
    "spearman",
    "squad_tokenize",
    "standardize_string",
    "stratified_folds",
    "strict_argument_score",
    "sweep_arrays",
    "threshold_sweep",
    "token_scores",
    "weighted_precision",
    "whitespace_tokenize",
]
