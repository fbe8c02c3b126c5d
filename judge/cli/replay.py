"""``simjudge replay BUNDLE``: rerun a reproducibility bundle from its cache, with no judge call,
and say whether the result is the bundled run."""

from __future__ import annotations

import contextlib
import os
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import typer

from judge.cli.common import fail, say
from judge.errors import InputError

NO_KEY = "simjudge-replay-holds-no-key"
"""What every credential-like environment variable holds during a replay."""


@contextlib.contextmanager
def _keys_withheld() -> Iterator[None]:
    """Replace the value of every credential-like environment variable (the judges' API keys,
    :func:`judge.redact.secret_env_names`) by :data:`NO_KEY` for the replay, so that no key
    could leave even if something in a bundle made a call; restored afterwards."""
    from judge.redact import secret_env_names

    saved = {k: os.environ[k] for k in secret_env_names()}
    os.environ.update(dict.fromkeys(saved, NO_KEY))
    try:
        yield
    finally:
        for k in saved:
            os.environ.pop(k, None)
        os.environ.update(saved)


@contextlib.contextmanager
def _cwd(path: Path) -> Iterator[None]:
    before = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


@contextlib.contextmanager
def _unpacked(bundle: Path) -> Iterator[Path]:
    """The bundle's folder: ``bundle`` itself, or a ``.tar.gz`` unpacked (tarfile's ``data``
    filter: no absolute path, no link leaving it, no device) into a temporary folder."""
    if bundle.is_dir() or not bundle.name.endswith(".tar.gz"):
        yield bundle
        return
    if not bundle.is_file():
        raise InputError("no such file", bundle)
    with tempfile.TemporaryDirectory(prefix="simjudge-replay-") as tmp:
        try:
            with tarfile.open(bundle, "r:gz") as tar:
                tar.extractall(tmp, filter="data")
        except (tarfile.TarError, OSError, EOFError) as exc:
            raise InputError(f"cannot unpack the bundle: {exc}", bundle) from None
        tops = [p for p in Path(tmp).iterdir()]
        if len(tops) != 1 or not tops[0].is_dir():
            raise InputError("expected one folder at the top of the bundle", bundle)
        yield tops[0]


def replay_command(
    bundle: Annotated[Path, typer.Argument(
        help="A bundle written by 'simjudge export --with-cache': its .tar.gz or its unpacked "
        "folder.")],
    out_dir: Annotated[Path | None, typer.Option(
        "--out", help="Where the replayed run goes (default: BUNDLE/replay for a folder, "
        "NAME-replay beside a .tar.gz).")] = None,
    overwrite: Annotated[bool, typer.Option(
        help="Replace --out when it is a simjudge run (nothing else is ever replaced).")
        ] = False,
) -> None:
    """Replay a reproducibility bundle and check that it reproduces the bundled run. Before
    anything is used: MANIFEST.json must be there, every file it lists must match its sha256,
    no file may be unlisted (an added pickle) or a symlink, each input must match the sha256
    the run's config.json recorded, and the bundle's eval command may name no path outside
    the bundle. The command then runs with --cache-mode cache-only on the bundle's JSON cache
    (each entry's sha256 checked; never a pickle; never a judge call; API-key variables
    withheld), and its summary.json and every .jsonl file are compared with the bundled
    run's. Prints "identical", or what differs. Exit status 0 identical, 1 different, 2 a
    bundle that fails a check (nothing is written then)."""
    from judge.runs.bundlecheck import open_bundle, replay_argv
    from judge.runs.replaydiff import compared_files, run_differences

    default = (bundle / "replay" if bundle.is_dir() else
               Path(bundle.name.removesuffix(".tar.gz") + "-replay"))
    out = (out_dir or default).resolve()
    try:
        with _unpacked(bundle) as root:
            checked = open_bundle(root, out)
            argv = replay_argv(checked.manifest, checked.root, out)
            if overwrite:
                argv.append("--overwrite")
            code = _run_eval(checked.root, argv)
            if code == 2 or not (out / "summary.json").is_file():
                raise typer.Exit(code or 1)
            diffs = run_differences(checked.run_dir, out)
            files = compared_files(checked.run_dir)
    except InputError as exc:
        fail(exc)
    if diffs:
        say(f"replay of {bundle} DIFFERS from the bundled run ({len(diffs)} difference(s)); "
            f"the replay is in {out}:")
        for line in diffs:
            say("  " + line)
        raise typer.Exit(1)
    say(f"replay of {bundle}: identical to the bundled run ({', '.join(files)}); no judge "
        f"was called; the replay is in {out}")


def _run_eval(root: Path, argv: list[str]) -> int:
    """Run ``simjudge eval ARGV`` in this process from ``root`` with the keys withheld;
    its exit status."""
    from judge.cli import app

    with _keys_withheld(), _cwd(root):
        result = app(args=["eval", *argv], prog_name="simjudge", standalone_mode=False)
    return int(result or 0)
