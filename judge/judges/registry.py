"""The judge registry: one table of backends, and the judge-spec grammar built on it.

A judge spec is ``NAME`` or ``NAME:ARG`` (``ARG`` being a model name, ``PROVIDER:MODEL`` or a file
path, as the backend's :attr:`Backend.arg` says); ``NAME`` is a key of :data:`REGISTRY`. This module
is the only place that knows the grammar: the command line's help (:func:`spec_help`), the judges
TOML file (:mod:`judge.judges.judgesfile`, via :meth:`Backend.spec`) and :func:`parse_judge_spec`
all read the table. Adding a backend is one :class:`Backend` row.

Backend modules are imported only when a judge of theirs is built, so importing the registry (as
``simjudge --help`` does) loads neither numpy nor an SDK.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from judge.errors import InputError
from judge.judges.options import JudgeOptions

if TYPE_CHECKING:
    from judge.judges.base import Judge

__all__ = ["REGISTRY", "SPECS", "Backend", "parse_judge_spec", "spec_help"]

Factory = Callable[[str, str, JudgeOptions], "Judge"]
"""``factory(judge_id, arg, options)``: builds the judge; ``arg`` is the spec's part after
``NAME:`` (``""`` for backends without an argument)."""


@dataclass(frozen=True)
class Backend:
    """One row of :data:`REGISTRY`.

    Attributes:
        name: the spec's ``NAME`` (also the ``backend`` of a judges TOML entry).
        factory: builds the judge (see :data:`Factory`); may raise :class:`InputError`.
        arg: the argument's syntax after ``NAME:`` (``MODEL``, ``PROVIDER:MODEL``,
            ``PATH``), or None for a backend that takes none. A syntax with ``k`` colons
            needs ``k + 1`` non-empty parts; its last part may itself contain colons
            (``openai:qwen2.5:7b`` is the model ``qwen2.5:7b``).
        arg_help: what the argument is, for error messages (``a model name``, ``a file path``).
        help: one line for ``--help``.
        options: the :class:`JudgeOptions` fields the backend uses (the others are ignored).
    """

    name: str
    factory: Factory
    arg: str | None
    arg_help: str
    help: str
    options: tuple[str, ...]

    @property
    def needs_model(self) -> bool:
        """True when the spec must carry an argument (a model name or a path)."""
        return self.arg is not None

    @property
    def syntax(self) -> str:
        """The spec's form, e.g. ``openai:MODEL`` or ``local``."""
        return self.name if self.arg is None else f"{self.name}:{self.arg}"

    def check_arg(self, spec: str, arg: str) -> None:
        """Check the argument of ``spec`` against :attr:`arg`.

        Raises:
            InputError: (field ``judge``) an argument given to a backend that takes none, a
                missing one, or one without every part of its syntax.
        """
        if self.arg is None:
            if arg or spec != self.name:
                raise _unknown(spec)
            return
        if not arg:
            raise InputError(f"judge spec {spec!r} needs {self.arg_help}, e.g. {self.syntax}",
                             field="judge")
        n = self.arg.count(":") + 1
        parts = arg.split(":", n - 1)
        if len(parts) != n or not all(parts):
            raise InputError(f"judge spec {spec!r}: expected {self.syntax}", field="judge")

    def spec(self, arg: str | None = None) -> str:
        """The spec string of this backend with ``arg`` (None for a backend without one).

        Raises:
            InputError: as :meth:`check_arg`.
        """
        text = self.name if arg is None else f"{self.name}:{arg}"
        self.check_arg(text, arg or "")
        return text


def _unknown(spec: str) -> InputError:
    return InputError(f"unknown judge spec {spec!r}; expected one of: {', '.join(SPECS)}",
                      field="judge")


# ------------------------------------------------------------------------------ factories
def _local(judge_id: str, arg: str, o: JudgeOptions) -> Judge:
    from judge.judges.embedding.local import LocalJudge

    return LocalJudge(judge_id=judge_id, threads=o.threads, opposite_guard=o.opposite_guard)


def _lexical(judge_id: str, arg: str, o: JudgeOptions) -> Judge:
    from judge.judges.lexical import LexicalJudge

    return LexicalJudge(judge_id=judge_id)


def _table(judge_id: str, arg: str, o: JudgeOptions) -> Judge:
    from judge.judges.table import TableJudge

    return TableJudge(arg, judge_id=judge_id)


def _llm_config(model: str, o: JudgeOptions) -> Any:
    """The :class:`judge.judges.llm.llmjudge.LLMJudgeConfig` of a prompt judge.

    Raises:
        InputError: (field ``scorer``) an unknown scorer id.
    """
    from judge.judges.llm.llmjudge import LLMJudgeConfig
    from judge.judges.llm.scorer import load_scorer

    scorer_id, params = o.scorer, dict(o.params)
    if o.score_mode == "logprob":
        scorer_id, params = logprob_request(o.scorer, params)
    try:
        scorer = load_scorer(scorer_id)
    except ValueError as exc:
        raise InputError(str(exc), field="scorer") from None
    return LLMJudgeConfig(model=model, scorer=scorer, params=params,
                          base_url=_urls(o.base_url), concurrency=o.concurrency,
                          max_batch=o.max_batch, rpm=o.rpm, tpm=o.tpm,
                          price=o.prices.get(model), stop_after=o.stop_after)


TOP_LOGPROBS = 10
"""Alternatives asked for at each token with ``--score-mode logprob`` (OpenAI allows 0..20):
enough to hold every grade with non-negligible probability."""


def logprob_request(scorer: str, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The scorer and decoding parameters of ``--score-mode logprob``: the grade scorer
    ``entity_similarity_grade@v1`` (in place of the default ``entity_similarity@v1``) with
    ``logprobs: true``, ``top_logprobs`` :data:`TOP_LOGPROBS` and, unless given, ``max_tokens``
    8 (the answer is one digit). The parameters are part of every cache key.

    Raises:
        InputError: (field ``score_mode``) a scorer other than the similarity ones, whose
            answers are not a single grade.
    """
    from judge.judges.llm.scorer import SCORERS

    if scorer == "entity_similarity@v1":
        scorer = "entity_similarity_grade@v1"
    entry = SCORERS.get(scorer)
    if entry is None or entry.mode != "grade":
        grade = ", ".join(k for k, e in SCORERS.items() if e.mode == "grade")
        raise InputError(f"--score-mode logprob reads the probabilities of a single grade token: "
                         f"it needs a grade scorer ({grade}), not --scorer {scorer}",
                         field="score_mode")
    return scorer, {"max_tokens": 8, **params, "logprobs": True, "top_logprobs": TOP_LOGPROBS}


def _openai_flavour(flavour: str) -> Callable[[str, str, JudgeOptions], Judge]:
    def build(judge_id: str, arg: str, o: JudgeOptions) -> Judge:
        from judge.judges.llm.openai_chat import OpenAIJudge

        if flavour != "openai" and o.base_url is None:
            raise InputError(f"{flavour}:MODEL judges a model on your {flavour} server(s): give "
                             "--base-url http://HOST:PORT/v1 (several, comma-separated, are "
                             "balanced)", field="base_url")
        return OpenAIJudge(judge_id, _llm_config(arg, o), api_key_env=o.api_key_env,
                           timeout_s=o.timeout_s, max_retries=o.max_retries, http=o.http,
                           flavour=flavour, structured_field=o.structured_field)

    return build


def _urls(base_url: str | None) -> str | None:
    """``--base-url`` with blanks and repeated URLs dropped (None stays None)."""
    from judge.judges.llm.endpoints import split_urls

    return ",".join(split_urls(base_url)) or None if base_url is not None else None


def _one_endpoint(spec: str, o: JudgeOptions) -> None:
    from judge.judges.llm.endpoints import split_urls

    if len(split_urls(o.base_url)) > 1:
        raise InputError(f"several endpoints (comma-separated --base-url) are balanced for "
                         f"openai:, vllm: and sglang: judges, not {spec}:", field="base_url")


def _langchain(judge_id: str, arg: str, o: JudgeOptions) -> Judge:
    from judge.judges.llm.langchain_chat import LangChainJudge

    if o.score_mode != "verbal":
        raise InputError("--score-mode logprob is served by openai: judges (OpenAI-compatible "
                         "servers return token logprobs); langchain: judges score verbally",
                         field="score_mode")
    _one_endpoint("langchain", o)
    model = arg.split(":", 1)[1]
    return LangChainJudge(judge_id, arg, _llm_config(model, o), method=o.method,
                          max_retries=o.max_retries, timeout_s=o.timeout_s)


def _openai_embedding(judge_id: str, arg: str, o: JudgeOptions) -> Judge:
    from judge.judges.embedding.openai_embedding import OpenAIEmbeddingJudge

    _one_endpoint("openai-embedding", o)
    return OpenAIEmbeddingJudge(judge_id, arg, base_url=_urls(o.base_url),
                                api_key_env=o.api_key_env,
                                price=o.prices.get(arg), timeout_s=o.timeout_s,
                                max_retries=o.max_retries, stop_after=o.stop_after)


_PROMPT_OPTIONS = ("scorer", "score_mode", "params", "concurrency", "max_batch", "rpm", "tpm",
                   "timeout_s",
                   "max_retries", "prices", "stop_after", "judge_id")

REGISTRY: dict[str, Backend] = {b.name: b for b in (
    Backend("local", _local, None, "", "embedded multilingual sentence encoder, offline "
            "(cosine, calibrated, opposite-term guard)",
            ("threads", "opposite_guard", "judge_id")),
    Backend("lexical", _lexical, None, "", "surface overlap baseline (character bigrams + "
            "tokens), no model", ("judge_id",)),
    Backend("table", _table, "PATH", "a file path", "scores read from a JSONL/CSV/TSV file "
            "(pred, truth, score)", ("judge_id",)),
    Backend("openai", _openai_flavour("openai"), "MODEL", "a model name", "chat model of "
            "OpenAI or any OpenAI-compatible server (--base-url A,B: several, balanced)",
            ("base_url", "api_key_env", "http", *_PROMPT_OPTIONS)),
    Backend("vllm", _openai_flavour("vllm"), "MODEL", "a model name", "chat model on vLLM "
            "server(s): the structured-output field of each server's version",
            ("base_url", "api_key_env", "http", "structured_field", *_PROMPT_OPTIONS)),
    Backend("sglang", _openai_flavour("sglang"), "MODEL", "a model name", "chat model on "
            "SGLang server(s): response_format json_schema", ("base_url", "api_key_env", "http",
                                                             *_PROMPT_OPTIONS)),
    Backend("langchain", _langchain, "PROVIDER:MODEL", "a provider and a model name",
            "any LangChain chat model", ("base_url", "method", *_PROMPT_OPTIONS)),
    Backend("openai-embedding", _openai_embedding, "MODEL", "a model name",
            "cosine of /v1/embeddings vectors (uncalibrated)",
            ("base_url", "api_key_env", "prices", "timeout_s", "max_retries", "stop_after",
             "judge_id")),
)}
"""Every judge backend, by spec ``NAME`` (see :class:`Backend`)."""

SPECS: tuple[str, ...] = tuple(b.syntax for b in REGISTRY.values())
"""The spec forms, e.g. ``("local", "lexical", "table:PATH", "openai:MODEL", …)``."""


def spec_help(detailed: bool = False) -> str:
    """The judge specs for ``--help``.

    Args:
        detailed: one ``SPEC: help`` line per backend instead of a comma-separated list.

    Returns:
        e.g. ``local, lexical, table:PATH, openai:MODEL, langchain:PROVIDER:MODEL,
        openai-embedding:MODEL``.
    """
    if detailed:
        return "\n".join(f"{b.syntax}: {b.help}" for b in REGISTRY.values())
    return ", ".join(SPECS)


def parse_judge_spec(spec: str, options: JudgeOptions | None = None) -> Judge:
    """Build a judge from its spec string (see :data:`SPECS`).

    Args:
        spec: ``NAME`` or ``NAME:ARG``, ``NAME`` a key of :data:`REGISTRY`.
        options: settings of the judge (default :class:`JudgeOptions()`); the judge's id is
            ``options.judge_id``, else the spec.

    Returns:
        the judge (any :class:`judge.judges.base.Judge`).

    Raises:
        InputError: an unknown spec (the message lists :data:`SPECS`), a missing model name
            or path, a malformed argument, a missing API key, a bad scorer id, or a bad table
            file (file and line named).
    """
    options = options or JudgeOptions()
    name, _, arg = spec.partition(":")
    backend = REGISTRY.get(name)
    if backend is None:
        raise _unknown(spec)
    backend.check_arg(spec, arg)
    return backend.factory(options.judge_id or spec, arg, options)
