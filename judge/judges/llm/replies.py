"""Checking the HTTP 200 replies of OpenAI-compatible servers before anything is read from them.

A server (or a proxy or gateway in front of it) can answer 200 with anything: an HTML login or
error page, a body cut off mid-JSON, a JSON array, ``"message"`` as a string, ``"content"`` as a
list, ``"prompt_tokens": "many"``. Each of these is a reply that breaks the protocol, so it
becomes a :class:`judge.judges.failures.TransportError` for the pairs of that request — with the
body kept as the verdict's ``raw`` text — never an exception that ends the run, never a score,
never a cache entry. (A well-formed reply whose *completion text* holds no valid answer is a
``parse_error`` instead: that is the model's failure, not the server's.)

The shapes accepted follow the OpenAI API reference for ``POST /chat/completions`` and
``POST /embeddings``: https://platform.openai.com/docs/api-reference/chat/object and
https://platform.openai.com/docs/api-reference/embeddings/object. Fields simjudge does not read
are not checked (servers add their own).
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Annotated, Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, Strict, ValidationError

from judge.judges.failures import TransportError, server_message
from judge.judges.llm.jsonreply import validation_detail
from judge.judges.llm.llmjudge import CallResult

TokenCount = Annotated[int, Strict(), Field(ge=0)]
_JSON_TYPES = {list: "array", str: "string", int: "number", float: "number", bool: "boolean",
               type(None): "null"}


class Usage(BaseModel):
    """``usage``: token counts, non-negative JSON integers (absent or null = 0)."""

    model_config = ConfigDict(extra="ignore")

    prompt_tokens: TokenCount | None = None
    completion_tokens: TokenCount | None = None


class ChatMessage(BaseModel):
    """``choices[].message``: ``content`` and ``refusal``, each a string or null."""

    model_config = ConfigDict(extra="ignore")

    content: Annotated[str, Strict()] | None = None
    refusal: Annotated[str, Strict()] | None = None


class ChatChoice(BaseModel):
    """``choices[]``: a ``message`` object (or null) and the ``finish_reason``."""

    model_config = ConfigDict(extra="ignore")

    message: ChatMessage | None = None
    finish_reason: Any = None
    logprobs: Any = None


class ChatCompletionReply(BaseModel):
    """The parts of a ``chat.completion`` object simjudge reads: ``choices[].message.content``
    (a string or null), ``.refusal`` (a string or null), ``finish_reason``, and ``usage``
    (non-negative integers or absent)."""

    model_config = ConfigDict(extra="ignore")

    choices: list[ChatChoice] = Field(min_length=1)
    usage: Usage | None = None


class EmbeddingItem(BaseModel):
    """``data[]``: ``index`` (integer >= 0) and ``embedding`` (finite numbers, or a base64
    string of little-endian float32 values)."""

    model_config = ConfigDict(extra="ignore")

    index: Annotated[int, Strict(), Field(ge=0)]
    embedding: list[Annotated[float, Strict(), Field(allow_inf_nan=False)]] | Annotated[
        str, Strict()]


class EmbeddingsReply(BaseModel):
    """The parts of an embeddings ``list`` object simjudge reads: ``data[].index``,
    ``data[].embedding`` (finite numbers, or base64 float32 when asked for) and ``usage``."""

    model_config = ConfigDict(extra="ignore")

    data: list[EmbeddingItem]
    usage: Usage | None = None


def _body_text(response: Any) -> tuple[str, str]:
    """``(text, content type)`` of an httpx response; the bytes are decoded with the declared
    charset (undecodable bytes replaced), so any body can be kept as text."""
    ctype = str(response.headers.get("content-type", "") or "")
    try:
        text = response.text
    except Exception:  # an unknown charset name
        text = response.content.decode("utf-8", "replace")
    return str(text), ctype


def _load(response: Any, what: str) -> tuple[dict[str, Any], str]:
    """The JSON object of a 200 reply and its text.

    Raises:
        TransportError: the body is not JSON, or is JSON but not an object.
    """
    text, ctype = _body_text(response)
    kind = f" (content-type {ctype.split(';')[0]})" if ctype else ""
    try:
        obj = json.loads(text)
    except RecursionError:
        raise TransportError(f"malformed {what} reply: JSON nested too deeply{kind}",
                             raw=text, cause="malformed reply") from None
    except ValueError as exc:  # JSONDecodeError, or an integer over 4,300 digits
        head = " ".join(text[:80].split())
        raise TransportError(f"malformed {what} reply: the HTTP 200 body is not JSON{kind}: "
                             f"{exc}; it starts {head!r}", raw=text,
                             cause="malformed reply") from None
    if not isinstance(obj, dict):
        raise TransportError(f"malformed {what} reply: expected a JSON object, got a JSON "
                             f"{_JSON_TYPES.get(type(obj), 'value')}{kind}", raw=text,
                             cause="malformed reply")
    error = obj.get("error")
    if error and "choices" not in obj and "data" not in obj:
        raise TransportError(f"the server answered HTTP 200 with an error: "
                             f"{server_message(text)}", raw=text, cause="error in a 200 reply")
    return obj, text


def _validate(model: type[BaseModel], obj: dict[str, Any], text: str, what: str) -> Any:
    try:
        return model.model_validate(obj)
    except ValidationError as exc:
        raise TransportError(f"malformed {what} reply: {validation_detail(exc)}", raw=text,
                             cause="malformed reply") from None


def chat_result(response: Any, mode: str) -> CallResult:
    """A :class:`CallResult` from the HTTP 200 response of ``POST /chat/completions``.

    Args:
        response: the httpx response (body not yet parsed).
        mode: the output mode the request used (recorded on the verdicts).

    Raises:
        TransportError: the reply is not a valid ``chat.completion`` object (see the module
            docstring); its text is the error's ``raw``.
    """
    obj, text = _load(response, "chat.completion")
    reply: ChatCompletionReply = _validate(ChatCompletionReply, obj, text, "chat.completion")
    texts: list[str] = []
    refusal = None
    for c in reply.choices:
        msg = c.message or ChatMessage()
        texts.append(msg.content or "")
        if msg.refusal:
            refusal = msg.refusal
        elif c.finish_reason == "content_filter":
            refusal = "the provider's content filter stopped the answer"
    usage = reply.usage or Usage()
    finish = reply.choices[0].finish_reason
    # token log-probabilities (asked for by --score-mode logprob): each choice's
    # logprobs.content list, read leniently by judge.judges.llm.grades (None where absent)
    logprobs = [c.logprobs.get("content") if isinstance(c.logprobs, dict)
                and isinstance(c.logprobs.get("content"), list) else None for c in reply.choices]
    return CallResult(texts=texts, tokens_in=usage.prompt_tokens or 0,
                      tokens_out=usage.completion_tokens or 0, refusal=refusal, mode=mode,
                      finish_reason=finish if isinstance(finish, str) else None,
                      logprobs=logprobs if any(x is not None for x in logprobs) else None)


def embeddings_result(response: Any, n_inputs: int) -> tuple[list[np.ndarray], int]:
    """The vectors (in input order) and prompt tokens of the HTTP 200 response of
    ``POST /embeddings`` for ``n_inputs`` strings.

    Raises:
        TransportError: the reply is not a valid embeddings object, does not hold exactly one
            vector for each index 0..n_inputs-1, holds an empty, all-zero or non-finite
            vector, or vectors of different lengths; its text is the error's ``raw``.
    """
    obj, text = _load(response, "embeddings")
    reply: EmbeddingsReply = _validate(EmbeddingsReply, obj, text, "embeddings")

    def bad(why: str) -> TransportError:
        return TransportError(f"malformed embeddings reply: {why}", raw=text,
                              cause="malformed reply")

    if sorted(d.index for d in reply.data) != list(range(n_inputs)):
        raise bad(f"expected one embedding for each of the {n_inputs} inputs (indexes 0.."
                  f"{n_inputs - 1}), got indexes {sorted(d.index for d in reply.data)[:10]}")
    vectors: list[np.ndarray] = [np.empty(0)] * n_inputs
    for d in reply.data:
        if isinstance(d.embedding, str):  # encoding_format "base64": little-endian float32
            try:
                raw = base64.b64decode(d.embedding, validate=True)
            except (binascii.Error, ValueError):
                raise bad(f"data.{d.index}.embedding is a string but not base64") from None
            if len(raw) % 4:
                raise bad(f"data.{d.index}.embedding: {len(raw)} bytes is not float32 data")
            vec = np.frombuffer(raw, dtype="<f4").astype(np.float64)
        else:
            vec = np.asarray(d.embedding, dtype=np.float64)
        if vec.size == 0 or not np.all(np.isfinite(vec)) or not np.any(vec):
            raise bad(f"data.{d.index}.embedding is empty, all zeros or not finite (NaN/inf)")
        vectors[d.index] = vec
    if len({v.size for v in vectors}) > 1:
        raise bad(f"embeddings of different lengths {sorted({v.size for v in vectors})}")
    usage = reply.usage or Usage()
    return vectors, usage.prompt_tokens or 0
