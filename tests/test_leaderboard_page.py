"""The leaderboard page in a real headless browser: Debian's Chromium (/usr/bin/chromium),
driven by Playwright. It loads offline with no console error and no request but its own
file, shows one table row per run and one mark per run in every slice chart, escapes
what the runs hold, links each run's files, sorts, and fits a narrow window."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest
from browser import needs_chromium, open_page
from conftest import HOSTILE_NAME, run_cli

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def page_file(
    leaderboard_runs: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, dict[str, Any]]:
    """The page, written away from the runs database (its links are relative to the
    page), with a comparison; and the same leaderboard as JSON."""
    page = tmp_path_factory.mktemp("page") / "site" / "leaderboard.html"
    page.parent.mkdir()
    args = ("--runs", leaderboard_runs["db"], "--compare", "sql-baseline", "missing-ten", "--resamples", "500")
    done = run_cli("leaderboard", *args, "--html", page)
    assert done.returncode == 0, done.stderr
    board = json.loads(run_cli("leaderboard", *args, "--format", "json").stdout)
    return page, board


@pytest.mark.parametrize("width", [1366, 400])
def test_the_page_loads_offline_with_a_row_and_a_mark_per_run(
    browser: Any, page_file: tuple[Path, dict[str, Any]], tmp_path: Path, width: int
) -> None:
    page, board = page_file
    tab, seen = open_page(browser, page, width)
    assert seen["errors"] == [] and seen["dialogs"] == []
    assert set(seen["requests"]) == {page.as_uri()}
    run_ids = [run["run_id"] for run in board["runs"]]
    assert tab.eval_on_selector_all("#runs tbody tr", "rows => rows.map(r => r.dataset.runId)") == run_ids
    charts = tab.locator("#slice-charts .chart")
    assert charts.count() == 6
    for i in range(6):
        assert charts.nth(i).locator(".mark").count() == len(run_ids)
    graded = [run for run in board["runs"] if run["all_f1"] is not None]
    assert tab.locator("#cost-chart .mark").count() == len(graded)
    assert tab.locator("#compare-section").is_visible() and tab.locator("#compare tbody tr").count() == 6
    # the tables scroll inside their boxes; the page itself is no wider than the window
    assert tab.evaluate("document.documentElement.scrollWidth") <= width
    shot = tmp_path / f"leaderboard-{width}.png"
    tab.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    tab.context.close()


def test_run_names_are_text_not_markup(browser: Any, page_file: tuple[Path, dict[str, Any]]) -> None:
    tab, seen = open_page(browser, page_file[0], 1366)
    assert tab.locator("img").count() == 0 and seen["dialogs"] == []
    assert HOSTILE_NAME in tab.locator("#runs tbody").inner_text()
    assert tab.locator("#slice-charts text", has_text="sleepy </script>").count() == 6
    tab.context.close()


def test_each_run_links_its_files_relative_to_the_page(browser: Any, page_file: tuple[Path, dict[str, Any]]) -> None:
    page, board = page_file
    tab, _ = open_page(browser, page, 1366)
    links = tab.eval_on_selector_all("#runs td.files a", "links => links.map(a => [a.getAttribute('href'), a.href])")
    wanted = sum(1 for run in board["runs"] for path in run["files"].values() if path)
    assert len(links) == wanted and wanted >= 3 * len(board["runs"]) - 1  # the timed-out run has no submission
    for href, resolved in links:
        assert not href.startswith(("/", "file:")), href
        assert Path(unquote(urlparse(resolved).path)).is_file(), resolved
    tab.context.close()


def test_the_table_sorts_and_the_charts_follow(browser: Any, page_file: tuple[Path, dict[str, Any]]) -> None:
    page, board = page_file
    tab, _ = open_page(browser, page, 1366)
    tab.locator("#runs thead button", has_text="name").click()
    names = sorted(run["name"] for run in board["runs"])
    by_id = {run["run_id"]: run["name"] for run in board["runs"]}
    order = tab.eval_on_selector_all("#runs tbody tr", "rows => rows.map(r => r.dataset.runId)")
    assert [by_id[run_id] for run_id in order] == names
    assert tab.locator("#runs thead th[aria-sort=ascending]").inner_text().startswith("name")
    first_label = tab.locator("#slice-charts .chart").first.locator("svg > text").first.text_content()
    assert names[0].startswith(first_label.rstrip("…").split(" (")[0])
    tab.locator("#runs thead button", has_text="name").click()
    order = tab.eval_on_selector_all("#runs tbody tr", "rows => rows.map(r => r.dataset.runId)")
    assert [by_id[run_id] for run_id in order] == names[::-1]
    tab.context.close()
