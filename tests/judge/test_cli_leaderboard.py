"""``simjudge leaderboard``: one table per label set, a row per judge plus ``lexical`` and
``humans``; swap/repeat flip rates; bad input refused before any judge call.

The loopback server (tests/fake_openai.py) scores 0.9 when pred and truth share their first
letter (case-folded), else 0.1; ``position_bias`` b adds b when the PRED-slot string sorts before
the GOLD-slot one and subtracts it otherwise (clipped to [0, 1]). Every number below is derived
by hand or taken from scikit-learn.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from sklearn.metrics import cohen_kappa_score, f1_score, matthews_corrcoef, roc_auc_score
from typer.testing import CliRunner

from judge.cli import app
from tests.clirun import run_cli
from tests.fake_openai import FakeOpenAIServer, FakeServerConfig

# (pred, truth, human label) and the fake judge's score
LABELLED = [("apple", "Apfel", 1), ("book", "Buch", 1), ("cat", "dog", 0),
            ("sun", "moon", 0), ("car", "Auto", 1), ("cake", "cookie", 0)]
FAKE = [0.9, 0.9, 0.1, 0.1, 0.1, 0.9]
Y = [lab for _, _, lab in LABELLED]


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _labels(tmp_path: Path) -> Path:
    return _write(tmp_path / "labels.jsonl",
                  [{"pred": a, "truth": b, "label": y} for a, b, y in LABELLED])


def _run(args: list[str]) -> Any:
    return CliRunner().invoke(app, ["leaderboard", *args])


def _rows(out: Path, table: int = 0) -> dict[str, dict[str, Any]]:
    lb = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    return {r["judge"]: r for r in lb["tables"][table]["rows"]}


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key-000000")


def test_leaderboard_row_equals_scikit_learn_and_writes_three_files(tmp_path: Path) -> None:
    out = tmp_path / "lb"
    with FakeOpenAIServer() as srv:
        res = _run([str(_labels(tmp_path)), "--judge", "openai:fake", "--base-url", srv.base_url,
                    "--swap", "1", "--bootstrap", "200", "--folds", "2", "--out", str(out),
                    "--cache-dir", str(tmp_path / "c")])
        chat = [r for r in srv.log if r.path.endswith("/chat/completions")]
    assert res.exit_code == 0, res.output
    assert {p.name for p in out.iterdir()} == {"leaderboard.md", "leaderboard.json",
                                               "leaderboard.png"}
    lb = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    assert len(lb["tables"]) == 1 and lb["settings"]["baseline"] == "openai:fake"
    rows = _rows(out)
    assert list(rows) == ["openai:fake", "lexical"]  # lexical added; one annotation: no humans
    assert rows["lexical"]["reference"] is True and rows["openai:fake"]["reference"] is False
    assert "no humans row" in lb["tables"][0]["notes"][0]
    r = rows["openai:fake"]
    # two distinct scores: the only candidate τ is 0.5; "same" = the three 0.9 pairs → TP 2
    # (apple, book), FP 1 (cake), FN 1 (car), TN 2: F1 = 2/3, κ = (4/6 − 1/2) / (1/2) = 1/3;
    # ROC-AUC = (4 wins + ½·4 ties) / 9 = 2/3
    pred = [s > 0.5 for s in FAKE]
    assert r["tau"] == pytest.approx(0.5)
    assert r["roc_auc"] == pytest.approx(roc_auc_score(Y, FAKE)) == pytest.approx(2 / 3)
    assert r["f1"] == pytest.approx(f1_score(Y, pred)) == pytest.approx(2 / 3)
    assert r["kappa"] == pytest.approx(cohen_kappa_score(Y, pred)) == pytest.approx(1 / 3)
    # can it replace a reviewer: MCC = (2·2 − 1·1)/√(3·3·3·3) = 1/3 (= sklearn); AC1 with
    # p_o = 4/6, π = (3 + 3)/12 = 1/2, p_e = 2·½·½ = ½: (4/6 − ½)/½ = 1/3; TPR = TNR = 2/3
    assert r["mcc"] == pytest.approx(matthews_corrcoef(Y, pred)) == pytest.approx(1 / 3)
    assert r["ac1"] == pytest.approx(1 / 3)
    assert r["tpr"] == pytest.approx(2 / 3) and r["tnr"] == pytest.approx(2 / 3)
    # Wilson 95 % for 2 of 3, by its formula (z = 1.959964)
    z, p, n = 1.959964, 2 / 3, 3
    mid, half = (p + z * z / (2 * n)), z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    wilson = [(mid - half) / (1 + z * z / n), (mid + half) / (1 + z * z / n)]
    assert r["tpr_wilson95"] == pytest.approx(wilson, abs=1e-6)
    assert r["tnr_wilson95"] == pytest.approx(wilson, abs=1e-6)
    for m in ("roc_auc", "pr_auc", "kappa", "f1", "ac1", "mcc", "tpr", "tnr"):
        lo, hi = r[f"{m}_ci95"]
        assert lo <= r[m] <= hi
    assert r["parse_error_rate"] == 0.0 and r["outcomes"] == {"ok": 6}
    # the unbiased fake is symmetric in its first letters: 0 flips of the 6 swapped pairs
    assert r["swap"]["pairs"] == 6 and r["swap"]["flips"] == 0 and r["swap"]["flip_rate"] == 0.0
    assert r["swap"]["flip_rate_ci95"][0] == 0.0
    # tokens of the 6 scoring calls (the first 6 requests; the swap calls come after): the fake
    # bills len(json(messages)) // 4 prompt tokens and 20 completion tokens per call
    assert len(chat) == 12
    tokens = sum(len(json.dumps(c.body["messages"])) // 4 + 20 for c in chat[:6])
    assert r["tokens_per_1k"] == pytest.approx(tokens / 6 * 1000)
    assert r["usd_per_1k"] == 0.0 and r["seconds_per_1k"] > 0  # "fake" has no price
    # lexical vs the first judge: paired over the 6 pairs both scored
    vs = rows["lexical"]["vs_first"]
    assert vs["judge"] == "openai:fake" and vs["pairs"] == 6
    assert vs["roc_auc"]["a"] == pytest.approx(2 / 3)
    assert vs["roc_auc"]["diff"] == pytest.approx(rows["lexical"]["roc_auc"] - 2 / 3)
    md = (out / "leaderboard.md").read_text(encoding="utf-8")
    assert "| openai:fake | 0.667 [" in md and "| lexical (ref.) |" in md
    assert "Δ ROC-AUC vs openai:fake" in md


def test_swap_flip_rate_of_a_biased_judge(tmp_path: Path) -> None:
    # bias 0.45, forward (pred, truth) / swapped scores: apple–Apfel 0.45/1.0 ("apple" sorts
    # after "Apfel"), book–Buch 0.45/1.0, cat–dog 0.55/0.0, sun–moon 0.0/0.55, car–Auto
    # 0.0/0.55, cake–cookie 1.0/0.45. τ by F1 over the forward scores: 0.225 (F1 4/7; 0.5 and
    # 0.775 give 0). Flips at 0.225: cat, sun, car → 3 of 6, Wilson 95 % CI [0.188, 0.812].
    out = tmp_path / "lb"
    with FakeOpenAIServer(FakeServerConfig(position_bias=0.45)) as srv:
        res = _run([str(_labels(tmp_path)), "--judge", "openai:fake", "--base-url", srv.base_url,
                    "--swap", "1", "--bootstrap", "0", "--folds", "2", "--out", str(out),
                    "--cache-dir", str(tmp_path / "c")])
    assert res.exit_code == 0, res.output
    r = _rows(out)["openai:fake"]
    assert r["tau"] == pytest.approx(0.225)
    assert r["swap"]["flips"] == 3 and r["swap"]["flip_rate"] == pytest.approx(0.5)
    lo, hi = r["swap"]["flip_rate_ci95"]
    assert lo == pytest.approx(0.1876, abs=1e-3) and hi == pytest.approx(0.8124, abs=1e-3)
    assert lo > 0  # the planted bias is caught
    assert _rows(out)["lexical"]["swap"]["flip_rate"] == 0.0  # lexical is symmetric


def test_repeat_probe_and_deterministic_judges(tmp_path: Path) -> None:
    out = tmp_path / "lb"
    with FakeOpenAIServer(FakeServerConfig(noise=0.3)) as srv:
        res = _run([str(_labels(tmp_path)), "--judge", "openai:fake", "--base-url", srv.base_url,
                    "--swap", "0", "--repeats", "3", "--bootstrap", "0", "--folds", "2",
                    "--out", str(out), "--cache-dir", str(tmp_path / "c")])
        chat = [r for r in srv.log if r.path.endswith("/chat/completions")]
    assert res.exit_code == 0, res.output
    # 6 scoring calls; the repeats panel reuses sample 0 from the cache and draws samples 1, 2
    assert len(chat) == 6 + 12
    rows = _rows(out)
    rep = rows["openai:fake"]["repeat"]
    assert rep["repeats"] == 3 and rep["pairs"] == 6 and rep["mean_sd"] > 0
    assert rows["openai:fake"]["swap"] is None  # --swap 0: no probe
    assert "deterministic" in rows["lexical"]["repeat"]["note"]
    md = (out / "leaderboard.md").read_text(encoding="utf-8")
    assert md.count("| lexical (ref.) |") == 1


def test_humans_row_and_one_table_per_label_set(tmp_path: Path) -> None:
    # three annotators; humans = first annotation vs the majority of the other two (a tie is
    # negative): scores [1, 1, 0, 0, 1, 0], truth [1, 1, 1, 0, 0, 0]. ROC-AUC: positives 1, 1, 0
    # vs negatives 0, 1, 0 → (2.5 + 2.5 + 1) / 9 = 2/3; at the rule "label = 1" → TP 2, FP 1,
    # FN 1, TN 2: F1 2/3, κ 1/3. Five copies of the six pairs (30 = MIN_HUMAN_PAIRS) leave every
    # one of these numbers unchanged.
    ann = [[1, 1, 1], [1, 1, 1], [0, 1, 1], [0, 0, 0], [1, 0, 0], [0, 0, 0]] * 5
    multi = _write(tmp_path / "multi.jsonl", [{"pred": f"p{k}", "truth": f"t{k}", "label": a}
                                              for k, a in enumerate(ann)])
    out = tmp_path / "lb"
    res = _run([str(_labels(tmp_path)), str(multi), "--judge", "lexical", "--swap", "0",
                "--bootstrap", "100", "--folds", "2", "--out", str(out), "--cache-dir",
                str(tmp_path / "c")])
    assert res.exit_code == 0, res.output
    lb = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    assert [Path(t["labels"]["path"]).name for t in lb["tables"]] == ["labels.jsonl",
                                                                     "multi.jsonl"]
    assert list(_rows(out, 0)) == ["lexical"]  # lexical given: not added twice; no humans
    h = _rows(out, 1)["humans"]
    scores, truth = [a[0] for a in ann], [1, 1, 1, 0, 0, 0] * 5
    assert h["pairs_scored"] == 30 and h["reference"] is True and "vs_first" not in h
    assert h["roc_auc"] == pytest.approx(roc_auc_score(truth, scores)) == pytest.approx(2 / 3)
    assert h["tau"] is None and h["label_rule"] == "label = 1" and h["cv_kappa"] is None
    assert h["f1"] == pytest.approx(f1_score(truth, scores)) == pytest.approx(2 / 3)
    assert h["kappa"] == pytest.approx(cohen_kappa_score(truth, scores)) == pytest.approx(1 / 3)
    assert h["parse_error_rate"] is None and h["tokens_per_1k"] is None
    lo, hi = h["f1_ci95"]
    assert lo < 2 / 3 < hi  # a real interval over 30 pairs
    md = (out / "leaderboard.md").read_text(encoding="utf-8")
    assert md.count("\n## ") == 2 and "| humans (n=30) | 0.667 [" in md
    assert "| label = 1 |" in md and "leave-one-annotator-out" in md


def test_humans_row_on_a_graded_scale_uses_the_labels_threshold(tmp_path: Path) -> None:
    # 0–5 grades, two annotators, positive when the mean is ≥ 4. humans: first grade vs the
    # second (the "others") binarised at ≥ 4. Per block of six pairs: first [5, 4, 3, 2, 4, 1],
    # second [5, 3, 4, 1, 4, 0] → truth [1, 0, 1, 0, 1, 0], predicted (first ≥ 4)
    # [1, 1, 0, 0, 1, 0]: TP 2, FP 1, FN 1, TN 2 → F1 2/3, κ (2/3 − 1/2)/(1/2) = 1/3.
    # ROC-AUC: positives {5, 3, 4} vs negatives {4, 2, 1}: (3 + 2 + 2.5) / 9 = 5/6.
    first, second = [5, 4, 3, 2, 4, 1], [5, 3, 4, 1, 4, 0]
    rows = [{"pred": f"p{k}", "truth": f"t{k}", "label": [first[k % 6], second[k % 6]]}
            for k in range(30)]
    graded = _write(tmp_path / "graded.jsonl", rows)
    out = tmp_path / "lb"
    res = _run([str(graded), "--judge", "lexical", "--swap", "0", "--positive-threshold", "4",
                "--bootstrap", "50", "--folds", "2", "--out", str(out), "--cache-dir",
                str(tmp_path / "c")])
    assert res.exit_code == 0, res.output
    h = _rows(out)["humans"]
    truth = [int(second[k % 6] >= 4) for k in range(30)]
    scores = [first[k % 6] for k in range(30)]
    pred = [int(x >= 4) for x in scores]
    assert h["roc_auc"] == pytest.approx(roc_auc_score(truth, scores)) == pytest.approx(5 / 6)
    assert h["f1"] == pytest.approx(f1_score(truth, pred)) == pytest.approx(2 / 3)
    assert h["kappa"] == pytest.approx(cohen_kappa_score(truth, pred)) == pytest.approx(1 / 3)
    # the threshold is the labels' own, on their scale: no τ fitted to the grades
    assert h["tau"] is None and h["label_threshold"] == 4 and h["label_rule"] == "label ≥ 4"
    assert "| label ≥ 4 |" in (out / "leaderboard.md").read_text(encoding="utf-8")
    assert "label ≥ 4" in res.output


def test_no_humans_row_below_the_minimum_of_multiply_annotated_pairs(tmp_path: Path) -> None:
    # 4 of 10 pairs carry two annotations (the case: a 4-pair ceiling printed
    # ROC-AUC 1.000 [1.000, 1.000]): no row, a note with the count and the minimum
    rows = [{"pred": f"p{k}", "truth": f"t{k}", "label": [k % 2, k % 2] if k < 4 else k % 2}
            for k in range(10)]
    few = _write(tmp_path / "few.jsonl", rows)
    args = [str(few), "--judge", "lexical", "--swap", "0", "--bootstrap", "50", "--folds", "2",
            "--cache-dir", str(tmp_path / "c")]
    res = _run([*args, "--out", str(tmp_path / "lb")])
    assert res.exit_code == 0, res.output
    lb = json.loads((tmp_path / "lb" / "leaderboard.json").read_text(encoding="utf-8"))
    t = lb["tables"][0]
    assert list(_rows(tmp_path / "lb")) == ["lexical"]
    assert t["labels"]["multiply_annotated_pairs"] == 4
    assert "only 4 pair(s) carry ≥ 2 annotations" in t["notes"][0] and "≥ 30" in t["notes"][0]
    assert "only 4 pair(s)" in res.output
    # the minimum is an option: at 4 the row is back (labels agree: first = others on all 4)
    res = _run([*args, "--out", str(tmp_path / "lb4"), "--min-human-pairs", "4"])
    assert res.exit_code == 0, res.output
    h = _rows(tmp_path / "lb4")["humans"]
    assert h["pairs_scored"] == 4 and h["roc_auc"] == 1.0 and h["kappa"] == 1.0


def test_judges_file_rows_and_paired_ci_against_the_first(tmp_path: Path) -> None:
    with FakeOpenAIServer() as srv:
        toml = tmp_path / "judges.toml"
        toml.write_text(f'[[judges]]\nid = "pairwise"\nbackend = "openai"\nmodel = "fake"\n'
                        f'base_url = "{srv.base_url}"\n\n'
                        f'[[judges]]\nid = "batch"\nbackend = "openai"\nmodel = "fake"\n'
                        f'base_url = "{srv.base_url}"\nscorer = "entity_similarity_batch@v1"\n',
                        encoding="utf-8")
        res = _run([str(_labels(tmp_path)), "--judges", str(toml), "--swap", "0", "--bootstrap",
                    "50", "--folds", "2", "--out", str(tmp_path / "lb"), "--cache-dir",
                    str(tmp_path / "c")])
    assert res.exit_code == 0, res.output
    rows = _rows(tmp_path / "lb")
    assert list(rows) == ["pairwise", "batch", "lexical"]
    # both scorers give the same 6 scores (FAKE): every paired difference is 0, CI [0, 0]
    vs = rows["batch"]["vs_first"]
    assert vs["judge"] == "pairwise" and vs["pairs"] == 6
    for m in ("roc_auc", "pr_auc", "kappa", "f1"):
        assert vs[m]["diff"] == 0.0 and vs[m]["ci95"] == [0.0, 0.0]
    assert "vs_first" not in rows["pairwise"]


@pytest.mark.parametrize("extra, needle", [
    (["--swap", "1.5"], "--swap"),
    (["--repeats", "0"], "repeats"),
    (["--objective", "auc"], "objective"),
    (["--folds", "1"], "folds"),
    (["--min-human-pairs", "0"], "min-human-pairs"),
])
def test_bad_input_exits_2_before_any_judge_call(tmp_path: Path, extra: list[str],
                                                 needle: str) -> None:
    with FakeOpenAIServer() as srv:
        res = _run([str(_labels(tmp_path)), "--judge", "openai:fake", "--base-url", srv.base_url,
                    "--out", str(tmp_path / "lb"), "--cache-dir", str(tmp_path / "c"), *extra])
        assert srv.log == []
    assert res.exit_code == 2 and needle in res.output
    assert not (tmp_path / "lb").exists()


def test_missing_labels_or_busy_out_dir_exit_2(tmp_path: Path) -> None:
    res = _run([str(_labels(tmp_path)), str(tmp_path / "missing.jsonl"), "--judge", "lexical",
                "--out", str(tmp_path / "lb")])
    assert res.exit_code == 2 and "missing.jsonl" in res.output
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "keep.txt").write_text("x", encoding="utf-8")
    with FakeOpenAIServer() as srv:
        res = _run([str(_labels(tmp_path)), "--judge", "openai:fake", "--base-url", srv.base_url,
                    "--out", str(busy), "--cache-dir", str(tmp_path / "c")])
        assert srv.log == []
    assert res.exit_code == 2 and (busy / "keep.txt").exists()


def _table_judge(path: Path, pairs: list[tuple[str, str]], scores: list[float]) -> Path:
    return _write(path, [{"pred": a, "truth": b, "score": s}
                         for (a, b), s in zip(pairs, scores, strict=True)])


@pytest.mark.parametrize("long_names", [False, True])
def test_leaderboard_at_80_columns_shows_every_number_whole(tmp_path: Path,
                                                            long_names: bool) -> None:
    # three judges (two score tables and lexical) plus the humans row: four judge columns of
    # cells up to 23 characters ("-0.136 [-0.179, -0.085]") cannot sit side by side in 80
    # columns; before, rich folded them ("0.513 [0.504" with no upper bound) and split the
    # names mid-word ("table:table.js" / "onl")
    from rich.cells import cell_len

    from judge.calibration.leaderboard_report import cells

    ann = [[1, 1, 1], [1, 1, 1], [0, 1, 1], [0, 0, 0], [1, 0, 0], [0, 0, 0]] * 5
    pairs = [(f"p{k}", f"t{k}") for k in range(len(ann))]
    labels = _write(tmp_path / "labels.jsonl", [{"pred": a, "truth": b, "label": y}
                                                for (a, b), y in zip(pairs, ann, strict=True)])
    stem = "scores_of_the_fine_tuned_judge_model_" if long_names else "s"
    a = _table_judge(tmp_path / f"{stem}a.jsonl", pairs, [0.1 + 0.8 * y[0] for y in ann])
    b = _table_judge(tmp_path / f"{stem}b.jsonl", pairs,
                     [0.05 + 0.03 * k for k in range(len(ann))])
    out = tmp_path / "lb"
    a, b = a.name, b.name  # judge ids table:NAME, run from tmp_path
    res = run_cli("leaderboard", labels.name, "--judge", f"table:{a}", "--judge",
                  f"table:{b}", "--judge", "lexical", "--swap", "0", "--bootstrap", "100",
                  "--folds", "2", "--out", out, "--cache-mode", "off", cwd=tmp_path,
                  columns=80)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert max(cell_len(line) for line in lines) <= 80
    lb = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    rows = lb["tables"][0]["rows"]
    assert [r["judge"] for r in rows] == [f"table:{a}", f"table:{b}", "lexical", "humans"]
    # every cell of every row, CIs included, stands whole on one line of the output
    for r in rows:
        for cell in cells(r)[1:]:
            assert any(cell in line for line in lines), cell
    heads = [cells(r)[0] for r in rows]
    if long_names:  # names longer than their cells: letters and a key, each name whole
        for letter, name in zip("ABCD", heads, strict=True):
            assert f"  {letter} = {name}" in lines
        assert any(line.startswith("Δ κ vs A ") for line in lines)
    else:  # short names head their columns
        assert all(any(h in line for line in lines) for h in heads)
        assert not any(line.startswith("  A = ") for line in lines)


def test_a_panel_row_reports_its_members_error_phi_and_n_eff(tmp_path: Path) -> None:
    # three table judges on the 6 pairs: A and B score as FAKE, C = [.9, .1, .1, .9, .9, .1].
    # The mean panel scores [.9, .633, .1, .367, .367, .633]; τ by F1 over its midpoints:
    # 0.233 → "same" for all but cat: TP 3, FP 2, FN 0, F1 0.75 (0.5 → 2/3, 0.767 → 0.5).
    # Each member at its own τ 0.5: A and B err on car (FN) and cake (FP), C on book (FN) and
    # sun (FP):
    # φ(A, B) = 1; φ(A, C) = φ(B, C) = (0·2 − 2·2)/√(2·4·2·4) = −0.5; mean 0; n_eff = 3.
    tables = {}
    for name, scores in (("a", FAKE), ("b", FAKE), ("c", [0.9, 0.1, 0.1, 0.9, 0.9, 0.1])):
        tables[name] = _write(tmp_path / f"{name}.jsonl", [
            {"pred": p, "truth": t, "score": s} for (p, t, _), s in zip(LABELLED, scores,
                                                                       strict=True)])
    panel = "panel:mean(" + ",".join(f"table:{p}" for p in tables.values()) + ")"
    out = tmp_path / "lb"
    judges = [x for p in tables.values() for x in ("--judge", f"table:{p}")]
    res = _run([str(_labels(tmp_path)), *judges, "--panel", "mean", "--swap", "0",
                "--bootstrap", "0", "--folds", "2", "--out", str(out), "--cache-dir",
                str(tmp_path / "c")])
    assert res.exit_code == 0, res.output
    row = _rows(out)[panel]
    assert row["tau"] == pytest.approx((0.1 + 1.1 / 3) / 2)
    p = row["panel"]
    a, b, c = (f"table:{tables[n]}" for n in "abc")
    assert p["members"] == [a, b, c] and p["pairs"] == 6
    assert p["error_phi"] == {f"{a} | {b}": pytest.approx(1.0),
                              f"{a} | {c}": pytest.approx(-0.5),
                              f"{b} | {c}": pytest.approx(-0.5)}
    assert p["mean_error_phi"] == pytest.approx(0.0, abs=1e-12)
    assert p["n_eff"] == pytest.approx(3.0)
    # each member at its own τ: 0.5 for all three (their only candidate)
    assert p["member_tau"] == {a: pytest.approx(0.5), b: pytest.approx(0.5), c: pytest.approx(0.5)}
    said = {n: [s > 0.5 for s in sc] for n, sc in
            (("a", FAKE), ("c", [0.9, 0.1, 0.1, 0.9, 0.9, 0.1]))}
    assert p["member_kappa"][a] == pytest.approx(cohen_kappa_score(Y, said["a"]))
    assert p["member_kappa"][c] == pytest.approx(cohen_kappa_score(Y, said["c"]))
    panel_said = [s > row["tau"] for s in (0.9, 1.9 / 3, 0.1, 1.1 / 3, 1.1 / 3, 1.9 / 3)]
    assert p["panel_kappa"] == pytest.approx(cohen_kappa_score(Y, panel_said))
    assert p["best_member"] == a  # A and C tie at κ 1/3: the first in order
    text = " ".join(res.output.split())
    assert "panel of 3 worth 3.00 independent judges (mean error φ 0.000 over 6 pairs" in text
    res = _run([str(_labels(tmp_path)), judges[0], judges[1], "--panel", "vote",
                "--out", str(tmp_path / "bad")])
    assert res.exit_code == 2 and "expected one of mean, median, min, max" in res.output
    assert not (tmp_path / "bad").exists()


def test_members_whose_errors_avoid_each_other_are_worth_k_not_more() -> None:
    from judge.calibration.labels import LabelledPair, LabelSet
    from judge.calibration.panelstats import panel_independence

    # 4 pairs labelled 1, 1, 0, 0; at τ 0.5 member x errs on pairs 0, 1 (says 0), y on 2, 3
    # (says 1): error indicators [1, 1, 0, 0] and [0, 0, 1, 1], φ = −1. Kish's formula gives
    # 2 / (1 − 1) = ∞; the report takes a negative mean φ as 0: worth 2
    pairs = [LabelledPair(f"p{i}", f"t{i}", float(y), bool(y), (float(y),), f"f:{i}", None)
             for i, y in enumerate([1, 1, 0, 0])]
    labels = LabelSet(pairs, False, None, None, "f", "0" * 64, 4)
    rows = [{"judge_id": j, "pred": f"p{i}", "truth": f"t{i}", "score": s, "outcome": "ok"}
            for j, scores in (("x", [0.1, 0.1, 0.1, 0.1]), ("y", [0.9, 0.9, 0.9, 0.9]))
            for i, s in enumerate(scores)]
    rep = panel_independence(rows, labels, {}, 0.5, None)
    assert rep is not None
    assert rep["error_phi"] == {"x | y": pytest.approx(-1.0)}
    assert rep["mean_error_phi"] == pytest.approx(-1.0) and rep["n_eff"] == pytest.approx(2.0)
    assert rep["member_kappa"] == {"x": pytest.approx(0.0), "y": pytest.approx(0.0)}
