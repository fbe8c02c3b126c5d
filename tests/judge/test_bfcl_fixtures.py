"""Every BFCL decoder family against the official checker, item by item, on the small sample of
the public leaderboard archive committed in ``tests/fixtures/bfcl`` (see its NOTICE).

The expected verdicts come from the official score files of the archive (an item is wrong iff
the score file lists it), never from simjudge; the verdicts under test come from the path
``simjudge eval RESULT_FOLDER --task function-call --format bfcl --functions DATA`` takes
(:func:`judge.tasks.function_call.load_fc_items`, then
:func:`judge.tasks.function_call.score_function_call`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge.tasks.bfclcheck import AST_CATEGORIES
from judge.tasks.bfcldecoders import FAMILIES
from judge.tasks.bfclmodels import bfcl_model
from judge.tasks.fcoptions import FunctionCallOptions
from judge.tasks.function_call import load_fc_items, score_function_call
from judge.tasks.inputs import Source

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "bfcl"
MODELS = sorted(p.name for p in (FIXTURE / "result").iterdir())


def _jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def official_verdicts(model: str) -> dict[str, bool]:
    """``{item id: correct}`` as the official score files say: wrong iff listed. A score
    entry's ``id`` is the 1-based position in the question file: N + 1 for ``category_N``."""
    out: dict[str, bool] = {}
    for cat in AST_CATEGORIES:
        results = _jsonl(FIXTURE / "result" / model /
                         f"gorilla_openfunctions_v1_test_{cat}_result.json")
        listed = {int(str(e["id"])) for e in _jsonl(FIXTURE / "score" / model /
                                                    f"{cat}_score.json")[1:]}
        for r in results:
            item_id = str(r["id"])
            out[item_id] = int(item_id.rsplit("_", 1)[1]) + 1 not in listed
    return out


def simjudge_verdicts(model: str) -> dict[str, bool]:
    """``{item id: correct}`` as ``simjudge eval --format bfcl`` scores the model's folder."""
    items = load_fc_items(Source(FIXTURE / "result" / model),
                          FunctionCallOptions(format="bfcl", functions=FIXTURE / "data"))
    rows, _ = score_function_call(items, "bfcl")
    return {r.id: r.correct for r in rows}


def test_the_sample_covers_every_decoder_family_of_the_archive() -> None:
    # "generic" is simjudge's own decoder for models BFCL does not know: not in the archive
    assert {bfcl_model(m).family for m in MODELS} == set(FAMILIES) - {"generic"}
    assert len(MODELS) == 18


@pytest.mark.parametrize("model", MODELS)
def test_each_familys_verdicts_equal_the_official_score_files(model: str) -> None:
    pytest.importorskip("tree_sitter_java")  # java/javascript prompt-style items
    pytest.importorskip("tree_sitter_javascript")
    expected = official_verdicts(model)
    # each family's sample holds 8-10 items of all 7 categories, some right, some wrong
    assert 8 <= len(expected) <= 10 and set(expected.values()) == {True, False}
    assert {i.rsplit("_", 1)[0] for i in expected} == set(AST_CATEGORIES)
    assert simjudge_verdicts(model) == expected
