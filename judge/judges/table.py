"""``table:PATH``: scores read from a file — human labels or another system's judge output.

The file is JSONL, CSV or TSV with fields ``pred``, ``truth``, ``score`` (a number in [0, 1])
and optionally ``rationale`` and ``id``. Pairs are looked up by their normalised strings
(:func:`metrics.normalize`). A pair absent from the table gets **no verdict** (NaN in the
similarity matrix, never matched), never a 0.

An ``id`` column scopes a row to one evaluation item (matched against the item ids that
``--id-field`` defines): another system's judge often scored the same pair differently in
different items (the IFPUG study's judge did), and per-item rows reproduce it exactly. A row
without ``id`` applies to every item; an item-scoped row wins over it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from judge.io import file_sha256, get_field, read_records, text
from judge.judges.base import Judge, JudgeContext, Pair
from judge.verdict import Verdict
from metrics import normalize

METHOD = "table@v1"


class TableJudge(Judge):
    """Look-up judge over a score table.

    Args:
        path: the table file.
        judge_id: id to record (default ``table:<path>``).

    Raises:
        InputError: unreadable file, a missing field, a non-numeric score or one outside
            [0, 1], or the same pair listed twice with different scores (file and line named).
    """

    def __init__(self, path: str | Path, judge_id: str | None = None) -> None:
        self.path = Path(path)
        self.id = judge_id or f"table:{path}"
        self._rows: dict[tuple[str | None, str, str], tuple[float, str, int]] = {}
        for rec in read_records(self.path):
            scope = rec.data.get("id")
            scope = None if scope in (None, "") else str(scope)
            pred, truth = text(rec, "pred"), text(rec, "truth")
            raw = get_field(rec, "score")
            try:
                score = float(raw)
            except (TypeError, ValueError):
                raise rec.error(f"expected a number, got {raw!r}", "score") from None
            if isinstance(raw, bool) or not math.isfinite(score) or not 0.0 <= score <= 1.0:
                raise rec.error(f"score {raw!r} is outside [0, 1]", "score")
            rationale = rec.data.get("rationale", "") or ""
            if not isinstance(rationale, str):
                raise rec.error("expected a string", "rationale")
            key = (scope, normalize(pred), normalize(truth))
            if key in self._rows and self._rows[key][0] != score:
                first = self._rows[key][2]
                raise rec.error(f"pair listed again with a different score (first at line "
                                f"{first})", "score")
            self._rows.setdefault(key, (score, rationale, rec.line))
        self.sha256 = file_sha256(self.path)
        self.item_scoped = any(k[0] is not None for k in self._rows)

    def __len__(self) -> int:
        return len(self._rows)

    def describe(self) -> dict[str, Any]:
        """Identity for ``config.json``: path, sha256 and row count."""
        return {"id": self.id, "backend": "table", "method": METHOD, "path": str(self.path),
                "sha256": self.sha256, "pairs": len(self._rows), "item_scoped": self.item_scoped}

    def work_units(self, pairs: Sequence[Pair]) -> int:
        """One unit per pair."""
        return len(pairs)

    async def judge_pairs(self, pairs: Sequence[Pair], ctx: JudgeContext) -> list[Verdict | None]:
        """Look each pair up (``ctx.item_id``'s rows first); ``None`` where there is no row."""
        out: list[Verdict | None] = []
        for pred, truth in pairs:
            key = (normalize(pred), normalize(truth))
            row = self._rows.get((ctx.item_id, *key)) if ctx.item_id is not None else None
            row = row or self._rows.get((None, *key))
            if row is None:
                out.append(None)
            else:
                score, rationale, line = row
                out.append(Verdict(
                    pred=pred, truth=truth, score=score,
                    rationale=rationale or f"score from {self.path.name} line {line}",
                    outcome="ok", raw=f"{self.path.name}:{line}", judge_id=self.id,
                    scorer=METHOD))
            ctx.advance(1)
        return out
