"""Text from a run made inert in the Markdown audit report (``simjudge audit --format md``).

Everything the report shows of a run — ids, judged strings, labels, queries, file names, judge
ids, function calls — comes from files and judges the user may not control. Markdown renderers
pass raw HTML through (Python-Markdown does, so a prediction ``<script>…</script>`` would run in
the rendered page) and turn ``[text](url)`` / ``![alt](url)`` into links and images. So:

- in running text (:func:`md_text`) ``&``, ``<``, ``>``, ``[`` and ``]`` are written as HTML
  character references (``&amp;``, ``&lt;``, ``&gt;``, ``&#91;``, ``&#93;``) and line breaks as
  ``&#10;`` / ``&#13;``: no tag, link, image, autolink or new block can start inside a value,
  and every renderer shows the original characters;
- in table cells (:func:`md_cell`) ``|`` is written ``&#124;`` too, so a value cannot add a
  column;
- in fenced blocks (:func:`md_lines`; the function-call views) the content is JSON — text that
  is not is shown as one JSON string — with ``<``, ``>`` and ``&`` as JSON escapes
  (``\\u003c``…), under a fence longer than any run of backticks inside it: the block cannot be
  closed early, holds no blank line, and shows the same characters whether a renderer knows
  fenced blocks (GitHub, ``fenced_code``) or reads them as one code span (plain Python-Markdown).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "[": "&#91;", "]": "&#93;",
                       "\n": "&#10;", "\r": "&#13;"})
_CELL = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "[": "&#91;", "]": "&#93;",
                       "\n": "&#10;", "\r": "&#13;", "|": "&#124;"})
_JSON = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})
_OPEN = re.compile(r"^(`{3,})([A-Za-z0-9_-]*)\s*$")
_TICKS = re.compile(r"`+")


def md_text(text: object) -> str:
    """``text`` (any value, as ``str()``) safe inside a Markdown line (module docstring).

    Examples:
        >>> md_text("<script>alert(1)</script> [x](javascript:alert(1))")
        '&lt;script&gt;alert(1)&lt;/script&gt; &#91;x&#93;(javascript:alert(1))'
    """
    return str(text).translate(_TEXT)


def md_cell(text: object) -> str:
    """``text`` safe inside a Markdown table cell: :func:`md_text`, and ``|`` as ``&#124;``."""
    return str(text).translate(_CELL)


def md_fenced(content: str, info: str = "json") -> list[str]:
    """A fenced block showing ``content`` inertly: as it is when it is JSON, else as one JSON
    string; ``<``, ``>``, ``&`` as JSON escapes; the fence longer than any backtick run."""
    try:
        json.loads(content)
    except ValueError:
        content = json.dumps(content, ensure_ascii=False)
    content = content.translate(_JSON)
    runs = [len(m.group()) for m in _TICKS.finditer(content)]
    fence = "`" * max(3, max(runs, default=0) + 1)
    return [fence + info, *content.splitlines(), fence]


def md_lines(lines: Iterable[str]) -> list[str]:
    """A task's Markdown lines (:meth:`judge.tasks.base.Task.markdown`) made inert: each line
    through :func:`md_text`, each fenced block (a line of three or more backticks and an
    optional info word, up to the line of as many backticks) through :func:`md_fenced`.

    Args:
        lines: the lines; a "line" holding newlines stays one line (they become ``&#10;``).

    Returns:
        the safe lines (a fenced block may change its line count; an unclosed fence runs to the
        end).
    """
    out: list[str] = []
    block: list[str] | None = None
    fence = info = ""
    for line in lines:
        if block is None:
            m = _OPEN.match(line)
            if m:
                block, fence, info = [], m.group(1), m.group(2)
            else:
                out.append(md_text(line))
        elif line.strip() == fence:
            out += md_fenced("\n".join(block), info or "json")
            block = None
        else:
            block.append(line)
    if block is not None:
        out += md_fenced("\n".join(block), info or "json")
    return out
