"""Where a run is written, made ready before any judge call: the default output directory's
name (:func:`default_run_dir`), the leftovers of killed processes in its parent cleaned
(:func:`recover_leftovers`), and whether the directory can receive a run
(:func:`check_out_dir`); :func:`prepare_out_dir` does the last two. :mod:`judge.record.atomic`
then writes the run there."""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import tempfile
from pathlib import Path

from judge.errors import InputError
from judge.record.mounts import OUTPUT, is_mount_point
from judge.record.outkind import output_kind

PROBE_BYTES = 4096
"""Bytes written (and synced) where the run will go, before any judge call: a full disk that can
still create directories (free inodes, no free block) is refused then, not after the calls are
paid. One block, so a disk (or a file size limit) with room for small files still runs."""
_LEFTOVER = re.compile(r"^\.(?P<name>.+)\.(?P<kind>tmp|old)-(?P<pid>[0-9]{1,10})$")


def default_run_dir(kind: str, root: str | Path = "runs") -> Path:
    """``root/<UTC YYYYmmdd-HHMMSS>-<kind>-<pid>``: the default output directory of ``eval``
    (kind = task) and ``calibrate``. The process id makes two processes' runs started in the
    same second on one host distinct (two live processes never share a pid); a second run of
    the same process in the same second (two ``judge.evaluate`` calls of a notebook) gets
    ``-2``, ``-3``… after the pid, the first number whose folder does not exist yet. Should a
    name still be taken, the final rename refuses to replace a non-empty directory."""
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%d-%H%M%S")
    path = Path(root) / f"{stamp}-{kind}-{os.getpid()}"
    n = 1
    while os.path.lexists(path if n == 1 else f"{path}-{n}"):
        n += 1
    return path if n == 1 else Path(f"{path}-{n}")


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
            home directory or the current directory (or an ancestor), or of a non-empty
            directory that is no simjudge output (:func:`judge.record.outkind.output_kind`);
            a parent of ``out`` is a file; the nearest existing parent refuses a new entry or
            data (read-only filesystem, permissions, no space) — probed by creating a hidden
            directory with a :data:`PROBE_BYTES` file in it, synced, then removed (inside
            ``out`` when it is a mount point, where the run is written).
    """
    out = Path(os.path.abspath(out))
    try:
        exists = os.path.lexists(out)
        if exists and not out.is_dir():
            raise InputError("exists and is not a directory" + (
                "; --overwrite replaces only a run directory, never a file" if overwrite
                else ""), out)
        mount = exists and is_mount_point(out)
        # a volume's own lost+found is not content: it is never touched (judge.record.atomic)
        content = exists and any(not (mount and p.name == "lost+found") for p in out.iterdir())
        if content and not overwrite:
            raise InputError("output directory exists and is not empty (use --overwrite)", out)
        if exists and overwrite and _protected(out):
            raise InputError("refusing to --overwrite the root, home or current directory "
                             "(or one of its parents)", out)
        if content and overwrite and output_kind(out) is None:
            raise InputError("--overwrite replaces only a simjudge output (a run's config.json "
                             "and summary.json, or calibration.json, leaderboard.json, "
                             "estimate.json); this folder is none, so nothing was touched: "
                             "give another --out", out)
        anchor = out if mount else _nearest_existing(out.parent)
        if not anchor.is_dir():
            raise InputError(f"cannot create the output directory: {anchor} is not a "
                             "directory", out)
        # named like a temp dir of this process, so a kill right here is cleaned up later
        probe = tempfile.mkdtemp(prefix=f".{out.name}.probe", suffix=f".tmp-{os.getpid()}",
                                 dir=anchor)
        try:  # real bytes: a full disk can still create directories (free inodes)
            with open(os.path.join(probe, "probe"), "wb") as fh:
                fh.write(b"\0" * PROBE_BYTES)
                fh.flush()
                os.fsync(fh.fileno())
        finally:
            shutil.rmtree(probe, ignore_errors=True)
    except InputError:
        raise
    except OSError as exc:
        where = exc.filename or out
        raise InputError(f"cannot write the output directory here: {exc.strerror or exc} "
                         f"({where})", out) from None


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


def remove_path(path: Path) -> None:
    """Remove a directory tree, a file or a symlink (missing: nothing to do)."""
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
                remove_path(path)
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


def prepare_out_dir(out: Path, overwrite: bool) -> list[str]:
    """:func:`recover_leftovers` in ``out``'s parent, then :func:`check_out_dir`.

    Returns:
        the recovery actions taken.

    Raises:
        InputError: as :func:`judge.record.outdir.check_out_dir`.
    """
    out = Path(os.path.abspath(out))
    done = recover_leftovers(out.parent)
    if out.is_dir() and is_mount_point(out):
        done += recover_leftovers(out)
    check_out_dir(out, overwrite)
    return done
