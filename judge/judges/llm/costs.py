"""Token and USD estimates of LLM judge calls before they are made (``eval --dry-run``,
``--max-usd``).

Input tokens are estimated from the rendered messages, not counted with the model's tokenizer
(tiktoken downloads its tables at run time, which air-gapped machines cannot): 4 tokens of
framing per message, one token per 4 ASCII characters, one per CJK/kana/hangul character and
one per 2 other characters — the usual ratios of BPE tokenizers for English and Chinese (the
OpenAI tokenizer guide's "1 token ≈ 4 characters of English"). Output tokens: ``max_tokens``
when the judge sets it (an upper bound), else the scorer's typical answer — 60 tokens for a
pairwise score and rationale, 25 per item of a batch answer plus 10, 2 for a grade digit —
times the ``n`` completions asked for. The real usage the server reports is what the run
records; these numbers are for planning (``--dry-run``) and for pacing ``--tpm``.

``--max-usd`` needs bounds, not estimates (:mod:`judge.judges.budget`): a call in flight counts at
its **worst case**. Prompt tokens are at most the UTF-8 bytes of the messages plus
:data:`FRAME_MAX` tokens of chat-template framing per message and once for the reply's priming,
plus the bytes of the output schema (which some providers add to the prompt): every byte-level
BPE token (GPT, Llama 3, Qwen) and every SentencePiece piece with byte fallback covers at least
one byte. Completion tokens are at most ``max_tokens`` when the judge sets it, else the scorer's
cap (:func:`completion_cap`), which the judge then sends as the request's limit, so the server
cannot exceed it; times ``n``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
PER_MESSAGE = 4
"""Tokens of framing per chat message."""
OUT_PAIRWISE, OUT_PER_ITEM, OUT_BATCH_BASE, OUT_GRADE = 60, 25, 10, 2
"""Typical answer sizes in tokens (see the module docstring)."""
CAP_PAIRWISE, CAP_PER_ITEM, CAP_BATCH_BASE, CAP_GRADE = 512, 100, 64, 16
"""The scorers' completion caps in tokens, sent as the request's limit under ``--max-usd`` when
the judge sets no ``max_tokens``: about 8× the typical answer (a score and one or two sentences
is ~60 tokens; a batch answer ~25 per item), so a normal answer is never cut."""
FRAME_MAX = 16
"""Upper bound of a chat template's framing tokens per message (OpenAI counts 3-4, Llama 3
and Qwen templates 4-6)."""


def tokens_in(messages: Sequence[Mapping[str, str]]) -> int:
    """Estimated prompt tokens of chat ``messages`` (see the module docstring), >= 0."""
    total = 0
    for m in messages:
        text = str(m.get("content") or "")
        cjk = len(_CJK.findall(text))
        ascii_ = sum(1 for ch in text if ord(ch) < 128)
        other = len(text) - cjk - ascii_
        total += PER_MESSAGE + cjk + math.ceil(ascii_ / 4) + math.ceil(other / 2)
    return total


def tokens_out(mode: str, n_items: int, params: Mapping[str, Any]) -> int:
    """Estimated completion tokens of one call.

    Args:
        mode: the scorer's mode (``pairwise``, ``batch`` or ``grade``).
        n_items: items judged in the call (1 for pairwise).
        params: decoding parameters (``max_tokens``, ``n``).
    """
    cap = params.get("max_tokens")
    one = (int(cap) if cap else OUT_GRADE if mode == "grade" else
           OUT_BATCH_BASE + OUT_PER_ITEM * n_items if mode == "batch" else OUT_PAIRWISE)
    return one * max(1, int(params.get("n") or 1))


def completion_cap(mode: str, n_items: int) -> int:
    """The scorer's completion cap of one choice in tokens (:data:`CAP_PAIRWISE`…): what a
    judge under ``--max-usd`` sends as the limit when it sets no ``max_tokens``.

    Args:
        mode: the scorer's mode (``pairwise``, ``batch`` or ``grade``).
        n_items: items judged in the call (>= 1; the most a batch request holds).
    """
    return (CAP_GRADE if mode == "grade" else
            CAP_BATCH_BASE + CAP_PER_ITEM * n_items if mode == "batch" else CAP_PAIRWISE)


def tokens_in_max(messages: Sequence[Mapping[str, str]], schema_bytes: int = 0) -> int:
    """Upper bound of the prompt tokens of chat ``messages`` (see the module docstring): UTF-8
    bytes plus :data:`FRAME_MAX` per message and for the reply, plus ``schema_bytes`` (the
    output schema's JSON, >= 0)."""
    return (sum(len(str(m.get("content") or "").encode("utf-8")) + FRAME_MAX for m in messages)
            + FRAME_MAX + schema_bytes)


def tokens_out_max(mode: str, n_items: int, params: Mapping[str, Any],
                   cap: int | None = None) -> int:
    """Upper bound of the completion tokens of one call: ``max_tokens`` (or
    ``max_completion_tokens``) when set, else ``cap`` (the limit the judge sends; default
    :func:`completion_cap`), times ``n``."""
    limit = params.get("max_tokens") or params.get("max_completion_tokens")
    one = int(limit) if limit else (cap if cap is not None else completion_cap(mode, n_items))
    return one * max(1, int(params.get("n") or 1))
