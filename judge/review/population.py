"""What ``simjudge review`` offers for labelling: the population of pairs, their judge scores
(used on the server only, to choose pairs and estimate τ) and what the page shows of each.

Three sources (:func:`source_kind` tells them apart; :func:`judge.review.launch.
load_population` reads them):

* a **run directory** (``simjudge eval``; :func:`judge.review.runsource.from_run`): every
  judged cell of its similarity matrices (one per selection item, one per entity type for
  spans; exact matches are not judged and not offered) and, for a function-call run with an
  argument judge, every judged argument value pair (scoped to its function and parameter,
  shown in the first item whose calls hold it). The page shows the item as the audit page does (its
  query, its content view, the item's predicted and gold strings with the pair marked) and the
  run's queues (near τ, disagreements, failures, asymmetric, unstable) can be labelled;
* a **suggestions file** (``calibrate --pool … --suggest N`` writes ``suggestions.jsonl``;
  its folder is accepted too): the suggested pairs, with the scores recorded there;
* a **pool** of unlabelled pairs (JSONL/CSV/TSV with ``pred``/``truth`` and an optional
  ``id``) scored by ``--judge`` through the judge-call cache: live active labelling.

A pair's key is ``(item id or None, pred, truth)``, as in every labels file; the page names a
pair by its index and the short :func:`pair_hash` of its key, never by its texts (a pair of two
40,000-character strings must fit a request). Judge outputs
(scores, rationales, matches, metrics) stay in this process unless the review is not blind.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from judge import io
from judge.calibration.labelevents import PairKey
from judge.errors import InputError

Kind = Literal["run", "suggestions", "pool"]

QUEUES = ("near", "disagree", "failures", "asymmetric", "unstable")
"""A run's queues that hold pairs (:func:`judge.runs.audit.report_data`)."""



@dataclass
class Population:
    """The pairs of a review.

    Attributes:
        kind: ``run``, ``suggestions`` or ``pool``.
        source: what was read (path, and the run's task / the pool's judge) for people.
        source_id: path and sha256 recorded with each label event (``runs/x@sha256:…``).
        keys: pair keys, one per pair.
        scores: the judge's score of each pair in [0, 1]; NaN = no score (a failed verdict).
        judge_id: the judge whose scores these are (None: unknown).
        tau: the run's τ (runs only), else None.
        queues: queue name → pair indices (runs only).
        contexts: pair index → what the page shows besides the two strings (computed on demand,
            with judge output only when ``blind`` is False).
    """

    kind: Kind
    source: str
    source_id: str
    keys: list[PairKey]
    scores: NDArray[np.float64]
    judge_id: str | None = None
    tau: float | None = None
    queues: dict[str, list[int]] = field(default_factory=dict)
    context_of: Callable[[int, bool], dict[str, Any]] | None = None
    index: dict[PairKey, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.index:
            self.index = {k: i for i, k in enumerate(self.keys)}

    def __len__(self) -> int:
        return len(self.keys)

    def pair(self, i: int, blind: bool) -> dict[str, Any]:
        """What the page gets for pair ``i``: ``{"index", "key", "item_id", "pred", "truth",
        "context"}`` (``key``: :func:`pair_hash`, what a label names the pair by besides its
        index); with ``blind`` False also the judges' verdicts in ``context["judges"]``.

        Raises:
            IndexError: ``i`` outside the population.
        """
        item_id, pred, truth = self.keys[i]
        ctx = self.context_of(i, blind) if self.context_of is not None else {}
        if not blind and "judges" not in ctx and np.isfinite(self.scores[i]):
            ctx = {**ctx, "judges": [{"judge_id": self.judge_id, "score": float(self.scores[i]),
                                      "outcome": "ok", "rationale": ""}]}
        return {"index": i, "key": pair_hash(self.keys[i]), "item_id": item_id, "pred": pred,
                "truth": truth, "context": ctx}


def pair_hash(key: PairKey) -> str:
    """The short name of a pair the page posts with its label: the sha256 (hex) of its key,
    ``(item id or None, pred, truth)``, whatever the strings' length."""
    text = "simjudge pair " + json.dumps(list(key), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def source_id(path: Path, sha256: str) -> str:
    """What each label event records as its source: the path and a prefix of its sha256."""
    return f"{path}@sha256:{sha256[:16]}"


# ---------------------------------------------------------------------------------- files
def _pair_rows(path: Path, pred_field: str, truth_field: str, max_chars: int,
               ) -> list[tuple[io.Record, PairKey]]:
    """The distinct pairs of a pairs file, each with its first row; a repeated pair (same id
    and strings) is read once."""
    out: list[tuple[io.Record, PairKey]] = []
    seen: set[PairKey] = set()
    for rec in io.read_records(path):
        pred, truth = _one_text(rec, pred_field), _one_text(rec, truth_field)
        for name, side in ((pred_field, pred), (truth_field, truth)):
            io.check_string_sizes(side, max_chars, rec.path, rec.line, name)
        item_id = io.record_id(rec, ("id",)) if rec.data.get("id") not in (None, "") else None
        key: PairKey = (item_id, pred, truth)
        if key not in seen:
            seen.add(key)
            out.append((rec, key))
    if not out:
        raise InputError("no pair to review", path)
    return out


def _one_text(rec: io.Record, field: str) -> str:
    """A pair's side: a string, or a list of one string (``suggestions.jsonl`` writes each
    pair as a 1×1 selection item).

    Raises:
        InputError: missing field, or neither a string nor a list of one string.
    """
    got = io.text_or_list(rec, field)
    if len(got) != 1:
        raise rec.error(f"expected one string, got a list of {len(got)}", field)
    return got[0]


def _row_context(rec: io.Record, skip: Sequence[str]) -> dict[str, Any]:
    """A pool row's other text fields (``query``, ``context``…), shown with the pair."""
    extra = {k: v for k, v in rec.data.items() if k not in skip and isinstance(v, str) and v}
    return {"kind": "fields", "fields": extra} if extra else {}


def from_suggestions(path: Path, max_chars: int = 4096) -> Population:
    """The pairs of a ``suggestions.jsonl`` written by ``calibrate --suggest`` (its ``score``
    is the calibrated judge's), in file order.

    Raises:
        InputError: unreadable file, a missing side, or a ``score`` that is not a number in
            [0, 1] (file, line and field named).
    """
    rows = _pair_rows(path, "pred", "truth", max_chars)
    scores = np.full(len(rows), np.nan)
    for k, (rec, _) in enumerate(rows):
        s = rec.data.get("score")
        if s is not None:
            if not isinstance(s, (int, float)) or isinstance(s, bool) or not 0 <= s <= 1:
                raise rec.error(f"expected a score in [0, 1], got {s!r}", "score")
            scores[k] = float(s)
    recs = [r for r, _ in rows]
    skip = ("id", "pred", "truth", "score", "stratum", "source", "label")
    judge_id = next((r.data.get("judge") for r in recs if isinstance(r.data.get("judge"), str)),
                    None)
    return Population("suggestions", f"suggestions {path}",
                      source_id(path, io.file_sha256(path)), [k for _, k in rows], scores,
                      judge_id, context_of=lambda i, _b: _row_context(recs[i], skip))


def from_pool(path: Path, judge: Any, cache: Any, pred_field: str = "pred",
              truth_field: str = "truth", max_chars: int = 4096,
              progress_factory: Any = None) -> tuple[Population, Any]:
    """A pool of unlabelled pairs scored by ``judge`` (each distinct pair once, through
    ``cache``; normalised-equal pairs score 1.0 with no call), for live active labelling.

    Returns:
        ``(population, JudgeScores)`` — the second has the calls, cache hits and outcomes.

    Raises:
        InputError: a bad pool file (file, line and field named).
    """
    from judge.calibration.scoring import score_pairs

    rows = _pair_rows(path, pred_field, truth_field, max_chars)
    keys = [k for _, k in rows]
    scored = score_pairs([(k[1], k[2]) for k in keys], judge, cache, progress_factory,
                         f"{judge.id}: pool")
    recs = [r for r, _ in rows]
    skip = ("id", pred_field, truth_field, "label")
    return Population("pool", f"pool {path} scored by {judge.id}",
                      source_id(path, io.file_sha256(path)), keys, scored.scores, judge.id,
                      context_of=lambda i, _b: _row_context(recs[i], skip)), scored


def source_kind(path: Path) -> tuple[Kind, Path]:
    """What ``path`` is: a run directory, a suggestions file (or a ``calibrate`` output folder
    holding one), or a pool file.

    Raises:
        InputError: a missing path, or a folder that is neither a run nor a calibrate output.
    """
    if path.is_dir():
        if (path / "config.json").is_file() and (path / "items.jsonl").is_file():
            return "run", path
        if (path / "suggestions.jsonl").is_file():
            return "suggestions", path / "suggestions.jsonl"
        raise InputError("not a run directory (no config.json and items.jsonl) nor a "
                         "calibrate output with suggestions.jsonl", path)
    if not path.is_file():
        raise InputError("no such file or directory", path)
    first = _first_row(path)
    if first is not None and "score" in first and "stratum" in first:
        return "suggestions", path
    return "pool", path


def _first_row(path: Path) -> dict[str, Any] | None:
    """The first JSONL row of a file (None for CSV/TSV or an empty file), cheaply."""
    if path.suffix.lower() not in (".jsonl", ".ndjson", ".json"):
        return None
    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if line.strip():
                try:
                    got = json.loads(line)
                except ValueError:
                    return None
                return got if isinstance(got, dict) else None
    return None
