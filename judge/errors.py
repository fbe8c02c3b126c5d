"""Errors that the CLI turns into one clear message and exit status 2, and the warnings it
prints."""

from __future__ import annotations

from pathlib import Path


def flag(option: str) -> str:
    """The command-line spelling of an option named semantically: ``arg_tau`` → ``--arg-tau``.

    The one place an option's name becomes a flag, so code compares option *names* (``tau``,
    ``arg_judge``), never spellings (``tests/judge/test_layout.py``).

    Args:
        option: a Python identifier (``tau``, ``arg_judge``, ``max_usd``).

    Returns:
        ``--`` followed by the name with ``_`` replaced by ``-``.
    """
    return "--" + option.replace("_", "-")


def printable(name: str) -> str:
    """A name read from the data (a field, a key) as one line prints it: unchanged when every
    character prints, else escaped as Python escapes it (``a<newline>b`` → ``a\\nb``)."""
    return name if name.isprintable() else repr(name)[1:-1]


class InputError(ValueError):
    """Bad user input: formatted as ``FILE:LINE: field 'x': what is wrong`` (a field name
    with characters that do not print, such as a newline, is shown escaped: ``'a\\nb'``).

    Args:
        message: what is wrong.
        path: the offending file, if any.
        line: 1-based line number in that file, if known.
        field: the offending field name, if any.
    """

    def __init__(self, message: str, path: str | Path | None = None, line: int | None = None,
                 field: str | None = None) -> None:
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        self.field = field
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.path is not None:
            where = self.path + (f":{self.line}" if self.line is not None else "") + ": "
        field = f"field '{printable(self.field)}': " if self.field is not None else ""
        return f"{where}{field}{self.message}"


class CacheMissError(RuntimeError):
    """A judge call was needed in ``cache-only`` mode (reproducing a run offline)."""


class CacheEntryError(CacheMissError):
    """In ``cache-only`` mode, a cache entry under a needed key is not a stored answer (not a
    reply this judge can read: ``0``, ``"garbage"``, ``{"x": 1}``…): the cache is damaged or
    was edited. The run stops before any judge is called — answering it from the judge would
    send the user's API key to whatever ``--base-url`` the replayed command names."""


class BatchPendingError(RuntimeError):
    """A Batch API batch (``eval --batch-api``) could not be followed to its end; it keeps
    running at the provider and the same command resumes it (exit status 1)."""


class StaleCalibrationWarning(UserWarning):
    """``eval --tau-from`` used the τ of a calibration made with another judge, because the user
    allowed it (``--allow-stale-calibration``; :mod:`judge.judges.identity`). The message names
    each differing field; ``config.json``'s ``tau_from`` records them."""


class CacheRefusedWarning(UserWarning):
    """The judge-call cache refused a write (disk full, file size limit, I/O error) mid-run: the
    answers are kept in memory, served to the rest of the run, and written into the run
    (``unstored_answers.jsonl``; :meth:`judge.cache.JudgeCache.set`)."""


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) stopped an evaluation while it judged, scored or wrote: no run
    directory was written (:func:`judge.record.atomic.atomic_dir` removes its temporary one),
    and every judge answer completed before the interrupt is in the cache, so a rerun reuses
    them. A :class:`KeyboardInterrupt`, so code that handles that still does.

    Args:
        stored: answers this run stored in the cache (:attr:`judge.cache.JudgeCache.stored`).
        cache_dir: the cache directory, as text.
        mode: the cache mode (only ``read-write`` stores answers).
        lost: answers a full disk refused and still refuses (held in memory, now lost).
    """

    def __init__(self, stored: int, cache_dir: str, mode: str, lost: int = 0) -> None:
        self.stored = stored
        self.cache_dir = cache_dir
        self.mode = mode
        self.lost = lost
        super().__init__(self.message())

    def message(self) -> str:
        """The one line ``simjudge eval`` prints: what was stopped and what was kept."""
        if self.mode != "read-write":
            kept = f"the cache ({self.mode} mode) stored no answer of this run"
        elif self.stored:
            kept = (f"the {self.stored:,} judge answer(s) completed before it are kept in the "
                    f"cache {self.cache_dir}: a rerun reuses them")
        else:
            kept = "no judge answer had completed yet"
        if self.lost:
            kept += f"; {self.lost:,} answer(s) the full disk refused are lost"
        return f"interrupted: no run directory written; {kept}"
