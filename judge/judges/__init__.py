"""Judges: what scores a (prediction, gold) string pair, and how judges are declared.

Import each name from its module (this package re-exports nothing, so importing one module
loads only what it needs):

* :mod:`judge.judges.base` — the :class:`~judge.judges.base.Judge` protocol, the per-run
  :class:`~judge.judges.base.JudgeContext` (with :class:`~judge.judges.base.JudgeStats` and
  :class:`~judge.judges.base.PanelState`), ``Pair``;
* :mod:`judge.judges.registry` — the table of backends and the judge-spec grammar:
  :func:`~judge.judges.registry.parse_judge_spec`, ``SPECS``, ``spec_help``;
* :mod:`judge.judges.options` — :class:`~judge.judges.options.JudgeOptions` and its checks;
* :mod:`judge.judges.judgesfile` — judges declared in a TOML file (``--judges``);
* :mod:`judge.judges.panel` — several judges and a vote;
* :mod:`judge.judges.llm.scorer` — prompt scorers (``SCORERS``: template, output schema, mode),
  reading answers with :mod:`judge.judges.llm.jsonreply`;
* backends: :mod:`~judge.judges.embedding.local`, :mod:`~judge.judges.lexical`,
  :mod:`~judge.judges.table`, :mod:`~judge.judges.llm.openai_chat`,
  :mod:`~judge.judges.llm.langchain_chat`, :mod:`~judge.judges.embedding.openai_embedding` (the
  last two
  kinds built on :mod:`~judge.judges.llm.llmjudge` and :mod:`~judge.judges.embedding.cosine`).
"""
