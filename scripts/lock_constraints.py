"""Regenerate ``constraints.txt``: the exact, tested versions of every package simjudge installs.

The README's install commands use it (``pip install -c constraints.txt -e ...``): with every
package pinned, pip's resolver has exactly one candidate per package and never backtracks, so
the first install takes a minute even with the old pip bundled in a fresh venv (23.x), instead
of 16–30+ minutes of backtracking (issue 11). ``pyproject.toml`` keeps bounded ranges for
installs without the file.

Usage (run it with a recent pip, >= 23.1, which has ``--python`` and ``--report``)::

    PIP_CONFIG_FILE=/dev/null python scripts/lock_constraints.py \\
        --python ~/.pyenv/versions/3.10.13/bin/python --python ~/.pyenv/versions/3.11.7/bin/python

Each interpreter's resolution of ``-e ".[test]"`` (the test extra includes the ``notebook`` and
``inspect`` extras, so every extra's packages are pinned too) is taken from ``pip install
--dry-run --ignore-installed --report``. ``--keep constraints.txt`` resolves with the file's
current pins as constraints, so adding a dependency pins its new packages without moving the
others; ``--release NAME`` lets a kept pin move (one the new packages cannot live with). A
package pinned to the same version for every interpreter is written once; otherwise one line
per version with a ``python_version`` marker (the newest interpreter's pins also apply to later
Python versions). Output: ``constraints.txt`` at the
repository root (or ``--out``).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _canonical(name: str) -> str:
    """PEP 503 normalised project name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def kept_pins(path: Path, release: set[str]) -> str:
    """The lines of a constraints file to resolve with (``--keep``): its pins, less those of
    the ``release`` names (canonical names) and the comments."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        name = re.split(r"[=<>!~;\s]", line.strip(), maxsplit=1)[0]
        if name and not line.startswith("#") and _canonical(name) not in release:
            lines.append(line)
    return "\n".join(lines) + "\n"


def resolve(python: str, keep: str | None = None) -> tuple[tuple[int, int], dict[str, str]]:
    """``((major, minor), {name: version})`` that pip resolves for ``python`` (with the pins
    ``keep`` as constraints, when given).

    Raises:
        subprocess.CalledProcessError: pip could not resolve (its message is on stderr).
    """
    version = subprocess.run([python, "-c", "import sys; print(*sys.version_info[:2])"],
                             capture_output=True, text=True, check=True).stdout.split()
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        extra = []
        if keep is not None:
            (Path(tmp) / "keep.txt").write_text(keep, encoding="utf-8")
            extra = ["-c", str(Path(tmp) / "keep.txt")]
        subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "--dry-run",
                        "--ignore-installed", "--quiet", "--report", str(report), *extra, "-e",
                        f"{REPO}[test]"], check=True)
        data = json.loads(report.read_text(encoding="utf-8"))
    pins = {_canonical(p["metadata"]["name"]): p["metadata"]["version"]
            for p in data["install"] if _canonical(p["metadata"]["name"]) != "simjudge"}
    return (int(version[0]), int(version[1])), pins


def merge(resolutions: list[tuple[tuple[int, int], dict[str, str]]]) -> list[str]:
    """Constraint lines; per-version pins get ``python_version`` markers (see module doc)."""
    resolutions = sorted(resolutions)
    names = sorted({n for _, pins in resolutions for n in pins})
    lines = []
    for name in names:
        present = [(v, pins[name]) for v, pins in resolutions if name in pins]
        if len({ver for _, ver in present}) == 1:
            lines.append(f"{name}=={present[0][1]}")
            continue
        for i, (v, ver) in enumerate(present):
            lo = None if i == 0 else f"{v[0]}.{v[1]}"
            nxt = present[i + 1][0] if i + 1 < len(present) else None
            hi = None if nxt is None else f"{nxt[0]}.{nxt[1]}"
            marker = " and ".join(m for m in (
                f'python_version >= "{lo}"' if lo else "",
                f'python_version < "{hi}"' if hi else "") if m)
            lines.append(f"{name}=={ver}; {marker}")
    return lines


def main() -> None:
    """Resolve for each ``--python`` and write the merged constraints file."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", action="append", required=True,
                    help="interpreter to resolve for (repeat: oldest and newest supported)")
    ap.add_argument("--out", type=Path, default=REPO / "constraints.txt")
    ap.add_argument("--keep", type=Path, help="resolve with this file's pins as constraints")
    ap.add_argument("--release", action="append", default=[],
                    help="with --keep: a package whose kept pin may move (repeat)")
    args = ap.parse_args()
    keep = (kept_pins(args.keep, {_canonical(n) for n in args.release})
            if args.keep is not None else None)
    resolutions = [resolve(p, keep) for p in args.python]
    versions = ", ".join(f"{v[0]}.{v[1]}" for v, _ in sorted(resolutions))
    header = [
        "# Exact versions of every package simjudge and its extras install (the tested set).",
        "# Used by the README: pip install -c constraints.txt -e \".[test]\"  (no resolver",
        "# backtracking, even with an old pip). Regenerate with scripts/lock_constraints.py",
        f"# (resolved for Python {versions}; the newest pins also serve later versions).",
    ]
    args.out.write_text("\n".join(header + merge(resolutions)) + "\n", encoding="utf-8")
    print(f"{args.out}: {len(merge(resolutions))} pins for Python {versions}")


if __name__ == "__main__":
    main()
