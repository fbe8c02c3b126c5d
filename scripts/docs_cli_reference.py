"""The CLI reference of the documentation site, generated from the typer app at build time.

``mkdocs.yml`` loads this file as a hook (``hooks:``): in every page, the line
``<!-- cli-reference -->`` is replaced by :func:`render`'s markdown — every command and
sub-command of :data:`judge.cli.app` (walked through ``typer.main.get_command``, i.e. the
click tree ``simjudge --help`` prints), with its usage line, help text, arguments and options
(flags, type, default, help, grouped by the option's help panel). Nothing is written by hand,
so the reference cannot drift from the code: a new flag appears at the next build. The line
``<!-- labels-db-schema -->`` is replaced by the SQL that creates ``labels.db``.

Run directly (``python scripts/docs_cli_reference.py``) it prints the markdown.
"""

from __future__ import annotations

import html
import re
from typing import Any

# typer >= 0.2x vendors its own click (typer._click), so the click tree is read by duck
# typing (param_type_name, list_commands, choices) rather than isinstance checks.

MARKER = "<!-- cli-reference -->"
SCHEMA_MARKER = "<!-- labels-db-schema -->"


def _text(value: str) -> str:
    """Help text as markdown: HTML-escaped (a ``<script>`` stays text), typer's ``\\b``
    no-rewrap markers dropped, Sphinx roles (``:data:`x```) shown as code."""
    value = value.replace("\b", "")
    value = re.sub(r":(?:data|func|class|mod|meth|attr):`~?([^`]+)`", r"`\1`", value)
    value = value.replace("``", "`")
    return html.escape(value, quote=False)


def _cell(value: str) -> str:
    """One markdown table cell: a single line, pipes escaped."""
    return " ".join(_text(value).split()).replace("|", "\\|")


def _default(param: Any) -> str:
    """The parameter's default as ``--help`` shows it (empty when there is none)."""
    value = param.default
    if getattr(param, "is_flag", False):
        if param.secondary_opts:  # --x/--no-x: the form that is on by default
            return f"`{param.opts[0] if value else param.secondary_opts[0]}`"
        return "on" if value else "off"
    if callable(value) or value is None or value == () or value == [] or value == "":
        return ""
    if isinstance(value, (list, tuple)):
        return ", ".join(f"`{v}`" for v in value)
    return f"`{value}`"


def _type(param: Any, ctx: Any) -> str:
    """The parameter's type as ``--help`` names it (``<int>``, ``<path>``, choices…), with
    `` …`` when it may be repeated."""
    if getattr(param, "is_flag", False):
        return "flag"
    shown = param.display_type(ctx) if callable(getattr(param, "display_type", None)) else ""
    if not shown:
        kind = getattr(param, "type", None)
        shown = (getattr(kind, "name", "") or "").lower()
    shown = re.sub(r"^<list\[(\w+)\]>$", r"<\1>", str(shown).strip())
    repeat = " …" if getattr(param, "multiple", False) else ""
    return (f"`{shown}`" if shown else "") + repeat


def _flags(param: Any) -> str:
    """``--name`` / ``-n`` (and the negative form) as code."""
    names = [*param.opts, *getattr(param, "secondary_opts", [])]
    return ", ".join(f"`{n}`" for n in names)


def _command(cmd: Any, path: list[str], parent: Any) -> list[str]:
    """The markdown of one command and, for a group, of each of its sub-commands."""
    ctx = cmd.context_class(cmd, info_name=path[-1], parent=parent)
    depth = min(len(path), 4)
    title = " ".join(path)
    out = [f"{'#' * (depth + 1)} `{title}`", ""]
    pieces = re.sub(r"\{(\w+)\}", lambda m: m.group(1).upper(),
                    " ".join(cmd.collect_usage_pieces(ctx)))
    out += ["```text", f"{title} {pieces}".rstrip(), "```", ""]
    if cmd.help:
        out += [_text(cmd.help).strip(), ""]
    args = [p for p in cmd.params if p.param_type_name == "argument"]
    if args:
        out += ["| argument | type | required | help |", "|---|---|---|---|"]
        for a in args:
            out.append(f"| `{(a.metavar or a.name or '').upper()}` | {_type(a, ctx)} | "
                       f"{'yes' if a.required else 'no'} | {_cell(getattr(a, 'help', '') or '')} |")
        out.append("")
    options = [p for p in cmd.params if p.param_type_name == "option" and not p.hidden]
    panels: dict[str, list[Any]] = {}
    for o in options:
        panels.setdefault(getattr(o, "rich_help_panel", None) or "Options", []).append(o)
    for panel, members in panels.items():
        if len(panels) > 1:
            out += [f"**{_text(panel)}**", ""]
        out += ["| option | type | default | help |", "|---|---|---|---|"]
        for o in members:
            out.append(f"| {_flags(o)} | {_type(o, ctx)} | {_default(o)} | "
                       f"{_cell(o.help or '')} |")
        out.append("")
    if hasattr(cmd, "list_commands"):
        for name in cmd.list_commands(ctx):
            sub = cmd.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                out += _command(sub, [*path, name], ctx)
    return out


def render() -> str:
    """The whole CLI reference as markdown, from ``judge.cli.app``."""
    import typer.main

    from judge.cli import app

    root = typer.main.get_command(app)
    ctx = root.context_class(root, info_name="simjudge")
    names = root.list_commands(ctx) if hasattr(root, "list_commands") else []
    lines = ["Commands: " + ", ".join(f"`{n}`" for n in names) + ".", ""]
    lines += _command(root, ["simjudge"], None)
    return "\n".join(lines) + "\n"


def labels_db_schema() -> str:
    """The ``labels.db`` schema as the code creates it (``judge.calibration.labelsdb``), as
    an SQL code block."""
    from judge.calibration import labelsdb

    return f"```sql\n{labelsdb._SCHEMA.strip()}\n```\n\nSchema version {labelsdb.SCHEMA_VERSION}."


def on_page_markdown(markdown: str, **_: Any) -> str:
    """mkdocs hook: replace the marker lines with the generated reference and schema."""
    if MARKER in markdown:
        markdown = markdown.replace(MARKER, render())
    if SCHEMA_MARKER in markdown:
        markdown = markdown.replace(SCHEMA_MARKER, labels_db_schema())
    return markdown


if __name__ == "__main__":
    print(render())
