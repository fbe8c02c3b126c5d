"""Packaging contracts: metrics stands alone; the console script runs."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO


def test_metrics_imports_no_llm_package() -> None:
    code = (
        "import sys, metrics\n"
        "bad = [m for m in ('judge', 'openai', 'langchain', 'langchain_core', 'httpx')"
        " if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=REPO)
    assert out.stdout.strip() == ""


def test_metrics_source_never_imports_judge() -> None:
    for path in (REPO / "metrics").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "import judge" not in text and "from judge" not in text, path


def test_console_script_version() -> None:
    out = subprocess.run([sys.executable, "-m", "judge.cli", "version"], capture_output=True,
                         text=True, cwd=REPO)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("simjudge 0.1.0")
    assert "rouge-score" in out.stdout


def test_every_package_is_listed_for_the_wheel() -> None:
    """A subpackage missing from ``[tool.setuptools] packages`` works in an editable install
    and is absent from a wheel: every directory with an ``__init__.py`` must be listed."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
                 ["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(REPO).parts)
             for top in ("judge", "metrics", "prompts") for p in (REPO / top).rglob("__init__.py")}
    assert found <= listed, sorted(found - listed)


def test_no_source_file_is_git_ignored() -> None:
    """A source file matched by .gitignore works in the author's tree and is missing from every
    clone (``runs/`` once ignored ``judge/runs/``)."""
    import shutil

    if shutil.which("git") is None or not (REPO / ".git").exists():
        import pytest

        pytest.skip("not a git checkout")
    files = [str(p.relative_to(REPO)) for top in ("judge", "metrics", "prompts", "tests")
             for p in (REPO / top).rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    out = subprocess.run(["git", "check-ignore", "--no-index", *files], capture_output=True,
                         text=True, cwd=REPO)
    assert out.stdout.split() == []
