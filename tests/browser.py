"""Driving headless Chromium in tests (the audit report and the review app).

The browser tests drive Debian's chromium through chromedriver (installed by ``.ci/run``) with
selenium; each skips, before doing any work, where selenium, chromium or chromedriver cannot be
found (the ``browser`` fixture).
"""

from __future__ import annotations

import shutil

import pytest


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
    chromium, driver_bin = browser_binaries()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--disable-background-networking", "--disable-component-update", "--disable-sync",
              "--no-first-run", "--window-size=1400,1000"):
        opts.add_argument(a)
    opts.binary_location = chromium
    return webdriver.Chrome(service=Service(driver_bin), options=opts)
