"""Collecting an ended batch: its output and error files are streamed to disk, read line by
line, each answer parsed like a direct reply (:func:`judge.judges.llm.replies.chat_result`),
stored in the cache at once and kept for the run (:class:`BatchAnswers`).

A ``custom_id`` that appears more than once with *different* bodies (status, body or error)
is a :class:`ConflictingAnswer` — ``parse_error`` naming the batch — and none of its copies is
cached: nothing says which copy is right. Copies that are identical (apart from the line's own
``id`` and ``request_id``) are harmless: one is used. Memory holds one batch's index (at most
``max_requests`` keys), never the whole run.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from judge.judges.failures import TransportError
from judge.judges.llm.batchanswers import BatchAnswers, ConflictingAnswer
from judge.judges.llm.batchstate import (
    BatchState,
    drop_local_files,
    input_path,
    requests_path,
    save,
)


class _Reply:
    """A downloaded answer body in the shape :func:`chat_result` reads (an HTTP response)."""

    def __init__(self, body: Any) -> None:
        self.text = json.dumps(body, ensure_ascii=False)
        self.headers = {"content-type": "application/json"}


def errors_of(batch: Any) -> list[str]:
    """The server's ``errors`` of a Batch object as ``code: message (line N)`` strings."""
    errs = getattr(batch, "errors", None)
    out = []
    for e in (getattr(errs, "data", None) or []):
        where = f" (line {e.line})" if getattr(e, "line", None) else ""
        out.append(f"{e.code or 'error'}: {e.message or 'no message'}{where}")
    return out


def error_of(line: dict[str, Any], batch_id: str) -> TransportError:
    """The failure of one error-file (or non-200 output) line."""
    resp: dict[str, Any] = line["response"] if isinstance(line.get("response"), dict) else {}
    body: dict[str, Any] = resp["body"] if isinstance(resp.get("body"), dict) else {}
    err: dict[str, Any] = (line["error"] if isinstance(line.get("error"), dict) else
                           body["error"] if isinstance(body.get("error"), dict) else {})
    msg = str(err.get("message") or err.get("code") or "no reason given")
    code = resp.get("status_code")
    where = f"HTTP {code}: " if isinstance(code, int) else ""
    return TransportError(f"batch {batch_id}: {where}{msg}", raw=json.dumps(line)[:2000],
                          cause=f"batch request failed ({code or err.get('code')})")


async def download(client: Any, file_id: str | None, dest: Path) -> Path | None:
    """Stream a file's content to ``dest`` (``files.content``, never whole in memory)."""
    if not file_id:
        return None
    async with client.files.with_streaming_response.content(file_id) as resp:
        with open(dest, "wb") as f:
            async for chunk in resp.iter_bytes(1 << 20):
                f.write(chunk)
    return dest


def _lines(paths: list[Path | None]) -> Iterator[dict[str, Any]]:
    for path in paths:
        if path is None:
            continue
        with open(path, "rb") as f:
            for raw in f:
                try:
                    obj = json.loads(raw)
                except ValueError:
                    continue  # a broken line: its request stays unanswered (reported as such)
                if isinstance(obj, dict) and isinstance(obj.get("custom_id"), str):
                    yield obj


def _fingerprint(line: dict[str, Any]) -> str:
    resp = line.get("response") if isinstance(line.get("response"), dict) else {}
    assert isinstance(resp, dict)
    same = {"status": resp.get("status_code"), "body": resp.get("body"),
            "error": line.get("error")}
    return hashlib.sha256(json.dumps(same, sort_keys=True).encode()).hexdigest()


class _Buffered:
    """Stands in for the cache in ``judge.store``: answers are written :data:`FLUSH_EVERY`
    at a time in one transaction (``JudgeCache.set_many``, one disk sync instead of one per
    answer — 0.33 ms each measured). A kill loses at most the unflushed ones, and the batch is
    then not marked collected: the rerun downloads it again."""

    def __init__(self, cache: Any) -> None:
        self.cache = cache
        self.pending: dict[str, Any] = {}

    def set(self, key: str, value: Any) -> bool:
        self.pending[key] = value
        if len(self.pending) >= FLUSH_EVERY:
            self.flush()
        return True

    def flush(self) -> None:
        self.cache.set_many(self.pending)
        self.pending = {}


FLUSH_EVERY = 1000


class _Index:
    """A chunk's requests by key: offsets into its requests file and input file."""

    def __init__(self, directory: Path, digest: str) -> None:
        self.req_path, self.in_path = (requests_path(directory, digest),
                                       input_path(directory, digest))
        self.at: dict[str, tuple[int, int]] = {}
        if not (self.req_path.exists() and self.in_path.exists()):
            return
        with open(self.req_path, "rb") as fr, open(self.in_path, "rb") as fi:
            ro = io_ = 0
            for rline in fr:
                iline = fi.readline()
                self.at[json.loads(rline)["key"]] = (ro, io_)
                ro, io_ = ro + len(rline), io_ + len(iline)
        self.fr = open(self.req_path, "rb")  # noqa: SIM115 (closed by close())
        self.fi = open(self.in_path, "rb")  # noqa: SIM115

    def request(self, key: str) -> Any:
        from judge.judges.llm.llmjudge import Request

        ro, io_ = self.at[key]
        self.fr.seek(ro)
        self.fi.seek(io_)
        d = json.loads(self.fr.readline())
        messages = json.loads(self.fi.readline())["body"]["messages"]
        return Request(d["anchor"], d["items"], messages, d["anchor_is_pred"], key)

    def close(self) -> None:
        if self.at:
            self.fr.close()
            self.fi.close()


async def collect(client: Any, judge: Any, state: BatchState, batch: Any, directory: Path,
                  answers: BatchAnswers, cache: Any) -> tuple[int, int]:
    """Download an ended batch's results, cache its answers and record each request's answer
    or failure in ``answers``; ``state`` becomes collected (its local chunk files removed).

    Args:
        client: the judge's ``AsyncOpenAI`` client.
        judge: the ``openai:`` judge that made the requests (parses and stores the answers).
        state: the chunk's state (updated: status, errors, counts, collected).
        batch: the provider's ended Batch object.
        directory: ``<cache>/batches``.
        answers: the run's answer store.
        cache: the run's read-write :class:`judge.cache.JudgeCache`.

    Returns:
        ``(prompt tokens, completion tokens)`` the answers used (their usage).

    Raises:
        openai.APIError: the result files could not be downloaded (the batch stays
            uncollected: a rerun downloads them again).
        OSError: the disk refused the downloaded files or the cache a write.
    """
    from judge.judges.llm.replies import chat_result

    tmp = directory / f".result-{os.getpid()}-{state.digest[:16]}"
    files = [await download(client, batch.output_file_id, tmp.with_suffix(".out")),
             await download(client, batch.error_file_id, tmp.with_suffix(".err"))]
    index = _Index(directory, state.digest)
    state.status, state.errors = batch.status, errors_of(batch)
    state.output_file_id, state.error_file_id = batch.output_file_id, batch.error_file_id
    seen: dict[str, str] = {}
    conflicts: set[str] = set()
    for line in _lines(files):
        key, fp = line["custom_id"], _fingerprint(line)
        if seen.setdefault(key, fp) != fp:
            conflicts.add(key)
    done: set[str] = set()
    answered = t_in = t_out = 0
    store = _Buffered(cache)
    answers.begin()
    try:
        for line in _lines(files):
            key = line["custom_id"]
            if key in done or key not in index.at:
                continue  # an identical copy, or a line for a request this chunk never had
            done.add(key)
            if key in conflicts:
                answers[key] = ConflictingAnswer(
                    f"batch {batch.id}: custom_id {key[:16]}… appears more than once in its "
                    "results with different bodies; no copy is trusted",
                    raw=json.dumps(line)[:2000], cause="conflicting batch answers")
                continue
            resp = line.get("response")
            if not (isinstance(resp, dict) and resp.get("status_code") == 200):
                answers[key] = error_of(line, batch.id)
                continue
            try:
                res = chat_result(_Reply(resp.get("body")), state.mode)
            except TransportError as exc:  # an answer that breaks the protocol
                answers[key] = TransportError(f"batch {batch.id}: {exc.message}", raw=exc.raw,
                                              cause=exc.cause)
                continue
            judge.store(index.request(key), res, store)  # cached as it is read
            answers[key] = res
            answered += 1
            t_in, t_out = t_in + res.tokens_in, t_out + res.tokens_out
        store.flush()
        why = f": {'; '.join(state.errors)}" if state.errors else ""
        for key in index.at.keys() - done:
            answers[key] = TransportError(
                f"batch {batch.id} ended {batch.status} without answering this request{why}",
                cause=f"batch {batch.status}")
    finally:
        answers.commit()
        index.close()
        for f in files:
            if f is not None:
                f.unlink(missing_ok=True)
    state.answered, state.failed = answered, len(index.at) - answered
    state.done, state.collected = len(index.at), True
    save(directory, state)
    drop_local_files(directory, state.digest)
    return t_in, t_out
