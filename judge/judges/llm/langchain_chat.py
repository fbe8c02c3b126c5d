"""``langchain:PROVIDER:MODEL``: any LangChain chat model as a judge.

The model is built with ``langchain.chat_models.init_chat_model("PROVIDER:MODEL", ...)`` and
asked through ``with_structured_output(Schema, include_raw=True)``, which keeps the raw message:
its text (or the structured tool-call arguments) is what the cache stores and what the tolerant
parser reads, so the audit trail and re-parsing from cache work as for the ``openai`` backend.
Provider packages (``langchain-openai``, ``langchain-anthropic``…) and their API-key variables
are the provider's own; simjudge never stores a key, and redacts keys from error texts
(:mod:`judge.redact`).

The model is built once when the judge is constructed, so an unknown provider, a missing provider
package or a missing API key is one :class:`judge.errors.InputError` line (exit status 2 on the
command line) before any data is judged, not a traceback at the first call.
"""

from __future__ import annotations

import json
import os
from typing import Any

from judge.errors import InputError
from judge.judges.keys import keys_are_optional
from judge.judges.llm.llmjudge import CallResult, LLMJudge, LLMJudgeConfig, TransportError
from judge.redact import redact, register_key_env

KEY_ENV = {"anthropic": "ANTHROPIC_API_KEY", "azure_openai": "AZURE_OPENAI_API_KEY",
           "cohere": "COHERE_API_KEY", "deepseek": "DEEPSEEK_API_KEY",
           "fireworks": "FIREWORKS_API_KEY", "google_genai": "GOOGLE_API_KEY",
           "groq": "GROQ_API_KEY", "huggingface": "HUGGINGFACEHUB_API_TOKEN",
           "ibm": "WATSONX_APIKEY", "mistralai": "MISTRAL_API_KEY", "nvidia": "NVIDIA_API_KEY",
           "openai": "OPENAI_API_KEY", "openrouter": "OPENROUTER_API_KEY",
           "perplexity": "PPLX_API_KEY", "together": "TOGETHER_API_KEY",
           "upstage": "UPSTAGE_API_KEY", "xai": "XAI_API_KEY"}
"""The API-key environment variable of common LangChain providers (their packages' own
defaults): named in error messages and redacted from every error text."""


def _one_line(exc: BaseException, limit: int = 300) -> str:
    """The first paragraph of an exception's text on one line, keys redacted, cut."""
    text = " ".join(redact(str(exc)).split("\n\n")[0].split())
    return text if len(text) <= limit else text[:limit] + "…"


def known_providers() -> tuple[str, ...] | None:
    """Providers ``init_chat_model`` can build from a ``PROVIDER:MODEL`` string, or None when
    this LangChain version does not expose its registry."""
    from langchain.chat_models import base

    registry = getattr(base, "_BUILTIN_PROVIDERS", None)
    return tuple(sorted(registry)) if isinstance(registry, dict) else None


class LangChainJudge(LLMJudge):
    """Judge backed by ``init_chat_model`` + ``with_structured_output(include_raw=True)``.

    Args:
        judge_id: id to record (default the spec).
        provider_model: ``PROVIDER:MODEL`` as ``init_chat_model`` takes it (e.g.
            ``openai:gpt-4o-mini``, ``anthropic:claude-3-5-haiku-latest``).
        config: scorer, params (passed to ``init_chat_model``), base_url (passed as
            ``base_url``), concurrency, limits, price.
        method: LangChain's structured-output method (``json_schema``, ``function_calling``
            or ``json_mode``); default the provider's default.
        max_retries: passed to the chat model (its own retry/backoff).
        timeout_s: the per-request timeout (seconds) named when an ``openai``-SDK provider
            times out (the provider's own timeout setting applies).

    Raises:
        judge.errors.InputError: a malformed ``PROVIDER:MODEL``, a provider LangChain does not
            know, a provider package that is not installed, a missing API key or any other
            error building the model (one line, keys redacted).
    """

    backend = "langchain"

    def __init__(self, judge_id: str, provider_model: str, config: LLMJudgeConfig,
                 method: str | None = None, max_retries: int = 2,
                 timeout_s: float = 60.0) -> None:
        super().__init__(judge_id, config)
        self.provider_model = provider_model
        self.method = method
        self.max_retries = max_retries
        self.timeout_s = timeout_s
        self._runnable: Any = None
        self.missing_key: str | None = None  # a dry run without the key (judge.judges.keys)
        self._check()

    def _check(self) -> None:
        """Build the model once (no request is sent) to turn construction errors into one
        :class:`InputError` line; the model is then dropped and rebuilt inside the run's event
        loop."""
        spec = f"langchain:{self.provider_model}"
        provider, _, model = self.provider_model.partition(":")
        if not provider or not model:
            raise InputError(f"judge spec {spec!r}: expected langchain:PROVIDER:MODEL",
                             field="judge")
        register_key_env(KEY_ENV.get(provider))
        known = known_providers()
        if known is not None and provider not in known:
            raise InputError(f"judge spec {spec!r}: unknown LangChain provider {provider!r}; "
                             f"expected one of: {', '.join(known)}", field="judge")
        try:
            self._get_runnable()
        except ImportError as exc:
            raise InputError(f"judge spec {spec!r}: the provider package is not installed: "
                             f"{_one_line(exc)}", field="judge") from None
        except Exception as exc:  # provider SDKs raise their own types (OpenAIError, pydantic…)
            text = _one_line(exc)
            env = KEY_ENV.get(provider)
            low = text.lower()
            if env and not os.environ.get(env) and any(
                    w in low for w in ("api_key", "api key", "credential", "apikey")):
                if keys_are_optional():  # a dry run: the key is only needed to call
                    self.missing_key = env
                    return
                raise InputError(f"judge spec {spec!r}: no API key: set {env} ({text})",
                                 field="judge") from None
            raise InputError(f"judge spec {spec!r}: cannot build the model: "
                             f"{type(exc).__name__}: {text}", field="judge") from None
        finally:
            self._runnable = None

    def identity(self) -> dict[str, Any]:
        """Backend, provider:model, base_url, params and the structured-output method."""
        return {**super().identity(), "provider_model": self.provider_model,
                "method": self.method}

    async def aclose(self) -> None:
        """Drop the model: its HTTP client belongs to the event loop of this run."""
        self._runnable = None

    def _get_runnable(self) -> Any:
        if self._runnable is None:
            from langchain.chat_models import init_chat_model

            kwargs: dict[str, Any] = {**self.config.params, "max_retries": self.max_retries}
            if self.sent_limit is not None:  # --max-usd: the completion cap bounds the cost
                kwargs["max_tokens"] = self.sent_limit
            if self.config.base_url:
                kwargs["base_url"] = self.config.base_url
            model = init_chat_model(self.provider_model, **kwargs)
            so_kwargs: dict[str, Any] = {"include_raw": True}
            if self.method:
                so_kwargs["method"] = self.method
            self._runnable = model.with_structured_output(self.config.scorer.schema, **so_kwargs)
        return self._runnable

    async def call(self, messages: list[dict[str, str]]) -> CallResult:
        """One structured-output call; the raw message text (or tool arguments) is returned."""
        runnable = self._get_runnable()
        try:
            out = await runnable.ainvoke([(m["role"], m["content"]) for m in messages])
        except Exception as exc:  # provider SDK errors after the model's own retries
            raise _transport_error(exc, self.config.base_url, self.timeout_s) from None
        raw = out.get("raw")
        text = raw.content if isinstance(getattr(raw, "content", None), str) else ""
        tool_calls = getattr(raw, "tool_calls", None) or []
        mode = "text"
        if tool_calls:
            text = json.dumps(tool_calls[0].get("args", {}), ensure_ascii=False)
            mode = "tool"
        elif out.get("parsed") is not None:
            mode = self.method or "structured"
        usage = getattr(raw, "usage_metadata", None) or {}
        meta = getattr(raw, "response_metadata", None) or {}
        refusal = (getattr(raw, "additional_kwargs", None) or {}).get("refusal")
        if meta.get("finish_reason") == "content_filter":
            refusal = refusal or "the provider's content filter stopped the answer"
        return CallResult(texts=[text], tokens_in=int(usage.get("input_tokens", 0) or 0),
                          tokens_out=int(usage.get("output_tokens", 0) or 0),
                          refusal=refusal or None, mode=mode,
                          finish_reason=meta.get("finish_reason"))


def _transport_error(exc: Exception, base_url: str | None, timeout_s: float) -> TransportError:
    """A provider error as a :class:`TransportError`. Errors of the ``openai`` SDK (LangChain's
    OpenAI-compatible providers raise them) are described like the ``openai`` backend's — real
    cause, retry count, ``fatal`` for 401/403/404, refused connections and DNS failures, so a
    dead endpoint stops the run early; other providers' errors keep their type and text."""
    import openai

    from judge.judges.failures import describe_sdk_error

    if isinstance(exc, (openai.APIStatusError, openai.APIConnectionError)):
        return describe_sdk_error(exc, base_url, timeout_s)
    return TransportError(f"{type(exc).__name__}: {_one_line(exc)}")
