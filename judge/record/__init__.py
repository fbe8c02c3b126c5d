"""The ground floor: the record of a run, in memory and on disk.

It imports only :mod:`judge.errors`, :mod:`judge.redact` and :mod:`judge.verdict` (and the
standard library, pydantic), so every floor above — judges, tasks, the pipeline, calibration,
the jobs on stored runs, the CLI — can read and write runs without a loop.

* :mod:`judge.record.rows` — the typed rows of a run directory (config, summary, the item
  row's envelope, verdict rows);
* :mod:`judge.record.itemrows` — each task's typed ``items.jsonl`` row (``SelectionRow``,
  ``SpansRow``…: the task names it as ``row_model`` and hands it to the record);
* :mod:`judge.record.proberows` — the judge probes' rows (``swap_probe.jsonl``,
  ``repeat_probe.jsonl``);
* :mod:`judge.record.runrecord` — :class:`~judge.record.runrecord.RunRecord`, the whole run;
* :mod:`judge.record.verdictlog` — the verdict log, in memory or streamed to a spool file;
* :mod:`judge.record.atomic` — atomic output directories and files; :mod:`judge.record.outdir`
  — the output directory's default name and its checks before any judge call;
* :mod:`judge.record.store` — writing a run directory (with the renderers its caller hands in)
  and reading it back.
"""
