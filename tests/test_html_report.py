"""report.html in a real headless browser: Chromium from the system packages, driven by Selenium.

Skipped, with the reason, when Chromium, ChromeDriver or selenium is missing (.ci/run installs
them). Screenshots are kept under $PLANFILTER_SCREENSHOT_DIR when it is set (the
picture in docs/ is made this way), else in the test's temporary folder.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from headless import chromium, screenshot, severe, skip_without_browser

from planfilter.bench.report import build_report
from planfilter.bench.traces import TRACES_FILE
from planfilter.cli import cli

pytestmark = skip_without_browser


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = chromium(tmp_path_factory.mktemp("chromium"))
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("run")
    result = CliRunner().invoke(cli, ["run", "--methods", "all,cmtf", "--sample", "12",
                                      "--no-plots", "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "report.html" in result.output
    return out / "report.html"


def rows(driver) -> list:
    return driver.find_elements("css selector", "#list .row.run")


def count_text(driver) -> str:
    return driver.find_element("id", "count").text


def methods_listed(driver) -> set[str]:
    return {r.find_elements("css selector", "span")[2].text for r in rows(driver)}


def drawn(driver, condition):
    """What ``condition`` returns once it is true: a filter or a click writes the address's
    hash, and the page draws on the hashchange event that follows, a moment after the
    click returns."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, 10).until(condition)


def test_page_loads_filters_opens_a_run_and_compares_two_methods(browser, report, tmp_path):
    from selenium.webdriver.support.ui import Select

    browser.get(report.as_uri())
    assert severe(browser) == []
    summary = browser.find_elements("css selector", "#summary tbody tr")
    assert len(summary) == 4  # 2 models x 2 methods
    total = len(rows(browser))
    assert total > 0 and "48 of 48 runs" in count_text(browser)

    Select(browser.find_element("id", "f-method")).select_by_value("cmtf")
    drawn(browser, lambda d: "24 of 48 runs" in count_text(d))
    assert methods_listed(browser) == {"cmtf"}
    Select(browser.find_element("id", "f-outcome")).select_by_value("wrong tool")
    drawn(browser, lambda d: count_text(d).startswith("0 of 48"))
    assert rows(browser) == []  # cmtf never picks a wrong tool with the simulated models
    Select(browser.find_element("id", "f-outcome")).select_by_value("")
    Select(browser.find_element("id", "f-method")).select_by_value("all")
    drawn(browser, lambda d: methods_listed(d) == {"all"})
    assert methods_listed(browser) == {"all"} and "24 of 48 runs" in count_text(browser)

    rows(browser)[0].click()
    detail = drawn(browser, lambda d: (e := d.find_element("id", "detail")).is_displayed() and e)
    assert detail.is_displayed()
    steps = detail.find_elements("css selector", ".step")
    assert steps and "Visible" in steps[0].text and "Gold next" in steps[0].text
    assert "#" in browser.current_url and "run=" in browser.current_url

    browser.find_element("id", "open-compare").click()
    sides = drawn(browser, lambda d: d.find_elements("css selector", "#detail .compare .side"))
    assert [s.get_attribute("data-method") for s in sides] == ["all", "cmtf"]
    assert all(s.find_elements("css selector", ".trajectory .step") for s in sides)
    assert severe(browser) == []
    assert screenshot(browser, tmp_path, "report-html.png").stat().st_size > 10_000


def test_sorting_the_summary_by_success(browser, report):
    browser.get(report.as_uri())
    header = next(th for th in browser.find_elements("css selector", "#summary th")
                  if th.text.startswith("Success"))
    header.click()
    values = [float(r.find_elements("css selector", "td")[3].text)
              for r in browser.find_elements("css selector", "#summary tbody tr")]
    assert values == sorted(values, reverse=True)
    # the runs counted their model replies: tokens a call is a column, sortable as the rest
    header = next(th for th in browser.find_elements("css selector", "#summary th")
                  if th.text == "Tokens a call")
    header.click()
    values = [float(r.find_elements("css selector", "td")[-1].text.replace(",", ""))
              for r in browser.find_elements("css selector", "#summary tbody tr")]
    assert values == sorted(values, reverse=True) and min(values) > 0


LONG = "llamacpp/qwen2.5-coder-1.5b"
#: Longer than the runs list's widest model column (360 px): it must end in an ellipsis.
LONGER = "openai/a-model-name-long-enough-to-need-cutting-in-any-column-v2-instruct-preview"


def _run_lines(task, model, method, *, success=True, error=None, goal_correct=True,
               goals=(), switches=0):
    key = {"task": task, "model": model, "method": method, "seed": 1, "domain": "calendar"}
    return [{**key, "type": "step", "step": 1, "visible": ["a", "b"], "chosen": "b",
             "gold_next": "a", "premature": False, "input_tokens": 900, "output_tokens": 20,
             "done": True, "success": success, "error": error, "goals": list(goals)},
            {**key, "type": "run", "steps": 1, "success": success, "error": error,
             "complete": True, "goal": ["y"], "goal_by": "model", "goal_correct": goal_correct,
             "switches": switches}]


@pytest.fixture(scope="module")
def named_report(tmp_path_factory) -> Path:
    """A hand-written report: three models, one name short, one long, one longer than any
    column; and under --goal resolve one run that failed on a wrongly resolved goal."""
    out = tmp_path_factory.mktemp("names")
    lines = []
    for model in ("sim/careful", LONG, LONGER):
        for method in ("all", "keyword-5", "cmtf"):
            lines += _run_lines("calendar-move-001", model, method)
    lines += _run_lines("calendar-move-002", "sim/careful", "cmtf", success=False,
                        error="no mocked output for b in task calendar-move-002",
                        goal_correct=False, switches=1,
                        goals=("y (model) weight 1.00", "z (ranked) weight 0.50"))
    (out / TRACES_FILE).write_text("".join(json.dumps(line) + "\n" for line in lines))
    return build_report(out, plots=False).report_html


def text_box(driver, element) -> dict:
    """The rectangle the element's text is drawn in (not the element's own box)."""
    return driver.execute_script(
        "const r = document.createRange(); r.selectNodeContents(arguments[0]);"
        "const b = r.getBoundingClientRect(); return {left: b.left, right: b.right};", element)


def test_long_model_names_stay_in_their_column(browser, named_report, tmp_path):
    browser.get(named_report.as_uri())
    assert severe(browser) == []
    # Summary table: the name wraps inside its cell, which stays narrow (16em of text).
    names = set()
    for row in browser.find_elements("css selector", "#summary tbody tr"):
        model, method = row.find_elements("css selector", "td")[:2]
        name = model.get_property("textContent")
        names.add(name)
        text = text_box(browser, model)
        assert text["right"] <= model.rect["x"] + model.rect["width"] + 0.5, name
        assert text["right"] <= method.rect["x"] + 0.5, name
        assert model.rect["width"] <= 16 * 14 + 16 + 1, name
        assert model.get_attribute("title") == name
    assert names == {"sim/careful", LONG, LONGER}
    # Runs list: a row is one line of fixed columns; the model column widens for LONG and
    # LONGER is cut with an ellipsis, the full name in the title.
    seen = set()
    for row in rows(browser):
        model, method = row.find_elements("css selector", "span")[1:3]
        name = model.get_property("textContent")
        seen.add(name)
        assert model.rect["x"] + model.rect["width"] <= method.rect["x"] + 0.5, name
        if name == LONGER:  # drawn cut: clipped to its box, "…" at the end, whole on hover
            assert model.value_of_css_property("overflow-x") == "hidden"
            assert model.value_of_css_property("text-overflow") == "ellipsis"
            assert model.get_property("scrollWidth") > model.get_property("clientWidth")
        else:
            assert text_box(browser, model)["right"] <= method.rect["x"] + 0.5, name
        assert model.get_attribute("title") == name
    assert {LONG, LONGER} <= seen
    # Chart legends: one model a line, inside the chart's width; LONGER cut with an ellipsis.
    charts = browser.find_elements("css selector", "figure.chart")
    assert len(charts) == 2
    for chart in charts:
        entries = chart.find_elements("css selector", ".legend li")
        assert [e.get_attribute("title") for e in entries] == sorted(names)
        right = chart.rect["x"] + chart.rect["width"] + 0.5
        assert len({e.rect["y"] for e in entries}) == 3
        for entry in entries:
            assert entry.rect["x"] + entry.rect["width"] <= right, entry.get_attribute("title")
            if entry.get_attribute("title") == LONGER:
                assert entry.value_of_css_property("text-overflow") == "ellipsis"
                assert entry.get_property("scrollWidth") > entry.get_property("clientWidth")
            else:
                assert text_box(browser, entry)["right"] <= right, entry.get_attribute("title")
    assert screenshot(browser, tmp_path, "report-long-names.png").stat().st_size > 10_000


def test_a_wrongly_resolved_goal_is_its_own_outcome(browser, named_report):
    from selenium.webdriver.support.ui import Select

    browser.get(named_report.as_uri())
    Select(browser.find_element("id", "f-outcome")).select_by_value("wrong goal")
    drawn(browser, lambda d: count_text(d).startswith("1 of "))
    [row] = rows(browser)
    outcome = row.find_elements("css selector", "span")[4]
    assert outcome.text == "wrong goal" and "o-wrong-goal" in outcome.get_attribute("class")
    assert outcome.value_of_css_property("color") == "rgba(180, 35, 24, 1)"  # var(--bad)
    Select(browser.find_element("id", "f-outcome")).select_by_value("wrong tool")
    drawn(browser, lambda d: count_text(d).startswith("0 of "))
    assert rows(browser) == []
    Select(browser.find_element("id", "f-outcome")).select_by_value("wrong goal")
    drawn(browser, lambda d: count_text(d).startswith("1 of "))
    rows(browser)[0].click()
    detail = drawn(browser, lambda d: d.find_elements("css selector", "#detail .step")
                   and d.find_element("id", "detail")).text
    assert "(not the task's goal)" in detail
    assert "wrong goal: no mocked output" in detail
    # where the goal came from, the switches, and the candidates weighed at each step
    assert "from model · 1 goal switch(es)" in detail
    candidates = browser.find_elements("css selector", "#detail ol.candidates li")
    assert [c.text for c in candidates] == ["y (model) weight 1.00", "z (ranked) weight 0.50"]


@pytest.mark.slow
def test_ten_thousand_runs_stay_responsive(browser, report, tmp_path):
    lines = [json.loads(x) for x in (report.parent / TRACES_FILE).read_text().splitlines()]
    copies = -(-10_000 // sum(1 for x in lines if x["type"] == "run"))
    big = tmp_path / "big"
    big.mkdir()
    with (big / TRACES_FILE).open("w") as out:
        for seed in range(1, copies + 1):
            for line in lines:
                out.write(json.dumps({**line, "seed": seed}) + "\n")
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    start = time.perf_counter()
    files = build_report(big, plots=False)
    built = time.perf_counter() - start
    browser.get(files.report_html.as_uri())
    loaded = browser.execute_script(
        "return performance.getEntriesByType('navigation')[0].loadEventEnd")
    count = browser.find_element("id", "count").text
    assert count.startswith(f"{copies * 48:,} of")
    assert 0 < len(rows(browser)) < 100  # only the rows in view are in the page
    browser.execute_script("document.getElementById('list').scrollTop = 1e9")

    def last_run_opened(driver) -> bool:
        # the list renders the rows in view again while the scroll settles: a click on a
        # row that was just replaced opens nothing, so click the last one until it opens
        last = rows(driver)
        if not last or int(last[-1].get_attribute("data-run")) < copies * 48 - 100:
            return False
        last[-1].click()
        return bool(driver.find_elements("css selector", "#detail .step"))

    assert WebDriverWait(browser, 10, poll_frequency=0.5,
                         ignored_exceptions=(StaleElementReferenceException,)
                         ).until(last_run_opened)
    assert severe(browser) == []
    size_mb = files.report_html.stat().st_size / 1e6
    print(f"\n{copies * 48} runs: report.html {size_mb:.1f} MB, built in {built:.1f} s, "
          f"loaded in {loaded / 1000:.2f} s")
