"""Tasks: one module per kind of evaluation, each a :class:`judge.tasks.base.Task`, listed in
:mod:`judge.tasks.registry` (``get_task(name)``)."""
