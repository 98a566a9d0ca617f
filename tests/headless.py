"""Headless Chromium for the browser tests: Debian's chromium and chromium-driver, via Selenium.

`skip_without_browser` is the mark of a test (or a test file) that needs the browser; it
names what is missing (.ci/run installs both). CI promises these tests: with
PLANFILTER_REQUIRE_BROWSER=1 (.ci/run sets it) they are not skipped, and a missing browser
fails them, naming what is missing. `chromium(folder)` starts one headless browser
with its profile in ``folder``; `severe` lists the page's console errors; `screenshot` saves a
picture under $PLANFILTER_SCREENSHOT_DIR when it is set, else in the given folder.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
SELENIUM = importlib.util.find_spec("selenium") is not None


def missing() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if not SELENIUM:
        return "selenium is not installed (pip install '.[test]')"
    if not (CHROMIUM and DRIVER):
        return ("no headless browser: install Debian's chromium and chromium-driver "
                "(apt-get install chromium chromium-driver)")
    return None


#: Set by .ci/run: the browser tests must run, so a missing browser fails them.
REQUIRED = os.environ.get("PLANFILTER_REQUIRE_BROWSER") == "1"

skip_without_browser = pytest.mark.skipif(missing() is not None and not REQUIRED,
                                          reason=str(missing()))


def chromium(profile: Path, *, size: str = "1400,1800") -> Any:
    """A headless Chromium driven by Selenium, its console log kept (see `severe`); a test
    failure naming what is missing when there is none (see `REQUIRED`)."""
    if missing() is not None:
        pytest.fail(f"{missing()}; PLANFILTER_REQUIRE_BROWSER=1 asks for the browser tests",
                    pytrace=False)
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", f"--window-size={size}",
                 f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(DRIVER), options=options)


def severe(driver: Any) -> list[str]:
    """The console errors the page logged since the last call."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def screenshot(driver: Any, folder: Path, name: str) -> Path:
    """Save the window as ``name`` under $PLANFILTER_SCREENSHOT_DIR, else under ``folder``."""
    target = Path(os.environ.get("PLANFILTER_SCREENSHOT_DIR") or folder)
    target.mkdir(parents=True, exist_ok=True)
    path = target / name
    driver.save_screenshot(str(path))
    return path
