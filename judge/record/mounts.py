"""Output directories that cannot be renamed: mount points (a Docker volume ``-v …:/out --out
/out``), where ``rename(2)`` answers ``EBUSY``. :mod:`judge.record.atomic` writes the run into a
hidden directory inside such an ``out`` and moves its files in with :func:`move_into`.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
from pathlib import Path

_OCTAL = re.compile(r"\\([0-7]{3})")
OUTPUT = (".json", ".jsonl", ".html", ".csv", ".png", ".md")
"""Suffixes of the files simjudge writes into a run or calibration directory."""


def is_mount_point(path: Path) -> bool:
    """Whether ``path`` is a mount point: ``os.path.ismount`` (another filesystem), or listed as
    one in ``/proc/self/mountinfo`` (a bind mount of the same filesystem, which ``ismount``
    cannot see)."""
    if os.path.ismount(path):
        return True
    try:
        text = Path("/proc/self/mountinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    real = os.path.realpath(path)
    # field 5 is the mount point, its spaces etc. written as octal escapes (\040)
    return any(len(f) > 4 and _OCTAL.sub(lambda m: chr(int(m[1], 8)), f[4]) == real
               for f in (line.split() for line in text.splitlines()))


def move_into(tmp: Path, out: Path, overwrite: bool) -> None:
    """Fill the existing directory ``out`` with the entries of ``tmp`` (a directory that cannot
    be renamed: a mount point), ``summary.json`` last; with ``overwrite``, then remove the old
    run's output files (``.json``, ``.jsonl``, ``.html``, ``.csv``, ``.png``, ``.md``) that the
    new one does not have — nothing else of the volume (``lost+found``…). Each file is renamed in
    (``os.replace``: whole or absent) or, from another filesystem, copied beside its target and
    renamed; ``tmp`` is removed."""
    names = sorted(os.listdir(tmp), key=lambda n: n == "summary.json")
    for name in names:
        src, dst = tmp / name, out / name
        if dst.is_dir() and not dst.is_symlink():
            shutil.rmtree(dst, ignore_errors=True)
        try:
            os.replace(src, dst)
        except OSError as exc:
            if exc.errno != errno.EXDEV:
                raise
            part = out / f".{name}.partial-{os.getpid()}"
            if src.is_dir():
                shutil.copytree(src, part)
            else:
                shutil.copy2(src, part)
            os.replace(part, dst)
    if overwrite:
        for entry in os.scandir(out):
            if (entry.name not in names and not entry.name.startswith(".")
                    and entry.is_file(follow_symlinks=False) and entry.name.endswith(OUTPUT)):
                os.unlink(entry.path)
    shutil.rmtree(tmp, ignore_errors=True)
