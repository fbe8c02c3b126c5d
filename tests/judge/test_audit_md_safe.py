"""Issue 36, item 10: ``simjudge audit --format md`` embeds no raw HTML, link or image from the
judged data.

Runs whose ids, predictions, gold strings, queries, labels and function calls hold HTML, links
and images are audited as Markdown, and the report is rendered with Python-Markdown — plainly
(where ```` ``` ```` fences are code spans, and raw HTML passes through) and with the
``tables``/``fenced_code`` and ``extra`` extensions. No tag or link of the data may survive,
and the text must still read as the data (the characters shown are the original ones).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from judge.runs.mdsafe import md_cell, md_fenced, md_lines, md_text
from tests.clirun import CliResult

markdown = pytest.importorskip("markdown")

XSS = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(2)>"
LINK = "[click](javascript:alert(3))"
PIC = "![pic](http://evil.example/x.png)"
TAGS = re.compile(r"<(script|img|a|b|iframe|svg)\b", re.I)
RENDERINGS: list[list[str]] = [[], ["tables", "fenced_code"], ["extra"]]


def _audit(tmp_path: Path, cli: Callable[..., CliResult], rows: list[dict[str, Any]],
           *flags: str) -> str:
    tmp_path.mkdir(exist_ok=True)
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    res = cli("eval", data, *flags, "--out", tmp_path / "run", "--bootstrap", "0", cwd=tmp_path)
    assert res.returncode == 0, res.output
    res = cli("audit", tmp_path / "run", "--format", "md", "--out", tmp_path / "r.md",
              cwd=tmp_path)
    assert res.returncode == 0, res.output
    return (tmp_path / "r.md").read_text(encoding="utf-8")


def _check(md: str, shown: list[str]) -> None:
    """No tag or link of the data in any rendering; each of ``shown`` readable as text."""
    for extensions in RENDERINGS:
        page = markdown.markdown(md, extensions=extensions)
        assert TAGS.findall(page) == [], (extensions, TAGS.findall(page))
        assert "javascript:" not in "".join(re.findall(r'(?:href|src)="[^"]*"', page))
        text = html.unescape(re.sub(r"<[^>]+>", "", page))
        for s in shown:
            assert s in text, (extensions, s)


@pytest.mark.parametrize("evil", [XSS, IMG, LINK, PIC, f"a | b\n{XSS}"])
def test_selection_report_is_inert(tmp_path: Path, cli: Callable[..., CliResult],
                                   evil: str) -> None:
    rows = [{"id": f"id {evil}", "query": f"q {evil}", "pred": [f"p {evil}", "same"],
             "truth": [f"t {evil}", "same"]}]
    md = _audit(tmp_path, cli, rows, "--judge", "lexical")
    assert evil not in md  # before the fix, each went into the report as it is
    _check(md, [f"p {evil}"[:20].replace("\n", "\\n")])


def test_labels_and_function_calls_are_inert(tmp_path: Path,
                                             cli: Callable[..., CliResult]) -> None:
    md = _audit(tmp_path, cli, [{"id": "t1", "pred": [XSS, LINK], "truth": [IMG, PIC]}],
                "--task", "multilabel")
    _check(md, [XSS, IMG, LINK, PIC])
    gold = [{"name": "f", "arguments": {"city": XSS, "note": f"```` {LINK}"}}]
    raw = f"{{not json {XSS}\n\n{IMG}\n````\n{LINK}"  # blank lines and a fence inside
    calls = [{"id": "c", "type": "function", "function": {"name": "f", "arguments": raw}}]
    md = _audit(tmp_path / "fc", cli, [{"id": "f1", "query": IMG, "gold_fn": gold,
                                        "tool_calls": calls}],
                "--task", "function-call", "--format", "openai")
    _check(md, [IMG])  # the query; the calls are shown as JSON, with \u003c for "<"
    assert "\\u003cscript\\u003ealert(1)\\u003c/script\\u003e" in md


def test_markdown_helpers() -> None:
    assert md_text("a & <b> [x](y)\nz") == "a &amp; &lt;b&gt; &#91;x&#93;(y)&#10;z"
    cell = md_cell("a|b\n<i>")
    assert "|" not in cell and "\n" not in cell
    table = markdown.markdown(f"| k | v |\n|---|---|\n| {cell} | 1 |", extensions=["tables"])
    assert table.count("<td>") == 2 and "<i>" not in table
    # a fenced block cannot be closed early; text that is not JSON is shown as a JSON string
    block = md_fenced("x\n````\n<b>\n\ny")
    assert block[0] == "`````json" and block[-1] == "`````" and len(block) == 3
    assert "<" not in block[1] and json.loads(block[1]) == "x\n````\n<b>\n\ny"
    assert md_fenced('["a", "`````"]')[0] == "``````json"
    lines = md_lines(["- gold:", "```json", '["<x>"]', "```", "- [a](b)"])
    assert lines == ["- gold:", "```json", '["\\u003cx\\u003e"]', "```", "- &#91;a&#93;(b)"]
