"""The unlabelled pool of ``simjudge calibrate --pool``: its distinct pairs that are not labelled
yet, each with its id and source line."""

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
    """Read the unlabelled pool (JSONL/CSV/TSV; any label field is ignored).

    Raises:
        InputError: unreadable file, a missing or non-string side, a string over ``max_chars``
            (file, line and field named), or no pair left once the labelled ones are removed.
    """
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
