"""Every shell and Python snippet of the documentation (docs/**/*.md and README.md) runs.

Snippets are the fenced blocks ```bash, ```console and ```python. Each page is one test, run in
its own working folder (a clone's view: ``examples/``, ``benchmarks/`` and ``scripts/`` linked
in, ``../shared`` linked beside it when the workspace has it), its blocks in page order, so a
block may use what an earlier block of its page wrote. A ```toml block with ``title="NAME"`` is
written to NAME first. Pages run in parallel under ``pytest -n``.

- bash: the block's commands run in order and each must exit 0 (as under ``bash -euo
  pipefail``). ``pip install …`` (alone or before ``&&``) is not run: the test runs in the
  installed environment.
- console: each ``$ command`` runs; every output line the page shows (up to a ``…``, which
  marks an elided end) must appear in what it printed.
- python: the block runs as ``python -c`` would, in a fresh ``__main__`` namespace.

A ``simjudge …`` command — optionally after ``env -u NAME`` and with its stdout sent ``> FILE``
— runs in this interpreter through the console script's entry point
(:func:`tests.clirun.run_cli`: its own argv, environment, working folder and streams), and so
does a Python block (:func:`tests.clirun.run_python`); so does the ``simjudge`` command that
opens a pipeline (``simjudge … | python -c …``: its stdout is the rest's stdin, the rest runs
in bash, the status is pipefail's). Only what else a block holds (a heredoc, ``grep``, a
pipeline that does not start with ``simjudge``) runs in bash. The one place where a page's
snippets differ from a user's shell is thus the process: what the command prints, its exit
status and the files it writes are the same.

LLM judges talk to the loopback fake OpenAI server (:mod:`tests.fake_openai`): the
environment sets ``OPENAI_BASE_URL`` to it and dummy keys, and ``http://127.0.0.1:8000/v1`` in
a snippet (the docs' example address of a self-hosted server) is pointed at it. No snippet
reaches the network.

A block that cannot run from a clone says so in its fence: ``{.skip reason="…"}`` (counted as
skipped, with its reason) or ``{.skip-absent path="…"}`` (run when the path exists, else
skipped). Each page's test checks that every snippet was either run or skipped with a reason;
the session's summary prints how many snippets ran and were skipped (tests/conftest.py).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.clirun import CliResult, run_cli, run_python
from tests.conftest import REPO
from tests.fake_openai import FakeOpenAIServer

FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>bash|console|python|toml)(?P<attrs>[^\n]*)\n"
                   r"(?P<body>.*?)^(?P=indent)```[ \t]*$", re.M | re.S)
SELF_HOSTED = "http://127.0.0.1:8000/v1"
RAN_AT_LEAST = 56  # on a clone; 58 with the workspace's ../shared (2 read it), 2026-11-28
SHELL = re.compile(r"[|&;<>()$`]")
"""A token with one of these characters makes a command a shell command (run in bash)."""


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


@dataclass
class Command:
    """One command of a block: in-process (``args`` after ``simjudge``, variables to unset,
    a file for stdout, or a shell pipeline without ``$`` that reads its stdout) or, when
    ``args`` is None, a shell script."""

    text: str
    args: list[str] | None = None
    unset: tuple[str, ...] = ()
    stdout_to: str | None = None
    pipe_to: str | None = None


def _first_pipe(text: str) -> int | None:
    """The index of ``text``'s first ``|`` outside quotes that is a pipe (not ``||``)."""
    quote, escaped = "", False
    for i, ch in enumerate(text):
        if escaped:
            escaped = False
        elif ch == "\\" and quote != "'":
            escaped = True
        elif quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or text[i - 1].isspace()):
            return None
        elif ch == "|":
            return None if text[i + 1:i + 2] == "|" else i
    return None


def parse_command(text: str) -> Command:
    """``text`` as an in-process ``simjudge`` command when it is one (``[env -u NAME …]
    simjudge ARGS… [> FILE] [# comment]``, no other shell syntax, or such a command piped into
    a shell pipeline that uses no shell variable: ``simjudge ARGS… | REST``), else as a shell
    script."""
    bar = _first_pipe(text)
    if bar is not None and "\n" not in text:
        head, rest = parse_command(text[:bar]), text[bar + 1:].strip()
        if head.args is not None and head.stdout_to is None and rest and "$" not in rest:
            return Command(text, head.args, head.unset, None, rest)
        return Command(text)
    try:
        tokens = shlex.split(text, comments=True)
    except ValueError:
        return Command(text)
    unset: list[str] = []
    while tokens[:2] == ["env", "-u"] and len(tokens) > 2:
        unset.append(tokens[2])
        tokens = tokens[3:]
    stdout_to = None
    if len(tokens) >= 2 and tokens[-2] == ">":
        stdout_to, tokens = tokens[-1], tokens[:-2]
    if tokens[:1] != ["simjudge"] or any(SHELL.search(t) for t in tokens):
        return Command(text)
    return Command(text, tokens[1:], tuple(unset), stdout_to)


def bash_commands(body: str) -> list[Command]:
    """The commands of a bash block, in order: continuation lines joined, a heredoc kept with
    the command that opens it, consecutive shell commands in one script (so a block's shell
    lines share one bash, as they would); ``pip install …`` dropped."""
    lines = body.replace("\\\n", " ").splitlines()
    logical: list[str] = []
    k = 0
    while k < len(lines):
        line = re.sub(r"^pip install [^&]*(&&\s*|$)", "", lines[k])
        k += 1
        heredoc = re.search(r"<<-?\s*'?\"?(\w+)", line)
        if heredoc:
            end = heredoc.group(1)
            while k < len(lines) and lines[k].strip() != end:
                line += "\n" + lines[k]
                k += 1
            line += "\n" + end
            k += 1
        if line.strip() and not line.lstrip().startswith("#"):
            logical.append(line)
    out: list[Command] = []
    for text in logical:
        cmd = parse_command(text)
        if cmd.args is None and out and out[-1].args is None:
            out[-1].text += "\n" + text
        else:
            out.append(cmd)
    return out


class Runner:
    """Runs one page's commands in its working folder with its environment."""

    def __init__(self, work: Path, env: dict[str, str]) -> None:
        self.work = work
        self.env = env

    def run(self, cmd: Command, strict: bool) -> CliResult:
        """One command, in-process or in bash (``strict``: ``-euo pipefail``)."""
        if cmd.args is None:
            flags = ["-euo", "pipefail"] if strict else ["-o", "pipefail"]
            got = subprocess.run(["bash", *flags, "-c", cmd.text], cwd=self.work,
                                 env={**os.environ, **self.env}, capture_output=True,
                                 text=True, timeout=900, stdin=subprocess.DEVNULL)
            return CliResult([cmd.text], got.returncode, got.stdout, got.stderr)
        env: dict[str, str | None] = {**self.env, **dict.fromkeys(cmd.unset)}
        res = run_cli(*cmd.args, cwd=self.work, env=env, columns=int(self.env["COLUMNS"]))
        if cmd.pipe_to is not None:  # pipefail: the last non-zero status of the pipeline
            rest = subprocess.run(["bash", "-o", "pipefail", "-c", cmd.pipe_to], cwd=self.work,
                                  env={**os.environ, **self.env}, input=res.stdout,
                                  capture_output=True, text=True, timeout=900)
            return CliResult([cmd.text], rest.returncode or res.returncode, rest.stdout,
                             res.stderr + rest.stderr)
        if cmd.stdout_to is not None:
            (self.work / cmd.stdout_to).write_text(res.stdout, encoding="utf-8")
            res.stdout = ""
        return res

    def bash(self, sn: Snippet) -> None:
        for cmd in bash_commands(sn.body):
            got = self.run(cmd, strict=True)
            assert got.returncode == 0, (f"{sn.where}: exit {got.returncode}\n{cmd.text}\n"
                                         f"{got.stderr[-3000:]}")

    def console(self, sn: Snippet) -> None:
        blocks: list[tuple[str, list[str]]] = []
        for ln in sn.body.splitlines():
            if ln.startswith("$ "):
                blocks.append((ln[2:], []))
            elif blocks and ln.strip():
                blocks[-1][1].append(ln)
        assert blocks, f"{sn.where}: a console block without a '$ ' command"
        for text, expected in blocks:
            got = self.run(parse_command(text), strict=False)
            printed = " ".join((got.stdout + got.stderr).split())
            if not expected:
                assert got.returncode == 0, f"{sn.where}: {text}: exit {got.returncode}\n" \
                                            f"{got.stderr}"
            for line in expected:
                shown = " ".join(line.split("…")[0].split())
                assert shown in printed, (f"{sn.where}: {text}\nexpected: {shown}\n"
                                          f"printed: {printed}")

    def python(self, sn: Snippet) -> None:
        got = run_python(sn.body, sn.where, cwd=self.work, env=self.env)
        assert got.returncode == 0, f"{sn.where}: exit {got.returncode}\n{got.stderr[-3000:]}"


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_docs_snippet_runs(page: Path, tmp_path: Path,
                                 record_property: pytest.RecordProperty) -> None:
    work = tmp_path / "work"
    work.mkdir()
    for shipped in ("examples", "benchmarks", "scripts"):
        (work / shipped).symlink_to(REPO / shipped)
    shared = REPO.parent / "shared"
    if shared.is_dir():
        (tmp_path / "shared").symlink_to(shared)
    ran: dict[str, int] = {"bash": 0, "console": 0, "python": 0}
    skipped: list[str] = []
    failures: list[str] = []
    found = snippets(page)
    with FakeOpenAIServer() as server:
        runner = Runner(work, {
            "PYTHONPATH": str(REPO), "OPENAI_API_KEY": "sk-docs-snippets",
            "DASHSCOPE_API_KEY": "sk-docs-snippets", "OPENAI_BASE_URL": server.base_url,
            "SIMJUDGE_CACHE_DIR": str(tmp_path / "cache"), "COLUMNS": "100",
            "MPLBACKEND": "Agg"})
        for sn in found:
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
                getattr(runner, sn.lang)(sn)
                ran[sn.lang] += 1
            except AssertionError as e:
                failures.append(str(e))
    record_property("docs_snippets", json.dumps({"ran": ran, "skipped": skipped}))
    assert not failures, "\n\n".join(failures)
    assert sum(ran.values()) + len(skipped) == sum(1 for s in found if s.lang != "toml")


def test_enough_snippets_run_from_a_clone() -> None:
    """The pages hold at least RAN_AT_LEAST snippets that run from a clone (not ``.skip``; a
    ``.skip-absent`` one counts when its path is a clone's), so a page that loses its examples,
    or a fence that skips them all, fails here."""
    runnable = [s for p in pages() for s in snippets(p) if s.lang != "toml"
                and (".skip" not in s.attrs
                     or (".skip-absent" in s.attrs and (REPO / str(s.attr("path"))).exists()))]
    assert len(runnable) >= RAN_AT_LEAST, len(runnable)


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


def test_commands_in_process_or_in_bash() -> None:
    """What runs in-process: a plain ``simjudge`` command, after ``env -u`` and with ``> FILE``;
    what runs in bash: anything with other shell syntax; a heredoc stays with its command and
    shell lines in a row share one script."""
    c = parse_command("env -u OPENAI_API_KEY simjudge eval x.jsonl --judge 'a b'  # note")
    assert (c.args, c.unset, c.stdout_to) == (["eval", "x.jsonl", "--judge", "a b"],
                                              ("OPENAI_API_KEY",), None)
    assert parse_command("simjudge --show-completion bash > f.bash").stdout_to == "f.bash"
    piped = parse_command("simjudge eval a --json | python -c 'import sys; print(\"|\")' | wc")
    assert (piped.args, piped.pipe_to) == (["eval", "a", "--json"],
                                           "python -c 'import sys; print(\"|\")' | wc")
    for shell in ("grep x f | simjudge eval a", "simjudge a && simjudge b", "simjudge a || b",
                  "grep x f", "simjudge eval $X", "simjudge eval a 2> err",
                  "simjudge eval a > f | wc", "simjudge eval $X | wc", "simjudge a | grep $X"):
        assert parse_command(shell).args is None, shell
    body = ("pip install -e . && simjudge eval a\ncat > f <<'EOF'\nsimjudge x | y\nEOF\n"
            "echo hi\n# a comment\nsimjudge runs \\\n  runs\n")
    cmds = bash_commands(body)
    assert [c.args for c in cmds] == [["eval", "a"], None, ["runs", "runs"]]
    assert cmds[1].text == "cat > f <<'EOF'\nsimjudge x | y\nEOF\necho hi"
