"""The drift canary's error rates against the loopback OpenAI-compatible fake whose behaviour
changes under the same model name (tests/fake_openai.py: ``drift_shift``, ``drift_flip``).

    python benchmarks/bench_drift.py [--seeds 100] [--first-seed 0] [--ramp-seeds 100] [--n 100]

For each seed: 200 labelled pairs are drawn (human labels agreeing with the fake judge's
verdict on 85 % of them), the fake judges with sampling noise (each score ± up to 0.05, fresh
on every call), ``simjudge calibrate`` stores its scores, and ``simjudge calibrate --check CAL
LABELS --rejudge N`` (in-process, the real HTTP client against the fake) runs

* with the judge unchanged (rate of exit 0 wanted ≥ 95 %);
* with every score shifted by +0.1 (rate of exit 1 wanted ≥ 95 %);
* with 10 % of the pairs' verdicts flipped (score → 1 − score; exit 1 wanted ≥ 90 %);

each with its own history file. Then (``--ramp-seeds`` seeds) a slow drift: 10 checks in one
history, the k-th with every score shifted by 0.001·k, and it records the first check where
the CUSUM signals and the first where a single check's own tests do (score shift, ROC-AUC,
κ at τ or flips). Prints the rates and the slow drift's outcome counts.

Measured on 2026-12-02 (two processes of 50 seeds, ``--first-seed 0`` and ``50``, 25 ramp
seeds each; 18.5 min each on 2 shared cores): unchanged judge exit 0 in 96 % (96 % in each
half; failing tests: score shift 3, ROC-AUC 1), scores +0.1 exit 1 in 100 %, 10 % flipped
exit 1 in 92 %. Slow drift, 50 seeds: CUSUM signalled within 10 checks in 40, a single check
in 28; CUSUM first 19, same check 9, single check first 14 (6 of them at checks 1–4), neither
8.
"""

from __future__ import annotations

import argparse
import json
import random
import string
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.clirun import run_cli  # noqa: E402
from tests.fake_openai import FakeOpenAIServer, FakeServerConfig, fake_score  # noqa: E402


def labels_file(path: Path, seed: int, pairs: int = 200, agree: float = 0.85) -> Path:
    """``pairs`` distinct (pred, truth) pairs of 7 random letters, about half sharing their
    first letter (the fake scores those 0.9), labelled like the fake's verdict with
    probability ``agree``."""
    rng = random.Random(seed)
    rows, seen = [], set()
    while len(rows) < pairs:
        a = "".join(rng.choices(string.ascii_lowercase, k=7))
        b = (a[0] if rng.random() < 0.5 else rng.choice(string.ascii_lowercase)) + "".join(
            rng.choices(string.ascii_lowercase, k=6))
        if (a, b) in seen:
            continue
        seen.add((a, b))
        same = fake_score(a, b) > 0.5
        rows.append({"pred": a, "truth": b, "label": int(same if rng.random() < agree
                                                         else not same)})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def check(cal: Path, labels: Path, srv: FakeOpenAIServer, history: Path, n: int,
          cache: Path) -> tuple[int, list[str]]:
    """One ``--check --rejudge`` run: (exit status, the judge's problems)."""
    res = run_cli("calibrate", "--check", str(cal), str(labels), "--rejudge", str(n),
                  "--judge", "openai:fake", "--base-url", srv.base_url, "--history",
                  str(history), "--json", "--cache-dir", str(cache),
                  env={"OPENAI_API_KEY": "sk-fake"})
    if res.returncode not in (0, 1):
        raise SystemExit(res.output)
    return res.returncode, json.loads(res.stdout)[0]["problems"]


def one_seed(seed: int, n: int, ramp: bool, work: Path) -> dict[str, object]:
    """The three checks (and the slow drift) of one seed."""
    work.mkdir()
    labels = labels_file(work / "labels.jsonl", seed)
    cfg = FakeServerConfig(noise=0.05, seed=seed, drift_seed=seed)
    out: dict[str, object] = {}
    with FakeOpenAIServer(cfg) as srv:
        res = run_cli("calibrate", str(labels), "--judge", "openai:fake", "--base-url",
                      srv.base_url, "--out", str(work / "cal"), "--bootstrap", "0",
                      "--folds", "2", "--cache-dir", str(work / "c"),
                      env={"OPENAI_API_KEY": "sk-fake"})
        if res.returncode != 0:
            raise SystemExit(res.output)
        cal = work / "cal" / "calibration.json"
        for name, shift, flip in (("unchanged", 0.0, 0.0), ("shift", 0.1, 0.0),
                                  ("flip", 0.0, 0.1)):
            srv.config.drift_shift, srv.config.drift_flip = shift, flip
            out[name] = check(cal, labels, srv, work / f"{name}.jsonl", n, work / "c")
        srv.config.drift_flip = 0.0
        if ramp:
            first_test = first_cusum = None
            for k in range(1, 11):
                srv.config.drift_shift = 0.001 * k
                _, problems = check(cal, labels, srv, work / "ramp.jsonl", n, work / "c")
                if first_cusum is None and "CUSUM" in problems:
                    first_cusum = k
                if first_test is None and set(problems) - {"CUSUM", "failed calls"}:
                    first_test = k
            out["ramp"] = (first_cusum, first_test)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--ramp-seeds", type=int, default=100)
    ap.add_argument("--n", type=int, default=100, help="pairs re-judged per check")
    args = ap.parse_args()
    t0 = time.perf_counter()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.seeds):
            seed = args.first_seed + k
            rows.append(one_seed(seed, args.n, k < args.ramp_seeds, Path(tmp) / str(seed)))
    total = len(rows)
    rate = {name: sum(r[name][0] == want for r in rows) / total  # type: ignore[index]
            for name, want in (("unchanged", 0), ("shift", 1), ("flip", 1))}
    print(f"{total} seeds, N = {args.n} pairs re-judged of 200, {time.perf_counter() - t0:.0f} s")
    print(f"unchanged judge:        exit 0 in {100 * rate['unchanged']:.0f} % (want >= 95 %)")
    print(f"scores shifted by +0.1: exit 1 in {100 * rate['shift']:.0f} % (want >= 95 %)")
    print(f"10 % of pairs flipped:  exit 1 in {100 * rate['flip']:.0f} % (want >= 90 %)")
    false_alarms: dict[str, int] = {}
    for r in rows:
        if r["unchanged"][0]:  # type: ignore[index]
            for p in r["unchanged"][1]:  # type: ignore[index]
                false_alarms[p] = false_alarms.get(p, 0) + 1
    print(f"  unchanged judge's failing tests: {false_alarms or 'none'}")
    ramps = [r["ramp"] for r in rows if "ramp" in r]
    if ramps:
        before = sum(c is not None and (t is None or c < t) for c, t in ramps)  # type: ignore
        same = sum(c is not None and c == t for c, t in ramps)  # type: ignore[misc]
        test_first = sum(t is not None and (c is None or t < c) for c, t in ramps)  # type: ignore
        neither = sum(c is None and t is None for c, t in ramps)  # type: ignore[misc]
        print(f"slow drift (+0.001 a check, 10 checks, {len(ramps)} seeds): CUSUM first in "
              f"{before}, same check {same}, single check first {test_first}, neither {neither}")
        print(f"  CUSUM's first signal at checks: "
              f"{sorted(c for c, _ in ramps if c is not None)}")  # type: ignore[type-var]
        print(f"  single check's first signal at: "
              f"{sorted(t for _, t in ramps if t is not None)}")  # type: ignore[type-var]


if __name__ == "__main__":
    main()
