"""simjudge's LLM side: judges, scorers, cache, similarity matrices, runs and the CLI.

Depends on :mod:`metrics`; never the reverse.
"""

__version__ = "0.1.0"
