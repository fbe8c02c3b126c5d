"""The unlabelled pool of ``simjudge calibrate --pool``: its distinct pairs that are not labelled
yet, each with its id and source line — read from a pairs file, or from a run directory (its
judged pairs, as ``simjudge review`` offers them)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from judge import io
from judge.calibration.labels import LabelSet
from judge.errors import InputError


@dataclass(frozen=True)
class Pool:
    """The unlabelled pairs (distinct, none of them a labelled pair).

    Attributes:
        pairs: ``(pred, truth)`` in first-seen order.
        ids: each pair's ``id`` field when its row has one, else ``pool-line<N>``.
        sources: ``FILE:LINE`` of each pair's first row.
        path, sha256: the file.
        rows: rows read; ``labelled``: rows whose pair is already labelled (left out);
        ``repeated``: rows repeating an earlier pool pair.
    """

    pairs: list[tuple[str, str]]
    ids: list[str]
    sources: list[str]
    path: str
    sha256: str
    rows: int
    labelled: int
    repeated: int


def load_pool(path: str | Path, labels: LabelSet, pred_field: str = "pred",
              truth_field: str = "truth", max_chars: int = 4096) -> Pool:
    """Read the unlabelled pool: a JSONL/CSV/TSV file of pairs (any label field is ignored), or
    a run directory (:func:`run_pool`).

    Raises:
        InputError: unreadable file, a missing or non-string side, a string over ``max_chars``
            (file, line and field named), a malformed run, or no pair left once the labelled
            ones are removed.
    """
    if Path(path).is_dir():
        return run_pool(Path(path), labels)
    known = {(p.pred, p.truth) for p in labels.pairs}
    seen: set[tuple[str, str]] = set()
    pairs: list[tuple[str, str]] = []
    ids: list[str] = []
    sources: list[str] = []
    records = io.read_records(path)
    labelled = repeated = 0
    for rec in records:
        pair = (io.text(rec, pred_field), io.text(rec, truth_field))
        for name, side in zip((pred_field, truth_field), pair, strict=True):
            io.check_string_sizes(side, max_chars, rec.path, rec.line, name)
        if pair in known:
            labelled += 1
        elif pair in seen:
            repeated += 1
        else:
            seen.add(pair)
            pairs.append(pair)
            ids.append(io.record_id(rec, ("id",)) if "id" in rec.data else f"pool-line{rec.line}")
            sources.append(f"{rec.path}:{rec.line}")
    if not pairs:
        raise InputError(f"no unlabelled pair in the pool ({len(records)} rows, {labelled} of "
                         "them labelled pairs)", path)
    return Pool(pairs, ids, sources, str(path), io.file_sha256(path), len(records), labelled,
                repeated)


def run_sha256(path: Path) -> str:
    """sha256 over a run directory's record (the sha256 of ``config.json``, ``items.jsonl`` and
    ``verdicts.jsonl``, in that order): what a pool or a review source read from a run names."""
    import hashlib

    h = hashlib.sha256()
    for name in ("config.json", "items.jsonl", "verdicts.jsonl"):
        f = path / name
        if f.is_file():
            h.update(io.file_sha256(f).encode())
    return h.hexdigest()


def run_pool(path: Path, labels: LabelSet) -> Pool:
    """The judged pairs of a run directory as a pool: every cell of its similarity matrices
    (one per selection item, one per entity type for spans) that is not an exact match, as
    ``(pred, truth)`` with its item id — the population ``simjudge review RUN`` labels from —
    less the labelled pairs (by item id, pred and truth; by the strings for labels without an
    id).

    Raises:
        InputError: not a run directory, a malformed run, or no judged pair left.
    """
    from judge.record.store import load_run
    from judge.tasks.registry import get_task

    record = load_run(path)
    task = get_task(record.task)
    known = {(p.item_id, p.pred, p.truth) for p in labels.pairs}
    seen: set[tuple[str, str, str]] = set()
    pairs: list[tuple[str, str]] = []
    ids: list[str] = []
    sources: list[str] = []
    cells = labelled = repeated = 0
    for line, row in enumerate(task.rows(record), start=1):
        for hm in task.matrices(row):
            exact = {(m.pred_index, m.truth_index) for m in hm.matches if m.is_exact}
            for i, p in enumerate(hm.pred):
                for j, t in enumerate(hm.truth):
                    if (i, j) in exact:
                        continue
                    cells += 1
                    if (row.id, p, t) in known or (None, p, t) in known:
                        labelled += 1
                    elif (row.id, p, t) in seen:
                        repeated += 1
                    else:
                        seen.add((row.id, p, t))
                        pairs.append((p, t))
                        ids.append(row.id)
                        sources.append(f"{path / 'items.jsonl'}:{line}")
    if not pairs:
        raise InputError(f"no unlabelled judged pair in the run ({cells} judged pairs, "
                         f"{labelled} of them labelled; a task without a similarity judge has "
                         "none)", path)
    return Pool(pairs, ids, sources, str(path), run_sha256(path), cells, labelled, repeated)
