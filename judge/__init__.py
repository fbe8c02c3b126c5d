"""simjudge's LLM side: judges, scorers, cache, similarity matrices, runs and the CLI.

Depends on :mod:`metrics`; never the reverse. Python API: :func:`judge.evaluate`,
:func:`judge.estimate` (human-grounded metrics), :func:`judge.load_run` (notebooks:
``.to_pandas()``; pandas comes with the ``notebook`` extra and is imported only when a frame is
asked for).

The public names are imported on first use (PEP 562 ``__getattr__``), so ``simjudge --help``
does not pay for numpy, pydantic and the metrics stack (``benchmarks/bench_startup.py``);
``__version__`` is read from the package metadata on first use too (``importlib.metadata``
and the lookup are ~20 ms of every start otherwise).
``judge.evaluate`` is the function :func:`judge.api.evaluate`; no submodule has
that name, so nothing can shadow it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from judge.api import EvalResult, estimate, evaluate, load_run
    from judge.matrix import SimilarityMatrix
    from judge.record.runrecord import RunRecord
    from judge.verdict import Verdict


def _version() -> str:
    """simjudge's version, from the installed package's metadata (pyproject.toml's version);
    ``0+unknown`` in a source tree that was never installed. ``judge.__version__``."""
    from importlib import metadata

    try:
        return metadata.version("simjudge")
    except metadata.PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"


__all__ = ["EvalResult", "RunRecord", "SimilarityMatrix", "Verdict", "__version__", "estimate",
           "evaluate", "load_run"]

_LAZY = {"EvalResult": "judge.api", "evaluate": "judge.api", "load_run": "judge.api",
         "estimate": "judge.api",
         "RunRecord": "judge.record.runrecord", "SimilarityMatrix": "judge.matrix",
         "Verdict": "judge.verdict"}


def __getattr__(name: str) -> Any:
    """Import a public name of the package (or read ``__version__``) on first access."""
    if name == "__version__":
        version = globals()["__version__"] = _version()
        return version
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'judge' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | {"__version__"})
