"""The ``simjudge`` command line (typer)."""

from __future__ import annotations

import platform
from importlib import metadata

import typer

app = typer.Typer(
    name="simjudge",
    help="Evaluate model outputs with LLM judges: similarity matrices → fuzzy metrics.",
    no_args_is_help=True,
    add_completion=False,
)

_DEPENDENCIES = ("numpy", "scipy", "jieba", "nltk", "rouge-score", "pydantic", "openai",
                 "langchain")


@app.command()
def version() -> None:
    """Print simjudge's version and the versions of the libraries its numbers depend on."""
    typer.echo(f"simjudge {metadata.version('simjudge')} (Python {platform.python_version()})")
    for dist in _DEPENDENCIES:
        try:
            typer.echo(f"  {dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            typer.echo(f"  {dist} not installed")


@app.callback()
def _root() -> None:
    """simjudge: evaluate model outputs with LLM judges."""


def main() -> None:
    """Console-script entry point (``simjudge``)."""
    app()


if __name__ == "__main__":
    main()
