"""Issue 27, item 5 "Missing conventions": ``--version``, ``-h``, shell completion, ``eval
--limit/--quiet/--json``, the grouped ``eval --help``, the report path, ``simjudge runs``, and
``compare`` of three runs at 80 columns.

Runs use the ``lexical`` judge on a small English file written here (no network, seconds)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from judge.cli import app
from tests.clirun import CliResult, run_cli
from tests.conftest import REPO

runner = CliRunner()
SCRIPT = Path(sys.executable).with_name("simjudge")


def _cli(*args: str | Path, columns: int = 80, cwd: Path = REPO) -> CliResult:
    """The command in-process as a subprocess would run it (output piped: rich uses COLUMNS,
    80 by default)."""
    return run_cli(*args, columns=columns, cwd=cwd)


# ------------------------------------------------------------------ --version, -h, completion

def test_version_option_prints_the_version_of_the_version_command() -> None:
    from importlib.metadata import version

    res = runner.invoke(app, ["--version"])
    assert res.exit_code == 0
    assert res.output == f"simjudge {version('simjudge')}\n"
    full = runner.invoke(app, ["version"])
    assert full.output.splitlines()[0].startswith(res.output.strip() + " (Python ")


@pytest.mark.parametrize("argv", [[], ["eval"], ["calibrate"], ["compare"], ["runs"],
                                  ["cache"], ["cache", "stats"], ["labels", "merge"],
                                  ["batches"]])
def test_dash_h_is_help_everywhere(argv: list[str]) -> None:
    short = runner.invoke(app, [*argv, "-h"], prog_name="simjudge")
    long = runner.invoke(app, [*argv, "--help"], prog_name="simjudge")
    assert short.exit_code == 0 and long.exit_code == 0, short.output
    assert "Usage: simjudge" in short.output
    assert short.output == long.output


def test_completion_script_and_completions_offline() -> None:
    script = runner.invoke(app, ["--show-completion", "bash"], prog_name="simjudge")
    assert script.exit_code == 0
    assert "_SIMJUDGE_COMPLETE=complete_bash" in script.output
    # what the script asks the program for: the commands starting with "ev", then eval's flags
    env = {"_SIMJUDGE_COMPLETE": "complete_bash", "COMP_WORDS": "simjudge ev",
           "COMP_CWORD": "1"}
    res = runner.invoke(app, [], prog_name="simjudge", env=env)
    assert (res.exit_code, res.output) == (0, "eval\n")
    env = {**env, "COMP_WORDS": "simjudge eval --lim", "COMP_CWORD": "2"}
    assert runner.invoke(app, [], prog_name="simjudge", env=env).output == "--limit\n"


@pytest.mark.skipif(not SCRIPT.exists() or shutil.which("bash") is None,
                    reason="needs the simjudge console script and bash")
def test_bash_completion_round_trip_without_network(tmp_path: Path) -> None:
    """The script bash sources, run in bash with every proxy pointing at a closed port: the
    completion is computed by simjudge itself, offline."""
    dead = "http://127.0.0.1:9"
    env = {**os.environ, "PYTHONPATH": str(REPO), "HOME": str(tmp_path), "http_proxy": dead,
           "https_proxy": dead, "HTTP_PROXY": dead, "HTTPS_PROXY": dead,
           "PATH": f"{SCRIPT.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    code = ('source <(simjudge --show-completion bash); COMP_WORDS=(simjudge cal); '
            'COMP_CWORD=1; _simjudge_completion simjudge; echo "${COMPREPLY[@]}"')
    res = subprocess.run(["bash", "-c", code], env=env, capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["calibrate"]


# ------------------------------------------------------------------ runs of a small file
ITEMS = [
    {"id": "e1", "pred": ["user login", "password reset", "invoice"],
     "truth": ["user log in", "reset password", "billing invoice"], "lang": "en"},
    {"id": "e2", "pred": ["shipping address", "refund"],
     "truth": ["delivery address", "refunds", "order status"], "lang": "en"},
    {"id": "e3", "pred": ["department budget", "price list", "warehouse"],
     "truth": ["budget of department", "price lists"], "lang": "fr"},
    {"id": "e4", "pred": ["job information"], "truth": ["job info", "employee record"],
     "lang": "en"},
    {"id": "e5", "pred": ["turn on the light", "turn off the fan"],
     "truth": ["turn on light", "switch off fan"], "lang": "en"},
    {"id": "e6", "pred": ["email settings", "account"], "truth": ["mail settings", "account"],
     "lang": "en"},
]


def _write_items(path: Path, items: list[dict[str, Any]] = ITEMS) -> Path:
    path.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    return path


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def lexical_runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The small file judged by ``lexical`` at τ 0.3, 0.5 and 0.7 (three runs, one cache)."""
    base = tmp_path_factory.mktemp("runs")
    data = _write_items(base / "items.jsonl")
    runs = []
    for tau in ("0.3", "0.5", "0.7"):
        res = runner.invoke(app, ["eval", str(data), "--judge", "lexical", "--tau", tau,
                                  "--out", str(base / "runs" / f"lex{tau}"), "--cache-dir",
                                  str(base / "cache"), "--bootstrap", "200"])
        assert res.exit_code == 0, res.output
        runs.append(base / "runs" / f"lex{tau}")
    return runs


# ------------------------------------------------------------------ compare at 80 columns

@pytest.mark.parametrize("columns", ["80", None])  # None: piped, no COLUMNS: rich's 80
def test_compare_of_three_runs_fits_80_columns(lexical_runs: list[Path], tmp_path: Path,
                                               columns: str | None) -> None:
    res = run_cli("compare", *lexical_runs, "--bootstrap", "200", "--out", tmp_path,
                  columns=int(columns) if columns else None)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert len(lines) < 45  # was 82: one letter of each metric name per line
    assert not [line for line in lines if len(line.strip()) == 1]
    result = _json(tmp_path / "compare.json")
    summaries = [_json(r / "summary.json")["metrics"] for r in lexical_runs]
    for metric in ("macro_precision", "macro_recall", "macro_f1", "micro_precision",
                   "micro_recall", "micro_f1"):
        # the metric's rows (one per block): its name, then its cells, each whole
        cells = " ".join(line.split(None, 1)[1] for line in lines
                         if line.split(None, 1)[:1] == [metric])
        values = [f"{s[metric]:.4f}" for s in summaries]  # each run's own summary.json
        diffs = []
        for k, d in enumerate(result["differences"], 1):
            m = d["metrics"][metric]
            # the difference is B − A of the runs' own metrics (compare.json rounds the same)
            assert m["diff"] == pytest.approx(summaries[k][metric] - summaries[0][metric])
            diffs.append(f"{m['diff']:+.3f} [{m['ci95'][0]:+.3f}, {m['ci95'][1]:+.3f}]")
        assert cells.split() == " ".join([*values, *diffs]).split(), (metric, cells)
    # a lower τ matches more pairs: macro F1 at τ 0.3 is above that at τ 0.7
    assert summaries[0]["macro_f1"] > summaries[2]["macro_f1"]
    for k, a in enumerate(result["agreement"]):
        row = f"A vs {'BC'[k]}"
        line = next(x for x in lines if x.startswith(row))
        assert line.split()[3:] == [str(a["shared_pairs"]), f"{a['pearson']:.3f}",
                                    f"{a['spearman']:.3f}", f"{a['kappa_at_tau']:.3f}",
                                    f"{a['alpha_interval']:.3f}"]
    assert "verdicts" in res.stdout and "  J1 = lexical" in lines


# ------------------------------------------------------------------ eval --limit

def _eval(*args: str | Path) -> Any:
    return runner.invoke(app, ["eval", *map(str, args)])


def test_limit_scores_the_first_items_after_where(tmp_path: Path) -> None:
    data = _write_items(tmp_path / "items.jsonl")
    res = _eval(data, "--judge", "lexical", "--where", "lang=en", "--limit", "3", "--out",
                tmp_path / "lim", "--bootstrap", "0", "--cache-dir", tmp_path / "c")
    assert res.exit_code == 0, res.output
    rows = [json.loads(x) for x in (tmp_path / "lim" / "items.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == ["e1", "e2", "e4"]  # e3 is lang=fr
    assert _json(tmp_path / "lim" / "config.json")["fields"]["limit"] == 3
    # the same three items written to a file of their own score the same
    first = _write_items(tmp_path / "first.jsonl", [ITEMS[0], ITEMS[1], ITEMS[3]])
    res = _eval(first, "--judge", "lexical", "--out", tmp_path / "own", "--bootstrap", "0",
                "--cache-dir", tmp_path / "c")
    assert res.exit_code == 0, res.output
    limited = _json(tmp_path / "lim" / "summary.json")["metrics"]
    assert limited == _json(tmp_path / "own" / "summary.json")["metrics"]
    assert limited["n_pred"] == 3 + 2 + 1 and limited["n_truth"] == 3 + 3 + 2  # by hand


def test_limit_with_gold_takes_the_joined_items_in_data_order(tmp_path: Path) -> None:
    preds = [{"id": i["id"], "pred": i["pred"]} for i in ITEMS]
    gold = [{"id": i["id"], "truth": i["truth"]} for i in reversed(ITEMS)]
    res = _eval(_write_items(tmp_path / "p.jsonl", preds), "--gold",
                _write_items(tmp_path / "g.jsonl", gold), "--judge", "lexical", "--limit", "2",
                "--out", tmp_path / "run", "--bootstrap", "0", "--cache-dir", tmp_path / "c")
    assert res.exit_code == 0, res.output
    rows = [json.loads(x) for x in (tmp_path / "run" / "items.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == ["e1", "e2"]


def test_limit_is_replayed_by_rescore(tmp_path: Path) -> None:
    """judgment re-reads its input files on rescore: the limit must be applied again."""
    from tests.conftest import EXAMPLES

    res = _eval(EXAMPLES / "judgment_term_translation.jsonl", "--task", "judgment", "--limit",
                "4", "--out", tmp_path / "run", "--bootstrap", "0")
    assert res.exit_code == 0, res.output
    assert _json(tmp_path / "run" / "summary.json")["n_items"] == 4
    res = runner.invoke(app, ["rescore", str(tmp_path / "run"), "--bootstrap", "0", "--out",
                              str(tmp_path / "r.json")])
    assert res.exit_code == 0, res.output
    assert (_json(tmp_path / "r.json")["metrics"]
            == _json(tmp_path / "run" / "summary.json")["metrics"])


@pytest.mark.parametrize("value", ["0", "-2", "2.5", "ten", ""])
def test_limit_bad_value_is_one_line_exit_2(tmp_path: Path, value: str) -> None:
    data = _write_items(tmp_path / "items.jsonl")
    res = _cli("eval", data, "--judge", "lexical", "--limit", value, "--out", tmp_path / "run")
    assert res.returncode == 2
    assert res.stderr == ("simjudge: error: field 'limit': --limit must be a whole number >= 1 "
                          f"(the items to score), got {value!r}\n")
    assert res.stdout == "" and not (tmp_path / "run").exists()


# ------------------------------------------------------------------ --quiet, --json, report path

def test_default_output_ends_with_the_report_path(tmp_path: Path) -> None:
    data = _write_items(tmp_path / "items.jsonl")
    res = _cli("eval", data, "--judge", "lexical", "--out", tmp_path / "run", "--bootstrap", "0")
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[-1] == f"report: {tmp_path / 'run'}/report.html"
    assert (tmp_path / "run" / "report.html").is_file()


def test_quiet_prints_nothing_and_json_prints_only_the_summary(tmp_path: Path) -> None:
    data = _write_items(tmp_path / "items.jsonl")
    q = _cli("eval", data, "--judge", "lexical", "--out", tmp_path / "q", "--quiet")
    assert (q.returncode, q.stdout, q.stderr) == (0, "", "")
    j = _cli("eval", data, "--judge", "lexical", "--out", tmp_path / "j", "--json")
    assert j.returncode == 0, j.stderr
    assert json.loads(j.stdout) == _json(tmp_path / "j" / "summary.json")
    assert f"report: {tmp_path / 'j'}/report.html" in j.stderr  # messages on stderr
    both = _cli("eval", data, "--judge", "lexical", "--out", tmp_path / "b", "--json", "-q")
    assert both.returncode == 0 and both.stderr == ""
    assert json.loads(both.stdout) == _json(tmp_path / "b" / "summary.json")
    dry = _cli("eval", data, "--judge", "lexical", "--dry-run", "--json")
    assert dry.returncode == 0 and json.loads(dry.stdout)["items"] == len(ITEMS)
    bad = _cli("eval", tmp_path / "none.jsonl", "--json", "--quiet")  # errors still shown
    assert bad.returncode == 2 and bad.stdout == "" and bad.stderr.startswith("simjudge: error:")


# ------------------------------------------------------------------ eval --help panels

def test_eval_help_is_grouped_in_panels() -> None:
    # plain help (judge.cli.helpformat): a section is a title line "Title:" at column 0, its
    # options indented below it
    res = _cli("eval", "--help")
    assert res.returncode == 0
    lines = res.stdout.splitlines()
    titles = [k for k, line in enumerate(lines) if line.endswith(":") and line[:1].isalpha()
              and not line.startswith("Usage")]
    panels = [lines[k][:-1] for k in titles]
    assert panels == ["Arguments", "Options", "Data", "Judges", "Threshold & calibration",
                      "LLM calls & budget", "Batch API", "Cache", "Output", "Task options"]

    def panel_of(flag: str) -> str:
        k = next(n for n, line in enumerate(lines)  # "  --x <t>", "  -q, --x", "  --x / --no-x"
                 if re.match(rf"\s+(-\w, )?{re.escape(flag)}(\s|$)", line))
        return lines[max(t for t in titles if t < k)][:-1]

    for flag, panel in (("--help", "Options"), ("--limit", "Data"), ("--judge", "Judges"),
                        ("--tau-from", "Threshold & calibration"), ("--rpm", "LLM calls & budget"),
                        ("--batch-api", "Batch API"), ("--cache-dir", "Cache"),
                        ("--json", "Output"), ("--quiet", "Output"),
                        ("--arg-tau", "Task options")):
        assert panel_of(flag) == panel, flag
    assert len(lines) < 400  # 439 lines before at 80 columns (options ungrouped)
    assert max(len(line) for line in lines) <= 80


# ------------------------------------------------------------------ simjudge runs, calibrate plots

def test_runs_lists_past_runs_in_80_columns(lexical_runs: list[Path]) -> None:
    folder = lexical_runs[0].parent
    (folder / "notes").mkdir(exist_ok=True)  # not a run: left out silently
    broken = folder / "broken"
    broken.mkdir(exist_ok=True)
    (broken / "config.json").write_text("{}", encoding="utf-8")
    (broken / "summary.json").write_text("not json", encoding="utf-8")
    res = _cli("runs", folder)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert lines[0].split() == ["run", "task", "judge", "items", "metric", "value", "date"]
    for run in lexical_runs:
        summary, config = _json(run / "summary.json"), _json(run / "config.json")
        line = next(x for x in lines if x.startswith(run.name + " "))
        assert line.split() == [run.name, "selection", "lexical", str(len(ITEMS)), "macro_f1",
                                f"{summary['metrics']['macro_f1']:.4f}",
                                config["created_at"][:10]]
    assert len(lines) == 2 + len(lexical_runs)
    assert res.stderr.startswith(f"simjudge: warning: {broken}: skipped")
    missing = _cli("runs", folder / "nope")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1


def test_calibrate_names_its_plots(tmp_path: Path) -> None:
    labels = tmp_path / "labels.jsonl"
    pairs = [("user login", "user log in", 1), ("refund", "refunds", 1), ("invoice", "bill", 1),
             ("warehouse", "price list", 0), ("account", "email", 0), ("budget", "budgets", 1),
             ("shipping", "delivery", 1), ("fan", "light", 0), ("job info", "job", 1),
             ("order", "status", 0)]
    labels.write_text("".join(json.dumps({"pred": p, "truth": t, "label": y}) + "\n"
                              for p, t, y in pairs), encoding="utf-8")
    res = _cli("calibrate", labels, "--judge", "lexical", "--out", tmp_path / "cal",
               "--bootstrap", "20", "--folds", "2", columns=200)
    assert res.returncode == 0, res.stderr
    cal = tmp_path / "cal"
    assert res.stdout.splitlines()[-1] == f"plots in {cal}: threshold.png, roc.png, pr.png"
    assert all((cal / n).is_file() for n in ("threshold.png", "roc.png", "pr.png"))


# ------------------------------------------------------------------ 80 columns: eval, calibrate

def _fits_80(text: str) -> None:
    too_long = [line for line in text.splitlines() if len(line) > 80]
    assert too_long == [], too_long


def test_eval_dry_run_keeps_every_judge_id_whole_at_80_columns(tmp_path: Path) -> None:
    # the glossary: 24 items × 4 predictions × 4 gold terms = 384 cells, 3 of them exact
    # (normalised-equal) → 381 distinct pairs, one request each for the pairwise LLM judge,
    # none cached in an empty cache. Before, the USD column's price date and the "no LLM
    # calls" cell squeezed the judge column to nothing ("lexica" / "l", or no ids at all).
    res = run_cli("eval", "examples/glossary_en_zh.jsonl", "--judge", "openai:gpt-4o-mini",
                  "--judge", "lexical", "--judge", "local", "--dry-run", "--cache-dir",
                  tmp_path / "c", cwd=REPO, env={"OPENAI_API_KEY": None})
    assert res.returncode == 0, res.stderr
    _fits_80(res.stdout)
    rows = {line.split()[0]: line.split()[1:] for line in res.stdout.splitlines()
            if line.split() and line.split()[0] in ("openai:gpt-4o-mini", "lexical", "local")}
    assert rows["openai:gpt-4o-mini"][:3] == ["381", "0", "381"]
    assert rows["lexical"] == rows["local"] == ["–"] * 5 + ["0"]
    foot = " ".join(res.stdout.split())
    assert "prices as of " in foot and "no LLM calls: lexical, local" in foot


def test_eval_and_calibrate_fit_80_columns(tmp_path: Path) -> None:
    # run in tmp_path with a relative --out: the closing "report: PATH" line holds a path,
    # printed whole (never wrapped, so it can be copied), so keep it short
    run = _cli("eval", REPO / "examples/glossary_en_zh.jsonl", "--judge", "lexical", "--judge",
               "local", "--out", "run", "--cache-dir", "c", "--bootstrap", "200", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    _fits_80(run.stdout)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text(encoding="utf-8"))
    for name in ("macro_f1", "micro_precision", "tp_fuzzy"):  # whole, with the run's value
        (line,) = [x for x in run.stdout.splitlines() if x.split()[:1] == [name]]
        assert f"{summary['metrics'][name]:.4f}" in line
    cal = _cli("calibrate", REPO / "examples/am2ico_word_pairs.tsv", "--judge", "lexical",
               "--judge", "local", "--out", "cal", "--cache-dir", "c", cwd=tmp_path)
    assert cal.returncode == 0, cal.stderr
    _fits_80(cal.stdout)
    got = json.loads((tmp_path / "cal" / "calibration.json").read_text(encoding="utf-8"))
    (line,) = [x for x in cal.stdout.splitlines() if x.split()[:1] == ["ROC-AUC"]]
    assert set(got["judges"]) == {"lexical", "local"}
    for j in got["judges"].values():  # every judge's ROC-AUC is on the row, whole
        assert f"{j['roc_auc']:.3f}" in line, (line, j["roc_auc"])


def test_runs_with_a_long_name_and_a_short_judge_fit_80_columns(tmp_path: Path) -> None:
    # a default-style run name (31 characters) and a 7-character judge id: before, the judge
    # column was floored at 10 although its longest cell is 7 ("lexical"), so the line was 3
    # columns too long and the date wrapped onto a line of its own
    name = "20261127-150623-selection-30460"
    res = _cli("eval", REPO / "examples/glossary_en_zh.jsonl", "--judge", "lexical", "--out",
               f"runs/{name}", "--bootstrap", "0", "--cache-mode", "off", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    res = _cli("runs", "runs", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert len(lines) == 3 and all(len(x) <= 80 for x in lines), lines
    cells = lines[2].split()
    # 7 fields on the one line; the name is cut in its middle to what the others leave
    assert len(cells) == 7 and cells[1:6] == ["selection", "lexical", "24", "macro_f1",
                                              "0.0000"]
    assert cells[0].startswith("20261127-15") and cells[0].endswith("-30460") and "…" in cells[0]


def _commands(group: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command path of the click tree (the root included)."""
    out = [path]
    for name, sub in getattr(group, "commands", {}).items():
        out += _commands(sub, (*path, name))
    return out


def test_fast_help_prints_what_typer_prints_for_every_command() -> None:
    # judge.cli.helpformat.print_help answers "[COMMAND …] -h|--help" before typer parses (typer
    # would import pydantic to coerce the --help flag): its text must be typer's own, byte for
    # byte, for every command, at 80 and 120 columns. In-process: main() (the console script's
    # entry point) against typer's own parser, each as a piped process would see them.
    import typer.main

    paths = _commands(typer.main.get_command(app))
    assert ("eval",) in paths and ("cache", "stats") in paths and len(paths) > 15

    def typer_parses(argv: list[str]) -> None:
        app(args=argv, prog_name="simjudge")

    for columns in (80, 120):
        for path in paths:
            fast = run_cli(*path, "--help", columns=columns)
            slow = run_cli(*path, "--help", columns=columns, entry=typer_parses)
            assert fast.returncode == slow.returncode == 0, (path, fast.stderr, slow.stderr)
            assert fast.stdout == slow.stdout, path
            assert fast.stdout.startswith("Usage: simjudge"), path
    # what is not only command names and a help flag goes to typer (its errors, its parsing)
    from judge.cli.helpformat import print_help

    for args in (["eval", "data.jsonl", "--help"], ["nope", "--help"], ["eval"], []):
        assert print_help(app, args) is False, args
