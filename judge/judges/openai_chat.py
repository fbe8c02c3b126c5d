"""``openai:MODEL``: judges served by the OpenAI API or any OpenAI-compatible server (vLLM,
llama.cpp server, Ollama, DeepSeek, Qwen/DashScope…) through the official ``openai`` SDK.

Structured output first: ``response_format = {"type": "json_schema", "strict": true, ...}`` with
the scorer's schema. A server that rejects it (HTTP 400 naming the response format) is asked
again in JSON mode (``{"type": "json_object"}``), then with no response format and the tolerant
parser; the mode that worked is remembered for the rest of the run and recorded on every verdict
(``output_mode``). The SDK's own retries handle 429/5xx/timeouts with exponential backoff and
``Retry-After``. The API key is read from an environment variable at call time and is never
stored in the cache, a run file or a log.
"""

from __future__ import annotations

import copy
import os
from typing import Any

from judge.judges.llm import CallResult, LLMJudge, LLMJudgeConfig, TransportError

MODES = ("json_schema", "json_object", "text")
_UNSUPPORTED_IN_STRICT = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "title",
                          "default")


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A JSON Schema usable with ``strict: true``: every object closed (``additionalProperties:
    false``) with all properties required, and keywords strict mode rejects removed (the
    pydantic model still enforces them when parsing)."""
    s = copy.deepcopy(schema)

    def fix(node: Any) -> None:
        if isinstance(node, dict):
            for k in _UNSUPPORTED_IN_STRICT:
                node.pop(k, None)
            if node.get("type") == "object" and "properties" in node:
                node["additionalProperties"] = False
                node["required"] = list(node["properties"])
            for v in node.values():
                fix(v)
        elif isinstance(node, list):
            for v in node:
                fix(v)

    fix(s)
    return s


def _format_rejected(exc: Exception) -> bool:
    text = str(exc).lower()
    return any(w in text for w in ("response_format", "json_schema", "json schema",
                                   "structured output", "json_object", "not supported"))


class OpenAIJudge(LLMJudge):
    """Chat-completions judge.

    Args:
        judge_id: id to record (default spec ``openai:MODEL``).
        config: model, scorer, decoding params, base_url, concurrency, limits, price.
        api_key_env: environment variable holding the key (default ``OPENAI_API_KEY``); for a
            custom ``base_url`` an unset variable means "no key needed".
        timeout_s: per-request timeout in seconds (default 60).
        max_retries: SDK retries for 429/5xx/timeouts/connection errors (default 2).

    Raises:
        judge.errors.InputError: no key for the OpenAI API itself.
    """

    backend = "openai"

    def __init__(self, judge_id: str, config: LLMJudgeConfig, api_key_env: str = "OPENAI_API_KEY",
                 timeout_s: float = 60.0, max_retries: int = 2) -> None:
        super().__init__(judge_id, config)
        from judge.errors import InputError

        self.api_key_env = api_key_env
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        if config.base_url is None and not os.environ.get(api_key_env):
            raise InputError(f"{api_key_env} is not set (needed for the OpenAI API)",
                             field="judge")
        self._mode_index = 0
        self._client: Any = None

    def _get_client(self) -> Any:
        if self._client is None:
            from openai import AsyncOpenAI

            self._client = AsyncOpenAI(
                api_key=os.environ.get(self.api_key_env) or "no-key-needed",
                base_url=self.config.base_url, timeout=self.timeout_s,
                max_retries=self.max_retries)
        return self._client

    async def aclose(self) -> None:
        """Close the HTTP client (it belongs to the event loop of this run)."""
        if self._client is not None:
            await self._client.close()
            self._client = None

    def describe(self) -> dict[str, Any]:
        """Identity plus the key's variable name (never its value) and the output mode."""
        return {**super().describe(), "api_key_env": self.api_key_env,
                "timeout_s": self.timeout_s, "max_retries": self.max_retries,
                "output_mode": MODES[self._mode_index]}

    def _response_format(self, mode: str) -> dict[str, Any] | None:
        scorer = self.config.scorer
        if mode == "json_schema":
            return {"type": "json_schema",
                    "json_schema": {"name": scorer.name, "strict": True,
                                    "schema": strict_schema(scorer.json_schema())}}
        if mode == "json_object":
            return {"type": "json_object"}
        return None

    async def call(self, messages: list[dict[str, str]]) -> CallResult:
        """One chat completion with the structured-output fallback chain."""
        import openai

        client = self._get_client()
        while True:
            mode = MODES[self._mode_index]
            kwargs: dict[str, Any] = {"model": self.config.model, "messages": messages,
                                      **self.config.params}
            fmt = self._response_format(mode)
            if fmt is not None:
                kwargs["response_format"] = fmt
            try:
                resp = await client.chat.completions.create(**kwargs)
            except openai.BadRequestError as exc:
                if mode != "text" and _format_rejected(exc):
                    self._mode_index = max(self._mode_index, MODES.index(mode) + 1)
                    continue
                raise TransportError(f"HTTP 400: {_short(exc)}") from None
            except openai.APIStatusError as exc:
                raise TransportError(f"HTTP {exc.status_code} after {self.max_retries} "
                                     f"retries: {_short(exc)}") from None
            except openai.APITimeoutError:
                raise TransportError(f"timed out after {self.timeout_s:g} s "
                                     f"({self.max_retries} retries)") from None
            except openai.APIConnectionError as exc:
                raise TransportError(f"connection failed: {_short(exc)}") from None
            return _result(resp, mode)


def _short(exc: Exception) -> str:
    text = str(exc)
    return text if len(text) <= 300 else text[:300] + "…"


def _result(resp: Any, mode: str) -> CallResult:
    choices = list(resp.choices or [])
    usage = getattr(resp, "usage", None)
    texts = [(c.message.content or "") for c in choices]
    refusal = None
    for c in choices:
        r = getattr(c.message, "refusal", None)
        if r:
            refusal = str(r)
        elif c.finish_reason == "content_filter":
            refusal = "the provider's content filter stopped the answer"
    return CallResult(
        texts=texts or [""],
        tokens_in=int(getattr(usage, "prompt_tokens", 0) or 0),
        tokens_out=int(getattr(usage, "completion_tokens", 0) or 0),
        refusal=refusal, mode=mode,
        finish_reason=choices[0].finish_reason if choices else None,
    )
