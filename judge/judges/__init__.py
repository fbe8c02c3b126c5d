"""Judge backends and judge-spec parsing.

Specs: ``local``, ``lexical``, ``table:PATH``, ``openai:MODEL``, ``langchain:PROVIDER:MODEL``,
``openai-embedding:MODEL``; options for remote judges come from :class:`JudgeOptions` (CLI flags)
or from a judges TOML file (:mod:`judge.judgesfile`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from judge.errors import InputError
from judge.judges.base import Judge, JudgeContext, JudgeStats, Pair
from judge.judges.lexical import LexicalJudge
from judge.judges.local import LocalJudge
from judge.judges.table import TableJudge, table_judge_from_spec
from judge.prices import Price

__all__ = ["Judge", "JudgeContext", "JudgeOptions", "JudgeStats", "LexicalJudge", "LocalJudge",
           "Pair", "TableJudge", "parse_judge_spec"]

SPECS = ("local", "lexical", "table:PATH", "openai:MODEL", "langchain:PROVIDER:MODEL",
         "openai-embedding:MODEL")


@dataclass
class JudgeOptions:
    """Settings of remote judges (ignored by ``local``, ``lexical`` and ``table``).

    Attributes:
        base_url: OpenAI-compatible endpoint (None = the provider's default).
        api_key_env: environment variable holding the API key (its value is never stored).
        scorer: ``name@version`` of the prompt scorer.
        params: decoding parameters (temperature, seed, max_tokens, n…).
        concurrency: calls in flight (default 16).
        max_batch: most items per request with a batch scorer (default 20).
        rpm, tpm: requests/tokens per minute limits (None = unlimited).
        timeout_s: per-request timeout in seconds.
        max_retries: SDK retries with backoff for 429/5xx/timeouts.
        prices: model → :class:`judge.prices.Price` (USD per 1M tokens).
        judge_id: id to record instead of the spec (from a judges TOML file).
        method: LangChain structured-output method, if not the provider default.
        http: HTTP transport of the openai SDK: ``auto`` (aiohttp when installed), ``aiohttp``
            or ``httpx``.
    """

    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    scorer: str = "entity_similarity@v1"
    params: dict[str, Any] = field(default_factory=lambda: {"temperature": 0.0})
    concurrency: int = 16
    max_batch: int = 20
    rpm: int | None = None
    tpm: int | None = None
    timeout_s: float = 60.0
    max_retries: int = 2
    prices: dict[str, Price] = field(default_factory=dict)
    judge_id: str | None = None
    method: str | None = None
    http: str = "auto"


def _llm_config(model: str, options: JudgeOptions) -> Any:
    from judge.judges.llm import LLMJudgeConfig
    from judge.scorer import load_scorer

    try:
        scorer = load_scorer(options.scorer)
    except ValueError as exc:
        raise InputError(str(exc), field="scorer") from None
    if options.concurrency < 1:
        raise InputError(f"concurrency must be >= 1, got {options.concurrency}",
                         field="concurrency")
    return LLMJudgeConfig(model=model, scorer=scorer, params=dict(options.params),
                          base_url=options.base_url, concurrency=options.concurrency,
                          max_batch=options.max_batch,
                          rpm=options.rpm, tpm=options.tpm, price=options.prices.get(model))


def parse_judge_spec(spec: str, options: JudgeOptions | None = None) -> Judge:
    """Build a judge from its spec string.

    Args:
        spec: ``local`` (embedded multilingual USE), ``lexical`` (surface overlap),
            ``table:PATH`` (scores from a file), ``openai:MODEL`` (OpenAI or any
            OpenAI-compatible server), ``langchain:PROVIDER:MODEL`` (any LangChain chat model),
            ``openai-embedding:MODEL`` (cosine of /v1/embeddings vectors).
        options: settings for remote judges.

    Raises:
        InputError: an unknown spec, a missing model name or API key, a bad scorer id, or a
            bad table file (file and line named).
    """
    options = options or JudgeOptions()
    jid = options.judge_id or spec
    if spec == "local":
        return LocalJudge(judge_id=jid)
    if spec == "lexical":
        return LexicalJudge(judge_id=jid)
    if spec.startswith("table:"):
        judge = table_judge_from_spec(spec)
        judge.id = jid
        return judge
    backend, _, rest = spec.partition(":")
    if backend in ("openai", "langchain", "openai-embedding") and not rest:
        raise InputError(f"judge spec {spec!r} needs a model name, e.g. {backend}:MODEL",
                         field="judge")
    if backend == "openai":
        from judge.judges.openai_chat import OpenAIJudge

        return OpenAIJudge(jid, _llm_config(rest, options), api_key_env=options.api_key_env,
                           timeout_s=options.timeout_s, max_retries=options.max_retries,
                           http=options.http)
    if backend == "langchain":
        if ":" not in rest:
            raise InputError(f"judge spec {spec!r}: expected langchain:PROVIDER:MODEL",
                             field="judge")
        from judge.judges.langchain_chat import LangChainJudge

        return LangChainJudge(jid, rest, _llm_config(rest.split(":", 1)[1], options),
                              method=options.method, max_retries=options.max_retries)
    if backend == "openai-embedding":
        from judge.judges.openai_embedding import OpenAIEmbeddingJudge

        return OpenAIEmbeddingJudge(jid, rest, base_url=options.base_url,
                                    api_key_env=options.api_key_env,
                                    price=options.prices.get(rest), timeout_s=options.timeout_s,
                                    max_retries=options.max_retries)
    raise InputError(f"unknown judge spec {spec!r}; expected one of: {', '.join(SPECS)}",
                     field="judge")
