"""The ``simjudge`` command run in-process, as a subprocess would see it.

:func:`run_cli` calls the console script's own entry point, :func:`judge.cli.main`, with the
process-wide state a real process has set up for it: ``sys.argv``, the environment
(``os.environ`` updated, restored after), the working folder, and stdin/stdout/stderr as
separate text streams (not terminals, as when piped). It returns what
:class:`subprocess.CompletedProcess` holds (``returncode``, ``stdout``, ``stderr``), so a test
reads the same whether the command ran here or in a process. An exception that escapes
``main`` is what a process would print before exiting 1: its traceback goes to ``stderr`` and it
is kept in ``exception``.

Defaults match the subprocess helpers the tests used before (80 columns, ``NO_COLOR=1``). What
needs a real process stays one (start-up time, signals, resource limits, the installed
script): see ``tests/cli_runs.py`` and the tests that say why they start one.

The runner takes a lock: in one interpreter, one command at a time (cwd, environment and the
standard streams are process-wide). Under ``pytest -n`` each worker is its own interpreter.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import threading
import traceback
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

_LOCK = threading.RLock()


@dataclass
class CliResult:
    """What one ``simjudge`` command left: its exit status and its two streams, decoded as
    UTF-8 (undecodable bytes replaced), and the exception that escaped it, if any."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str
    exception: BaseException | None = None

    @property
    def output(self) -> str:
        """stdout, then stderr (not interleaved)."""
        return self.stdout + self.stderr


@contextlib.contextmanager
def _environ(changes: Mapping[str, str | None]) -> Iterator[None]:
    """``os.environ`` with ``changes`` applied (``None`` unsets), restored on exit."""
    saved = dict(os.environ)
    try:
        for key, value in changes.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def captured_streams(stdin: str | bytes | None) -> Iterator[tuple[io.BytesIO, io.BytesIO]]:
    """Replace sys.stdin/stdout/stderr by in-memory text streams; yields (stdout, stderr)."""
    raw_in = io.BytesIO(stdin.encode() if isinstance(stdin, str) else (stdin or b""))
    out, err = io.BytesIO(), io.BytesIO()
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin = io.TextIOWrapper(raw_in, encoding="utf-8")
    sys.stdout = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    sys.stderr = io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace",
                                  write_through=True)
    wrappers = sys.stdin, sys.stdout, sys.stderr
    try:
        yield out, err
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
        for stream in wrappers:  # keep the buffers open: a wrapper closes its buffer when freed
            with contextlib.suppress(ValueError):
                stream.flush()
                stream.detach()


@contextlib.contextmanager
def _state(argv: list[str], cwd: Path | str | None) -> Iterator[None]:
    """sys.argv and the working folder of the command, restored on exit."""
    saved_argv, saved_cwd = sys.argv, os.getcwd()
    sys.argv = ["simjudge", *argv]
    try:
        if cwd is not None:
            os.chdir(cwd)
        yield
    finally:
        sys.argv = saved_argv
        os.chdir(saved_cwd)


def exit_status(code: object) -> int:
    """The status a process exits with for ``SystemExit(code)``."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def run_cli(*args: str | Path, cwd: Path | str | None = None,
            env: Mapping[str, str | None] | None = None, columns: int | None = 80,
            input: str | bytes | None = None,
            entry: Callable[[list[str]], object] | None = None) -> CliResult:
    """Run ``simjudge ARGS…`` in this interpreter, as a subprocess would run.

    Args:
        args: the command line after ``simjudge`` (paths are turned into strings).
        cwd: the working folder of the command (None: this process's).
        env: variables to set for the command (a value of None unsets one) on top of this
            process's environment, ``NO_COLOR=1`` and ``COLUMNS`` (below).
        columns: the terminal width the command sees (``COLUMNS``); None leaves ``COLUMNS``
            unset (rich then uses 80 when the output is not a terminal).
        input: what the command reads on stdin (empty by default, as ``DEVNULL``).
        entry: what to call with the arguments instead of :func:`judge.cli.main` (e.g. typer's
            own parser, to compare with main's fast help).

    Returns:
        A :class:`CliResult`: exit status (0–255; 1 with the traceback on stderr for an
        uncaught exception), stdout and stderr text.
    """
    from judge.cli import main

    call = entry or main
    argv = [str(a) for a in args]
    changes: dict[str, str | None] = {"NO_COLOR": "1",
                                      "COLUMNS": None if columns is None else str(columns)}
    changes.update(env or {})
    exception: BaseException | None = None
    with _LOCK, _environ(changes), _state(argv, cwd), captured_streams(input) as (out, err):
        try:
            call(argv)
            code = 0
        except SystemExit as exc:
            code = exit_status(exc.code)
        except BaseException as exc:  # what a process prints before it exits 1
            exception = exc
            traceback.print_exc()
            code = 1
    return CliResult(argv, code, out.getvalue().decode("utf-8", "replace"),
                     err.getvalue().decode("utf-8", "replace"), exception)


def run_python(source: str, filename: str, *, cwd: Path | str | None = None,
               env: Mapping[str, str | None] | None = None) -> CliResult:
    """Execute Python ``source`` in this interpreter as ``python -c`` would in a process of its
    own — a fresh ``__main__`` namespace, the working folder ``cwd``, ``env`` applied (as in
    :func:`run_cli`), stdout and stderr captured — and return its status (1 with the traceback
    on stderr when it raises, SystemExit's code when it exits)."""
    changes: dict[str, str | None] = {"NO_COLOR": "1"}
    changes.update(env or {})
    exception: BaseException | None = None
    with _LOCK, _environ(changes), _state([], cwd), captured_streams(None) as (out, err):
        sys.argv = ["-c"]
        try:
            exec(compile(source, filename, "exec"), {"__name__": "__main__"})
            code = 0
        except SystemExit as exc:
            code = exit_status(exc.code)
        except BaseException as exc:
            exception = exc
            traceback.print_exc()
            code = 1
    return CliResult(["-c", filename], code, out.getvalue().decode("utf-8", "replace"),
                     err.getvalue().decode("utf-8", "replace"), exception)


def run_batch(commands: list[dict[str, object]]) -> list[dict[str, object]]:
    """Run several commands one after the other in this interpreter (:func:`run_cli`); each
    command is ``{"args": [...], "cwd": str?, "env": {...}?}``; returns one
    ``{"returncode", "stdout", "stderr"}`` per command."""
    results: list[dict[str, object]] = []
    for c in commands:
        res = run_cli(*c["args"], cwd=c.get("cwd"), env=c.get("env"))  # type: ignore[misc,arg-type]
        results.append({"returncode": res.returncode, "stdout": res.stdout,
                        "stderr": res.stderr})
    return results


def batch_command(commands: list[list[str]], results: Path) -> list[str]:
    """The command line of one interpreter that runs ``commands`` (each the arguments after
    ``simjudge``) in-process, one after the other, and writes their results as JSON to
    ``results``: for tests whose commands must run in a process of their own (a private mount
    namespace, a resource limit) without paying an interpreter's start-up per command."""
    import json

    return [sys.executable, "-m", "tests.clirun", json.dumps([{"args": a} for a in commands]),
            str(results)]


def read_batch(results: Path) -> list[CliResult]:
    """The results :func:`batch_command`'s interpreter wrote, as :class:`CliResult`."""
    import json

    return [CliResult([], r["returncode"], r["stdout"], r["stderr"])
            for r in json.loads(results.read_text(encoding="utf-8"))]


if __name__ == "__main__":  # python -m tests.clirun COMMANDS_JSON RESULTS_PATH
    import json

    out = run_batch(json.loads(sys.argv[1]))
    Path(sys.argv[2]).write_text(json.dumps(out), encoding="utf-8")
