"""The documentation site as a reader meets it: built strictly, served, opened in Chromium.

`mkdocs build --strict` (a broken link, a missing page or an unresolved API reference fails
it) writes the site into a temporary folder; a local http.server on 127.0.0.1 serves it, and
headless Chromium opens a few pages: each loads without console errors, the navigation holds
every top-level section of mkdocs.yml, and the code blocks, the generated command options and
the API reference are on their pages. The strict build is a test of its own, run without
the browser. Skipped, with the reason, without the docs extra (`pip install '.[docs]'`), and
the browser tests without Chromium and ChromeDriver; CI promises both, so with
PLANFILTER_REQUIRE_DOCS=1 and PLANFILTER_REQUIRE_BROWSER=1 (.ci/run sets them) what is missing
fails them instead. The home page's screenshot is
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


#: Set by .ci/run: the docs build must run, so a missing docs extra fails it.
DOCS_REQUIRED = os.environ.get("PLANFILTER_REQUIRE_DOCS") == "1"
NO_DOCS = (f"the docs extra is not installed (missing {', '.join(_missing_docs_tools())}; "
           "pip install '.[docs]')")

pytestmark = pytest.mark.skipif(bool(_missing_docs_tools()) and not DOCS_REQUIRED,
                                reason=NO_DOCS)


def top_sections() -> list[str]:
    """The titles of mkdocs.yml's top-level navigation entries."""
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    return [next(iter(entry)) for entry in config["nav"]]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    if _missing_docs_tools():
        pytest.fail(f"{NO_DOCS}; PLANFILTER_REQUIRE_DOCS=1 asks for the docs build",
                    pytrace=False)
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


def _pages(entries) -> list[str]:
    """The Markdown files mkdocs.yml's navigation lists, nested sections included."""
    pages = []
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        pages += _pages(value) if isinstance(value, list) else [value]
    return pages


def test_the_site_builds_strictly_with_every_page_of_its_navigation(site):
    """`mkdocs build --strict` passed (the fixture fails otherwise: a broken link, a missing
    page, an unresolved API reference), and every page the navigation lists was written."""
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    pages = _pages(config["nav"])
    assert "index.md" in pages and "reference/api.md" in pages
    for page in pages:
        stem = page.removesuffix(".md")
        html = site / ("index.html" if stem == "index" else
                       f"{stem.removesuffix('/index')}/index.html")
        assert html.is_file(), f"{page} was not built ({html.relative_to(site)})"


def texts(driver, selector: str) -> list[str]:
    return [e.get_attribute("textContent").strip()
            for e in driver.find_elements("css selector", selector)]


@skip_without_browser
def test_the_home_page_loads_with_every_section_in_its_navigation(browser, served, tmp_path):
    browser.get(served + "/")
    assert "planfilter" in browser.title
    assert severe(browser) == []
    tabs = texts(browser, ".md-tabs__link")
    for section in top_sections():
        assert section in tabs, f"{section!r} is not in the navigation tabs {tabs}"
    assert "Causal Minimal" in browser.find_element("css selector", "article").text
    assert screenshot(browser, tmp_path, "site-home.png").stat().st_size > 10_000


@skip_without_browser
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


@skip_without_browser
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
