"""A loopback fake of the OpenAI Batch API (``/v1/files`` and ``/v1/batches``) on top of
:class:`tests.fake_openai.FakeOpenAIServer` (127.0.0.1 only), for ``eval --batch-api`` tests and
benchmarks. Written from the public API reference (Files: create, list, retrieve, delete,
content; Batches: create, list with ``after``/``limit``, retrieve, cancel; the Batch object,
its ``errors`` and ``request_counts``; the batch input and output line formats).

Uploaded and result files are kept in memory, or under ``file_dir`` on disk (the 1M-request
benchmark). A batch is ``validating`` until its first retrieve, which checks the input file
against the provider's limits — more than ``max_requests`` lines or ``max_bytes`` bytes, or
more prompt tokens than the model's ``queue_tokens`` limit allows beside the batches in flight
(``token_limit_exceeded``) — and fails it with ``errors`` as OpenAI does. Then it answers
``in_progress`` to its first ``polls_until_done`` retrieves and ends with ``outcome``:

* ``completed`` — every request line is answered by the chat fake (the same deterministic
  scores as a direct call); with ``error_every`` = k, every k-th line gets an HTTP 400 error line
  in the error file instead; with ``duplicate_every`` = k every k-th answer is written twice,
  the second copy with another score, and with ``duplicate_same_every`` = k twice alike;
* ``expired`` — only the first ``expire_after`` lines are answered, the rest are error lines with
  code ``batch_expired`` (what OpenAI writes for a batch that ran out of its 24 h window);
* ``failed`` — no output at all, ``errors`` says why (a malformed input file, say);
* ``cancelled`` — as if cancelled by the user: no output.

With ``retrieve_status`` set, retrieves answer that HTTP status (the batch runs on: a client
that loses track of it). ``POST /v1/batches/{id}/cancel`` makes a running batch
``cancelling``; its next retrieve ends it ``cancelled`` with its first ``answer_before_cancel``
lines answered. The batch, file and line objects follow the API reference's shapes so the real
``openai`` SDK parses them. Prompt tokens are counted as the chat fake's usage does (JSON
length of the messages / 4).
"""

from __future__ import annotations

import itertools
import json
import re
import time
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fake_openai import FakeOpenAIServer, LoggedRequest

Reply = tuple[int, dict[str, Any] | bytes, dict[str, str]]
RUNNING = ("validating", "in_progress", "finalizing", "cancelling")


class FileStore(MutableMapping[str, bytes]):
    """File id → content, in memory or (``directory`` set) on disk."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory
        self._mem: dict[str, bytes] = {}
        self._ids: list[str] = []

    def __getitem__(self, fid: str) -> bytes:
        if self.directory is None:
            return self._mem[fid]
        if fid not in self._ids:
            raise KeyError(fid)
        return (self.directory / fid).read_bytes()

    def __setitem__(self, fid: str, data: bytes) -> None:
        if fid not in self._ids:
            self._ids.append(fid)
        if self.directory is None:
            self._mem[fid] = data
        else:
            (self.directory / fid).write_bytes(data)

    def __delitem__(self, fid: str) -> None:
        self._ids.remove(fid)
        if self.directory is None:
            del self._mem[fid]
        else:
            (self.directory / fid).unlink()

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._ids))

    def __len__(self) -> int:
        return len(self._ids)

    def size(self, fid: str) -> int:
        """Bytes of a stored file."""
        return (len(self._mem[fid]) if self.directory is None
                else (self.directory / fid).stat().st_size)


def _multipart(content_type: str, raw: bytes) -> dict[str, bytes]:
    """The fields of a ``multipart/form-data`` body (RFC 7578), without copying it per line."""
    m = re.search(r'boundary="?([^";]+)"?', content_type)
    assert m, content_type
    sep = b"--" + m.group(1).encode()
    fields = {}
    for part in raw.split(sep)[1:]:
        if part.startswith(b"--"):
            break
        head, _, body = part.partition(b"\r\n\r\n")
        name = re.search(rb'name="([^"]*)"', head)
        if name:
            fields[name.group(1).decode()] = body[:-2] if body.endswith(b"\r\n") else body
    return fields


def prompt_tokens(line: dict[str, Any]) -> int:
    """A request line's prompt tokens as the fake counts them (JSON of the messages / 4)."""
    return len(json.dumps(line["body"].get("messages", []))) // 4


@dataclass
class FakeBatchServer(FakeOpenAIServer):
    """Chat completions plus the Batch API (see the module docstring)."""

    polls_until_done: int = 1
    outcome: str = "completed"
    error_every: int = 0
    expire_after: int = 0
    duplicate_every: int = 0
    duplicate_same_every: int = 0
    answer_before_cancel: int = 0
    max_requests: int = 50_000
    max_bytes: int = 200_000_000
    queue_tokens: dict[str, int] = field(default_factory=dict)
    file_dir: Path | None = None
    log_lines: bool = True
    retrieve_status: int = 0
    batches: dict[str, dict[str, Any]] = field(default_factory=dict)
    retrieves: dict[str, int] = field(default_factory=dict)
    cancels: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        super().__post_init__()
        self._ids = itertools.count(1)
        self.files = FileStore(self.file_dir)
        self.file_objects: dict[str, dict[str, Any]] = {}
        self._tokens: dict[str, tuple[str, int]] = {}  # batch id -> (model, prompt tokens)

    def _record(self, path: str, body: dict[str, Any], response: str,
                constraint: str = "") -> LoggedRequest:
        if self.log_lines or not path.startswith("/batch/"):
            return super()._record(path, body, response, constraint)
        # a batch line answered but not logged (a large batch's log would fill the memory)
        return LoggedRequest(time.time(), path, body, response, constraint)

    async def _route(self, method: str, path: str, body: dict[str, Any]) -> Reply:
        route, _, query = path.partition("?")
        parts = route.strip("/").split("/")  # v1, files|batches, id, action
        if parts[:2] == ["v1", "files"]:
            return self._files(method, parts[2:], body, query)
        if parts[:2] == ["v1", "batches"]:
            if method == "POST" and len(parts) == 2:
                return self._create(body)
            if method == "GET" and len(parts) == 2:
                return self._list(query)
            if len(parts) >= 3 and parts[2] not in self.batches:
                return 404, {"error": {"message": f"no batch {parts[2]}"}}, {}
            if method == "GET" and len(parts) == 3:
                return await self._retrieve(parts[2])
            if method == "POST" and parts[3:] == ["cancel"]:
                return self._cancel(parts[2])
        return await super()._route(method, path, body)

    # ------------------------------------------------------------------- files
    def _files(self, method: str, rest: list[str], body: dict[str, Any], query: str) -> Reply:
        if method == "POST" and not rest:
            return self._upload(body)
        if method == "GET" and not rest:
            data = list(self.file_objects.values())
            return 200, {"object": "list", "data": data, "has_more": False}, {}
        fid = rest[0]
        if fid not in self.files:
            return 404, {"error": {"message": f"No such File object: {fid}",
                                   "type": "invalid_request_error"}}, {}
        if method == "DELETE":
            del self.files[fid]
            self.file_objects.pop(fid, None)
            self.deleted.append(fid)
            return 200, {"id": fid, "object": "file", "deleted": True}, {}
        if rest[1:] == ["content"]:
            return 200, self.files[fid], {"content-type": "application/octet-stream"}
        return 200, self.file_objects[fid], {}

    def _new_file(self, data: bytes, name: str, purpose: str) -> str:
        fid = f"file-{next(self._ids)}"
        self.files[fid] = data
        self.file_objects[fid] = {"id": fid, "object": "file", "bytes": len(data),
                                  "created_at": int(time.time()), "filename": name,
                                  "purpose": purpose, "status": "processed"}
        return fid

    def _upload(self, body: dict[str, Any]) -> Reply:
        fields = _multipart(body["_content_type"], body["_multipart"])
        fid = self._new_file(fields["file"], "simjudge-batch.jsonl", fields["purpose"].decode())
        return 200, self.file_objects[fid], {}

    # ----------------------------------------------------------------- batches
    def _create(self, body: dict[str, Any]) -> Reply:
        if body.get("input_file_id") not in self.files:
            return 400, {"error": {"message": "no such input file"}}, {}
        bid = f"batch_{next(self._ids)}"
        self.batches[bid] = {
            "id": bid, "object": "batch", "endpoint": body["endpoint"],
            "input_file_id": body["input_file_id"], "completion_window": "24h",
            "status": "validating", "created_at": int(time.time()), "errors": None,
            "metadata": body.get("metadata"), "output_file_id": None, "error_file_id": None,
            "request_counts": {"total": 0, "completed": 0, "failed": 0}}
        self.retrieves[bid] = 0
        return 200, self.batches[bid], {}

    def _list(self, query: str) -> Reply:
        args = dict(p.partition("=")[::2] for p in query.split("&") if p)
        ids = list(reversed(self.batches))  # newest first
        if args.get("after") in ids:
            ids = ids[ids.index(args["after"]) + 1:]
        limit = int(args.get("limit") or 20)
        data = [self.batches[k] for k in ids[:limit]]
        return 200, {"object": "list", "data": data, "has_more": len(ids) > limit,
                     "first_id": data[0]["id"] if data else None,
                     "last_id": data[-1]["id"] if data else None}, {}

    def _cancel(self, bid: str) -> Reply:
        batch = self.batches[bid]
        self.cancels.append(bid)
        if batch["status"] in ("validating", "in_progress", "finalizing"):
            batch["status"] = "cancelling"
        return 200, batch, {}

    def _fail(self, batch: dict[str, Any], code: str, message: str) -> None:
        batch.update(status="failed", errors={"object": "list", "data": [
            {"code": code, "message": message, "param": None, "line": None}]})

    def _validate(self, batch: dict[str, Any]) -> None:
        data = self.files[batch["input_file_id"]]
        lines = data.splitlines()
        batch["request_counts"]["total"] = len(lines)
        if len(lines) > self.max_requests:
            return self._fail(batch, "too_many_requests", f"The batch input file has "
                              f"{len(lines)} requests; the limit is {self.max_requests}.")
        if len(data) > self.max_bytes:
            return self._fail(batch, "file_too_large", f"The batch input file is {len(data)} "
                              f"bytes; the limit is {self.max_bytes}.")
        first = json.loads(lines[0]) if lines else {"body": {}}
        model = str(first["body"].get("model", ""))
        tokens = sum(prompt_tokens(json.loads(x)) for x in lines)
        limit = self.queue_tokens.get(model)
        queued = sum(t for b, (m, t) in self._tokens.items()
                     if m == model and self.batches[b]["status"] in RUNNING)
        if limit is not None and queued + tokens > limit:
            return self._fail(batch, "token_limit_exceeded", f"Enqueued token limit reached "
                              f"for {model} in organization org-fake. Limit: {limit:,} enqueued "
                              "tokens. Please try again once some in_progress batches have "
                              "been completed.")
        self._tokens[batch["id"]] = (model, tokens)
        batch["status"] = "in_progress"

    async def _retrieve(self, bid: str) -> Reply:
        if self.retrieve_status:  # the provider cannot be asked (the batch runs on)
            return self.retrieve_status, {"error": {"message": "retrieve refused",
                                                    "type": "invalid_request_error"}}, {}
        batch = self.batches[bid]
        self.retrieves[bid] += 1
        if batch["status"] == "validating":
            self._validate(batch)
        elif batch["status"] == "cancelling":
            await self._finish(batch, "cancelled")
        elif batch["status"] == "in_progress" and self.retrieves[bid] > self.polls_until_done:
            await self._finish(batch, self.outcome)
        return 200, batch, {}

    async def _finish(self, batch: dict[str, Any], outcome: str) -> None:
        lines = [json.loads(x) for x in self.files[batch["input_file_id"]].splitlines()]
        if outcome == "failed":
            batch.update(status="failed", errors={"object": "list", "data": [
                {"code": "invalid_json_line", "message": "the input file is invalid",
                 "line": 1, "param": None}]})
            return
        answered = (self.expire_after if outcome == "expired" else
                    self.answer_before_cancel if outcome == "cancelled" else len(lines))
        out, err = [], []
        for k, line in enumerate(lines, 1):
            if k > answered:
                if outcome == "expired":
                    err.append({"id": f"batch_req_{k}", "custom_id": line["custom_id"],
                                "response": None, "error": {
                                    "code": "batch_expired", "message": "This request could "
                                    "not be executed before the completion window expired."}})
                continue
            if self.error_every and k % self.error_every == 0:
                err.append({"id": f"batch_req_{k}", "custom_id": line["custom_id"],
                            "response": {"status_code": 400, "request_id": f"req_{k}",
                                         "body": {"error": {"message": "bad request line",
                                                            "type": "invalid_request_error"}}},
                            "error": None})
                continue
            code, obj, _ = await self._answer("/batch/chat/completions", line["body"])
            row = {"id": f"batch_req_{k}", "custom_id": line["custom_id"],
                   "response": {"status_code": code, "request_id": f"req_{k}", "body": obj},
                   "error": None}
            out.append(row)
            if self.duplicate_same_every and k % self.duplicate_same_every == 0:
                out.append({**row, "id": f"batch_req_{k}_again"})
            if self.duplicate_every and k % self.duplicate_every == 0:
                other = json.loads(json.dumps(row))
                msg = other["response"]["body"]["choices"][0]["message"]
                msg["content"] = json.dumps({"score": 0.42, "rationale": "another copy"})
                out.append(other)
        for kind, rows in (("output_file_id", out), ("error_file_id", err)):
            if rows:
                data = "".join(json.dumps(r) + "\n" for r in rows).encode()
                batch[kind] = self._new_file(data, f"{batch['id']}_{kind[:-8]}.jsonl",
                                             "batch_output")
        status = outcome if outcome in ("expired", "cancelled") else "completed"
        done = len({r["custom_id"] for r in out})  # a duplicated line is one request
        batch.update(status=status, request_counts={"total": len(lines), "completed": done,
                                                    "failed": len(err)})


def main() -> None:
    """``python -m tests.fake_batch --file-dir DIR``: serve until killed; prints the base URL."""
    import argparse
    import threading

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("--file-dir", type=Path, default=None)
    ap.add_argument("--polls-until-done", type=int, default=1)
    args = ap.parse_args()
    srv = FakeBatchServer(polls_until_done=args.polls_until_done, file_dir=args.file_dir,
                          log_lines=False).start()
    print(srv.base_url, flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
