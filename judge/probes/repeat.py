"""The repeat probe: judge every pair N times with separate calls (sample index 0..N-1 in the
cache key) and measure how much the judge disagrees with itself.

:class:`Repeats` is a :class:`judge.judges.panel.Panel` whose members are the same LLM judge
drawing samples 0..N-1 (:meth:`judge.judges.llm.llmjudge.LLMJudge.sample_of`: id ``J#k``, cache key
sample ``k``, decoding seed + k), so the panel machinery applies unchanged: the run's score of
a pair is the vote over its samples (``--vote``, default mean), every sample's verdict is in
``verdicts.jsonl`` (``member_of`` the repeats id), ``simjudge rescore --vote`` re-votes them, and
the agreement across samples (Krippendorff's α) is the judge's test–retest reliability.
:func:`repeat_probe` turns the samples into per-pair rows (scores, SD, flip at τ) and the
summary of :func:`judge.probes.stats.repeat_summary`.

Sampling only varies when the server samples: at temperature 0 (the default) a deterministic
server answers the same every time and the probe measures exactly that.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from judge.errors import InputError
from judge.judges.base import Judge
from judge.judges.panel import Panel
from judge.probes.stats import repeat_summary
from judge.record.proberows import RepeatProbeRow

METHOD = "repeats@v1"


class Repeats(Panel):
    """N samples of one LLM judge, voted like a panel.

    Args:
        judge: the LLM judge (:class:`judge.judges.llm.llmjudge.LLMJudge`) drawing sample 0.
        n: samples per pair, >= 2.
        vote_rule, quorum, tau: as :class:`judge.judges.panel.Panel` (quorum of samples).

    Raises:
        ValueError: ``n`` < 2, or a bad vote/quorum.
    """

    def __init__(self, judge: Any, n: int, vote_rule: str = "mean", quorum: int = 1,
                 tau: float = 0.7) -> None:
        if n < 2:
            raise ValueError(f"repeats: expected at least 2 samples, got {n}")
        super().__init__([judge.sample_of(k) for k in range(n)], vote_rule, quorum, tau)
        self.repeats = n
        self.base_id = judge.id
        self.id = f"repeats:{vote_rule}({judge.id}×{n})"

    def describe(self) -> dict[str, Any]:
        """The panel's description with ``method`` ``repeats@v1``, ``repeats`` and ``of``."""
        return {**super().describe(), "method": METHOD, "repeats": self.repeats,
                "of": self.base_id}


def repeated(judge: Judge, n: int, vote_rule: str = "mean", quorum: int = 1,
             tau: float = 0.7) -> Judge:
    """``judge`` itself for ``n`` = 1, else :class:`Repeats` of it.

    Raises:
        InputError: (field ``repeats``) ``n`` < 1; a judge that cannot draw samples (``local``,
            ``lexical``, ``table``, embeddings: deterministic) or a panel.
    """
    if n < 1:
        raise InputError(f"--repeats must be >= 1, got {n}", field="repeats")
    if n == 1:
        return judge
    if isinstance(judge, Panel) or not hasattr(judge, "sample_of"):
        kind = "a panel" if isinstance(judge, Panel) else f"{judge.id!r}, which is deterministic"
        raise InputError(f"--repeats samples one LLM judge (openai:, langchain:) again; got {kind}",
                         field="repeats")
    try:
        return Repeats(judge, n, vote_rule, quorum, tau)
    except ValueError as exc:
        raise InputError(str(exc), field="repeats") from None


def repeat_probe(verdict_rows: Iterable[Mapping[str, Any]], judge: Repeats, tau: float,
                 n_boot: int = 1000, seed: int = 0) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Per-pair rows and summary of a :class:`Repeats` run.

    Args:
        verdict_rows: the run's verdict rows (the samples are those with ``member_of`` =
            ``judge.id``).
        judge: the run's :class:`Repeats` judge.
        tau: τ in [0, 1]; n_boot, seed: the bootstrap.

    Returns:
        ``(rows, summary)``: rows ``{"item_id", "pred", "truth", "scores" (by sample index,
        None where that sample failed), "sd", "flip"}`` and
        :func:`judge.probes.stats.repeat_summary` plus ``repeats`` and ``failed_samples``.
    """
    index = {m.id: k for k, m in enumerate(judge.members)}
    by_pair: dict[tuple[Any, str, str], list[float | None]] = {}
    failed = 0
    for r in verdict_rows:
        if r.get("member_of") != judge.id or r.get("judge_id") not in index:
            continue
        scores = by_pair.setdefault((r.get("item_id"), r["pred"], r["truth"]),
                                    [None] * judge.repeats)
        if r.get("outcome", "ok") == "ok" and r.get("score") is not None:
            scores[index[r["judge_id"]]] = float(r["score"])
        else:
            failed += 1
    rows: list[dict[str, Any]] = []
    samples: list[list[float]] = []
    for (iid, p, t), scores in by_pair.items():
        ok = [s for s in scores if s is not None]
        samples.append(ok)
        sd = float(sum((x - sum(ok) / len(ok)) ** 2 for x in ok) / (len(ok) - 1)) ** 0.5 \
            if len(ok) >= 2 else None
        rows.append(RepeatProbeRow(
            item_id=iid, pred=p, truth=t, scores=scores, sd=sd,
            flip=len({x > tau for x in ok}) > 1 if len(ok) >= 2 else None).to_row())
    return rows, {"repeats": judge.repeats, "failed_samples": failed,
                  **repeat_summary(samples, tau, n_boot, seed)}
