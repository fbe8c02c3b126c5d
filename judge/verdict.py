"""One judge's answer for one (pred, truth) pair."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_serializer, model_validator

Outcome = Literal["ok", "parse_error", "transport_error", "refused"]
"""``ok`` carries a score; every other outcome carries none (a failure is never a 0)."""

OUTCOMES: tuple[Outcome, ...] = ("ok", "parse_error", "transport_error", "refused")

RAW_MAX_CHARS = 4000
"""Most characters of ``raw`` kept on a failed verdict. A reply can be anything a server sends
(an HTML error page of megabytes, a runaway completion), and one such page per pair would blow
up ``verdicts.jsonl``; 4,000 characters keep the whole of any normal answer (a batch answer of
20 items with rationales is ~3,000) and enough of anything else to see what it was."""


def cap_raw(raw: str, limit: int = RAW_MAX_CHARS) -> tuple[str, bool]:
    """``(text, truncated)``: ``raw`` itself when it has at most ``limit`` characters, else its
    first ``limit`` characters followed by ``"…[truncated: N characters in all]"``."""
    if len(raw) <= limit:
        return raw, False
    return f"{raw[:limit]}…[truncated: {len(raw)} characters in all]", True


class Verdict(BaseModel):
    """A judge's verdict on one pair (DESIGN.md "Core objects").

    Attributes:
        pred, truth: the judged strings.
        score: similarity in [0, 1] when ``outcome == "ok"``, else None.
        rationale: the judge's explanation (an honest template for non-LLM judges).
        outcome: ``ok``, ``parse_error``, ``transport_error`` or ``refused``.
        raw: the raw completion / raw judge output (e.g. the cosine for embedding judges);
            for a failure, whatever the server sent (completion text, error body, a non-JSON
            page), cut to :data:`RAW_MAX_CHARS` characters (see ``raw_truncated``).
        raw_truncated: True when ``raw`` was cut (its text then ends with
            ``…[truncated: N characters in all]``, N the original length).
        judge_id: the judge's id (its spec string or TOML id).
        scorer: ``name@version`` of the prompt scorer, or the judge's method id.
        template_sha256: sha256 of the prompt template file ("" when no template is used).
        cache_key: key(s) of the cache entries this verdict came from ("" when uncached).
        latency_s: seconds spent producing it (0 for cache hits), >= 0.
        tokens_in, tokens_out: token usage (0 when not applicable).
        cached: True when served from the cache.
        output_mode: how the answer was requested from an LLM: ``json_schema`` (structured
            output), ``json_object`` (JSON mode) or ``text`` (tolerant parser), after any
            fallback; ``tool`` for LangChain's structured output; "" for non-LLM judges.
        cost_usd: cost of the call in USD (0 for cache hits and free judges).
        distribution: with ``--score-mode logprob``, the judge's grade distribution (grade
            "0".."9" → probability, summing to 1) whose expectation / 9 is ``score``
            (:mod:`judge.judges.llm.grades`); None otherwise, and then left out of
            :meth:`model_dump`.
        logprob_fallback: ``--score-mode logprob`` was asked for but the reply carried no
            logprobs, so ``score`` is the sampled grade / 9 (counted in ``summary.json``'s
            ``logprobs.fallback``); left out of :meth:`model_dump` when False.
    """

    model_config = ConfigDict(frozen=True)

    pred: str
    truth: str
    score: float | None = Field(default=None, ge=0.0, le=1.0)
    rationale: str = ""
    outcome: Outcome = "ok"
    raw: str = ""
    raw_truncated: bool = False
    judge_id: str
    scorer: str
    template_sha256: str = ""
    cache_key: str = ""
    latency_s: float = Field(default=0.0, ge=0.0)
    tokens_in: int = Field(default=0, ge=0)
    tokens_out: int = Field(default=0, ge=0)
    cached: bool = False
    output_mode: str = ""
    cost_usd: float = Field(default=0.0, ge=0.0)
    distribution: dict[str, float] | None = None
    logprob_fallback: bool = False

    @model_validator(mode="before")
    @classmethod
    def _cap_failed_raw(cls, data: Any) -> Any:
        # only failures are cut: an ok answer is bounded by max_tokens and is the audit trail
        if (isinstance(data, dict) and data.get("outcome", "ok") != "ok"
                and isinstance(data.get("raw"), str) and not data.get("raw_truncated")):
            raw, cut = cap_raw(data["raw"])
            if cut:
                data = {**data, "raw": raw, "raw_truncated": True}
        return data

    @model_serializer(mode="wrap")
    def _drop_no_distribution(self, handler: Any) -> Any:
        # only grade verdicts carry a distribution: the others keep their rows as before
        data = handler(self)
        if isinstance(data, dict) and data.get("distribution", 0) is None:
            del data["distribution"]
        if isinstance(data, dict) and data.get("logprob_fallback") is False:
            del data["logprob_fallback"]  # only a grade verdict without logprobs says so
        return data

    def to_row(self) -> dict[str, Any]:
        """The verdict as a new dict, equal to :meth:`model_dump` (the tests check it on every
        kind of verdict) at about a tenth of its cost: the fields as they are, ``distribution``
        (copied) left out when None and ``logprob_fallback`` when False. Each verdict of a run
        becomes a row of its verdict log this way (10,000 on a 10,000-pair run)."""
        row = dict(self.__dict__)
        if row["distribution"] is None:
            del row["distribution"]
        else:
            row["distribution"] = dict(row["distribution"])
        if row["logprob_fallback"] is False:
            del row["logprob_fallback"]
        return row

    @model_validator(mode="after")
    def _score_iff_ok(self) -> Verdict:
        if self.outcome == "ok" and self.score is None:
            raise ValueError("an 'ok' verdict needs a score")
        if self.outcome != "ok" and self.score is not None:
            raise ValueError(f"a '{self.outcome}' verdict carries no score")
        return self
