"""``simjudge calibrate``: numbers checked against metrics/scikit-learn/scipy, plots, bad input."""

from __future__ import annotations

import csv
import json
import struct
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from scipy.stats import spearmanr
from sklearn.metrics import cohen_kappa_score, roc_auc_score
from typer.testing import CliRunner

from judge.calibration.labels import load_labels
from judge.cli import app
from judge.errors import InputError
from judge.judges.embedding.local import LocalJudge
from metrics import best_threshold, binary_scores, bootstrap_indices, normalize, percentile_ci
from tests.conftest import EXAMPLES, shared_file

runner = CliRunner()
AM2ICO = EXAMPLES / "am2ico_word_pairs.tsv"


def _calibrate(*args: str | Path) -> tuple[int, str]:
    res = runner.invoke(app, ["calibrate", *map(str, args)], env={"COLUMNS": "200"})
    return res.exit_code, res.output


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def _local_scores(pairs: list[tuple[str, str]]) -> np.ndarray:
    """Independent path: the local judge's mapped scores, capped at CAP where the opposite-term
    guard finds the pair opposed, exact pairs 1.0."""
    from judge.judges.embedding.local import is_cross_lingual
    from judge.judges.embedding.opposites import CAP, find_opposition

    j = LocalJudge()
    cos = j.raw_cosines(pairs)

    def score(a: str, b: str, c: float) -> float:
        s = j.map_score(c, is_cross_lingual(a, b))
        return min(s, CAP) if find_opposition(a, b) is not None else s

    return np.array([1.0 if normalize(a) == normalize(b) else score(a, b, c)
                     for (a, b), c in zip(pairs, cos, strict=True)])


@pytest.fixture(scope="module")
def am2ico_run(tmp_path_factory) -> Path:  # type: ignore[no-untyped-def]
    out = tmp_path_factory.mktemp("cal") / "out"
    cache = tmp_path_factory.mktemp("cache")
    code, output = _calibrate(AM2ICO, "--judge", "local", "--judge", "lexical", "--out", out,
                              "--cache-dir", cache, "--bootstrap", "200", "--folds", "5")
    assert code == 0, output
    assert "local" in output and "lexical" in output  # one table row per judge
    return out


def test_am2ico_local_report_and_curve_equal_metrics(am2ico_run: Path) -> None:
    cal = json.loads((am2ico_run / "calibration.json").read_text())
    labels = load_labels(AM2ICO)
    assert cal["labels"]["pairs"] == len(labels.pairs) == 490  # 500 rows, 10 repeated pairs
    r = cal["judges"]["local"]
    y = np.array([p.positive for p in labels.pairs])
    s = _local_scores([(p.pred, p.truth) for p in labels.pairs])
    assert r["roc_auc"] == pytest.approx(roc_auc_score(y, s), abs=1e-6)
    assert r["tau"] == pytest.approx(best_threshold(s, y, "f1").tau, abs=1e-6)
    lo, hi = r["bootstrap"]["tau_ci95"]
    assert lo <= r["tau"] <= hi
    cv = r["cross_validation"]
    assert cv["folds"] == 5 and len(cv["objective_per_fold"]) == 5 and 0 < cv["pooled"] < 1
    # every curve.csv row equals metrics.binary_scores / sklearn κ at the same τ
    with open(am2ico_run / "curve.csv", encoding="utf-8") as fh:
        rows = [row for row in csv.DictReader(fh) if row["judge"] == "local"]
    assert len(rows) == len(np.unique(s)) - 1
    for row in rows[:: max(1, len(rows) // 25)]:
        tau = float(row["tau"])
        pred = s > tau
        ref = binary_scores(y, pred)
        assert float(row["precision"]) == pytest.approx(ref.precision, abs=1e-6)
        assert float(row["recall"]) == pytest.approx(ref.recall, abs=1e-6)
        assert float(row["f1"]) == pytest.approx(ref.f1, abs=1e-6)
        assert float(row["accuracy"]) == pytest.approx(ref.accuracy, abs=1e-6)
        assert float(row["kappa"]) == pytest.approx(cohen_kappa_score(y, pred), abs=1e-6)


def test_bootstrap_ci_matches_a_reference_bootstrap(am2ico_run: Path) -> None:
    """Same resamples (seed 0), chosen with the non-vectorised best_threshold."""
    cal = json.loads((am2ico_run / "calibration.json").read_text())
    labels = load_labels(AM2ICO)
    y = np.array([p.positive for p in labels.pairs])
    s = _local_scores([(p.pred, p.truth) for p in labels.pairs])
    taus, f1s = [], []
    for idx in bootstrap_indices(len(s), 200, seed=0):
        if y[idx].all() or not y[idx].any() or len(set(s[idx])) < 2:
            continue
        b = best_threshold(s[idx], y[idx], "f1")
        taus.append(b.tau)
        f1s.append(b.f1)
    boot = cal["judges"]["local"]["bootstrap"]
    assert boot["tau_ci95"] == pytest.approx(percentile_ci(taus), abs=1e-6)
    assert boot["objective_ci95"] == pytest.approx(percentile_ci(f1s), abs=1e-6)


def test_plots_are_pngs_with_marked_tau(am2ico_run: Path) -> None:
    cal = json.loads((am2ico_run / "calibration.json").read_text())
    data = json.loads((am2ico_run / "plots.json").read_text())
    for name in ("threshold.png", "roc.png", "pr.png"):
        assert _png_size(am2ico_run / name) == (800, 500)
        assert set(data[name]) == {"local", "lexical"}  # both judges on one chart
    for jid in ("local", "lexical"):
        tau = cal["judges"][jid]["tau"]
        at = cal["judges"][jid]["at_tau"]
        assert data["threshold.png"][jid]["chosen_tau"] == tau
        assert data["roc.png"][jid]["chosen"] == pytest.approx([at["fpr"], at["tpr"]])
        assert data["pr.png"][jid]["chosen"] == pytest.approx([at["recall"], at["precision"]])


def test_multisimlex_graded_spearman(tmp_path) -> None:  # type: ignore[no-untyped-def]
    src = shared_file("multisimlex_en_zh/derived_en_zh_pairs.tsv")
    with open(src, encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    # cross-lingual graded pairs: English word 1 vs Mandarin word 2, rated by the mean of the
    # two languages' (normalised, 0–6) similarity ratings of that concept pair
    labels = tmp_path / "msl.jsonl"
    with open(labels, "w", encoding="utf-8") as fo:
        for r in rows:
            grade = (float(r["en_score"]) + float(r["zh_score"])) / 2
            fo.write(json.dumps({"pred": r["en_word1"], "truth": r["zh_word2"], "label": grade},
                                ensure_ascii=False) + "\n")
    code, output = _calibrate(labels, "--judge", "local", "--positive-threshold", "4",
                              "--out", tmp_path / "out", "--cache-dir", tmp_path / "c",
                              "--bootstrap", "50")
    assert code == 0, output
    r = json.loads((tmp_path / "out" / "calibration.json").read_text())["judges"]["local"]
    ls = load_labels(labels, positive_threshold=4)
    s = _local_scores([(p.pred, p.truth) for p in ls.pairs])
    expected = spearmanr(s, [p.value for p in ls.pairs]).statistic
    assert r["spearman"] == pytest.approx(expected, abs=1e-6)
    assert r["spearman"] > 0.3  # the encoder tracks graded similarity across languages


def test_annotators_majority_mean_and_alpha(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "l.jsonl"
    path.write_text(
        '{"pred": "a", "truth": "x", "label": [1, 1, 0]}\n'
        '{"pred": "b", "truth": "y", "label": [1, 0]}\n'  # tie → negative
        '{"pred": "c", "truth": "z", "label": 0}\n'
        '{"pred": "c", "truth": "z", "label": "F"}\n')  # repeated row = another annotator
    ls = load_labels(path)
    assert [p.positive for p in ls.pairs] == [True, False, False]
    assert [p.annotations for p in ls.pairs] == [(1.0, 1.0, 0.0), (1.0, 0.0), (0.0, 0.0)]
    data = [[1, 1, 0], [1, 0, 0], [0, np.nan, np.nan]]
    assert ls.alpha == pytest.approx(krippendorff.alpha(reliability_data=data,
                                                        level_of_measurement="nominal"))
    graded = tmp_path / "g.csv"
    graded.write_text("pred,truth,label\na,x,3.5\na,x,2.5\nb,y,1\n")
    lg = load_labels(graded, positive_threshold=3)
    assert [p.value for p in lg.pairs] == [3.0, 1.0] and [p.positive for p in lg.pairs] == [
        True, False]


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        ("pred\ttruth\tlabel\na\tx\thigh\nb\ty\t0\n", [],
         r"l.tsv:2: field 'label': expected a number or a boolean label"),
        ("pred\tlabel\na\t1\nb\t0\n", [], r"l.tsv:2: field 'truth': missing"),
        ("pred\ttruth\tlabel\na\tx\t1\nb\ty\t1\n", [],
         r"every pair is positive.*ROC-AUC and the threshold choice are undefined"),
        ("pred\ttruth\tlabel\na\tx\t3.5\nb\ty\t1\n", [], r"graded labels .* --positive-threshold"),
        ("pred\ttruth\tlabel\na\tx\t1\nb\ty\t0\n", ["--objective", "auc"], "unknown objective"),
        # a NaN threshold is the option's fault, not the labels' (before: "every pair is
        # negative after binarising", blaming field 'label')
        ("pred\ttruth\tlabel\na\tx\t3\nb\ty\t1\n", ["--positive-threshold", "nan"],
         r"^simjudge: error: field 'positive-threshold': --positive-threshold must be a finite "
         r"number, got nan$"),
        ("pred\ttruth\tlabel\na\tx\t1\nb\ty\t0\n", ["--positive-threshold", "inf"],
         r"field 'positive-threshold': .* got inf"),
    ],
)
def test_bad_labels_exit_2(tmp_path, content: str, args: list[str], message: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "l.tsv"
    path.write_text(content)
    code, output = _calibrate(path, "--judge", "lexical", *args, "--out", tmp_path / "out")
    assert code == 2, output
    assert output.count("error:") == 1
    import re

    assert re.search(message, output.strip(), re.M), output
    assert not (tmp_path / "out").exists()


def test_run_curve_and_tau_from(tmp_path) -> None:  # type: ignore[no-untyped-def]
    data = EXAMPLES / "glossary_en_zh.jsonl"
    cache = tmp_path / "cache"
    res = runner.invoke(app, ["eval", str(data), "--judge", "local", "--out",
                              str(tmp_path / "run"), "--cache-dir", str(cache)])
    assert res.exit_code == 0, res.output
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    code, output = _calibrate(AM2ICO, "--judge", "local", "--objective", "kappa", "--run",
                              tmp_path / "run", "--out", tmp_path / "cal", "--cache-dir", cache,
                              "--bootstrap", "20")
    assert code == 0, output
    cal = json.loads((tmp_path / "cal" / "calibration.json").read_text())
    curve = cal["run"]["curve"]
    i = curve["tau"].index(0.7)
    # re-scored from stored scores at the run's own τ: the run's own numbers, 0 judge calls
    assert curve["macro_f1"][i] == pytest.approx(summary["metrics"]["macro_f1"], abs=1e-12)
    assert curve["micro_precision"][i] == pytest.approx(summary["metrics"]["micro_precision"])
    assert cal["run"]["judge_calls"] == 0 and _png_size(tmp_path / "cal" / "run_tau.png") == (
        800, 500)
    tau = cal["judges"]["local"]["tau"]
    res = runner.invoke(app, ["eval", str(data), "--judge", "local", "--tau-from",
                              str(tmp_path / "cal" / "calibration.json"), "--out",
                              str(tmp_path / "run2"), "--cache-dir", str(cache)])
    assert res.exit_code == 0, res.output
    config = json.loads((tmp_path / "run2" / "config.json").read_text())
    assert config["tau"] == tau and config["tau_from"]["tau"] == tau
    import hashlib

    assert config["tau_from"]["sha256"] == hashlib.sha256(
        (tmp_path / "cal" / "calibration.json").read_bytes()).hexdigest()
    res = runner.invoke(app, ["eval", str(data), "--judge", "lexical", "--tau-from",
                              str(tmp_path / "cal" / "calibration.json"), "--out",
                              str(tmp_path / "run3")])
    assert res.exit_code == 2 and "no calibration for judge 'lexical'" in res.output


def test_load_labels_needs_two_pairs(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "l.jsonl"
    path.write_text('{"pred": "a", "truth": "b", "label": 1}\n')
    with pytest.raises(InputError, match="at least two"):
        load_labels(path)


def test_judge_that_cannot_discriminate_is_reported_not_fatal(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # lexical overlap between English and Chinese words is always 0: AUC 0.5, τ undefined
    path = tmp_path / "l.jsonl"
    rows = [("dog", "狗", 1), ("cat", "猫", 1), ("dog", "猫", 0), ("cat", "汽车", 0),
            ("car", "汽车", 1), ("car", "狗", 0)]
    path.write_text("".join(json.dumps({"pred": a, "truth": b, "label": y}, ensure_ascii=False)
                            + "\n" for a, b, y in rows))
    code, output = _calibrate(path, "--judge", "lexical", "--judge", "local", "--out",
                              tmp_path / "out", "--cache-dir", tmp_path / "c", "--bootstrap", "20",
                              "--folds", "3")
    assert code == 0, output
    assert "undefined (all scores equal)" in output
    cal = json.loads((tmp_path / "out" / "calibration.json").read_text())
    lex = cal["judges"]["lexical"]
    assert lex["tau"] is None and lex["roc_auc"] == 0.5 and "cannot discriminate" in lex["note"]
    assert cal["judges"]["local"]["tau"] is not None
    assert set(json.loads((tmp_path / "out" / "plots.json").read_text())["roc.png"]) == {"local"}
    data = tmp_path / "d.jsonl"
    data.write_text('{"pred": ["dog"], "truth": ["狗"]}\n')
    res = runner.invoke(app, ["eval", str(data), "--judge", "lexical", "--tau-from",
                              str(tmp_path / "out" / "calibration.json"), "--out",
                              str(tmp_path / "run")])
    assert res.exit_code == 2 and "undefined for judge 'lexical'" in res.output


def test_pairs_are_keyed_by_item_id_when_rows_carry_one(tmp_path: Path) -> None:
    # items 1 and 2 hold the same strings with different labels (a `labels merge` file): they
    # are two labelled pairs, not one pair of four annotations; the judge scores the text once
    from judge.cache import JudgeCache
    from judge.calibration.scoring import score_labelled_pairs
    from judge.judges.registry import parse_judge_spec

    rows = [{"id": "1", "pred": "开灯", "truth": "打开灯", "label": [1, 1]},
            {"id": "2", "pred": "开灯", "truth": "打开灯", "label": [0, 0]},
            {"id": "3", "pred": "猫", "truth": "cat", "label": [1, 0]},
            {"id": "4", "pred": "狗", "truth": "car", "label": [0, 0]},
            {"id": "5", "pred": "汽车", "truth": "car", "label": [1, 1]}]
    path = tmp_path / "merged.jsonl"
    path.write_text("".join(json.dumps({**r, "reviewers": ["ann", "bob"]}, ensure_ascii=False)
                            + "\n" for r in rows), encoding="utf-8")
    ls = load_labels(path)
    assert [(p.item_id, p.annotations) for p in ls.pairs] == [
        ("1", (1.0, 1.0)), ("2", (0.0, 0.0)), ("3", (1.0, 0.0)), ("4", (0.0, 0.0)),
        ("5", (1.0, 1.0))]
    assert [p.positive for p in ls.pairs] == [True, False, False, False, True]
    ann, bob = [[float(r["label"][k]) for r in rows] for k in (0, 1)]
    ref = krippendorff.alpha(reliability_data=[ann, bob], level_of_measurement="nominal")
    assert ls.alpha == pytest.approx(ref)  # 0.64; as one pair of (1, 1, 0, 0) it was 0.16
    # without ids the strings are the key, as before: items 1 and 2 are one pair
    plain = tmp_path / "plain.jsonl"
    plain.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "id"},
                                        ensure_ascii=False) + "\n" for r in rows),
                     encoding="utf-8")
    lp = load_labels(plain)
    assert lp.pairs[0].annotations == (1.0, 1.0, 0.0, 0.0)
    assert len(lp.pairs) == 4 and lp.pairs[0].item_id is None
    calls: list[list[tuple[str, str]]] = []
    judge = parse_judge_spec("lexical")
    inner = judge.judge_pairs

    async def counting(pairs, ctx):  # type: ignore[no-untyped-def]
        calls.append(list(pairs))
        return await inner(pairs, ctx)

    judge.judge_pairs = counting  # type: ignore[method-assign]
    js = score_labelled_pairs(ls, judge, JudgeCache(tmp_path / "c", "off"))
    assert calls == [[("开灯", "打开灯"), ("猫", "cat"), ("狗", "car"), ("汽车", "car")]]
    assert js.scores[0] == js.scores[1] and not np.isnan(js.scores).any()
    code, text = _calibrate(path, "--judge", "lexical", "--bootstrap", 0, "--folds", 2,
                            "--out", tmp_path / "cal")
    assert code == 0, text
    rep = json.loads((tmp_path / "cal" / "calibration.json").read_text(encoding="utf-8"))
    assert rep["labels"]["pairs"] == 5
    assert rep["labels"]["inter_annotator_alpha"] == pytest.approx(ref)
