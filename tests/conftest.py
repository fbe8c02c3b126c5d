"""Shared test helpers: paths to the repository's examples and to ../shared/data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
SHARED_DATA = Path(os.environ.get("SIMJUDGE_SHARED_DATA", REPO.parent / "shared" / "data"))


def shared_file(relpath: str) -> Path:
    """Path of a file under ../shared/data; skips the test when it is absent (a user's clone)."""
    path = SHARED_DATA / relpath
    if not path.exists():
        pytest.skip(f"{path} not available (../shared/data is absent in a plain clone)")
    return path
