"""``--task multilabel --labels``: the label space, per-item scores, and the bootstrap over the
space — every number against scikit-learn with ``MultiLabelBinarizer(classes=…)``."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.metrics import (
    f1_score,
    hamming_loss,
    jaccard_score,
    precision_recall_fscore_support,
    precision_score,
    recall_score,
)
from sklearn.preprocessing import MultiLabelBinarizer

from judge.tasks.mloptions import MultilabelOptions
from judge.tasks.registry import get_task
from tests.clirun import CliResult

ROOT = Path(__file__).resolve().parents[2]
TICKETS = ROOT / "examples" / "multilabel_support_tickets.jsonl"
# the space of the six tickets plus "refund", which no ticket uses
SPACE = ["billing", "shipping", "account", "email", "bug", "refund"]

Cli = Callable[..., CliResult]


def _tickets(n: int) -> list[dict[str, Any]]:
    return [json.loads(x) for x in TICKETS.read_text(encoding="utf-8").splitlines()[:n]]


def _binarised(items: list[dict[str, Any]], space: list[str]) -> tuple[Any, Any]:
    mlb = MultiLabelBinarizer(classes=space)
    with warnings.catch_warnings():  # "unknown class(es) will be ignored": what we test
        warnings.simplefilter("ignore")
        return (mlb.fit_transform([i["truth"] for i in items]),
                mlb.fit_transform([i["pred"] for i in items]))


def _run(cli: Cli, tmp_path: Path, *extra: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    out = tmp_path / "run"
    r = cli("eval", str(TICKETS), "--task", "multilabel", "--out", str(out), "-q", *extra)
    assert r.returncode == 0, r.stderr
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    rows = [json.loads(x) for x in (out / "items.jsonl").read_text(encoding="utf-8").splitlines()]
    return summary, rows


def _assert_like_sklearn(m: dict[str, Any], t: Any, p: Any) -> None:
    kw: dict[str, Any] = {"zero_division": 0.0}
    assert m["cp"] == pytest.approx(precision_score(t, p, average="macro", **kw), abs=1e-12)
    assert m["cr"] == pytest.approx(recall_score(t, p, average="macro", **kw), abs=1e-12)
    assert m["macro_f1"] == pytest.approx(f1_score(t, p, average="macro", **kw), abs=1e-12)
    assert m["weighted_f1"] == pytest.approx(f1_score(t, p, average="weighted", **kw),
                                             abs=1e-12)
    assert m["of1"] == pytest.approx(f1_score(t, p, average="micro", **kw), abs=1e-12)
    assert m["sample_f1"] == pytest.approx(f1_score(t, p, average="samples", **kw), abs=1e-12)
    assert m["hamming_loss"] == pytest.approx(hamming_loss(t, p), abs=1e-12)
    assert m["jaccard_samples"] == pytest.approx(
        jaccard_score(t, p, average="samples", **kw), abs=1e-12)


def test_a_label_no_item_uses_counts_in_the_averages(cli: Cli, tmp_path: Path) -> None:
    """The first two tickets use billing, shipping, account, email; the space adds bug and
    refund, each P = R = 0 (nothing to find, nothing predicted), so C-P falls from
    (1 + 1 + 1 + 0)/4 = 0.75 to 3/6 = 0.5."""
    plain, _ = _run(cli, tmp_path / "a", "--limit", "2")
    assert plain["metrics"]["cp"] == pytest.approx(0.75)
    labelled, rows = _run(cli, tmp_path / "b", "--limit", "2", "--labels", ",".join(SPACE))
    m = labelled["metrics"]
    assert m["classes"] == SPACE and m["labels_outside"] == {}
    assert m["cp"] == pytest.approx(0.5)
    t, p = _binarised(_tickets(2), SPACE)
    _assert_like_sklearn(m, t, p)
    assert len(rows) == 2


def test_per_item_scores_equal_scikit_learns_samplewise_scores(cli: Cli,
                                                               tmp_path: Path) -> None:
    # scikit-learn's samples average scores each row first; transposed, the rows are its
    # classes and average=None returns them one by one
    summary, rows = _run(cli, tmp_path, "--labels", ",".join(SPACE))
    t, p = _binarised(_tickets(6), SPACE)
    ps, rs, fs, _ = precision_recall_fscore_support(t.T, p.T, average=None, zero_division=0.0)
    js = jaccard_score(t.T, p.T, average=None, zero_division=0.0)
    assert [r["precision"] for r in rows] == pytest.approx(ps.tolist(), abs=1e-12)
    assert [r["recall"] for r in rows] == pytest.approx(rs.tolist(), abs=1e-12)
    assert [r["f1"] for r in rows] == pytest.approx(fs.tolist(), abs=1e-12)
    assert [r["jaccard"] for r in rows] == pytest.approx(js.tolist(), abs=1e-12)
    # ticket-02: pred {account}, gold {account, email}: P 1, R 1/2, F1 2/3, Jaccard 1/2
    assert (rows[1]["precision"], rows[1]["recall"], rows[1]["jaccard"]) == (1.0, 0.5, 0.5)
    assert np.mean([r["f1"] for r in rows]) == pytest.approx(summary["metrics"]["sample_f1"])


def test_labels_outside_the_space_are_left_out_as_scikit_learn_does(cli: Cli,
                                                                     tmp_path: Path) -> None:
    space = tmp_path / "labels.txt"
    space.write_text("billing\n\n  shipping \nrefund\n", encoding="utf-8")
    summary, rows = _run(cli, tmp_path, "--labels", str(space))
    m = summary["metrics"]
    assert m["classes"] == ["billing", "shipping", "refund"]
    # account: tickets 2, 5, 6; email: 2, 5; bug: 3
    assert m["labels_outside"] == {"account": 3, "bug": 1, "email": 2}
    t, p = _binarised(_tickets(6), ["billing", "shipping", "refund"])
    _assert_like_sklearn(m, t, p)
    assert rows[2]["pred"] == ["billing", "bug"]  # the row keeps what the item said


def test_the_bootstrap_resamples_over_the_whole_space(cli: Cli, tmp_path: Path) -> None:
    _, rows = _run(cli, tmp_path, "--labels", ",".join(SPACE))
    task = get_task("multilabel")
    typed = [task.row_model.model_validate(r) for r in rows]
    scoring = task.scoring(MultilabelOptions(labels=tuple(SPACE)))
    assert scoring == task.scoring({"labels": SPACE}) != task
    idx = np.array([0, 0, 3, 3, 3])  # tickets 1 and 4 only: billing, shipping
    got = scoring.resampled(typed)(idx)
    assert got == scoring.metrics_from_rows([typed[i] for i in idx])
    t, p = _binarised([_tickets(6)[i] for i in idx], SPACE)
    _assert_like_sklearn(got, t, p)
    assert got["cp"] == pytest.approx(2 / 6)  # billing and shipping right, four labels absent


@pytest.mark.parametrize(("value", "content", "message"), [
    ("nowhere/labels.txt", None, "no such file 'nowhere/labels.txt'"),
    ("labels.txt", None, "no such file 'labels.txt'"),  # not a one-label space
    ("billing,,bug", None, "element 2: expected a label"),
    ("billing,bug,billing", None, "element 3: label 'billing' is given twice"),
    ("FILE", "billing\nbug\nbilling\n", "labels.txt:3: label 'billing' is given twice"),
    ("FILE", "\n  \n", "holds no label"),
    ("FILE", b"\xff\xfe", "cannot read"),
])
def test_a_bad_label_space_is_one_message_exit_2_nothing_written(
        cli: Cli, tmp_path: Path, value: str, content: str | bytes | None,
        message: str) -> None:
    if content is not None:
        path = tmp_path / "labels.txt"
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        value = str(path)
    out = tmp_path / "run"
    r = cli("eval", str(TICKETS), "--task", "multilabel", "--labels", value, "--out", str(out))
    assert r.returncode == 2
    assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not out.exists()


def test_compare_refuses_runs_over_different_label_spaces(cli: Cli, tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    assert cli("eval", str(TICKETS), "--task", "multilabel", "--out", str(a), "-q",
               "--labels", ",".join(SPACE)).returncode == 0
    assert cli("eval", str(TICKETS), "--task", "multilabel", "--out", str(b),
               "-q").returncode == 0
    r = cli("compare", str(a), str(b))
    assert r.returncode == 2 and "another label space" in r.stderr, r.stderr


def test_a_run_with_a_labels_file_exports_and_replays(cli: Cli, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "t.jsonl").write_text(TICKETS.read_text(encoding="utf-8"), encoding="utf-8")
    (work / "labs.txt").write_text("\n".join(SPACE) + "\n", encoding="utf-8")
    assert cli("eval", "t.jsonl", "--task", "multilabel", "--labels", "labs.txt", "--out", "run",
               "-q", cwd=work).returncode == 0
    config = json.loads((work / "run" / "config.json").read_text(encoding="utf-8"))
    assert config["labels"]["path"] == "labs.txt"  # an input of the run, with its sha256
    assert config["task_options"]["labels"] == SPACE  # the space as scored
    r = cli("export", "run", "b.tar.gz", "--with-cache", cwd=work)
    assert r.returncode == 0 and "--labels input/labels.txt" in " ".join(r.output.split())
    r = cli("replay", str(work / "b.tar.gz"), "--out", str(tmp_path / "replay"), cwd=tmp_path)
    assert r.returncode == 0 and "identical to the bundled run" in " ".join(r.output.split()), \
        r.output
