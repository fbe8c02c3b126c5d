"""Where a task's items come from (:class:`Source`), and a stored run's input files found
again and checked against the sha256 its ``config.json`` recorded — for re-scoring that needs
the items themselves (``rescore`` of the tasks that read their input files again) and for the
reproducibility bundle (``simjudge export``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from judge.errors import InputError
from judge.io import file_sha256
from judge.items import DEFAULT_MAX_CHARS
from judge.record.config import FieldSpec, InputFile
from judge.record.runrecord import RunRecord

T = TypeVar("T")


@dataclass(frozen=True)
class Source:
    """Where a task's items come from (the ``eval`` command's input options).

    Attributes:
        data: JSONL/CSV/TSV file of predictions (and gold, unless ``gold`` is given); for
            ``ranking`` a TREC run file.
        gold: separate gold file joined on the id (``ranking``: TREC qrels, required).
        pred_field, truth_field: field names; None = the task's ``default_fields``.
        id_fields: field(s) identifying an item; () = ``id`` when the records carry it, else
            the position (see :func:`judge.items.resolve_id_fields`).
        where: ``FIELD=VALUE`` filters on the records.
        max_chars: longest string (characters) accepted in a prediction or gold field, >= 0
            (0 = no limit); a longer one is bad input, never truncated. BFCL input: the
            decoded calls, not the raw result text (:func:`judge.tasks.bfclscore.load_bfcl_items`).
        limit: only the first N items are scored (``eval --limit``; None = all); applied by
            the caller to what :meth:`judge.tasks.base.Task.load` returns (:meth:`first`).
    """

    data: Path
    gold: Path | None = None
    pred_field: str | None = None
    truth_field: str | None = None
    id_fields: tuple[str, ...] = ()
    where: tuple[str, ...] = ()
    max_chars: int = DEFAULT_MAX_CHARS
    limit: int | None = None

    def first(self, items: list[T]) -> list[T]:
        """The first :attr:`limit` of ``items`` (all of them when None)."""
        return items[:self.limit]

ROLES = ("data", "gold", "functions", "labels", "tau_from")
"""The ``config.json`` entries ``{"path", "sha256"}`` of a run's input files (a task option
that may name a file says its role in its field's ``metadata["role"]``). An entry with
``"in_run": true`` names a file inside the run directory itself: the records a Python-API run
was given in memory, written there by the pipeline (:data:`judge.record.store.INPUT_FILE`)."""
NOT_FOUND = "not found"
CHANGED = "changed since the run (sha256 differs)"


def run_bases(record: RunRecord, started_in: Path | None = None) -> list[Path]:
    """Where relative paths of ``config.json`` are looked up: ``started_in`` when given, else
    the current folder, then the run directory's parent."""
    if started_in is not None:
        return [started_in]
    return [Path.cwd()] + ([Path(record.path).parent] if record.path is not None else [])


def resolve(path: str, bases: Sequence[Path]) -> Path:
    """``path`` itself when absolute, else the first of ``bases / path`` that exists (else the
    first)."""
    p = Path(path)
    if p.is_absolute():
        return p
    return next((b / p for b in bases if (b / p).exists()), bases[0] / p)


def locate_input(record: RunRecord, role: str, bases: Sequence[Path]
                 ) -> tuple[Path | None, str | None]:
    """The run's input file of ``role`` (one of :data:`ROLES`): ``(path, None)`` when it exists
    with the recorded sha256, ``(path, NOT_FOUND | CHANGED)`` when not, ``(None, None)`` when
    the run had no such file."""
    entry: InputFile | None = getattr(record.config, role)
    if entry is None or not entry.path:
        return None, None
    if entry.in_run:
        if record.path is None:
            return Path(entry.path), NOT_FOUND
        path = Path(record.path) / entry.path
    else:
        path = resolve(entry.path, bases)
    if not (path.is_file() or path.is_dir()):  # a folder: a BFCL result or data folder
        return path, NOT_FOUND
    if entry.sha256 and file_sha256(path) != entry.sha256:
        return path, CHANGED
    return path, None


def run_input(record: RunRecord, role: str) -> Path | None:
    """The run's input file of ``role`` (one of :data:`ROLES`), found again (relative paths
    taken from the current folder, then the run directory's parent; ``in_run`` entries inside
    the run directory) and checked against its recorded sha256; None when the run had none.

    Raises:
        InputError: (field = ``role``) the file is missing or differs from the sha256 recorded.
    """
    path, problem = locate_input(record, role, run_bases(record))
    if problem == NOT_FOUND:
        recorded = getattr(record.config, role).path
        raise InputError(f"the run's {role} file {recorded} is not found (run "
                         "from the folder the run was made in)", record.path, field=role)
    if problem == CHANGED:
        raise InputError(f"the run's {role} file {path} {CHANGED}: re-scoring it would "
                         "not be this run", record.path, field=role)
    return path


def run_source(record: RunRecord) -> Source:
    """The :class:`Source` the run was evaluated from: its data and gold files
    (:func:`run_input`), fields, id fields, filters and ``--limit``, from ``config.json``; no
    length limit (the run already accepted the data). A task's own input options (function
    calls' format and functions file) are the task's to read back (:func:`run_input`).

    Raises:
        InputError: a file the run used is missing or differs from the sha256 recorded
            (field named: ``data`` or ``gold``); a run with no data file recorded (made from
            :class:`~judge.items.Item` objects in memory).
    """
    data, gold = run_input(record, "data"), run_input(record, "gold")
    if data is None:
        raise InputError("config.json records no data file (the run was made from Item "
                         "objects in memory, which are not recorded)", record.path,
                         field="data")
    fields = record.config.fields or FieldSpec()
    return Source(data, gold, fields.pred, fields.truth, tuple(fields.id), tuple(fields.where),
                  0, fields.limit)
