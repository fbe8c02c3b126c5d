"""Shared test helpers: paths to the repository's examples and to ../shared/data, and the
``cli`` fixture (the ``simjudge`` command in-process: :mod:`tests.clirun`)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import settings

from tests.browser import _chrome_pool, chrome, second_chrome  # noqa: F401 (fixtures)
from tests.clirun import CliResult, run_cli

# Property tests draw the same examples on every run (a test's own @settings keep this): a
# suite that never flakes cannot let a random draw decide, and a falsifying example found once
# by hand-run exploration (HYPOTHESIS_PROFILE=explore) becomes an explicit @example.
settings.register_profile("simjudge", derandomize=True, deadline=None)
settings.register_profile("explore", derandomize=False, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "simjudge"))

# What the terminal the suite was started from would leak into every command's output: its
# width (rich reads COLUMNS once, when a console is made at import) and forced colours.
for _name in ("COLUMNS", "LINES", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
    os.environ.pop(_name, None)

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
SHARED_DATA = Path(os.environ.get("SIMJUDGE_SHARED_DATA", REPO.parent / "shared" / "data"))


def shared_file(relpath: str) -> Path:
    """Path of a file under ../shared/data; skips the test when it is absent (a user's clone)."""
    path = SHARED_DATA / relpath
    if not path.exists():
        pytest.skip(f"{path} not available (../shared/data is absent in a plain clone)")
    return path


@pytest.fixture
def cli() -> Callable[..., CliResult]:
    """``cli("eval", path, "--judge", "lexical", cwd=…, env=…, columns=…)``: the ``simjudge``
    command run in-process (:func:`tests.clirun.run_cli`), returning its exit status, stdout
    and stderr as a subprocess would."""
    return run_cli


@pytest.fixture(autouse=True)
def _own_default_cache(tmp_path_factory: pytest.TempPathFactory,
                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's default judge cache (``$SIMJUDGE_CACHE_DIR``, else ``~/.cache/simjudge``)
    is a folder of its own: no test reads what another wrote, in any order, under
    ``pytest -n``, and none writes to the user's cache."""
    monkeypatch.setenv("SIMJUDGE_CACHE_DIR", str(tmp_path_factory.mktemp("default-cache")))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """How many documentation snippets ran and were skipped, summed over the pages' tests
    (tests/test_docs_snippets.py records them; under ``pytest -n`` too)."""
    import json

    ran: dict[str, int] = {}
    skipped: list[str] = []
    for reports in terminalreporter.stats.values():
        for rep in reports:
            if getattr(rep, "when", None) != "call":
                continue
            for name, value in getattr(rep, "user_properties", []):
                if name == "docs_snippets":
                    got = json.loads(value)
                    for lang, n in got["ran"].items():
                        ran[lang] = ran.get(lang, 0) + n
                    skipped += got["skipped"]
    if ran:
        terminalreporter.write_line(
            f"docs snippets: ran {sum(ran.values())} "
            f"({', '.join(f'{k} {v}' for k, v in sorted(ran.items()))}), skipped {len(skipped)}")
        for s in sorted(skipped):
            terminalreporter.write_line(f"  skipped {s}")
