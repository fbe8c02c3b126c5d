"""Runs: what one ``simjudge eval`` produced, and everything read from it afterwards.

* :mod:`judge.record.runrecord` — the typed :class:`~judge.record.runrecord.RunRecord`;
* :mod:`judge.record.store` — writing a run directory (with its ``report.html``) and reading it
  back;
* :mod:`judge.record.atomic` — atomic output directories (crash-safe ``--overwrite``, cleanup of
  interrupted writes, early checks of ``--out``);
* :mod:`judge.runs.audit` — what the audit report shows (views, heatmaps, queues), as data;
* :mod:`judge.runs.report` — the audit report (HTML, Markdown, JSONL);
* :mod:`judge.runs.rescore` — metrics at another τ or vote with no judge call;
* :mod:`judge.runs.compare` — runs side by side with paired bootstrap intervals;
* :mod:`judge.pipeline.uncertainty` — bootstrap confidence intervals.
"""
