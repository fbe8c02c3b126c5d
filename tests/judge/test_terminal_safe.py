"""Issue 36, item 15: terminal escape sequences sent by a judge server never reach the terminal.

A loopback server (tests/fake_openai.py) answers every request with HTTP 401 and an error
message holding an OSC window-title sequence, a colour change, a C1 CSI and a bidi override.
simjudge prints that message in its "stopped early" line; each control character must arrive
as its visible escape (``\\x1b``), never as itself. The same holds for every line the consoles
print (tables included) and for the one-line errors.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.table import Table
from rich.text import Text

from judge.terminal import SafeConsole, is_terminal_safe, terminal_safe
from tests.clirun import CliResult
from tests.fake_openai import FakeOpenAIServer, FakeServerConfig

EVIL = "\x1b]0;pwned\x07\x1b[31m"
CONTROLS = ("\x1b", "\x07", "\x9b", "\u202e", "\r")


def _clean(text: str) -> bool:
    return not any(c in text for c in CONTROLS)


def test_a_servers_escape_sequences_are_shown_as_text(
        tmp_path: Path, cli: Callable[..., CliResult]) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"id": k, "pred": [p], "truth": [p.lower() + "x"]}) + "\n"
                            for k, p in enumerate(("Alpha", "Beta"))), encoding="utf-8")
    message = f"bad key {EVIL}red\x9b2J\u202eevil\rhidden"
    with FakeOpenAIServer(FakeServerConfig(status_all=401, status_message=message)) as srv:
        res = cli("eval", data, "--judge", "openai:fake", "--base-url", srv.base_url,
                  "--max-retries", "0", "--stop-after", "1", "--out", tmp_path / "run",
                  "--cache-dir", tmp_path / "cache", cwd=tmp_path,
                  env={"OPENAI_API_KEY": "sk-x"})
    assert res.returncode == 1 and srv.log, res.stderr
    # the server's message is printed (so this test can fail) …
    assert "stopped early: 1 consecutive calls failed: HTTP 401" in res.stderr
    # … with every control character made visible
    assert _clean(res.stdout) and _clean(res.stderr), repr(res.stderr)
    assert "bad key \\x1b]0;pwned\\x07\\x1b[31mred\\x9b2J\\u202eevil hidden" in res.stderr


def test_a_one_line_error_is_terminal_safe(tmp_path: Path,
                                           cli: Callable[..., CliResult]) -> None:
    res = cli("eval", tmp_path / f"missing{EVIL}.jsonl", "--judge", "lexical", cwd=tmp_path)
    assert res.returncode == 2 and res.stderr.startswith("simjudge: error: ")
    assert _clean(res.stderr) and "\\x1b]0;pwned\\x07" in res.stderr


@pytest.mark.parametrize("force_terminal", [True, False])
def test_the_console_prints_no_control_character_it_was_given(force_terminal: bool) -> None:
    buf = io.StringIO()
    console = SafeConsole(file=buf, width=120, force_terminal=force_terminal)
    table = Table("judge", "error")
    table.add_row("openai:x", f"HTTP 401: {EVIL}")
    table.add_row(Text(f"styled {EVIL}", style="bold"), "ok")
    console.print(table)
    console.print(f"plain {EVIL}", markup=False, highlight=False)
    console.print(Text.assemble(("a", "red"), f" {EVIL}"))
    got = buf.getvalue()
    assert "]0;pwned\x07" not in got and "\x1b]" not in got and "\x07" not in got
    # strings (table cells, lines) are shown whole; a Text object (rich drops its BEL) too,
    # but a table may cut one short: it measured the text before it was made visible
    assert got.count("\\x1b]0;pwned\\x07\\x1b[31m") == 2
    assert got.count("\\x1b]0;pwned\\x1b[31m") == 1 and got.count("\\x1b]0;pwned") == 4
    if force_terminal:  # the console's own styles are still sent
        assert "\x1b[1m" in got
    else:
        assert "\x1b" not in got


def test_terminal_safe_replaces_each_control_character() -> None:
    assert terminal_safe("tab\tand\nnewline stay") == "tab\tand\nnewline stay"
    assert terminal_safe("\x00\x08\x1b\x7f\x85\x9f") == "\\x00\\x08\\x1b\\x7f\\x85\\x9f"
    assert terminal_safe("a\u202ab\u2066c\u200fd\u061c") == "a\\u202ab\\u2066c\\u200fd\\u061c"
    assert terminal_safe("héllo — 你好") == "héllo — 你好"
    assert is_terminal_safe(terminal_safe(EVIL)) and not is_terminal_safe(EVIL)


def test_batch_lines_are_terminal_safe(capsys: pytest.CaptureFixture[str]) -> None:
    from judge.judges.llm.batchapi import _stderr

    _stderr(f"batch_1 failed: {EVIL}")
    assert capsys.readouterr().err == "batch_1 failed: \\x1b]0;pwned\\x07\\x1b[31m\n"
