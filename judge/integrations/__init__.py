"""simjudge inside the evaluation frameworks its users already run (top floor, beside the CLI
and the Python API): :mod:`judge.integrations.inspect` gives inspect_ai scorers that score with
simjudge's judges and metrics. Each integration needs its framework, installed by the extra of
the same name (``pip install "simjudge[inspect]"``); importing :mod:`judge` imports none."""
