"""simjudge's LLM side: judges, scorers, cache, similarity matrices, runs and the CLI.

Depends on :mod:`metrics`; never the reverse. Python API: :func:`judge.evaluate`.

The public names are imported on first use (PEP 562 ``__getattr__``), so ``simjudge --help``
does not pay for numpy, pydantic and the metrics stack (``benchmarks/bench_startup.py``).
``judge.evaluate`` is the function :func:`judge.api.evaluate`; no submodule has
that name, so nothing can shadow it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from judge.api import EvalResult, evaluate
    from judge.matrix import SimilarityMatrix
    from judge.verdict import Verdict


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("simjudge")
    except metadata.PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"


__version__ = _version()
"""simjudge's version, from the installed package's metadata (pyproject.toml's version)."""

__all__ = ["EvalResult", "SimilarityMatrix", "Verdict", "__version__", "evaluate"]

_LAZY = {"EvalResult": "judge.api", "evaluate": "judge.api",
         "SimilarityMatrix": "judge.matrix", "Verdict": "judge.verdict"}


def __getattr__(name: str) -> Any:
    """Import a public name of the package on first access."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'judge' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
