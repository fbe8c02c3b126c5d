"""The browsers the browser tests share (:mod:`tests.browser`): one lent again is as clean as
a new one, so no test sees what another left in it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.browser import WINDOW, clean


def test_a_cleaned_browser_keeps_nothing_of_the_last_test(chrome: Any, tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text("<!doctype html><title>p</title><p>p</p>", encoding="utf-8")
    other = tmp_path / "q.html"
    other.write_text("<!doctype html><title>q</title><p>q</p>", encoding="utf-8")
    d = chrome
    d.get(page.as_uri())
    d.execute_script("localStorage.setItem('k', 'left'); sessionStorage.setItem('k', 'left');")
    d.switch_to.new_window("tab")
    d.set_window_size(800, 600)
    d.implicitly_wait(3)
    assert len(d.window_handles) == 2

    clean(d)

    assert len(d.window_handles) == 1 and d.current_url == "about:blank"
    assert tuple(d.get_window_size().values()) == WINDOW
    assert d.timeouts.implicit_wait == 0
    d.get(other.as_uri())  # every file:// page shares one local storage
    assert d.execute_script("return [localStorage.length, sessionStorage.length]") == [0, 0]


def test_two_browsers_keep_their_storage_apart(chrome: Any, second_chrome: Any,
                                               tmp_path: Path) -> None:
    page = tmp_path / "p.html"
    page.write_text("<!doctype html><title>p</title>", encoding="utf-8")
    chrome.get(page.as_uri())
    chrome.execute_script("localStorage.setItem('reviewer', 'ann')")
    second_chrome.get(page.as_uri())
    assert second_chrome.execute_script("return localStorage.getItem('reviewer')") is None
    assert chrome.session_id != second_chrome.session_id
