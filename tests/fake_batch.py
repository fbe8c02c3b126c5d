"""A loopback fake of the OpenAI Batch API (``/v1/files`` and ``/v1/batches``) on top of
:class:`tests.fake_openai.FakeOpenAIServer` (127.0.0.1 only), for ``eval --batch-api`` tests.

Uploaded files are kept in memory. A batch answers ``in_progress`` to its first
``polls_until_done`` retrieves, then ends with ``outcome``:

* ``completed`` — every request line is answered by the chat fake (the same deterministic
  scores as a direct call); with ``error_every`` = k, every k-th line gets an HTTP 400 error line
  in the error file instead;
* ``expired`` — only the first ``expire_after`` lines are answered, the rest are error lines with
  code ``batch_expired`` (what OpenAI writes for a batch that ran out of its 24 h window);
* ``failed`` — no output at all, ``errors`` says why (a malformed input file, say).

The batch objects, file objects and output lines follow the shapes of the OpenAI API reference
(Batch, File, batch output line with ``custom_id``, ``response.status_code``, ``response.body``,
``error``) so the real ``openai`` SDK parses them.
"""

from __future__ import annotations

import itertools
import json
import time
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import default as email_policy
from typing import Any

from tests.fake_openai import FakeOpenAIServer

Reply = tuple[int, dict[str, Any] | bytes, dict[str, str]]


@dataclass
class FakeBatchServer(FakeOpenAIServer):
    """Chat completions plus the Batch API (see the module docstring)."""

    polls_until_done: int = 1
    outcome: str = "completed"
    error_every: int = 0
    expire_after: int = 0
    files: dict[str, bytes] = field(default_factory=dict)
    batches: dict[str, dict[str, Any]] = field(default_factory=dict)
    retrieves: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__post_init__()
        self._ids = itertools.count(1)

    async def _route(self, method: str, path: str, body: dict[str, Any]) -> Reply:
        route = path.split("?")[0]
        if method == "POST" and route == "/v1/files":
            return self._upload(body)
        if method == "POST" and route == "/v1/batches":
            return self._create(body)
        if method == "GET" and route == "/v1/batches":
            data = [self.batches[k] for k in reversed(self.batches)]
            return 200, {"object": "list", "data": data, "has_more": False,
                         "first_id": data[0]["id"] if data else None,
                         "last_id": data[-1]["id"] if data else None}, {}
        if method == "GET" and route.startswith("/v1/batches/"):
            return await self._retrieve(route.rsplit("/", 1)[1])
        if method == "GET" and route.startswith("/v1/files/") and route.endswith("/content"):
            fid = route.split("/")[3]
            if fid not in self.files:
                return 404, {"error": {"message": f"no file {fid}"}}, {}
            return 200, self.files[fid], {"content-type": "application/octet-stream"}
        return await super()._route(method, path, body)

    def _upload(self, body: dict[str, Any]) -> Reply:
        head = b"Content-Type: " + body["_content_type"].encode() + b"\r\n\r\n"
        msg = BytesParser(policy=email_policy).parsebytes(head + body["_multipart"])
        fields = {p.get_param("name", header="content-disposition"): p.get_payload(decode=True)
                  for p in msg.iter_parts()}
        fid = f"file-{next(self._ids)}"
        self.files[fid] = fields["file"]
        return 200, {"id": fid, "object": "file", "bytes": len(fields["file"]),
                     "created_at": int(time.time()), "filename": "simjudge-batch.jsonl",
                     "purpose": fields["purpose"].decode(), "status": "processed"}, {}

    def _create(self, body: dict[str, Any]) -> Reply:
        if body.get("input_file_id") not in self.files:
            return 400, {"error": {"message": "no such input file"}}, {}
        bid = f"batch_{next(self._ids)}"
        n = len(self.files[body["input_file_id"]].splitlines())
        self.batches[bid] = {
            "id": bid, "object": "batch", "endpoint": body["endpoint"],
            "input_file_id": body["input_file_id"], "completion_window": "24h",
            "status": "validating", "created_at": int(time.time()),
            "metadata": body.get("metadata"), "output_file_id": None, "error_file_id": None,
            "request_counts": {"total": n, "completed": 0, "failed": 0}}
        self.retrieves[bid] = 0
        return 200, self.batches[bid], {}

    async def _retrieve(self, bid: str) -> Reply:
        batch = self.batches.get(bid)
        if batch is None:
            return 404, {"error": {"message": f"no batch {bid}"}}, {}
        self.retrieves[bid] += 1
        if batch["status"] in ("validating", "in_progress"):
            if self.retrieves[bid] <= self.polls_until_done:
                batch["status"] = "in_progress"
            else:
                await self._finish(batch)
        return 200, batch, {}

    async def _finish(self, batch: dict[str, Any]) -> None:
        lines = [json.loads(x) for x in self.files[batch["input_file_id"]].splitlines()]
        if self.outcome == "failed":
            batch.update(status="failed", errors={"object": "list", "data": [
                {"code": "invalid_json_line", "message": "the input file is invalid",
                 "line": 1}]})
            return
        out, err = [], []
        for k, line in enumerate(lines, 1):
            if self.outcome == "expired" and k > self.expire_after:
                err.append({"id": f"batch_req_{k}", "custom_id": line["custom_id"],
                            "response": None, "error": {
                                "code": "batch_expired", "message": "This request could not "
                                "be executed before the completion window expired."}})
                continue
            if self.error_every and k % self.error_every == 0:
                err.append({"id": f"batch_req_{k}", "custom_id": line["custom_id"],
                            "response": {"status_code": 400, "request_id": f"req_{k}",
                                         "body": {"error": {"message": "bad request line",
                                                            "type": "invalid_request_error"}}},
                            "error": None})
                continue
            code, obj, _ = await self._answer("/batch/chat/completions", line["body"])
            out.append({"id": f"batch_req_{k}", "custom_id": line["custom_id"],
                        "response": {"status_code": code, "request_id": f"req_{k}",
                                     "body": obj}, "error": None})
        for kind, rows in (("output_file_id", out), ("error_file_id", err)):
            if rows:
                fid = f"file-{next(self._ids)}"
                self.files[fid] = "".join(json.dumps(r) + "\n" for r in rows).encode()
                batch[kind] = fid
        batch.update(status="expired" if self.outcome == "expired" else "completed",
                     request_counts={"total": len(lines), "completed": len(out),
                                     "failed": len(err)})
