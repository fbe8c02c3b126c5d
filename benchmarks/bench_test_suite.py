"""The test suite measured: its wall time, the Python interpreters it starts, its slowest tests
and (``--cov``) the coverage of ``judge/`` and ``metrics/``.

Issue 34: the README's test command took 14–23 minutes and started 344 interpreters (324 of
them ``simjudge`` processes, ~1 s of imports each). Targets: ≤ 5 minutes of tests on 2 cores,
≤ 60 interpreters, coverage no lower than before.

    python benchmarks/bench_test_suite.py                  # pytest -n auto
    python benchmarks/bench_test_suite.py --cov            # and the coverage per package
    python benchmarks/bench_test_suite.py -- -n 2 -p randomly --randomly-seed 7

Everything after ``--`` goes to pytest (default ``-n auto``). Interpreters are counted by a
``.pth`` file put in this interpreter's ``site-packages`` for the run (removed after): every
Python process of this environment that starts while ``SIMJUDGE_COUNT_INTERPRETERS`` names a
folder leaves a file there with its command line. The count includes pytest itself and its
``-n`` workers; the table sorts the rest by what they ran (``simjudge`` commands, ``python -c``,
helpers). A process of another Python (none in the suite) would not be counted.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import site
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PTH = "zz_simjudge_count_interpreters.pth"
HOOK = ('import os; d = os.environ.get("SIMJUDGE_COUNT_INTERPRETERS"); d and open(os.path.join('
        'd, str(os.getpid())), "w").write(open("/proc/self/cmdline", "rb").read().replace('
        'b"\\0", b" ").decode(errors="replace")[:300])\n')


def kind(cmdline: str) -> str:
    """What an interpreter ran, for the table."""
    if " -m pytest" in cmdline or "exec(eval(sys.stdin" in cmdline:
        return "pytest and its workers"
    if "-m judge.cli" in cmdline or "/simjudge" in cmdline:
        return "simjudge (the command itself: start-up, signals, limits, completion)"
    if "-m tests." in cmdline:
        return "test helpers (fake servers, batch runner in a namespace or under a limit)"
    if " -c " in cmdline:
        return "python -c (what importing costs; a docs pipeline)"
    return "other (mkdocs, a benchmark the docs run)"


def main() -> None:
    """Run the suite once and print the figures (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cov", action="store_true", help="measure coverage of judge/, metrics/")
    ap.add_argument("pytest_args", nargs="*", default=["-n", "auto"])
    a = ap.parse_args()
    count_dir = Path(tempfile.mkdtemp(prefix="interpreters-"))
    pth = Path(site.getsitepackages()[0]) / PTH
    pth.write_text(HOOK, encoding="utf-8")
    args = [sys.executable, "-m", "pytest", "-q", "--durations=15", *a.pytest_args]
    if a.cov:
        args += ["--cov=judge", "--cov=metrics", "--cov-report=term"]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(args, cwd=REPO, capture_output=True, text=True,
                              env={**os.environ, "SIMJUDGE_COUNT_INTERPRETERS": str(count_dir)})
    finally:
        pth.unlink(missing_ok=True)
    wall = time.perf_counter() - t0
    out = proc.stdout
    summary = [line for line in out.splitlines() if re.search(r"\d+ (passed|failed)", line)]
    print(f"command: {' '.join(args[1:])}")
    print(f"wall time: {wall:,.0f} s; exit status {proc.returncode}")
    print(f"result: {summary[-1].strip('= ') if summary else '(no summary line)'}")
    snippets = [line for line in out.splitlines() if line.startswith("docs snippets:")]
    if snippets:
        print(snippets[0])
    kinds = collections.Counter(kind(p.read_text(errors="replace"))
                                for p in count_dir.iterdir())
    print(f"Python interpreters started: {sum(kinds.values())}")
    for k, n in kinds.most_common():
        print(f"  {n:4d}  {k}")
    slow = out[out.find("slowest 15 durations"):].splitlines()[1:16]
    print("slowest 15 tests:")
    for line in slow:
        if line.strip():
            print(f"  {line.strip()}")
    if a.cov:
        per: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
        for line in out.splitlines():
            m = re.match(r"^((judge|metrics)/\S+\.py)\s+(\d+)\s+(\d+)\s", line)
            if m:
                per[m[2]][0] += int(m[3])
                per[m[2]][1] += int(m[4])
        for pkg, (stmts, miss) in sorted(per.items()):
            print(f"coverage {pkg}/: {100 * (stmts - miss) / stmts:.2f} % "
                  f"({stmts - miss:,} of {stmts:,} statements)")
    if proc.returncode != 0:
        print(out[-3000:], file=sys.stderr)
        sys.exit(proc.returncode)


if __name__ == "__main__":
    main()
