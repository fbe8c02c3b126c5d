"""``langchain:PROVIDER:MODEL``: any LangChain chat model as a judge.

The model is built with ``langchain.chat_models.init_chat_model("PROVIDER:MODEL", ...)`` and
asked through ``with_structured_output(Schema, include_raw=True)``, which keeps the raw message:
its text (or the structured tool-call arguments) is what the cache stores and what the tolerant
parser reads, so the audit trail and re-parsing from cache work as for the ``openai`` backend.
Provider packages (``langchain-openai``, ``langchain-anthropic``…) and their API-key variables
are the provider's own; simjudge never stores a key.
"""

from __future__ import annotations

import json
from typing import Any

from judge.judges.llm import CallResult, LLMJudge, LLMJudgeConfig, TransportError


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
    """

    backend = "langchain"

    def __init__(self, judge_id: str, provider_model: str, config: LLMJudgeConfig,
                 method: str | None = None, max_retries: int = 2) -> None:
        super().__init__(judge_id, config)
        self.provider_model = provider_model
        self.method = method
        self.max_retries = max_retries
        self._runnable: Any = None

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
            raise TransportError(f"{type(exc).__name__}: {str(exc)[:300]}") from None
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
