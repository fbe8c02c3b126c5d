"""Writing an output directory atomically: run directories (:mod:`judge.record.store`) and
calibration directories (``simjudge calibrate``).

Everything is written into a hidden sibling directory ``.NAME.tmp-PID`` first and renamed into
place at the end, so an interrupted or failed run leaves no half-written run directory (its
completed judge calls are in the cache, and a rerun resumes from there).

Crash safety (issue 11): ``--overwrite`` moves the old run aside to ``.NAME.old-PID``, renames
the new one into place and only then deletes the old one, so at every instant one complete run
exists. A process killed while writing leaves those hidden siblings; the next run into the same
parent directory (:func:`recover_leftovers`) removes the ``.tmp-PID`` ones of dead processes and
puts an orphaned ``.NAME.old-PID`` back as ``NAME`` when ``NAME`` is missing (the interrupted
overwrite never completed), or deletes it when ``NAME`` is there. Siblings of live processes are
never touched.

The output location is checked before any judge call (:func:`prepare_out_dir`): an existing
non-empty ``NAME`` without ``--overwrite``, a ``NAME`` that is a file, a parent that is a file or
that refuses a new entry (read-only filesystem, permissions — probed by creating and removing a
hidden directory) are bad input. A failure while writing (disk full, file size limit) raises
:class:`RunWriteError` and leaves nothing behind.

An ``out`` that is a mount point (a Docker volume, ``--out /out``) cannot be renamed (``EBUSY``):
seen before any call (:mod:`judge.record.mounts`), the run is written into a hidden
``.NAME.tmp-PID`` inside it, then moved in file by file, ``summary.json`` last. A directory whose
rename still fails with ``EBUSY`` or ``EXDEV`` (a mount not listed) is filled the same way.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from judge.errors import InputError
from judge.record.mounts import OUTPUT, is_mount_point, move_into

# Test hook: seconds to sleep right before the new run is renamed into place (after the old one
# was moved aside, with --overwrite), so tests can SIGKILL a process at that point.
PAUSE_ENV = "SIMJUDGE_TEST_PAUSE_BEFORE_RENAME_S"
_LEFTOVER = re.compile(r"^\.(?P<name>.+)\.(?P<kind>tmp|old)-(?P<pid>[0-9]{1,10})$")


class RunWriteError(OSError):
    """Writing the run (or calibration) directory failed (disk full, size limit, I/O error);
    nothing was left behind and completed judge calls are in the cache."""


def _json_default(obj: Any) -> Any:
    if hasattr(obj, "tolist"):
        return obj.tolist()
    if hasattr(obj, "model_dump"):
        return obj.model_dump()
    raise TypeError(f"not JSON-serialisable: {type(obj).__name__}")


def dumps(obj: Any, indent: int | None = None) -> str:
    """JSON text (UTF-8, non-ASCII kept, NaN allowed as in Python's json)."""
    return json.dumps(obj, ensure_ascii=False, indent=indent, default=_json_default)


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


def default_run_dir(kind: str, root: str | Path = "runs") -> Path:
    """``root/<UTC YYYYmmdd-HHMMSS>-<kind>-<pid>``: the default output directory of ``eval``
    (kind = task) and ``calibrate``. The process id makes two runs started in the same second
    on one host distinct (two live processes never share a pid); should a name still be taken,
    the final rename refuses to replace a non-empty directory."""
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%d-%H%M%S")
    return Path(root) / f"{stamp}-{kind}-{os.getpid()}"


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists on this host (``kill(pid, 0)``; a process of another user
    counts as alive; pid <= 0 is never declared dead)."""
    if pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def recover_leftovers(parent: Path) -> list[str]:
    """Clean up after processes killed while writing into ``parent``.

    For each hidden ``.NAME.tmp-PID`` / ``.NAME.old-PID`` entry whose PID is not a live process
    (and is not this process): an ``.old`` one is renamed back to ``NAME`` when ``NAME`` is
    missing (an ``--overwrite`` killed between its renames: the old run is restored); otherwise
    it is deleted if it looks like simjudge's own output — a ``.tmp`` directory holding only
    output-like files (``.json``, ``.jsonl``, ``.html``, ``.csv``, ``.png``, ``.md``), an
    ``.old`` directory holding ``config.json``, ``summary.json`` or ``calibration.json``.
    Entries of live processes, other tools' files that happen to match the pattern, and
    anything else are left alone. Races with another process doing the same are harmless.

    Returns:
        one line per action taken (``"removed …"``, ``"restored …"``), for logging.
    """
    done: list[str] = []
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return done
    for entry in entries:
        m = _LEFTOVER.match(entry.name)
        if m is None:
            continue
        pid = int(m["pid"])
        if pid == os.getpid() or pid_alive(pid):
            continue
        path = parent / entry.name
        target = parent / m["name"]
        try:
            if m["kind"] == "old" and not os.path.lexists(target):
                path.rename(target)
                done.append(f"restored {target} from {path.name} (an interrupted --overwrite)")
            elif _ours(path, m["kind"]):
                _remove(path)
                done.append(f"removed {path} (left by dead process {pid})")
        except OSError:
            continue  # another process got there first, or no permission: leave it
    return done


def _ours(path: Path, kind: str) -> bool:
    """Whether a leftover looks like simjudge output (see :func:`recover_leftovers`)."""
    if path.is_symlink() or not path.is_dir():
        return False
    names = [e.name for e in os.scandir(path)]
    if kind == "tmp":
        return all(n.endswith(OUTPUT) for n in names)
    return any(n in ("config.json", "summary.json", "calibration.json") for n in names)


def _nearest_existing(path: Path) -> Path:
    while not os.path.lexists(path) and path != path.parent:
        path = path.parent
    return path


def _protected(out: Path) -> bool:
    """Directories --overwrite must never replace: /, the home directory, and the current
    directory or any of its ancestors."""
    res = out.resolve()
    cwd = Path.cwd().resolve()
    return res == Path(res.anchor) or res == Path.home().resolve() or res == cwd or \
        res in cwd.parents


def check_out_dir(out: Path, overwrite: bool) -> None:
    """Check, before any judge call, that ``out`` can be written as a run directory.

    Raises:
        InputError: ``out`` is a file (also with ``overwrite``: it replaces only directories);
            ``out`` is a non-empty directory without ``overwrite``; ``overwrite`` of ``/``, the
            home directory or the current directory (or an ancestor); a parent of ``out`` is a
            file; the nearest existing parent refuses a new entry (read-only filesystem,
            permissions, no space) — probed by creating and removing a hidden directory (inside
            ``out`` when it is a mount point, where the run is written).
    """
    out = Path(os.path.abspath(out))
    try:
        exists = os.path.lexists(out)
        if exists and not out.is_dir():
            raise InputError("exists and is not a directory" + (
                "; --overwrite replaces only a run directory, never a file" if overwrite
                else ""), out)
        if exists and not overwrite and any(out.iterdir()):
            raise InputError("output directory exists and is not empty (use --overwrite)", out)
        if exists and overwrite and _protected(out):
            raise InputError("refusing to --overwrite the root, home or current directory "
                             "(or one of its parents)", out)
        anchor = out if exists and is_mount_point(out) else _nearest_existing(out.parent)
        if not anchor.is_dir():
            raise InputError(f"cannot create the output directory: {anchor} is not a "
                             "directory", out)
        # named like a temp dir of this process, so a kill right here is cleaned up later
        probe = tempfile.mkdtemp(prefix=f".{out.name}.probe", suffix=f".tmp-{os.getpid()}",
                                 dir=anchor)
        os.rmdir(probe)
    except InputError:
        raise
    except OSError as exc:
        where = exc.filename or out
        raise InputError(f"cannot write the output directory here: {exc.strerror or exc} "
                         f"({where})", out) from None


def prepare_out_dir(out: Path, overwrite: bool) -> list[str]:
    """:func:`recover_leftovers` in ``out``'s parent, then :func:`check_out_dir`.

    Returns:
        the recovery actions taken.

    Raises:
        InputError: as :func:`check_out_dir`.
    """
    out = Path(os.path.abspath(out))
    done = recover_leftovers(out.parent)
    if out.is_dir() and is_mount_point(out):
        done += recover_leftovers(out)
    check_out_dir(out, overwrite)
    return done


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
    :func:`recover_leftovers`). Without it the final rename never replaces a non-empty
    directory, even one created by another process meanwhile. On any exception the temporary
    directory is removed and ``out`` is left as it was.

    Raises:
        InputError: ``out`` cannot be a run directory (see :func:`check_out_dir`).
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
            _remove(tmp)
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
                    _remove(old)
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
        _remove(tmp)
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
        _remove(old)
