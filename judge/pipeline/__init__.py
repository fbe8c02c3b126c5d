"""The evaluation pipeline: judge and score items for a task, with the summary's bootstrap
intervals (:mod:`judge.pipeline.uncertainty`) and the dry run's estimate
(:mod:`judge.pipeline.dryrun`). :mod:`judge.pipeline.evaluate` holds the entry point shared by
``simjudge eval`` and the Python API."""
