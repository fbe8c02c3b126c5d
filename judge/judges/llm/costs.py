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
records; these numbers are for planning and for stopping before a budget is exceeded.
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
