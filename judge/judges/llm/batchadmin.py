"""``simjudge batches list|cancel|clean``: the batches and uploaded files recorded in a cache
directory's ``<cache>/batches/`` (:mod:`judge.judges.llm.batchstate`), checked and managed at
the provider each was submitted to (its ``base_url``, its key read from the environment
variable the state names).

* :func:`list_batches` — every batch (current and earlier ones of the same content), its
  status at the provider, requests done, whether its answers are in the cache, its files;
* :func:`cancel_batches` — cancel running batches (by id, or all);
* :func:`clean_batches` — for batches whose answers are in the cache (and chunks never
  submitted): delete their files at the provider (input, output, error) and their local
  state; running or uncollected batches are kept. Scratch files of runs no longer alive go too.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from judge.errors import InputError
from judge.judges.llm.batchstate import BatchState, all_states, drop_local_files, save

ADMIN_TIMEOUT_S, ADMIN_RETRIES = 60.0, 2
_SCRATCH = re.compile(r"^\.(?:run|chunk|result)-(\d+)-")


class _Clients:
    """One ``AsyncOpenAI`` client per (endpoint, key variable)."""

    def __init__(self) -> None:
        self.made: dict[tuple[str | None, str], Any] = {}

    def of(self, s: BatchState) -> Any:
        from judge.judges.llm.openai_client import make_client

        k = (s.base_url, s.api_key_env)
        if k not in self.made:
            self.made[k] = make_client(s.api_key_env, s.base_url, ADMIN_TIMEOUT_S,
                                       ADMIN_RETRIES, "httpx")
        return self.made[k]

    async def close(self) -> None:
        for c in self.made.values():
            await c.close()


def _row(s: BatchState, batch_id: str | None, status: str | None, current: bool,
         **extra: Any) -> dict[str, Any]:
    return {"batch_id": batch_id, "judge": s.judge, "model": s.model, "status": status,
            "requests": s.requests, "done": s.done if current else None,
            "collected": s.collected if current else True, "current": current,
            "created_at": s.created_at, "digest": s.digest, "base_url": s.base_url,
            "input_file_id": s.input_file_id, "bytes": s.bytes, **extra}


async def list_batches(directory: Path, refresh: bool = True) -> list[dict[str, Any]]:
    """Every batch recorded under ``directory`` (``<cache>/batches``), oldest first.

    Args:
        directory: ``<cache>/batches``.
        refresh: ask the provider for the status of each batch not yet collected (and save
            it); False reads the states only.

    Returns:
        One dict per batch: ``batch_id`` (None for a chunk never submitted), ``judge``,
        ``model``, ``status``, ``requests``, ``done``, ``collected`` (answers in the cache),
        ``current`` (False: an earlier batch of the same content, resubmitted since),
        ``created_at``, ``digest``, ``base_url``, ``input_file_id``, ``output_file_id``,
        ``error_file_id``, ``bytes``, ``errors``, and ``error`` when the provider could not
        be asked.
    """
    clients = _Clients()
    rows: list[dict[str, Any]] = []
    try:
        for s in all_states(directory):
            note: dict[str, Any] = {}
            if refresh and s.batch_id and not s.collected:
                try:
                    b = await clients.of(s).batches.retrieve(s.batch_id)
                    counts = b.request_counts
                    s.status = b.status
                    s.done = (counts.completed + counts.failed) if counts else s.done
                    s.output_file_id, s.error_file_id = b.output_file_id, b.error_file_id
                    save(directory, s)
                except Exception as exc:  # shown in the row; the others are still listed
                    note["error"] = f"{type(exc).__name__}: {exc}"
            for h in s.history:
                rows.append(_row(s, h.get("batch_id"), h.get("status"), False,
                                 output_file_id=h.get("output_file_id"),
                                 error_file_id=h.get("error_file_id"),
                                 errors=h.get("errors") or []))
            rows.append(_row(s, s.batch_id, s.status, True, output_file_id=s.output_file_id,
                             error_file_id=s.error_file_id, errors=s.errors, **note))
    finally:
        await clients.close()
    return rows


async def cancel_batches(directory: Path, batch_ids: list[str], every: bool = False,
                         ) -> list[dict[str, Any]]:
    """Cancel running batches recorded under ``directory``: those named, or with ``every``
    all that have not ended. What they answered before stopping is collected by the next
    ``eval --batch-api`` run on this cache.

    Returns:
        Per batch ``{"batch_id", "status"}`` (the provider's status after the cancel, usually
        ``cancelling``) or ``{"batch_id", "error"}``.

    Raises:
        InputError: (field ``batch``) a named batch is not recorded there, or neither ids nor
            ``every`` were given — checked before any call.
    """
    states = [s for s in all_states(directory) if s.batch_id]
    known = {s.batch_id: s for s in states}
    unknown = [b for b in batch_ids if b not in known]
    if unknown:
        raise InputError(f"no batch {', '.join(unknown)} recorded in {directory}",
                         field="batch")
    if not batch_ids and not every:
        raise InputError("name the batches to cancel, or pass --all", field="batch")
    chosen = ([s for s in states if not s.terminal] if every
              else [known[b] for b in batch_ids])
    clients = _Clients()
    out: list[dict[str, Any]] = []
    try:
        for s in chosen:
            try:
                b = await clients.of(s).batches.cancel(s.batch_id)
            except Exception as exc:
                out.append({"batch_id": s.batch_id, "error": f"{type(exc).__name__}: {exc}"})
                continue
            s.status, s.cancel_requested = b.status, True
            save(directory, s)
            out.append({"batch_id": s.batch_id, "status": b.status})
    finally:
        await clients.close()
    return out


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


async def clean_batches(directory: Path) -> dict[str, Any]:
    """Delete what is no longer needed: for each batch whose answers are in the cache, and
    each chunk never made a batch, its files at the provider (``files.delete``; a file
    already gone counts as deleted) and its local state; running or uncollected batches are
    kept. Scratch files left by runs that are no longer alive are removed.

    Returns:
        ``{"removed": [digest…], "files_deleted": [file id…], "kept": [batch id…],
        "errors": [text…], "scratch": n}``; a state whose files could not be deleted is kept
        (and its error listed).
    """
    from openai import NotFoundError

    clients = _Clients()
    out: dict[str, Any] = {"removed": [], "files_deleted": [], "kept": [], "errors": [],
                           "scratch": 0}
    try:
        for s in all_states(directory):
            if s.batch_id and not s.collected:
                out["kept"].append(s.batch_id)
                continue
            ids = [s.input_file_id, s.output_file_id, s.error_file_id,
                   *(h.get(k) for h in s.history for k in ("output_file_id", "error_file_id"))]
            failed = False
            for fid in dict.fromkeys(i for i in ids if i):
                try:
                    await clients.of(s).files.delete(fid)
                except NotFoundError:
                    pass
                except Exception as exc:
                    out["errors"].append(f"{fid}: {type(exc).__name__}: {exc}")
                    failed = True
                    continue
                out["files_deleted"].append(fid)
            if not failed:
                drop_local_files(directory, s.digest, state=True)
                out["removed"].append(s.digest)
    finally:
        await clients.close()
    if directory.is_dir():
        for p in directory.iterdir():
            m = _SCRATCH.match(p.name)
            if m and not _alive(int(m.group(1))):
                p.unlink(missing_ok=True)
                out["scratch"] += 1
    return out
