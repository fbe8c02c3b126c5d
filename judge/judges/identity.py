"""A judge's calibration identity: every setting that can change a score it gives, and the
comparison of two identities (a calibrated one and the judge's own).

A τ calibrated against human labels is valid only for the judge it was calibrated with
(DESIGN.md "Labels, calibration and the review loop"): ``calibrate`` records
:func:`judge_identity` for each judge in ``calibration.json``; ``eval --tau-from`` and
``calibrate --check`` derive it again from the judge they build and compare the two with
:func:`identity_differences`. It is derived from the judge objects themselves — their
``describe()`` (what ``config.json`` records) plus what a score depends on that ``describe()``
leaves implicit — so a new setting written into ``describe()`` is part of it by default: an
unknown setting makes a calibration stale, never silently reused.

What it holds:

* ``id``, ``backend``, ``model`` (remote judges), ``method`` (``usem3-cosine@v2``,
  ``lexical@v1``, ``openai-embedding-cosine@v1``, ``panel@v1``, ``repeats@v1``; a LangChain
  judge's structured-output method) or ``scorer`` (``name@version``) with its
  ``template_sha256`` and ``schema_version``;
* prompt judges: ``params`` (every decoding parameter sent: temperature, seed, max_tokens,
  n = samples, top_p, logprobs…), ``score_mode`` (``verbal``/``logprob``), ``max_batch`` (batch
  scorers only: it decides which items share a prompt), ``sample`` (a repeat's sample index),
  ``context`` (the task context rendered into every prompt), ``provider_model`` (LangChain);
* ``base_url``: the endpoint set as a sorted list of distinct URLs without trailing ``/``
  (order-independent: replicas of one model), None for the provider's default;
* ``local``: the encoder ``package_version``, ``max_chars``, ``calibration_sha256`` (sha256 of
  the fitted cosine → score mapping) and ``opposite_guard`` (``"off"``, else its ``cap``,
  ``lexicon_sha256`` and ``stemmer``);
* ``table``: the file's ``sha256`` and row count (not its path: a moved file scores alike);
* panels and repeats: ``vote``, ``quorum``, ``repeats``, ``of`` and every member's own identity
  (``members``, recursively).

Left out because they never change a score: concurrency, rpm/tpm, timeouts, retries, the
early-stop count, the HTTP transport, BLAS threads, prices, the output mode a server fell back
to during a run, the server versions a ``vllm:`` judge read (they choose that mode), the API
key's variable name (a key's *value* never reaches any of this: a setting named like a
credential is dropped, and an ``sk-…`` token, a ``Bearer`` value or a key
variable's value is masked, :func:`judge.redact.redact`), the cache
directory, and a panel's τ (the very thing a calibration chooses).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from judge.cache import canonical_json
from judge.judges.base import Judge

NOT_SCORING = frozenset({
    "concurrency", "rpm", "tpm", "timeout_s", "max_retries", "stop_after", "http", "threads",
    "api_key_env", "price_usd_per_1m", "output_mode", "tau", "members", "path",
    "calibration", "opposite_guard", "server_versions",
})
"""``describe()`` fields left out of an identity: settings that do not change scores, and those
replaced by a normalised form (``members``, ``calibration``, ``opposite_guard``)."""

MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING"})()
"""The value of a field one identity has and the other has not (e.g. written by an older
simjudge)."""

_HEX64 = re.compile(r"^[0-9a-f]{64}$")


def _sha256_json(obj: Any) -> str:
    return hashlib.sha256(canonical_json(obj).encode("utf-8")).hexdigest()


def _endpoints(base_url: Any) -> list[str] | None:
    """The endpoint set of a ``base_url`` (a URL, comma-separated URLs or a list): distinct
    URLs without trailing ``/``, sorted; None for the provider's default."""
    if base_url is None:
        return None
    parts = base_url.split(",") if isinstance(base_url, str) else [str(u) for u in base_url]
    urls = sorted({u.strip().rstrip("/") for u in parts if u.strip()})
    return urls or None


def _lexicon_sha256() -> str:
    """sha256 of the opposite-term lexicon shipped with the package."""
    from importlib import resources

    data = (resources.files("judge.judges.embedding") / "opposites.tsv").read_bytes()
    return hashlib.sha256(data).hexdigest()


def _scrub(obj: Any) -> Any:
    """``obj`` with credential-named keys dropped and key-shaped strings masked, at any depth."""
    from judge.judges.options import is_credential_name
    from judge.redact import redact

    if isinstance(obj, Mapping):
        return {str(k): _scrub(v) for k, v in obj.items() if not is_credential_name(str(k))}
    if isinstance(obj, (list, tuple)):
        return [_scrub(v) for v in obj]
    return redact(obj) if isinstance(obj, str) else obj


def _own_fields(judge: Judge, desc: Mapping[str, Any], context: str) -> dict[str, Any]:
    """What a score depends on beyond its ``describe()`` (``desc``), by kind of judge."""
    from judge.judges.embedding.cosine import EmbeddingJudge
    from judge.judges.llm.llmjudge import LLMJudge

    out: dict[str, Any] = {}
    if "base_url" in desc:
        out["base_url"] = _endpoints(desc["base_url"])
    if isinstance(judge, LLMJudge):
        c = judge.config
        out["score_mode"] = ("logprob" if c.scorer.mode == "grade" and c.params.get("logprobs")
                             else "verbal")
        if c.scorer.mode == "batch":
            out["max_batch"] = c.max_batch
        out["context"] = context
    if isinstance(judge, EmbeddingJudge):
        out["method"] = judge.scorer_id  # the versioned id, not describe()'s prose
    if desc.get("backend") == "local":
        mapping = desc.get("calibration")
        out["calibration_sha256"] = None if mapping is None else _sha256_json(mapping)
        guard = desc.get("opposite_guard")
        out["opposite_guard"] = ("off" if guard is None else
                                 {"cap": guard.get("cap"), "lexicon_sha256": _lexicon_sha256(),
                                  "stemmer": guard.get("stemmer")})
    return out


def judge_identity(judge: Judge, context: str = "") -> dict[str, Any]:
    """The calibration identity of ``judge`` (see the module docstring for its fields).

    Builds nothing and calls nothing: it reads the judge's settings (no model is loaded, no
    request sent).

    Args:
        judge: any judge (a panel or repeats: with its members' identities, recursively).
        context: the task context given to prompt judges (``eval --context``); recorded for
            prompt judges only, whose prompts it is rendered into.

    Returns:
        A JSON-ready dict (canonical: a JSON round trip leaves it unchanged), never holding a
        credential.

    Raises:
        TypeError: a ``describe()`` that is not JSON-serialisable.
    """
    desc = judge.describe()
    ident: dict[str, Any] = {k: v for k, v in desc.items() if k not in NOT_SCORING}
    ident.update(_own_fields(judge, desc, context))
    members = getattr(judge, "members", None)
    if members:
        ident["members"] = [judge_identity(m, context) for m in members]
    out: dict[str, Any] = json.loads(canonical_json(_scrub(ident)))
    return out


@dataclass(frozen=True)
class Difference:
    """One field whose value differs between a calibrated identity and the judge's own.

    Attributes:
        field: its path, e.g. ``judges.local.identity.method`` or
            ``judges.p.identity.members[1].params.temperature``.
        calibrated: the calibration's value (:data:`MISSING`: absent — a setting the calibrated
            judge did not have, or an identity an older simjudge did not record).
        current: this judge's value (:data:`MISSING`: this judge has no such field).
    """

    field: str
    calibrated: Any
    current: Any

    def describe(self) -> str:
        """``field 'F': calibrated A, this judge B`` (long sha256 values shortened)."""
        return (f"field '{self.field}': calibrated {show(self.calibrated)}, "
                f"this judge {show(self.current)}")

    def to_row(self) -> dict[str, Any]:
        """``{"field", "calibrated", "current"}`` for ``config.json`` (MISSING → None)."""
        return {"field": self.field,
                "calibrated": None if self.calibrated is MISSING else self.calibrated,
                "current": None if self.current is MISSING else self.current}


def show(value: Any) -> str:
    """A value as a message shows it: strings bare (the empty one as ``""``), a 64-hex sha256 as
    its first 12 digits and ``…``, None as ``none``, :data:`MISSING` as ``absent``, the rest
    compact JSON."""
    if value is MISSING:
        return "absent"
    if value is None:
        return "none"
    if isinstance(value, str):
        return value[:12] + "…" if _HEX64.match(value) else value or '""'
    if isinstance(value, (dict, list)):
        return json.dumps(_short(value), ensure_ascii=False, separators=(", ", ": "),
                          sort_keys=True)
    return json.dumps(value)


def _short(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _short(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_short(v) for v in obj]
    return obj[:12] + "…" if isinstance(obj, str) and _HEX64.match(obj) else obj


def identity_differences(calibrated: Any, current: Any, where: str) -> list[Difference]:
    """Every field whose value differs between two identities, depth first.

    Dicts are compared key by key (a key only one side has is a difference, the other side
    :data:`MISSING`); lists of equal length whose items are dicts (a panel's members) item by
    item; any other value as a whole.

    Args:
        calibrated: the identity recorded in the calibration.
        current: the judge's own (:func:`judge_identity`).
        where: the path of the two, e.g. ``judges.local.identity``.

    Returns:
        The differences, in the order of the calibrated identity's keys, then the judge's new
        ones; [] when the two are equal.
    """
    if isinstance(calibrated, Mapping) and isinstance(current, Mapping):
        out: list[Difference] = []
        for key in [*calibrated, *(k for k in current if k not in calibrated)]:
            out += identity_differences(calibrated.get(key, MISSING), current.get(key, MISSING),
                                        f"{where}.{key}")
        return out
    if (isinstance(calibrated, list) and isinstance(current, list)
            and len(calibrated) == len(current)
            and all(isinstance(x, Mapping) for x in [*calibrated, *current])):
        return [d for i, (a, b) in enumerate(zip(calibrated, current, strict=True))
                for d in identity_differences(a, b, f"{where}[{i}]")]
    return [] if calibrated == current else [Difference(where, calibrated, current)]
