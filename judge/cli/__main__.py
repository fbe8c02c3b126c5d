"""``python -m judge.cli``: the ``simjudge`` command."""

from judge.cli import main

main()
