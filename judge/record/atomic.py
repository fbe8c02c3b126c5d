"""Writing an output directory atomically: run directories (:mod:`judge.record.store`) and
calibration directories (``simjudge calibrate``).

Everything is written into a hidden sibling directory ``.NAME.tmp-PID`` first and renamed into
place at the end, so an interrupted or failed run leaves no half-written run directory (its
completed judge calls are in the cache, and a rerun resumes from there).

Crash safety (issue 11): ``--overwrite`` moves the old run aside to ``.NAME.old-PID``, renames
the new one into place and only then deletes the old one, so at every instant one complete run
exists. A process killed while writing leaves those hidden siblings; the next run into the same
parent directory (:func:`judge.record.outdir.recover_leftovers`) removes the ``.tmp-PID`` ones
of dead processes and puts an orphaned ``.NAME.old-PID`` back as ``NAME`` when ``NAME`` is
missing (the interrupted overwrite never completed), or deletes it when ``NAME`` is there.
Siblings of live processes are never touched.

The output location is checked before any judge call
(:func:`judge.record.outdir.prepare_out_dir`): an existing non-empty ``NAME`` without
``--overwrite``, a ``NAME`` that is a file, a parent that is a file or that refuses a new entry
(read-only filesystem, permissions — probed by creating and removing a hidden directory) are
bad input. A failure while writing (disk full, file size limit) raises
:class:`RunWriteError` and leaves nothing behind.

An ``out`` that is a mount point (a Docker volume, ``--out /out``) cannot be renamed (``EBUSY``):
seen before any call (:mod:`judge.record.mounts`), the run is written into a hidden
``.NAME.tmp-PID`` inside it, then moved in file by file, ``summary.json`` last. A directory whose
rename still fails with ``EBUSY`` or ``EXDEV`` (a mount not listed) is filled the same way.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from judge.record.mounts import is_mount_point, move_into
from judge.record.outdir import prepare_out_dir, remove_path

# Test hook: seconds to sleep right before the new run is renamed into place (after the old one
# was moved aside, with --overwrite), so tests can SIGKILL a process at that point.
PAUSE_ENV = "SIMJUDGE_TEST_PAUSE_BEFORE_RENAME_S"


class RunWriteError(OSError):
    """Writing the run (or calibration) directory failed (disk full, size limit, I/O error);
    nothing was left behind and completed judge calls are in the cache."""


def _json_default(obj: Any) -> Any:
    if hasattr(obj, "tolist"):
        return obj.tolist()
    if hasattr(obj, "model_dump"):
        return obj.model_dump()
    raise TypeError(f"not JSON-serialisable: {type(obj).__name__}")


_ENCODER = json.JSONEncoder(ensure_ascii=False, default=_json_default)
"""What :func:`dumps` without ``indent`` calls: the encoder ``json.dumps`` would build anew on
every call (a run writes one line per verdict and per item)."""


def dumps(obj: Any, indent: int | None = None) -> str:
    """JSON text (UTF-8, non-ASCII kept, NaN allowed as in Python's json)."""
    if indent is None:
        return _ENCODER.encode(obj)
    return json.dumps(obj, ensure_ascii=False, indent=indent, default=_json_default)


def dumps_each(objs: Iterable[Any]) -> Iterator[str]:
    """:func:`dumps` of each object in turn (a JSONL file's lines, without their ``\\n``), the
    same text from one encoder: ``json.dumps`` and :func:`dumps` build the C encoder of
    :mod:`json` again for every object (a run writes one line per item)."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # a Python without the C accelerator
        yield from map(dumps, objs)
        return
    # the arguments JSONEncoder.iterencode passes for _ENCODER: markers for its circular
    # check, non-ASCII kept, no indent, ": " and ", ", keys unsorted and not skipped, NaN
    encode = make({}, _json_default, json.encoder.encode_basestring, None, ": ", ", ",
                  False, False, True)
    for obj in objs:
        yield "".join(encode(obj, 0))


def write_text_atomic(path: Path, write: Callable[[IO[str]], None]) -> int:
    """Write the UTF-8 text file ``path`` through ``write(file)`` under a temporary name
    beside it (``NAME.partial``), then rename it into place: an error (bad input found while
    writing, a full disk) or a kill never leaves a half-written ``path``; a previous file of
    that name stays as it was until the rename.

    Missing parent directories are created.

    Returns:
        The file's size in bytes.

    Raises:
        OSError: the file cannot be written: "cannot write PATH: reason" (the partial file is
            removed); whatever ``write`` raises (likewise).
    """
    tmp = path.with_name(path.name + ".partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "w", encoding="utf-8") as f:
            write(f)
        tmp.replace(path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise OSError(f"cannot write {path}: {exc.strerror or exc}") from exc
        raise
    return path.stat().st_size


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextmanager
def atomic_dir(out: Path, overwrite: bool = False) -> Iterator[Path]:
    """Yield a hidden temporary sibling of ``out`` (``.NAME.tmp-PID``) to fill; on success it
    replaces ``out``.

    With ``overwrite`` an existing ``out`` is renamed to ``.NAME.old-PID`` first and deleted
    only after the new directory is in place (a crash in between is repaired by
    :func:`judge.record.outdir.recover_leftovers`). Without it the final rename never replaces
    a non-empty directory, even one created by another process meanwhile. On any exception the
    temporary directory is removed and ``out`` is left as it was.

    Raises:
        InputError: ``out`` cannot be a run directory (see
            :func:`judge.record.outdir.check_out_dir`).
        RunWriteError: the filesystem refused a write (disk full, size limit…); nothing is left.
    """
    out = Path(os.path.abspath(out))
    prepare_out_dir(out, overwrite)
    mount = out.is_dir() and is_mount_point(out)  # written inside, moved in file by file
    tmp = (out if mount else out.parent) / f".{out.name}.tmp-{os.getpid()}"
    old = out.parent / f".{out.name}.old-{os.getpid()}"
    moved = False
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        if os.path.lexists(tmp):
            remove_path(tmp)
        tmp.mkdir()
        yield tmp
        for f in tmp.iterdir():
            if f.is_dir():  # a nested run directory, written (and synced) by its own atomic_dir
                continue
            with open(f, "rb") as fh:
                os.fsync(fh.fileno())
        _fsync_dir(tmp)
        try:
            if mount:
                raise OSError(errno.EBUSY, os.strerror(errno.EBUSY), str(out))
            if overwrite and os.path.lexists(out):
                if os.path.lexists(old):
                    remove_path(old)
                out.rename(old)
                moved = True
            pause = float(os.environ.get(PAUSE_ENV) or 0)
            if pause > 0:
                time.sleep(pause)
            tmp.rename(out)
            _fsync_dir(out.parent)
        except OSError as exc:  # a directory that cannot be renamed or replaced: fill it
            if moved or exc.errno not in (errno.EBUSY, errno.EXDEV) or not out.is_dir():
                raise
            move_into(tmp, out, overwrite)
            _fsync_dir(out)
    except BaseException as exc:
        remove_path(tmp)
        if moved and not os.path.lexists(out):
            with contextlib.suppress(OSError):  # else recover_leftovers restores it later
                old.rename(out)  # put the old run back
        if isinstance(exc, OSError) and not isinstance(exc, RunWriteError):
            room = exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
            raise RunWriteError(
                f"cannot write {out}: {exc.strerror or exc}. Nothing was left there; completed "
                "judge calls are in the cache, so a rerun "
                + ("with enough room " if room else "") + "pays for none of them") from exc
        raise
    if moved:
        remove_path(old)
