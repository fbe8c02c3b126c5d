"""Writing a run directory atomically (DESIGN.md "Runs").

A run directory holds ``config.json``, ``verdicts.jsonl``, ``items.jsonl`` and
``summary.json``. Everything is written into a hidden sibling directory first and renamed into
place at the end, so an interrupted or failed run leaves no half-written run directory (its
completed judge calls are in the cache, and a rerun resumes from there).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from judge.errors import InputError

RUN_FILES = ("config.json", "verdicts.jsonl", "items.jsonl", "summary.json")


def _json_default(obj: Any) -> Any:
    if hasattr(obj, "tolist"):
        return obj.tolist()
    if hasattr(obj, "model_dump"):
        return obj.model_dump()
    raise TypeError(f"not JSON-serialisable: {type(obj).__name__}")


def dumps(obj: Any, indent: int | None = None) -> str:
    """JSON text (UTF-8, non-ASCII kept, NaN allowed as in Python's json)."""
    return json.dumps(obj, ensure_ascii=False, indent=indent, default=_json_default)


def check_out_dir(out: Path, overwrite: bool) -> None:
    """Refuse to clobber an existing non-empty directory unless ``overwrite``.

    Raises:
        InputError: ``out`` exists and is not an empty directory, and ``overwrite`` is False.
    """
    if out.exists() and (not out.is_dir() or any(out.iterdir())) and not overwrite:
        raise InputError("output directory exists and is not empty (use --overwrite)", out)


@contextmanager
def atomic_dir(out: Path, overwrite: bool = False) -> Iterator[Path]:
    """Yield a hidden temporary sibling of ``out`` to fill; on success it replaces ``out``.

    On any exception the temporary directory is removed and ``out`` is left as it was.

    Raises:
        InputError: ``out`` exists and is not empty, without ``overwrite``.
    """
    out = Path(out)
    check_out_dir(out, overwrite)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".{out.name}.tmp-{os.getpid()}"
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir()
    try:
        yield tmp
        for f in tmp.iterdir():
            with open(f, "rb") as fh:
                os.fsync(fh.fileno())
        old = None
        if out.exists():
            old = out.parent / f".{out.name}.old-{os.getpid()}"
            out.rename(old)
        tmp.rename(out)
        if old is not None:
            shutil.rmtree(old)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def write_run(out: Path, config: Mapping[str, Any], verdicts: Iterable[Mapping[str, Any]],
              items: Iterable[Mapping[str, Any]], summary: Mapping[str, Any],
              overwrite: bool = False,
              extra_jsonl: Mapping[str, Iterable[Mapping[str, Any]]] | None = None,
              extra_text: Mapping[str, str] | None = None) -> Path:
    """Write the four run files (and any ``extra_jsonl``/``extra_text`` files) into ``out``
    atomically.

    Raises:
        InputError: ``out`` exists and is not empty, without ``overwrite``.
        OSError: the filesystem refused.
    """
    with atomic_dir(Path(out), overwrite) as tmp:
        (tmp / "config.json").write_text(dumps(config, indent=2) + "\n", encoding="utf-8")
        with open(tmp / "verdicts.jsonl", "w", encoding="utf-8") as fh:
            for v in verdicts:
                fh.write(dumps(v) + "\n")
        with open(tmp / "items.jsonl", "w", encoding="utf-8") as fh:
            for it in items:
                fh.write(dumps(it) + "\n")
        (tmp / "summary.json").write_text(dumps(summary, indent=2) + "\n", encoding="utf-8")
        for name, rows in (extra_jsonl or {}).items():
            with open(tmp / name, "w", encoding="utf-8") as fh:
                for row in rows:
                    fh.write(dumps(row) + "\n")
        for name, text in (extra_text or {}).items():
            (tmp / name).write_text(text, encoding="utf-8")
    return Path(out)
