"""The documentation site as a reader meets it: built strictly, served, opened in Chromium.

`mkdocs build --strict` (a broken link, a missing page or an unresolved API reference fails
it) writes the site into a temporary folder; a local http.server on 127.0.0.1 serves it, and
headless Chromium opens a few pages: each loads without console errors, the navigation holds
every top-level section of mkdocs.yml, and the code blocks, the generated command options and
the API reference are on their pages. Skipped, with the reason, without the docs extra
(`pip install '.[docs]'`) or without Chromium and ChromeDriver. The home page's screenshot is
kept under $PLANFILTER_SCREENSHOT_DIR when it is set (docs/site-home.png is made this way).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml
from headless import chromium, screenshot, severe, skip_without_browser

ROOT = Path(__file__).resolve().parent.parent
DOCS_PACKAGES = {"mkdocs": "mkdocs", "material": "mkdocs-material",
                 "mkdocstrings_handlers.python": "mkdocstrings[python]",
                 "mkdocs_click": "mkdocs-click"}


def _missing_docs_tools() -> list[str]:
    missing = []
    for module, package in DOCS_PACKAGES.items():
        try:
            found = importlib.util.find_spec(module) is not None
        except ModuleNotFoundError:
            found = False
        if not found:
            missing.append(package)
    return missing


pytestmark = [
    pytest.mark.skipif(bool(_missing_docs_tools()), reason=(
        f"the docs extra is not installed (missing {', '.join(_missing_docs_tools())}; "
        "pip install '.[docs]')")),
    skip_without_browser,
]


def top_sections() -> list[str]:
    """The titles of mkdocs.yml's top-level navigation entries."""
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    return [next(iter(entry)) for entry in config["nav"]]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(ROOT)}
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                            "--site-dir", str(out)], cwd=ROOT, env=env, capture_output=True,
                           text=True, timeout=300)
    assert built.returncode == 0, f"mkdocs build --strict failed:\n{built.stderr[-4000:]}"
    return out


@pytest.fixture(scope="module")
def served(site):
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = chromium(tmp_path_factory.mktemp("chromium"), size="1400,1000")
    yield driver
    driver.quit()


def texts(driver, selector: str) -> list[str]:
    return [e.get_attribute("textContent").strip()
            for e in driver.find_elements("css selector", selector)]


def test_the_home_page_loads_with_every_section_in_its_navigation(browser, served, tmp_path):
    browser.get(served + "/")
    assert "planfilter" in browser.title
    assert severe(browser) == []
    tabs = texts(browser, ".md-tabs__link")
    for section in top_sections():
        assert section in tabs, f"{section!r} is not in the navigation tabs {tabs}"
    assert "Causal Minimal" in browser.find_element("css selector", "article").text
    assert screenshot(browser, tmp_path, "site-home.png").stat().st_size > 10_000


@pytest.mark.parametrize("page, words", [
    ("getting-started/", "planfilter run"),
    ("guides/session/", "def run_agent"),
    ("concepts/guard/", "declined"),
    ("results/agentdojo/", "oracle goal"),
])
def test_pages_show_their_code_blocks(browser, served, page, words):
    browser.get(f"{served}/{page}")
    assert severe(browser) == []
    blocks = texts(browser, "article pre code")
    assert blocks, f"{page}: no code block"
    assert any(words in block for block in blocks) or words in browser.find_element(
        "css selector", "article").text, f"{page}: {words!r} not on the page"
    # every page keeps the whole navigation, not only the home page
    assert set(top_sections()) <= set(texts(browser, ".md-tabs__link"))


def test_the_reference_is_generated_from_the_code(browser, served):
    browser.get(served + "/reference/cli/")
    article = browser.find_element("css selector", "article").text
    for option in ("--approve-risky", "--candidates", "--contracts"):  # run, run, serve
        assert option in article, f"the command line reference lacks {option}"
    browser.get(served + "/reference/api/")
    article = browser.find_element("css selector", "article").text
    headings = " ".join(texts(browser, "article .doc-heading"))
    for name in ("Session", "ToolGuard", "compute_frontier"):
        assert name in headings, f"the API reference lacks {name}"
    assert "is refused from now on" in article  # Session.decline's docstring, rendered
