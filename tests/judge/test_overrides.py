"""Human overrides (``eval/rescore --overrides``): labels take precedence over the judge for
the pairs they name, on examples/glossary_en_zh.jsonl with the lexical judge.

Hand derivation. The file has 24 items of 4 Chinese predictions × 4 English gold strings. The
lexical judge (character bigrams, jieba tokens) finds no surface overlap between Chinese and
English, so every one of the 384 cells scores 0.0 (asserted on the base run): no match at τ 0.7,
TP_fuzzy 0, every P/R/F1 0. The override file below:

* line 1: glossary-01 队长 ↔ captain, ann 1 → 1.0 > τ: a match;
* line 2: glossary-02 晚上 ↔ night, ann 1 → a match;
* lines 3-4: glossary-02 肚子 ↔ stomach, ann 1 and bob 0 → mean 0.5 ≤ τ: no match;
* line 5: glossary-03 河 ↔ army, bob 0 → 0.0: no match (as the judge);
* line 6: 河 ↔ river without id → every item with that pair (only glossary-03), 1 → a match.

So 5 cells are overridden, 3 match (each scored 1.0), and 3 are on the other side of τ from
the judge's 0.0 (the three 1s; 0.5 and 0 are on the judge's side). glossary-01, -02 and -03
each get TP_fuzzy 1 of 4 predictions and 4 gold strings: P = R = F1 = 1/4; the 21 others stay
0. Macro P/R/F1 = 3 × 0.25 / 24 = 0.03125; micro: TP 3 of 96 predictions and 96 gold strings
= 0.03125.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judge.cli import app
from judge.record.store import load_run
from judge.runs.audit import report_data
from judge.runs.rescore import rescore
from judge.runs.review import with_human_labels
from judge.tasks.overrides import HumanOverrides
from tests.conftest import EXAMPLES

runner = CliRunner()
DATA = EXAMPLES / "glossary_en_zh.jsonl"
LABELS = [
    {"id": "glossary-01", "pred": "队长", "truth": "captain", "label": 1, "reviewer": "ann"},
    {"id": "glossary-02", "pred": "晚上", "truth": "night", "label": 1, "reviewer": "ann"},
    {"id": "glossary-02", "pred": "肚子", "truth": "stomach", "label": 1, "reviewer": "ann"},
    {"id": "glossary-02", "pred": "肚子", "truth": "stomach", "label": 0, "reviewer": "bob"},
    {"id": "glossary-03", "pred": "河", "truth": "army", "label": 0, "reviewer": "bob"},
    {"pred": "河", "truth": "river", "label": 1, "reviewer": "cy"},
]
MATCHED = {("glossary-01", "队长", "captain"), ("glossary-02", "晚上", "night"),
           ("glossary-03", "河", "river")}
EXPECTED = {k: 0.03125 for k in ("macro_precision", "macro_recall", "macro_f1",
                                 "micro_precision", "micro_recall", "micro_f1")}


def _jsonl(path: Path, rows: list[dict]) -> Path:  # type: ignore[type-arg]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                    encoding="utf-8")
    return path


def _eval(*args: str | Path) -> tuple[int, str]:
    res = runner.invoke(app, ["eval", str(DATA), "--judge", "lexical", "--bootstrap", "0",
                              *map(str, args)])
    return res.exit_code, res.output


def _rows(run: Path, name: str) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(x) for x in (run / name).read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """(base run, run with --overrides, the label file)."""
    tmp = tmp_path_factory.mktemp("overrides")
    labels = _jsonl(tmp / "labels.jsonl", LABELS)
    code, out = _eval("--out", tmp / "base", "--cache-dir", tmp / "c")
    assert code == 0, out
    code, out = _eval("--out", tmp / "human", "--cache-dir", tmp / "c", "--overrides", labels)
    assert code == 0, out
    assert "human overrides: 5 pair(s) scored by the labels of" in " ".join(out.split())
    return tmp / "base", tmp / "human", labels


def test_the_lexical_judge_scores_every_cross_lingual_pair_zero(runs) -> None:  # type: ignore[no-untyped-def]
    base, _, _ = runs
    items = _rows(base, "items.jsonl")
    assert len(items) == 24
    assert {x for r in items for row in r["scores"] for x in row} == {0.0}
    assert json.loads((base / "summary.json").read_text())["metrics"]["micro_f1"] == 0.0


def test_eval_overrides_change_exactly_the_overridden_pairs(runs) -> None:  # type: ignore[no-untyped-def]
    base, human, _ = runs
    summary = json.loads((human / "summary.json").read_text())
    for k, v in EXPECTED.items():
        assert summary["metrics"][k] == pytest.approx(v), k
    assert summary["metrics"]["tp_fuzzy"] == pytest.approx(3.0)
    assert summary["overrides"] == {"files": [str(runs[2])], "labelled_pairs": 5,
                                    "overridden_pairs": 5, "exact": 0, "human_ne_judge": 3,
                                    "tau": 0.7}
    before, after = _rows(base, "items.jsonl"), _rows(human, "items.jsonl")
    changed = {r["id"] for r, b in zip(after, before, strict=True) if r != b}
    assert changed == {"glossary-01", "glossary-02", "glossary-03"}
    got = {(r["id"], m["pred"], m["truth"], m["score"], m["judge_id"])
           for r in after for m in r["matches"]}
    assert got == {(i, p, t, 1.0, "human") for i, p, t in MATCHED}
    g02 = after[1]
    assert g02["scores"][g02["pred"].index("肚子")][g02["truth"].index("stomach")] == 0.5
    for r in after:
        assert r["precision"] == (0.25 if r["id"] in {i for i, _, _ in MATCHED} else 0.0)


def test_the_human_row_sits_beside_the_judges_own(runs) -> None:  # type: ignore[no-untyped-def]
    _, human, labels = runs
    rows = _rows(human, "verdicts.jsonl")
    mine = [r for r in rows if r.get("source") == "human"]
    assert len(mine) == 5
    split = next(r for r in mine if r["pred"] == "肚子")
    assert split["score"] == 0.5 and split["outcome"] == "ok" and split["judge_id"] == "human"
    assert split["reviewers"] == ["ann", "bob"] and split["labels"] == [1.0, 0.0]
    assert split["item_id"] == "glossary-02" and split["raw"] == f"{labels}:3"
    assert (split["judge_score"], split["judge_outcome"]) == (0.0, "ok")
    river = next(r for r in mine if r["truth"] == "river")
    assert river["item_id"] == "glossary-03"  # the id-less label, in the one item with the pair
    own = [r for r in rows if r["judge_id"] == "lexical" and (r["pred"], r["truth"]) in
           {(r["pred"], r["truth"]) for r in mine}]
    assert len(own) == 5 and {r["score"] for r in own} == {0.0}
    assert sum(r["judge_id"] == "lexical" for r in rows) == 381  # distinct pairs, as before


def test_rescore_with_overrides_gives_the_same_numbers(runs) -> None:  # type: ignore[no-untyped-def]
    base, _, labels = runs
    from judge.calibration.overrides import read_overrides

    result = rescore(load_run(base), n_boot=0, overrides=read_overrides([labels]))
    for k, v in EXPECTED.items():
        assert result["metrics"][k] == pytest.approx(v), k
    assert result["overrides"]["overridden_pairs"] == 5
    assert result["overrides"]["human_ne_judge"] == 3
    res = runner.invoke(app, ["rescore", str(base), "--overrides", str(labels),
                              "--bootstrap", "0"])
    assert res.exit_code == 0, res.output
    assert "micro_f1          0.0312" in res.output
    assert "human overrides: 5 pair(s)" in res.output


def test_a_label_of_another_run_is_refused_before_anything_is_written(tmp_path: Path,
                                                                      runs) -> None:  # type: ignore[no-untyped-def]
    bad = _jsonl(tmp_path / "bad.jsonl", [LABELS[0], {**LABELS[0], "pred": "船长"}])
    code, out = _eval("--out", tmp_path / "run", "--overrides", bad)
    assert code == 2
    assert f"{bad}:2: field 'pred': '船长' is no prediction of item 'glossary-01'" in out
    assert not (tmp_path / "run").exists()
    res = runner.invoke(app, ["rescore", str(runs[0]), "--overrides", str(bad)])
    assert res.exit_code == 2 and f"{bad}:2: field 'pred'" in res.output
    graded = _jsonl(tmp_path / "graded.jsonl", [{**LABELS[0], "label": 3}])
    code, out = _eval("--out", tmp_path / "run", "--overrides", graded)
    assert code == 2 and f"{graded}:1: field 'label': label 3 is outside [0, 1]" in out


def test_a_task_without_matrices_takes_no_overrides(tmp_path: Path, runs) -> None:  # type: ignore[no-untyped-def]
    data = _jsonl(tmp_path / "j.jsonl", [{"id": "a", "pred": 1, "truth": 1}])
    res = runner.invoke(app, ["eval", str(data), "--task", "judgment", "--overrides",
                              str(runs[2]), "--out", str(tmp_path / "r")])
    assert res.exit_code == 2 and "--overrides applies to tasks whose judge" in res.output


def test_human_ne_judge_queue_in_report_data(runs) -> None:  # type: ignore[no-untyped-def]
    base, human, labels = runs

    def cells(data: dict) -> set[tuple[str, str, str]]:  # type: ignore[type-arg]
        out = set()
        for n, h, i, j in data["queues"]["human_ne_judge"]:
            hm = data["items"][n]["heatmaps"][h]
            out.add((data["items"][n]["id"], hm["pred"][i], hm["truth"][j]))
        return out

    assert cells(report_data(load_run(human))) == MATCHED  # from the run's human rows
    assert cells(report_data(load_run(base))) == set()
    data, _ = with_human_labels(report_data(load_run(base)), [labels])  # audit --overrides
    assert cells(data) == MATCHED


def test_table_judge_without_rows_is_not_told_to_rerun(tmp_path: Path) -> None:
    """24 items × 16 pairs; an item-scoped table deduplicates pairs within items only (no
    item repeats one): 384 pairs, 2 in the table → 382 without a verdict."""
    table = _jsonl(tmp_path / "t.jsonl", [{"id": r["id"], "pred": r["pred"], "truth": r["truth"],
                                           "score": 1} for r in LABELS[:2]])
    res = runner.invoke(app, ["eval", str(DATA), "--judge", f"table:{table}", "--bootstrap",
                              "0", "--out", str(tmp_path / "r")])
    text = " ".join(res.output.split())
    assert res.exit_code == 0, res.output
    assert "382 distinct pair(s) have no score" in text
    assert "the judge has no verdict for 382 (a table: judge without a row for them" in text
    assert "rerun to retry" not in text


def test_overrides_lookup_prefers_the_item_label() -> None:
    from judge.tasks.overrides import HumanLabel

    a, b = HumanLabel(1.0, ("x",), (1.0,), "f:1"), HumanLabel(0.0, ("y",), (0.0,), "f:2")
    ov = HumanOverrides({("i1", "p", "t"): a, (None, "p", "t"): b})
    assert ov.get("i1", "p", "t") is a and ov.get("i2", "p", "t") is b
    assert ov.get("i1", "p", "u") is None


def test_a_graded_labels_db_is_scaled_by_its_top_grade(tmp_path: Path, runs) -> None:  # type: ignore[no-untyped-def]
    """On a 0-5 scale, grade 4 → 0.8 > τ 0.7 (a match, scored 0.8), grade 3 → 0.6 (none);
    ann's grade 2 then 5 for 晚上 ↔ night: the later label counts (1.0). Matched: glossary-01
    (0.8) and glossary-02 (1.0): TP_fuzzy 1.8 of 96 → micro P 1.8 / 96 = 0.01875."""
    from judge.calibration.labelevents import Scale
    from judge.calibration.labelsdb import LabelsDB
    from judge.calibration.overrides import read_overrides

    db_path = tmp_path / "labels.db"
    with LabelsDB(db_path, scale=Scale.parse("0-5")) as db:
        db.append("ann", ("glossary-01", "队长", "captain"), "label", label=1, grade=4)
        db.append("ann", ("glossary-01", "广口瓶", "jar"), "label", label=1, grade=3)
        db.append("ann", ("glossary-02", "晚上", "night"), "label", label=0, grade=2)
        db.append("ann", ("glossary-02", "晚上", "night"), "label", label=1, grade=5)
    ov = read_overrides([db_path])
    assert ov.get("glossary-01", "队长", "captain").score == pytest.approx(0.8)  # type: ignore[union-attr]
    assert ov.get("glossary-01", "广口瓶", "jar").score == pytest.approx(0.6)  # type: ignore[union-attr]
    assert ov.get("glossary-02", "晚上", "night").score == 1.0  # type: ignore[union-attr]
    result = rescore(load_run(runs[0]), n_boot=0, overrides=ov)
    assert result["metrics"]["tp_fuzzy"] == pytest.approx(1.8)
    assert result["metrics"]["micro_precision"] == pytest.approx(1.8 / 96)
    assert result["overrides"]["overridden_pairs"] == 3


def test_the_python_api_takes_overrides_too(runs) -> None:  # type: ignore[no-untyped-def]
    from judge import evaluate

    records = [json.loads(x) for x in DATA.read_text(encoding="utf-8").splitlines()]
    r = evaluate(records, judge="lexical", bootstrap=0, overrides=[runs[2]])
    for k, v in EXPECTED.items():
        assert r.summary["metrics"][k] == pytest.approx(v), k
    assert sum(v.judge_id == "human" for v in r.verdicts) == 5
    assert r.summary["overrides"]["human_ne_judge"] == 3
