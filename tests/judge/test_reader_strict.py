"""Input the readers used to accept silently (issue 36, items 6 and 17), each now one line,
exit 2, nothing written — or, where a documented rule says what it means, read by that rule.

Each case is the ``simjudge eval`` command run in-process (the ``cli`` fixture) on a one- or
two-line file. The fuzz of every reader is ``tests/judge/test_reader_fuzz.py``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

import pytest

import judge
from judge.errors import InputError
from judge.tasks.base import Source
from judge.tasks.registry import get_task
from tests.clirun import CliResult

Cli = Callable[..., CliResult]
TASK_FLAGS = {"selection": ["--judge", "lexical"], "spans": ["--judge", "lexical"]}


def _eval(cli: Cli, tmp_path: Path, task: str, text: str, *flags: str,
          name: str = "data.jsonl") -> tuple[int, str, Path]:
    """``simjudge eval`` of ``text`` (written to ``name``): exit status, stderr, the data file.
    Bad input must leave no run directory behind."""
    data = tmp_path / name
    data.write_text(text, encoding="utf-8")
    out = tmp_path / "run"
    res = cli("eval", data, "--task", task, *TASK_FLAGS.get(task, []), *flags, "--out", out,
              "--cache-dir", tmp_path / "cache", "--bootstrap", "0", cwd=tmp_path)
    assert res.returncode == 0 or not out.exists(), res.output
    return res.returncode, res.stderr, data


def _line(path: Path, line: int, rest: str) -> str:
    return f"simjudge: error: {path}:{line}: {rest}\n"


RECORDS = {  # a well-formed record of each task reading JSONL, its id left to the case
    "selection": {"pred": ["a"], "truth": ["a"]},
    "judgment": {"pred": True, "truth": True},
    "function-call": {"pred_fn": [], "gold_fn": []},
    "generation": {"pred": "a", "truth": "a"},
    "multilabel": {"pred": ["a"], "truth": ["a"]},
    "spans": {"pred": [], "truth": []},
}


@pytest.mark.parametrize("task", sorted(RECORDS))
@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_nan_id_is_not_json(cli: Cli, tmp_path: Path, task: str, literal: str) -> None:
    # before: the id "NaN" (Python's json reads the literal), in these six tasks
    text = '{"id": ' + literal + ", " + json.dumps(RECORDS[task])[1:] + "\n"
    code, err, data = _eval(cli, tmp_path, task, text)
    assert (code, err) == (2, _line(data, 1, f"field 'id': not a finite number: {literal} (NaN "
                                              "and Infinity are not JSON)"))


def test_number_beyond_a_float_is_not_finite(cli: Cli, tmp_path: Path) -> None:
    # before: arguments {"x": inf}, scored as any other value
    text = ('{"id": "1", "pred_fn": [{"name": "f", "arguments": {"x": 1e999}}], '
            '"gold_fn": [{"name": "f", "arguments": {"x": 1}}]}\n')
    code, err, data = _eval(cli, tmp_path, "function-call", text)
    assert (code, err) == (2, _line(data, 1, "field 'pred_fn': not a finite number: 1e999 is "
                                              "beyond the range of a float"))


def test_a_key_given_twice_is_refused(cli: Cli, tmp_path: Path) -> None:
    # before: the last "pred" counted, silently
    code, err, data = _eval(cli, tmp_path, "judgment",
                            '{"id": "1", "pred": "maybe", "truth": true, "pred": true}\n')
    assert (code, err) == (2, _line(data, 1, "field 'pred': key 'pred' given twice in one "
                                              "object (which value counts is not JSON's to say)"))


def test_judgment_list_is_not_a_boolean(cli: Cli, tmp_path: Path) -> None:
    # before: [true] was unwrapped to true
    code, err, data = _eval(cli, tmp_path, "judgment", '{"id": "1", "pred": [true], '
                                                       '"truth": true}\n')
    assert (code, err) == (2, _line(data, 1, "field 'pred': expected a boolean (true/false or "
                                              "0/1), got [true]"))


def test_multilabel_labels_are_strings(cli: Cli, tmp_path: Path) -> None:
    # before: [1, 2] became ["1", "2"]
    code, err, data = _eval(cli, tmp_path, "multilabel", '{"id": "1", "pred": [1, 2], '
                                                         '"truth": ["1"]}\n')
    assert (code, err) == (2, _line(data, 1, "field 'pred': element 0: expected a string label, "
                                              "got 1 (labels are strings: write it in quotes)"))


def test_multilabel_csv_plain_cell_is_one_label(cli: Cli, tmp_path: Path) -> None:
    # the documented CSV rule (a plain string is a one-item list), refused before
    code, err, _ = _eval(cli, tmp_path, "multilabel",
                         'id,pred,truth\n1,billing,"[""billing"", ""email""]"\n', name="t.csv")
    assert code == 0, err
    items = [json.loads(x) for x in (tmp_path / "run" / "items.jsonl").read_text().splitlines()]
    assert [(i["pred"], i["truth"]) for i in items] == [(["billing"], ["billing", "email"])]


SPAN = {"start": 0, "end": 3, "type": "PER", "text": "abc"}


@pytest.mark.parametrize(("span", "message"), [
    ({**SPAN, "end": 99}, "span 0: 'end' 99 is past the end of the record's 'query' (3 "
                          "characters)"),
    ({**SPAN, "end": 2, "text": "zz"}, "span 0: 'text' 'zz' is not the query's characters 0–2, "
                                       "'ab'"),
])
def test_spans_lie_in_their_query(cli: Cli, tmp_path: Path, span: dict[str, object],
                                  message: str) -> None:
    # before: both accepted (offsets never compared with the text they index)
    text = json.dumps({"id": "1", "query": "abc", "pred": [span], "truth": [SPAN]}) + "\n"
    code, err, data = _eval(cli, tmp_path, "spans", text)
    assert (code, err) == (2, _line(data, 1, f"field 'pred': {message}"))


def test_function_call_null_gold_is_not_no_call(cli: Cli, tmp_path: Path) -> None:
    # before: null was taken as "no calls"
    code, err, data = _eval(cli, tmp_path, "function-call", '{"id": "1", "pred_fn": [], '
                                                            '"gold_fn": null}\n')
    assert (code, err) == (2, _line(data, 1, "field 'gold_fn': expected a list of calls ([] for "
                                              "no call), got null"))


def test_openai_null_tool_calls_is_no_call(cli: Cli, tmp_path: Path) -> None:
    # the documented rule: the API writes "tool_calls": null when the model calls nothing
    code, err, _ = _eval(cli, tmp_path, "function-call",
                         '{"id": "1", "tool_calls": null, "gold_fn": []}\n', "--format", "openai")
    assert code == 0, err
    (row,) = [json.loads(x) for x in (tmp_path / "run" / "items.jsonl").read_text().splitlines()]
    assert row["correct"] is True


@pytest.mark.parametrize(("value", "shown"), [("true", "true"), ("1.0", "1.0"), ("2.5", "2.5")])
def test_ids_are_strings_or_integers(cli: Cli, tmp_path: Path, value: str, shown: str) -> None:
    # before: the ids "true", "1.0" and "2.5" (1.0 and 1 two different items)
    code, err, data = _eval(cli, tmp_path, "generation",
                            '{"id": ' + value + ', "pred": "a", "truth": "a"}\n')
    assert (code, err) == (2, _line(data, 1, f"field 'id': expected a string or integer id, "
                                              f"got {shown}"))


def test_query_must_be_text(cli: Cli, tmp_path: Path) -> None:
    # before: a query that is no string was dropped silently (and spans went unchecked)
    code, err, data = _eval(cli, tmp_path, "generation",
                            '{"id": "1", "query": 5, "pred": "a", "truth": "a"}\n')
    assert (code, err) == (2, _line(data, 1, "field 'query': expected a string (the text shown "
                                              "as the item's query), got int"))


def test_a_field_name_with_a_newline_stays_on_one_line(cli: Cli, tmp_path: Path) -> None:
    # before: the message printed the raw key, a line break in the middle
    code, err, data = _eval(cli, tmp_path, "generation",
                            '{"id": "1", "pred": "a", "truth": "a", "a\\nb": NaN}\n')
    assert (code, err) == (2, _line(data, 1, "field 'a\\nb': not a finite number: NaN (NaN and "
                                              "Infinity are not JSON)"))


QRELS = "q1 0 d1 1\nq1 0 d2 0\n"


def _ranking(cli: Cli, tmp_path: Path, run: str, qrels: str = QRELS) -> tuple[int, str, Path]:
    gold = tmp_path / "qrels.txt"
    gold.write_text(qrels, encoding="utf-8")
    return _eval(cli, tmp_path, "ranking", run, "--gold", str(gold), name="run.txt")


@pytest.mark.parametrize("score", ["nan", "NaN", "inf", "-inf", "1e999"])
@pytest.mark.parametrize("first", [True, False])
def test_trec_run_score_must_be_finite(cli: Cli, tmp_path: Path, score: str,
                                       first: bool) -> None:
    # before: MAP 0.5 or 1.0 depending on the line order (item 6)
    lines = [f"q1 Q0 d1 1 {score} t\n", "q1 Q0 d2 2 1.0 t\n"]
    code, err, data = _ranking(cli, tmp_path, "".join(lines if first else lines[::-1]))
    assert (code, err) == (2, _line(data, 1 if first else 2,
                                    f"field 'score': not a finite number: '{score}'"))


def test_trec_run_score_is_a_decimal_number(cli: Cli, tmp_path: Path) -> None:
    # before: Python's float() read "1_0" as 10 and "٣" (Arabic-Indic 3) as 3
    code, err, data = _ranking(cli, tmp_path, "q1 Q0 d1 1 1_0 t\n")
    assert (code, err) == (2, _line(data, 1, "field 'score': expected a number, got '1_0'"))


def test_qrels_grade_beyond_err_range(cli: Cli, tmp_path: Path) -> None:
    # before: a traceback (OverflowError in ERR's 2^grade), exit 1
    gold = tmp_path / "qrels.txt"
    code, err, _ = _ranking(cli, tmp_path, "q1 Q0 d1 1 1.0 t\n", "q1 0 d1 1100\n")
    assert (code, err) == (2, _line(gold, 1, "field 'grade': 1100 is outside -1000..1000 (ERR's "
                                              "2^grade would overflow)"))


def test_trec_fields_split_on_spaces_and_tabs_only(cli: Cli, tmp_path: Path) -> None:
    # before: U+3000 split "d1\u3000x" in two, so this line (no score) read as score 1
    code, err, data = _ranking(cli, tmp_path, "q1 Q0 d1\u3000x 1 t\n")
    assert (code, err) == (2, _line(data, 1, "expected 6 or more fields (query_id Q0 doc_id "
                                              "rank score tag), got 5"))


def test_trec_byte_order_mark_is_skipped(cli: Cli, tmp_path: Path) -> None:
    # before: the first query id was "\ufeffq1", never judged: the query dropped silently
    code, err, _ = _ranking(cli, tmp_path, "\ufeffq1 Q0 d2 1 2.0 t\nq1 Q0 d1 2 1.0 t\n")
    assert code == 0, err
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert (summary["metrics"]["map"], summary["n_items"]) == (0.5, 1)


def test_python_api_numbers_json_cannot_hold(tmp_path: Path) -> None:
    # before: the id "nan", and a traceback (ValueError) for an id of 5,000 digits
    task = get_task("generation")
    with pytest.raises(InputError) as nan:
        task.from_dicts([{"id": math.nan, "pred": "a", "truth": "a"}])
    assert str(nan.value) == ("<items>:1: field 'id': not a finite number: nan (JSON has no NaN "
                              "or Infinity)")
    with pytest.raises(InputError, match=r"^<items>:1: field 'id': integer of more than 4,300 "
                                         r"digits exceeds Python's limit"):
        task.from_dicts([{"id": 10**5000, "pred": "a", "truth": "a"}])
    with pytest.raises(InputError, match=r"^<items>:1: field 'pred_fn': not a finite number: inf"):
        judge.evaluate([{"pred_fn": [{"name": "f", "arguments": {"x": math.inf}}],
                         "gold_fn": []}], task="function-call", cache_dir=tmp_path / "c")


def test_well_formed_inputs_still_read(tmp_path: Path) -> None:
    # the rules keep what they always allowed: integer ids, "yes"/"0" booleans, an absent or
    # null query, spans of their query, CRLF TREC files
    data = tmp_path / "d.jsonl"
    data.write_text('{"id": 7, "query": null, "pred": " Yes ", "truth": 0}\n'
                    '{"id": "8", "pred": false, "truth": "F"}\n', encoding="utf-8")
    items = get_task("judgment").load(Source(data))
    assert [(i.id, i.pred, i.truth, i.query) for i in items] == [
        ("7", True, False, ""), ("8", False, False, "")]
    data.write_text(json.dumps({"id": "s", "query": "Ab 北京", "truth": [],
                                "pred": [{"start": 3, "end": 5, "type": "LOC", "text": "北京",
                                          "score": 0.9}]}, ensure_ascii=False) + "\n",
                    encoding="utf-8")
    (item,) = get_task("spans").load(Source(data))
    assert item.pred == [{"start": 3, "end": 5, "type": "LOC", "text": "北京"}]
    run, qrels = tmp_path / "r.txt", tmp_path / "q.txt"
    run.write_text("q1\tQ0\td1\t1\t-2.5e-1\tt\r\nq1 Q0 d2 2 +1 t\r\n", encoding="utf-8")
    qrels.write_text("q1 0 d1 -1\r\nq1 0 d2 +2\r\n", encoding="utf-8")
    (item,) = get_task("ranking").load(Source(run, qrels))
    assert (item.pred, item.truth) == (["d2", "d1"], {"d1": -1, "d2": 2})


def test_ranking_max_rank_is_trec_evals_m(cli: Cli, tmp_path: Path) -> None:
    # a relevant document at rank 3: with --max-rank 2 it is cut off (AP 0), by default all
    # documents count (AP = (1/3) / 1 relevant = 0.3333)
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq1 Q0 c 3 1 t\n", encoding="utf-8")
    qrels.write_text("q1 0 c 1\n", encoding="utf-8")
    aps = []
    for more in ([], ["--max-rank", "2"]):
        out = tmp_path / f"out{len(more)}"
        res = cli("eval", run, "--task", "ranking", "--gold", qrels, "--out", out,
                  "--bootstrap", "0", *more)
        assert res.returncode == 0, res.output
        aps.append(json.loads((out / "summary.json").read_text())["metrics"]["map"])
    assert aps[0] == pytest.approx(1 / 3) and aps[1] == 0.0
    res = cli("eval", run, "--task", "ranking", "--gold", qrels, "--max-rank", "-1")
    assert res.returncode == 2 and "--max-rank" in res.stderr
