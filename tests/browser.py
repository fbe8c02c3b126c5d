"""Driving headless Chromium in tests (the audit report and the review app).

The browser tests drive Debian's chromium through chromedriver (installed by ``.ci/run``) with
selenium; each skips, before doing any work, where selenium, chromium or chromedriver cannot be
found (the ``browser`` fixture, and ``chrome`` / ``second_chrome``, which check first).

Starting Chromium costs 2–3 s, so each test process (each ``pytest -n`` worker) keeps the
browsers it started and hands them out again, one test at a time: :func:`chrome` lends one,
:func:`second_chrome` a second (two reviewers need two profiles' storage). A browser comes back
clean — one window on ``about:blank``, the default window size, no cookies, no local/session
storage, IndexedDB, service workers or cache of any origin (``file://`` included), no implicit
wait — so no test sees what another left, in any order. One that cannot be cleaned (it crashed
or hung) is quit and replaced.
"""

from __future__ import annotations

import contextlib
import shutil
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

WINDOW = (1400, 1000)
"""Every browser's window size (width, height) at the start of a test."""


def browser_binaries() -> tuple[str, str]:
    """(chromium, chromedriver) paths; skips the calling test when selenium or either binary
    is missing. Every selenium import of a test comes after this check."""
    pytest.importorskip("selenium.webdriver", exc_type=ImportError,  # absent or broken
                        reason="selenium is not installed (pip install -e '.[test]')")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_bin = shutil.which("chromedriver")
    if not chromium or not driver_bin:
        pytest.skip("chromium/chromedriver not installed (.ci/run installs Debian's packages)")
    return chromium, driver_bin


@pytest.fixture
def browser() -> tuple[str, str]:
    """Skip a browser test at setup (before its eval runs) unless it can drive chromium."""
    return browser_binaries()


def driver():  # type: ignore[no-untyped-def]
    """A new headless Chromium (selenium ``webdriver.Chrome``) of its own; the caller quits
    it. Tests borrow one from the ``chrome`` fixture instead (no start-up cost)."""
    chromium, driver_bin = browser_binaries()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--disable-background-networking", "--disable-component-update", "--disable-sync",
              "--no-first-run", f"--window-size={WINDOW[0]},{WINDOW[1]}"):
        opts.add_argument(a)
    opts.binary_location = chromium
    return webdriver.Chrome(service=Service(driver_bin), options=opts)


def clean(d: Any) -> None:
    """Bring a used browser back to a fresh one's state (see the module docstring); raises
    whatever the browser raises when it cannot (then it is not reused)."""
    handles = d.window_handles
    for h in handles[1:]:
        d.switch_to.window(h)
        d.close()
    d.switch_to.window(handles[0])
    d.get("about:blank")
    # "*": every origin (the file:// pages share one local storage); cookies too
    d.execute_cdp_cmd("Storage.clearDataForOrigin", {"origin": "*", "storageTypes": "all"})
    d.execute_cdp_cmd("Network.clearBrowserCookies", {})
    d.execute_cdp_cmd("Network.clearBrowserCache", {})
    d.implicitly_wait(0)
    if tuple(d.get_window_size().values()) != WINDOW:
        d.set_window_size(*WINDOW)


class _Pool:
    """The browsers of this test process: idle ones are lent again, cleaned, before a new
    one is started."""

    def __init__(self) -> None:
        self.idle: list[Any] = []

    def take(self) -> Any:
        while self.idle:
            d = self.idle.pop()
            try:
                clean(d)
                return d
            except Exception:  # a crashed or hung browser: drop it
                _quit(d)
        return driver()

    def give_back(self, d: Any) -> None:
        try:
            d.get("about:blank")  # its pages stop (a review page polls its server)
        except Exception:
            _quit(d)
            return
        self.idle.append(d)

    def close(self) -> None:
        while self.idle:
            _quit(self.idle.pop())


def _quit(d: Any) -> None:
    with contextlib.suppress(Exception):  # already gone
        d.quit()


@pytest.fixture(scope="session")
def _chrome_pool() -> Iterator[_Pool]:
    pool = _Pool()
    yield pool
    pool.close()


def _lend(pool: _Pool) -> Iterator[Any]:
    browser_binaries()  # skip at setup, before the test's own work
    d = pool.take()
    try:
        yield d
    finally:
        pool.give_back(d)


@pytest.fixture
def chrome(_chrome_pool: _Pool) -> Iterator[Any]:
    """A clean headless Chromium (selenium ``webdriver.Chrome``) for this test, from this
    process's pool; skips the test without selenium, chromium or chromedriver."""
    yield from _lend(_chrome_pool)


@pytest.fixture
def second_chrome(chrome: Any, _chrome_pool: _Pool) -> Iterator[Any]:
    """Another clean Chromium, with storage apart from ``chrome``'s (a second reviewer)."""
    yield from _lend(_chrome_pool)


def wait(d: Any, condition: Callable[[Any], Any], timeout: float = 30.0,
         what: str = "the page") -> Any:
    """Poll ``condition(d)`` every 20 ms until it returns something true, and return that;
    AssertionError naming ``what`` after ``timeout`` seconds (generous: loaded CI machines)."""
    end = time.monotonic() + timeout
    while True:
        got = condition(d)
        if got:
            return got
        if time.monotonic() > end:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(0.02)


def open_report(d: Any, page: Any) -> None:
    """Load an audit page (a ``Path``) and wait until its script has drawn it: the script
    runs on once its page data is inflated, without yielding, so the first item section in
    the DOM means the whole page is built (heatmaps are drawn later, as they scroll into view:
    :func:`show_item`)."""
    d.get(page.as_uri())
    wait(d, lambda x: x.execute_script("return document.querySelector('section.item') !== null"),
         what=f"the items of {page}")


def show_item(d: Any, n: int) -> None:
    """Scroll the audit page's item ``n`` into view and wait until its heatmap is drawn."""
    d.execute_script(f"document.getElementById('item-{n}').scrollIntoView()")
    wait(d, lambda x: x.execute_script(
        f"return document.querySelector('rect.cell[data-item=\"{n}\"]') !== null"),
        what=f"item {n}'s heatmap")
