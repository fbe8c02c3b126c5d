"""simjudge's LLM side: judges, scorers, cache, similarity matrices, runs and the CLI.

Depends on :mod:`metrics`; never the reverse. Python API: :func:`judge.evaluate`.
"""

from judge.evaluate import EvalResult, evaluate
from judge.matrix import SimilarityMatrix
from judge.verdict import Verdict

__version__ = "0.1.0"

__all__ = ["EvalResult", "SimilarityMatrix", "Verdict", "__version__", "evaluate"]
