"""Every shell and Python snippet of the documentation (docs/**/*.md and README.md) runs.

Snippets are the fenced blocks ```bash, ```console and ```python. Each page runs in its own
working folder (a clone's view: ``examples/``, ``benchmarks/`` and ``scripts/`` linked in,
``../shared`` linked beside it when the workspace has it), its blocks in page order, so a block
may use what an earlier block of its page wrote. A ```toml block with ``title="NAME"`` is
written to NAME first.

- bash: the block runs under ``bash -euo pipefail``; it must exit 0. ``pip install …`` (alone
  or before ``&&``) is not run: the test runs in the installed environment.
- console: each ``$ command`` runs; every output line the page shows (up to a ``…``, which
  marks an elided end) must appear in what it printed.
- python: the block runs in a fresh interpreter (``exec`` of the block's source).

LLM judges talk to the loopback fake OpenAI server (:mod:`tests.fake_openai`): the
environment sets ``OPENAI_BASE_URL`` to it and dummy keys, and ``http://127.0.0.1:8000/v1`` in
a snippet (the docs' example address of a self-hosted server) is pointed at it. No snippet
reaches the network.

A block that cannot run from a clone says so in its fence: ``{.skip reason="…"}`` (counted as
skipped, with its reason) or ``{.skip-absent path="…"}`` (run when the path exists, else
skipped). The test prints how many snippets it ran and skipped, and checks that every snippet
was either run or skipped with a reason.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.fake_openai import FakeOpenAIServer

FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>bash|console|python|toml)(?P<attrs>[^\n]*)\n"
                   r"(?P<body>.*?)^(?P=indent)```[ \t]*$", re.M | re.S)
SELF_HOSTED = "http://127.0.0.1:8000/v1"
RAN_AT_LEAST = 54  # of 56 on a clone with the workspace absent (2 read ../shared), 2026-11-27


@dataclass
class Snippet:
    """One fenced block: its page, line, language, fence attributes and source."""

    page: Path
    line: int
    lang: str
    attrs: str
    body: str

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"

    def attr(self, name: str) -> str | None:
        m = re.search(rf'{re.escape(name)}="([^"]*)"', self.attrs)
        return m.group(1) if m else None


def pages() -> list[Path]:
    """README.md, then every page of the site in file order."""
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def snippets(page: Path) -> list[Snippet]:
    """The fenced bash/console/python/toml blocks of one page, in order."""
    text = page.read_text(encoding="utf-8")
    out = []
    for m in FENCE.finditer(text):
        body = textwrap.dedent("\n".join(
            ln[len(m["indent"]):] if ln.startswith(m["indent"]) else ln
            for ln in m["body"].split("\n")))
        out.append(Snippet(page, text.count("\n", 0, m.start()) + 1, m["lang"],
                           m["attrs"].strip(), body))
    return out


def _run(cmd: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900,
                          stdin=subprocess.DEVNULL)


def _bash(sn: Snippet, cwd: Path, env: dict[str, str]) -> None:
    lines = sn.body.replace("\\\n", " ").splitlines()
    script = "\n".join(re.sub(r"^pip install [^&]*(&&\s*|$)", "", ln) for ln in lines)
    got = _run(["bash", "-euo", "pipefail", "-c", script], cwd, env)
    assert got.returncode == 0, f"{sn.where}: exit {got.returncode}\n{script}\n{got.stderr[-3000:]}"


def _console(sn: Snippet, cwd: Path, env: dict[str, str]) -> None:
    blocks: list[tuple[str, list[str]]] = []
    for ln in sn.body.splitlines():
        if ln.startswith("$ "):
            blocks.append((ln[2:], []))
        elif blocks and ln.strip():
            blocks[-1][1].append(ln)
    assert blocks, f"{sn.where}: a console block without a '$ ' command"
    for cmd, expected in blocks:
        got = _run(["bash", "-o", "pipefail", "-c", cmd], cwd, env)
        printed = " ".join((got.stdout + got.stderr).split())
        if not expected:
            assert got.returncode == 0, f"{sn.where}: {cmd}: exit {got.returncode}\n{got.stderr}"
        for line in expected:
            shown = " ".join(line.split("…")[0].split())
            assert shown in printed, f"{sn.where}: {cmd}\nexpected: {shown}\nprinted: {printed}"


def _python(sn: Snippet, cwd: Path, env: dict[str, str]) -> None:
    code = f"exec(compile({sn.body!r}, {sn.where!r}, 'exec'))"
    got = _run([sys.executable, "-c", code], cwd, env)
    assert got.returncode == 0, f"{sn.where}: exit {got.returncode}\n{got.stderr[-3000:]}"


def test_every_docs_snippet_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shim = bindir / "simjudge"  # this checkout's simjudge, whatever is installed
    shim.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m judge.cli "$@"\n')
    shim.chmod(0o755)
    shared = REPO.parent / "shared"
    if shared.is_dir():
        (tmp_path / "shared").symlink_to(shared)
    ran: dict[str, int] = {"bash": 0, "console": 0, "python": 0}
    skipped: list[str] = []
    failures: list[str] = []
    with FakeOpenAIServer() as server:
        env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}",
               "PYTHONPATH": str(REPO), "OPENAI_API_KEY": "sk-docs-snippets",
               "DASHSCOPE_API_KEY": "sk-docs-snippets", "OPENAI_BASE_URL": server.base_url,
               "SIMJUDGE_CACHE_DIR": str(tmp_path / "cache"), "COLUMNS": "100",
               "MPLBACKEND": "Agg"}
        for page in pages():
            work = tmp_path / re.sub(r"\W", "_", str(page.relative_to(REPO)))
            work.mkdir()
            for shipped in ("examples", "benchmarks", "scripts"):
                (work / shipped).symlink_to(REPO / shipped)
            for sn in snippets(page):
                sn.body = sn.body.replace(SELF_HOSTED, server.base_url)
                if sn.lang == "toml":
                    if sn.attr("title"):
                        (work / str(sn.attr("title"))).write_text(sn.body, encoding="utf-8")
                    continue
                if ".skip-absent" in sn.attrs:
                    path = sn.attr("path")
                    assert path, f"{sn.where}: .skip-absent without path=\"…\""
                    if not (work / path).exists():
                        skipped.append(f"{sn.where}: {path} absent")
                        continue
                elif ".skip" in sn.attrs:
                    reason = sn.attr("reason")
                    assert reason, f"{sn.where}: .skip without reason=\"…\""
                    skipped.append(f"{sn.where}: {reason}")
                    continue
                try:
                    {"bash": _bash, "console": _console, "python": _python}[sn.lang](
                        sn, work, env)
                    ran[sn.lang] += 1
                except AssertionError as e:
                    failures.append(str(e))
    total = sum(ran.values())
    with capsys.disabled():
        print(f"\ndocs snippets: ran {total} ({', '.join(f'{k} {v}' for k, v in ran.items())}),"
              f" skipped {len(skipped)}")
        for s in skipped:
            print(f"  skipped {s}")
    assert not failures, "\n\n".join(failures)
    extracted = sum(1 for p in pages() for s in snippets(p) if s.lang != "toml")
    assert total + len(skipped) == extracted
    assert total >= RAN_AT_LEAST, total


def test_snippet_extraction_reads_attributes_and_indented_fences() -> None:
    """The fence parser on a hand-written page: an indented block inside a list item is found
    and dedented, attributes are read, other languages are ignored."""
    page = REPO / "docs" / "x.md"
    text = ('- item\n\n  ```bash {.skip reason="a b"}\n  echo 1\n  ```\n\n```text\nno\n```\n\n'
            '```python\nprint(2)\n```\n')
    found = [Snippet(page, 0, m["lang"], m["attrs"].strip(), m["body"])
             for m in FENCE.finditer(text)]
    assert [s.lang for s in found] == ["bash", "python"]
    assert found[0].attr("reason") == "a b" and found[1].attrs == ""
