"""Human-grounded metrics (issue 35; DESIGN.md, "Human-grounded metrics"): the metric people
would compute if they checked every item, estimated from the judge's values on all of a run's
items and a person's truth on a few of them, with an interval that holds.

* :mod:`judge.human.labels` — item labels: read from JSONL or a labels database, checked
  against the run (ids, strings, one-to-one matches, the run's sha256, inclusion
  probabilities), written back as JSONL;
* :mod:`judge.human.estimate` — for every metric of the run's summary, the judge-only value,
  the prediction-powered estimate (PPI++, :func:`metrics.ppi_mean`) and the human-only one,
  each with its 95 % interval, n_eff and the judge's estimated bias (``estimate.json``).

What an item label holds is each task's to say (:meth:`judge.tasks.base.Task.item_truth`,
:mod:`judge.tasks.humantruth`); this package never names a task.
"""
