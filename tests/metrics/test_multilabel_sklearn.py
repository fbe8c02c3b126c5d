"""The multi-label scores beside the seed's C-*/O-*: each equal to scikit-learn on random
label matrices."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import (
    accuracy_score,
    f1_score,
    hamming_loss,
    jaccard_score,
    precision_score,
    recall_score,
)

from metrics import multilabel_scores


def test_every_average_equals_scikit_learn() -> None:
    rng = np.random.default_rng(11)
    for _ in range(60):
        # (scikit-learn reads a single row or a single column as another kind of target)
        n, c = int(rng.integers(2, 12)), int(rng.integers(2, 6))
        t = rng.random((n, c)) < 0.4
        p = rng.random((n, c)) < 0.4
        s = multilabel_scores(t, p)
        kw = {"zero_division": 0.0}
        assert s.macro_f1 == pytest.approx(f1_score(t, p, average="macro", **kw), abs=1e-12)
        assert s.class_f1 == pytest.approx(f1_score(t, p, average=None, **kw), abs=1e-12)
        assert s.class_support.tolist() == t.sum(0).tolist()
        if t.any():  # scikit-learn's weighted average with no gold label at all is 0 + warning
            for name, fn in (("precision", precision_score), ("recall", recall_score),
                             ("f1", f1_score)):
                assert getattr(s, f"weighted_{name}") == pytest.approx(
                    fn(t, p, average="weighted", **kw), abs=1e-12), name
        assert s.hamming_loss == pytest.approx(hamming_loss(t, p), abs=1e-12)
        assert s.subset_accuracy == pytest.approx(accuracy_score(t, p), abs=1e-12)
        assert s.jaccard_samples == pytest.approx(
            jaccard_score(t, p, average="samples", **kw), abs=1e-12)
        # and the seed's own: C-P/C-R are the macro precision/recall, C-F1 is not macro F1
        assert s.cp == pytest.approx(precision_score(t, p, average="macro", **kw), abs=1e-12)
        assert s.cr == pytest.approx(recall_score(t, p, average="macro", **kw), abs=1e-12)
