"""How ``simjudge`` prints its help: click's plain help formatter, with a command's options
grouped in sections by their help panel (:mod:`judge.cli.panels`).

typer renders help through rich (a bordered table per panel) when it can; for ``eval``'s ~90
options that took ~0.18 s of every ``simjudge eval --help`` (0.48 s in all on the 2-core test
machine, against a target of 0.3 s), plus ~0.06 s importing rich's Markdown and pygments. The
plain formatter lays out the same sections (``Arguments``, ``Options``, then one per panel, in
the order the options are declared) in a few milliseconds, wrapped to the terminal's width
(80 columns when piped), and its text is what ``--help`` shows in any terminal or log.
"""

from __future__ import annotations

from typer._click import Context, HelpFormatter
from typer.core import TyperCommand

OPTIONS = "Options"
"""The section of options that belong to no panel (``--help`` among them)."""


class PanelCommand(TyperCommand):
    """A typer command whose help lists its arguments, then the options of no panel, then each
    panel's options under the panel's title (``rich_help_panel`` of each option, set by
    :func:`judge.cli.panels.with_panels`), in plain text."""

    def format_options(self, ctx: Context, formatter: HelpFormatter) -> None:
        """Write the ``Arguments`` section, then one section per panel (``Options`` first)."""
        args: list[tuple[str, str]] = []
        sections: dict[str, list[tuple[str, str]]] = {OPTIONS: []}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                args.append(record)
            else:
                title = getattr(param, "rich_help_panel", None) or OPTIONS
                sections.setdefault(title, []).append(record)
        if args:
            with formatter.section("Arguments"):
                formatter.write_dl(args)
        for title, rows in sections.items():
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)
