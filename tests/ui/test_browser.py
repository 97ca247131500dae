"""`toolwire ui` in a real browser (Debian's chromium, driven through chromium-driver), served by
the real command, following a run made by the real `toolwire run --approve web`.

TOOLWIRE_SCREENSHOTS=DIR saves the pages as README and docs/ui.md show them.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.ui.conftest import HOSTILE, LONG, toolwire_command

CHROMIUM = shutil.which("chromium")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    not (CHROMIUM and DRIVER), reason="needs chromium and chromium-driver (scripts/test installs)"
)
webdriver = pytest.importorskip("selenium.webdriver")
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

TOOLS = '''
from toolwire import tool

@tool
def delete(path: str, force: bool = False) -> str:
    """Delete a file."""
    return f"deleted {path}" + (" (forced)" if force else "")
'''


@pytest.fixture
def browser() -> Iterator[Any]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    options.add_argument("--window-size=1200,900")
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield driver
    driver.quit()


@pytest.fixture
def ui(seeded: tuple[Path, dict[str, str]]) -> Iterator[str]:
    """`toolwire ui` on a free port, over the seeded log (the data dir the tests point at)."""
    server = subprocess.Popen(
        toolwire_command("ui", "--no-open", "--port", "0"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    line = server.stdout.readline()
    assert line.startswith("toolwire ui: http://127.0.0.1:"), line
    yield line.split()[2]
    server.terminate()  # as Ctrl-C would: the open live feeds end, nothing is cut off
    _, errors = server.communicate(timeout=10)
    assert errors == "" and server.returncode in (0, -signal.SIGTERM)


def until(driver: Any, check: Callable[[Any], Any], seconds: float = 10) -> Any:
    """The first true result of `check`, retried while the live page redraws under it."""
    wait = WebDriverWait(
        driver, seconds, poll_frequency=0.05, ignored_exceptions=[StaleElementReferenceException]
    )
    return wait.until(check)


def screenshot(driver: Any, name: str) -> None:
    folder = os.environ.get("TOOLWIRE_SCREENSHOTS")
    if folder:
        driver.save_screenshot(str(Path(folder) / name))


def test_a_logged_run_is_read_and_what_a_tool_wrote_stays_text(
    browser: Any, ui: str, seeded: tuple[Path, dict[str, str]]
) -> None:
    _, ids = seeded
    browser.get(ui)
    runs = "table.runs tbody td:first-child a"
    listed = until(browser, lambda d: [a.text for a in d.find_elements(By.CSS_SELECTOR, runs)])
    assert listed == [ids["plain"][:12], ids["hostile"][:12]]
    until(browser, lambda d: _click(d, f'a[href="/runs/{ids["hostile"]}"]'))
    until(browser, lambda d: ids["hostile"] in d.find_element(By.TAG_NAME, "h1").text)
    results = [r.text for r in browser.find_elements(By.CSS_SELECTOR, "pre.result")]
    assert results[0] == HOSTILE and "disk full" in results[2]
    assert browser.execute_script("return window.pwned") is None
    assert browser.find_elements(By.CSS_SELECTOR, "img") == []
    flags = [f.text for f in browser.find_elements(By.CSS_SELECTOR, ".call .flag")]
    assert flags == ["ok", "ok", "error"]
    screenshot(browser, "ui-run.png")
    browser.find_element(By.CSS_SELECTOR, "[data-full]").click()
    until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "pre.result")[1].text == LONG.strip())
    browser.get(ui + "?model=scripted-b")
    listed = until(browser, lambda d: [a.text for a in d.find_elements(By.CSS_SELECTOR, runs)])
    assert listed == [ids["plain"][:12]]


def test_a_live_run_is_followed_and_answered_on_the_page(
    browser: Any, ui: str, tmp_path: Path
) -> None:
    (tmp_path / "tools.py").write_text(TOOLS)
    turns = [
        {
            "text": "First a.txt.",
            "tool_calls": [{"name": "delete", "arguments": {"path": "a.txt"}, "id": "calls/1"}],
        },
        {"text": "Now c.txt.", "tool_calls": [{"name": "delete", "arguments": {"path": "c.txt"}}]},
        {"text": "Both gone."},
    ]
    (tmp_path / "turns.json").write_text(json.dumps(turns))
    browser.get(ui)
    command = ["run", "tidy up", "--model", "scripted:turns.json", "--tools", "tools.py"]
    run = subprocess.Popen(
        toolwire_command(*command, "--approve", "web"),
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # The list page, open before the run began, shows the call waiting.
        waiting = until(browser, lambda d: _waiting_text(d))
        assert "delete waits for approval" in waiting and "destructive" in waiting
        screenshot(browser, "ui-runs.png")
        until(browser, lambda d: _click(d, "form.approval a"))
        until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".call.waiting"))
        screenshot(browser, "ui-approval.png")
        until(browser, lambda d: _click(d, "button[data-answer=approve]"))
        # The page follows the run: the first call's result, then the second call waiting.
        until(browser, lambda d: "deleted a.txt" in d.find_element(By.ID, "live").text)
        until(browser, lambda d: "c.txt" in _waiting_text(d))
        _edit(browser, "{not json", "not JSON")
        _edit(browser, '{"path": 7}', "path: 7 is not of type 'string'")
        _edit(browser, '{"path": "c.txt", "force": true}', None)
        until(browser, lambda d: "answer" in d.find_element(By.CSS_SELECTOR, "h1 .badge").text)
        page = browser.find_element(By.ID, "live").text
        assert "deleted c.txt (forced)" in page and "Both gone." in page
        assert page.count("decided by web:user") == 2
        stdout, _ = run.communicate(timeout=10)
        assert run.returncode == 0 and "Both gone." in stdout
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()


def _click(driver: Any, selector: str) -> bool:
    driver.find_element(By.CSS_SELECTOR, selector).click()
    return True


def _waiting_text(driver: Any) -> str:
    return " ".join(f.text for f in driver.find_elements(By.CSS_SELECTOR, "form.approval"))


def _edit(browser: Any, text: str, error: str | None) -> None:
    form = browser.find_element(By.CSS_SELECTOR, "form.approval")
    details = form.find_element(By.TAG_NAME, "details")
    if details.get_attribute("open") is None:
        details.find_element(By.TAG_NAME, "summary").click()
    area = form.find_element(By.TAG_NAME, "textarea")
    area.clear()
    area.send_keys(text)
    form.find_element(By.CSS_SELECTOR, "button[data-answer=edit]").click()
    status = form.find_element(By.CSS_SELECTOR, ".status")
    if error is None:
        # Accepted, the call goes on and its form may leave the page before the status is read.
        until(browser, lambda d: _shown_or_gone(status))
        return
    until(browser, lambda d: status.text)
    assert error in status.text and "error" in status.get_attribute("class")


def _shown_or_gone(element: Any) -> bool:
    try:
        return bool(element.text)
    except StaleElementReferenceException:
        return True
