"""Helpers for tests that run the ``simjudge`` CLI in subprocesses against loopback servers."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from tests.conftest import REPO

ENV = {**os.environ, "OPENAI_API_KEY": "sk-local", "PYTHONPATH": str(REPO)}
"""Environment of a CLI subprocess: a dummy key (the fake server ignores it) and the repo."""

CLI = [sys.executable, "-m", "judge.cli"]
"""The command line that runs ``simjudge`` in a subprocess."""


def letter_pairs(n: int, tag: str = "") -> list[tuple[str, str]]:
    """``n`` distinct (pred, truth) pairs (2n distinct strings); in half of them both start
    with the same letter: the fake server's chat score is then 0.9 (else 0.1) and its
    embedding cosine 1.0 (else 1.0 only when the first letters agree mod 7, 0.5 otherwise)."""
    return [(f"{chr(97 + i % 26)}pred {tag}{i}", f"{chr(97 + (i + i % 2) % 26)}gold {tag}{i}")
            for i in range(n)]


def write_items(path: Path, pairs: list[tuple[str, str]]) -> Path:
    """A selection JSONL file with one single-string item per pair, ids 0, 1, …"""
    path.write_text("".join(json.dumps({"id": i, "pred": [p], "truth": [t]}) + "\n"
                            for i, (p, t) in enumerate(pairs)))
    return path
