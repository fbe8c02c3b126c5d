"""What ``eval --batch-api`` keeps on disk about each batch: ``<cache>/batches/``.

One *chunk* of requests — at most the provider's per-batch limits (:class:`BatchLimits`) — is
one batch. Its files are named by the sha256 of its input file's bytes (``digest``), so the
state is keyed by the input content, not by the run:

* ``<digest>.json`` — the state (:class:`BatchState`): judge, model, endpoint and the
  environment variable of its key (never the key), counts, the uploaded file's id, the batch
  id, its status, the server's ``errors``, whether its answers were collected into the cache,
  and ``history``: earlier batches of the same content (one that failed, expired or was
  cancelled, whose requests were submitted anew);
* ``<digest>.jsonl`` — the input file as uploaded (``custom_id`` = the cache key);
* ``<digest>.requests.jsonl`` — per input line, what the answer is parsed against (the anchor,
  the judged items, their sides), so a batch can be collected by any later run.

The two ``.jsonl`` files are removed once the batch's answers are in the cache; the state stays
until ``simjudge batches clean``.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

STATE_VERSION = 2
TERMINAL = ("completed", "failed", "expired", "cancelled")
"""Batch statuses after which nothing more will be answered (OpenAI's Batch object)."""


@dataclass(frozen=True)
class BatchLimits:
    """How requests are split into batches and paced.

    Attributes:
        max_requests: most requests in one batch (>= 1; OpenAI: 50,000).
        max_bytes: largest input file in bytes (>= 1; OpenAI: 200 MB, taken as 200·10⁶).
        queue_tokens: estimated prompt tokens that may be enqueued at once per model — OpenAI's
            "batch queue limit" of the account's tier (e.g. 2,000,000 for gpt-4o-mini at
            tier 1): model name → tokens, ``"*"`` for any model; empty = no client-side limit
            (a batch the server fails with ``token_limit_exceeded`` is still resubmitted once
            another batch of its model has ended).
        cancel_stale: cancel a running batch this run no longer needs, instead of collecting
            its answers into the cache.
    """

    max_requests: int = 50_000
    max_bytes: int = 200_000_000
    queue_tokens: dict[str, int] = field(default_factory=dict)
    cancel_stale: bool = False

    def queue_limit(self, model: str) -> int | None:
        """The enqueued-token limit of ``model`` (tokens), or None for none."""
        return self.queue_tokens.get(model, self.queue_tokens.get("*"))


@dataclass
class BatchState:
    """The state of one chunk of requests and its batch (see the module docstring).

    Attributes:
        digest: sha256 (hex) of the input file's bytes.
        judge, model, identity: the judge's id, model and identity digest (:func:`identity_of`).
        base_url, api_key_env: the endpoint (None = OpenAI) and the *name* of the key's
            environment variable.
        mode: the output mode of the request bodies.
        requests, bytes, tokens: requests in the input file, its size, its estimated prompt
            tokens (for the queue limit).
        usd: estimated USD of its requests at the direct price (0 unpriced; for the
            progress row's cost so far).
        input_file_id, batch_id, status: the provider's ids and the batch's last status.
        done: requests the provider counted as finished (completed + failed) at the last poll.
        output_file_id, error_file_id: the batch's result files.
        errors: the server's ``errors`` (``code: message`` strings).
        collected: its answers are in the cache (never adopted again).
        answered, failed: requests answered and failed once collected.
        cancel_requested: a cancel was sent (``--cancel-stale`` or ``simjudge batches cancel``).
        history: earlier batches of this content (dicts with the fields above).
    """

    digest: str
    judge: str
    model: str
    identity: str
    base_url: str | None
    api_key_env: str
    mode: str
    requests: int
    bytes: int
    tokens: int
    usd: float = 0.0
    created_at: str = ""
    input_file_id: str | None = None
    batch_id: str | None = None
    status: str | None = None
    done: int = 0
    output_file_id: str | None = None
    error_file_id: str | None = None
    errors: list[str] = field(default_factory=list)
    collected: bool = False
    answered: int = 0
    failed: int = 0
    cancel_requested: bool = False
    history: list[dict[str, Any]] = field(default_factory=list)
    version: int = STATE_VERSION

    @property
    def terminal(self) -> bool:
        """The batch ended (one of :data:`TERMINAL`)."""
        return self.status in TERMINAL

    def restart(self) -> None:
        """Move the current batch into ``history`` so the content is submitted anew (the same
        uploaded file is reused when it is still there)."""
        keep = ("batch_id", "status", "output_file_id", "error_file_id", "errors", "answered",
                "failed", "done")
        self.history.append({k: getattr(self, k) for k in keep})
        self.batch_id = self.status = self.output_file_id = self.error_file_id = None
        self.errors, self.collected, self.answered, self.failed, self.done = [], False, 0, 0, 0
        self.cancel_requested = False


def batches_dir(cache_dir: Path) -> Path:
    """``<cache>/batches``: where the states live."""
    return Path(cache_dir) / "batches"


def state_path(directory: Path, digest: str) -> Path:
    """The state file of ``digest`` in ``directory`` (``<cache>/batches``)."""
    return directory / f"{digest}.json"


def input_path(directory: Path, digest: str) -> Path:
    """The input file (as uploaded) of ``digest``."""
    return directory / f"{digest}.jsonl"


def requests_path(directory: Path, digest: str) -> Path:
    """The per-line request descriptions of ``digest`` (anchor, items, sides)."""
    return directory / f"{digest}.requests.jsonl"


def save(directory: Path, state: BatchState) -> None:
    """Write ``state`` atomically (temp file + rename).

    Raises:
        OSError: the disk refused the write.
    """
    directory.mkdir(parents=True, exist_ok=True)
    path = state_path(directory, state.digest)
    tmp = path.with_suffix(f".tmp-{os.getpid()}")
    tmp.write_text(json.dumps(asdict(state), indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def load(path: Path) -> BatchState | None:
    """The state in ``path``, or None for a file that is not a version-2 state (an earlier
    simjudge's state file, a partial write)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(raw, dict) or raw.get("version") != STATE_VERSION:
        return None
    known = BatchState.__dataclass_fields__
    try:
        return BatchState(**{k: v for k, v in raw.items() if k in known})
    except TypeError:
        return None


def all_states(directory: Path) -> Iterator[BatchState]:
    """Every state under ``directory``, oldest first (by ``created_at``)."""
    if not directory.is_dir():
        return
    found = [s for p in directory.glob("*.json") if (s := load(p)) is not None]
    yield from sorted(found, key=lambda s: (s.created_at, s.digest))


def drop_local_files(directory: Path, digest: str, *, state: bool = False) -> None:
    """Remove the chunk's input and request files (and the state file with ``state``)."""
    paths = [input_path(directory, digest), requests_path(directory, digest)]
    for p in paths + ([state_path(directory, digest)] if state else []):
        p.unlink(missing_ok=True)


def identity_of(judge: Any) -> str:
    """A digest of what makes a judge's answers interchangeable: its backend identity (model,
    endpoint, decoding parameters), scorer, template, schema version and sample index — the
    parts of its cache keys other than the messages. Batches are adopted or called stale only
    among states of the same identity."""
    c = judge.config
    parts = {**judge.identity(), "scorer": c.scorer.id, "template": c.scorer.template_sha256,
             "schema": c.scorer.schema_version, "sample": c.sample,
             "mode": getattr(judge, "output_mode", "")}
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def now() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
