"""Judges declared in a TOML file (``--judges judges.toml``).

```toml
[[judges]]
id = "qwen-7b"                      # what runs record as judge_id
backend = "openai"                  # openai, langchain, openai-embedding, local, lexical, table
model = "qwen2.5-7b-instruct"       # langchain: "PROVIDER:MODEL"; table: the file path
base_url = "http://127.0.0.1:8000/v1"
api_key_env = "DASHSCOPE_API_KEY"   # the variable's NAME; keys are never written in this file
scorer = "entity_similarity@v1"
concurrency = 16
rpm = 600
params = { temperature = 0.0, seed = 7, max_tokens = 200 }
```
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from judge.errors import InputError
from judge.judges import JudgeOptions

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

_KNOWN = {"id", "backend", "model", "base_url", "api_key_env", "scorer", "concurrency", "rpm",
          "tpm", "timeout_s", "max_retries", "params", "method", "max_batch", "http"}
_SECRETS = ("api_key", "key", "token", "secret", "password", "authorization")


def load_judges_file(path: str | Path, defaults: JudgeOptions | None = None,
                     ) -> dict[str, tuple[str, JudgeOptions]]:
    """Read a judges TOML file.

    Returns:
        judge id → ``(spec, options)`` ready for :func:`judge.judges.parse_judge_spec`.

    Raises:
        InputError: unreadable TOML, a missing ``id``/``backend``, an unknown key, a duplicate
            id, or a literal credential in the file (only ``api_key_env`` names are allowed).
    """
    try:
        data: dict[str, Any] = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"cannot read judges file: {exc}", path) from None
    entries = data.get("judges")
    if not isinstance(entries, list) or not entries:
        raise InputError("expected one or more [[judges]] tables", path, field="judges")
    out: dict[str, tuple[str, JudgeOptions]] = {}
    base = defaults or JudgeOptions()
    for n, e in enumerate(entries, start=1):
        where = f"judges[{n}]"
        if not isinstance(e, dict):
            raise InputError("expected a table", path, field=where)
        for k in e:
            if k not in _KNOWN:
                low = k.lower()
                hint = (" (write the key's environment variable name in api_key_env instead)"
                        if any(s in low for s in _SECRETS) else "")
                raise InputError(f"unknown key {k!r}{hint}", path, field=f"{where}.{k}")
        jid, backend = e.get("id"), e.get("backend")
        if not isinstance(jid, str) or not jid:
            raise InputError("missing 'id'", path, field=where)
        if jid in out:
            raise InputError(f"duplicate id {jid!r}", path, field=f"{where}.id")
        if backend in ("local", "lexical"):
            spec = backend
        elif backend in ("openai", "langchain", "openai-embedding", "table"):
            model = e.get("model")
            if not isinstance(model, str) or not model:
                raise InputError("missing 'model'", path, field=f"{where}.model")
            spec = f"{backend}:{model}"
        else:
            raise InputError(f"unknown backend {backend!r}", path, field=f"{where}.backend")
        params = e.get("params", base.params)
        if not isinstance(params, dict):
            raise InputError("expected a table of decoding parameters", path,
                             field=f"{where}.params")
        opts = replace(base, judge_id=jid, params=dict(params),
                       **{k: e[k] for k in ("base_url", "api_key_env", "scorer", "concurrency",
                                            "rpm", "tpm", "timeout_s", "max_retries", "method",
                                            "max_batch", "http")
                          if k in e})
        out[jid] = (spec, opts)
    return out
