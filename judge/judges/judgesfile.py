"""Judges declared in a TOML file (``--judges judges.toml``).

```toml
[[judges]]
id = "qwen-7b"                      # what runs record as judge_id
backend = "openai"                  # a judge-spec NAME: judge.judges.registry.REGISTRY
model = "qwen2.5-7b-instruct"       # the spec's argument: MODEL, PROVIDER:MODEL, a table's PATH
base_url = "http://127.0.0.1:8000/v1"
api_key_env = "DASHSCOPE_API_KEY"   # the variable's NAME; keys are never written in this file
scorer = "entity_similarity@v1"
concurrency = 16
rpm = 600
stop_after = 8                      # stop after 8 calls in a row fail with 401/404/refused
params = { temperature = 0.0, seed = 7, max_tokens = 200 }
```

Each ``[[judges]]`` table is checked by a strict pydantic model (:class:`JudgeEntry`: no
unknown key, no type coercion — ``model = 3`` or ``params = "x"`` is an error), its ``backend``
and ``model`` by the registry (:meth:`judge.judges.registry.Backend.spec`: the entry becomes the
spec ``backend:model``) and then by :class:`judge.judges.options.JudgeOptions` (ranges). A
credential-named key (``api_key``, ``key``, ``token``, ``secret``, ``password``,
``authorization``…) at the top level or anywhere in ``params``, or a key-shaped value
(``sk-…``), is refused: keys live in the environment, named by
``api_key_env``. Every error is one line ``FILE:LINE: field 'judges[N].x': what is wrong`` (TOML
parsers give no line numbers for values, so the line is found by searching the entry's text for
the key; when it cannot be found the entry's ``[[judges]]`` line is given).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from judge.errors import InputError
from judge.judges.base import Judge
from judge.judges.options import OPTION_FLAGS, JudgeOptions, is_credential_name
from judge.judges.registry import REGISTRY, parse_judge_spec

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

_HEADER = re.compile(r"^\s*\[\[\s*judges\s*\]\]", re.MULTILINE)
_TOML_LINE = re.compile(r"\(at line (\d+), column \d+\)")


class JudgeEntry(BaseModel):
    """One ``[[judges]]`` table (strict types, no unknown keys).

    Attributes:
        id: what runs record as ``judge_id`` (non-empty, unique in the file).
        backend: a name of :data:`judge.judges.registry.REGISTRY` (checked after the model
            is validated, so the message can list them).
        model: the argument of the backend's spec (:attr:`judge.judges.registry.Backend.arg`:
            a model name, ``PROVIDER:MODEL``, a file path); absent for backends without one.
        base_url (one URL, or a list of replicas' URLs: balanced with failover), api_key_env,
        scorer, concurrency, rpm, tpm, timeout_s, max_retries, params,
        method, max_batch, http, stop_after, threads, score_mode, opposite_guard,
        structured_field: as
        :class:`judge.judges.options.JudgeOptions`
        (absent = the command line's value; ``stop_after`` = consecutive fatal failures after
        which the judge stops, 0 = never; ``threads`` = the ``local`` judge's BLAS threads;
        ``opposite_guard = false`` turns off the ``local`` judge's opposite-term cap).
    """

    model_config = ConfigDict(extra="forbid", strict=True)

    id: str = Field(min_length=1)
    backend: str
    model: str | None = Field(default=None, min_length=1)
    base_url: str | None = None
    api_key_env: str | None = None
    scorer: str | None = None
    concurrency: int | None = None
    rpm: int | None = None
    tpm: int | None = None
    timeout_s: float | None = None
    max_retries: int | None = None
    params: dict[str, Any] | None = None
    method: str | None = None
    max_batch: int | None = None
    http: str | None = None
    stop_after: int | None = None
    threads: int | None = None
    score_mode: str | None = None
    opposite_guard: bool | None = None
    structured_field: str | None = None

    @field_validator("base_url", mode="before")
    @classmethod
    def _endpoints(cls, v: Any) -> Any:
        """Several endpoints as a list of URLs → the comma-separated form of ``--base-url``
        (anything else is validated as a string)."""
        if isinstance(v, list) and v and all(isinstance(u, str) for u in v):
            return ",".join(v)
        return v


class _Locator:
    """Finds the line of a key inside the n-th ``[[judges]]`` table of the file's text."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        starts = [text.count("\n", 0, m.start()) for m in _HEADER.finditer(text)]
        self.ranges = [(s, starts[i + 1] if i + 1 < len(starts) else len(self.lines))
                       for i, s in enumerate(starts)]

    def line(self, n: int, key: str | None = None, occurrence: int = 1) -> int | None:
        """1-based line of ``key`` (its ``occurrence``-th assignment) in entry ``n`` (1-based),
        else of the entry's header, else None (e.g. an inline array of tables)."""
        if n > len(self.ranges):
            return None
        start, end = self.ranges[n - 1]
        if key:
            pat = re.compile(r"(^|[\s{,.])[\"']?" + re.escape(key) + r"[\"']?\s*=")
            seen = 0
            for i in range(start, end):
                if pat.search(self.lines[i]):
                    seen += 1
                    if seen == occurrence:
                        return i + 1
        return start + 1


def _entry_error(exc: ValidationError) -> tuple[str, str]:
    """(key path, message) of the first pydantic error of an entry; never echoes a value that
    might be a credential."""
    err = exc.errors()[0]
    loc = [str(x) for x in err["loc"]]
    key = ".".join(loc) if loc else "?"
    kind = err["type"]
    if kind == "extra_forbidden":
        hint = (": keys do not belong in this file; put the key in an environment variable "
                "and write that variable's name in api_key_env instead"
                if is_credential_name(loc[-1]) else
                f"; expected one of: {', '.join(JudgeEntry.model_fields)}")
        return key, f"unknown key {loc[-1]!r}{hint}"
    if kind == "missing":
        return key, f"missing {loc[-1]!r}"
    if kind == "string_too_short":
        return key, "must not be empty"
    shown = "" if is_credential_name(loc[-1]) else f", got {err.get('input')!r}"
    return key, f"{err['msg'].replace('Input should be', 'expected')}{shown}"


def load_judges_file(path: str | Path, defaults: JudgeOptions | None = None,
                     ) -> dict[str, tuple[str, JudgeOptions]]:
    """Read and check a judges TOML file.

    Args:
        path: the TOML file (UTF-8).
        defaults: options that entries override (the command line's values).

    Returns:
        judge id → ``(spec, options)`` ready for
        :func:`judge.judges.registry.parse_judge_spec`.

    Raises:
        InputError: ``FILE:LINE: field 'judges[N].x': ...`` for unreadable TOML, no
            ``[[judges]]``, a missing ``id``/``backend``/``model``, an unknown key, a wrong type,
            an out-of-range value, a duplicate id, or a credential in the file.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
        data: dict[str, Any] = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        m = _TOML_LINE.search(str(exc))
        raise InputError(f"cannot read judges file: {exc}", path,
                         line=int(m.group(1)) if m else None) from None
    loc = _Locator(text)
    entries = data.get("judges")
    if not isinstance(entries, list) or not entries:
        raise InputError("expected one or more [[judges]] tables", path, field="judges")
    out: dict[str, tuple[str, JudgeOptions]] = {}
    base = defaults or JudgeOptions()
    for n, e in enumerate(entries, start=1):
        where = f"judges[{n}]"
        if not isinstance(e, dict):
            raise InputError("expected a table", path, loc.line(n), field=where)
        try:
            entry = JudgeEntry.model_validate(e)
        except ValidationError as exc:
            key, message = _entry_error(exc)
            raise InputError(message, path, loc.line(n, key.split(".")[-1]),
                             field=f"{where}.{key}") from None
        if entry.id in out:
            raise InputError(f"duplicate id {entry.id!r}", path,
                             loc.line(n, "id"), field=f"{where}.id")
        backend = REGISTRY.get(entry.backend)
        if backend is None:
            raise InputError(f"unknown backend {entry.backend!r}; expected one of: "
                             f"{', '.join(REGISTRY)}", path, loc.line(n, "backend"),
                             field=f"{where}.backend")
        if backend.needs_model and entry.model is None:
            raise InputError(f"missing 'model' (backend {entry.backend!r} needs one)",
                             path, loc.line(n), field=f"{where}.model")
        if not backend.needs_model and entry.model is not None:
            raise InputError(f"backend {entry.backend!r} takes no model", path,
                             loc.line(n, "model"), field=f"{where}.model")
        try:
            spec = backend.spec(entry.model)
        except InputError as exc:
            raise InputError(exc.message, path, loc.line(n, "model"),
                             field=f"{where}.model") from None
        given = entry.model_dump(exclude_unset=True, exclude={"id", "backend", "model"})
        try:
            opts = replace(base, judge_id=entry.id, **given)
        except InputError as exc:
            field = exc.field or "?"
            flag = OPTION_FLAGS.get(field)
            message = exc.message.removeprefix(f"{flag} ") if flag else exc.message
            raise InputError(f"{message} (judge {entry.id!r})", path,
                             loc.line(n, field.split(".")[-1].split("[")[0]),
                             field=f"{where}.{field}") from None
        out[entry.id] = (spec, opts)
    return out


def build_declared(path: str | Path, declared: dict[str, tuple[str, JudgeOptions]],
                   judge_id: str) -> Judge:
    """Build the judge ``judge_id`` of a loaded judges file; an error building it (a missing
    API key, an unknown LangChain provider, an unreadable table…) names the file, the line of
    its ``id`` and the judge.

    Raises:
        InputError: as :func:`judge.judges.registry.parse_judge_spec`, located in the file.
    """
    spec, opts = declared[judge_id]
    try:
        return parse_judge_spec(spec, opts)
    except InputError as exc:
        if exc.path is not None:  # already located (e.g. a table file's own line)
            raise
        text = Path(path).read_text(encoding="utf-8")
        n = list(declared).index(judge_id) + 1
        raise InputError(f"judge {judge_id!r}: {exc.message}", path,
                         _Locator(text).line(n, "id"), field=f"judges[{n}]") from None


def build_judges(specs: Sequence[str], judges_file: Path | None, options: Any) -> list[Any]:
    """The judges named on the command line: each ``--judge`` spec parsed with ``options``;
    with ``--judges FILE``, each ``--judge`` names an id of the file (none = every judge of the
    file). Default: ``local``.

    Raises:
        InputError: a bad spec, an id not in the file, a bad judges file.
    """
    if judges_file is None:
        return [parse_judge_spec(s, options) for s in (specs or ["local"])]
    declared = load_judges_file(judges_file, options)
    for s in specs:
        if s not in declared:
            raise InputError(f"no judge {s!r} in {judges_file} (ids: {', '.join(declared)})",
                             field="judge")
    return [build_declared(judges_file, declared, s) for s in (specs or list(declared))]
