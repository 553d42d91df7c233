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
    assert tab.eval_on_selector_all("#runs tbody tr[data-run-id]", "rows => rows.map(r => r.dataset.runId)") == run_ids
    charts = tab.locator("#slice-charts .chart")
    assert charts.count() == 6
    for i in range(6):
        assert charts.nth(i).locator(".mark").count() == len(run_ids)
    first = next(g for g in board["groups"] if any(r["group_id"] == g["group_id"] and r["all_f1"] is not None
                                                   for r in board["runs"]))  # the cost chart's first corpus and split
    graded = [run for run in board["runs"] if run["all_f1"] is not None and run["group_id"] == first["group_id"]]
    assert tab.locator("#cost-chart .mark").count() == len(graded)
    assert tab.locator("#compare-section").is_visible() and tab.locator("#compare tbody tr").count() == 7  # primary, slices
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
    groups = [sorted(r["name"] for r in board["runs"] if r["group_id"] == g["group_id"]) for g in board["groups"]]
    names = [name for group in groups for name in group]  # sorted within each corpus and split
    by_id = {run["run_id"]: run["name"] for run in board["runs"]}
    order = tab.eval_on_selector_all("#runs tbody tr[data-run-id]", "rows => rows.map(r => r.dataset.runId)")
    assert [by_id[run_id] for run_id in order] == names
    assert tab.locator("#runs thead th[aria-sort=ascending]").inner_text().startswith("name")
    first_label = tab.locator("#slice-charts .chart").first.locator("svg > text").first.text_content()
    assert names[0].startswith(first_label.rstrip("…").split(" (")[0])
    tab.locator("#runs thead button", has_text="name").click()
    order = tab.eval_on_selector_all("#runs tbody tr[data-run-id]", "rows => rows.map(r => r.dataset.runId)")
    assert [by_id[run_id] for run_id in order] == [name for group in groups for name in group[::-1]]
    tab.context.close()


def _dominated(run: dict[str, Any], others: list[dict[str, Any]], cost: str) -> bool:
    return any(o is not run and o["all_f1"] >= run["all_f1"] and o[cost] <= run[cost]
               and (o["all_f1"] > run["all_f1"] or o[cost] < run[cost]) for o in others)  # fmt: skip


@pytest.mark.parametrize("width", [1366, 400])
def test_the_cost_chart_labels_never_overlap_and_the_frontier_is_exact(
    browser: Any, page_file: tuple[Path, dict[str, Any]], width: int
) -> None:
    """Runs of close costs: no two name labels' boxes overlap; the frontier listed is exactly
    the runs no other run (of the same corpus and split) beats on both quality and cost; a
    cost no run has is not offered; the cost axis starts at zero; one section per corpus and
    split in the runs table; every slice chart spans 0 to 1."""
    page, board = page_file
    tab, seen = open_page(browser, page, width)
    for cost in ("wall_seconds", "cpu_seconds"):
        tab.select_option("#cost", cost)
        boxes = tab.eval_on_selector_all(
            "#cost-chart .point-labels text", "ts => ts.map(t => { const b = t.getBBox(); return [b.x, b.y, b.width, b.height]; })"
        )
        assert len(boxes) >= 4
        for i, (x, y, w, h) in enumerate(boxes):
            for x2, y2, w2, h2 in boxes[i + 1 :]:
                assert not (x < x2 + w2 and x2 < x + w and y < y2 + h2 and y2 < y + h), (cost, width, boxes)
        first = next(g for g in board["groups"] if any(r["group_id"] == g["group_id"] and r["all_f1"] is not None
                                                       for r in board["runs"]))  # fmt: skip
        points = [r for r in board["runs"] if r["group_id"] == first["group_id"] and r["all_f1"] is not None]
        wanted = {r["run_id"] for r in points if not _dominated(r, points, cost)}
        listed = tab.get_attribute("#frontier", "data-run-ids").split()
        assert set(listed) == wanted and wanted, (cost, listed)
        lowest = tab.eval_on_selector_all("#cost-chart .axis text", "ts => ts.map(t => t.textContent)")
        assert any(t.replace(".", "").strip("0") == "" for t in lowest), lowest  # a tick at 0
    offered = tab.eval_on_selector_all("#cost option", "os => os.filter(o => !o.disabled).map(o => o.value)")
    assert "total_tokens" not in offered and "requests" not in offered  # no run used an endpoint
    headings = tab.eval_on_selector_all("#runs tr.group th", "ths => ths.map(t => t.textContent)")
    assert len(headings) == len(board["groups"]) == 2
    assert all(f"{g['public_sha256'][:12]}…, {g['split']} split" in h for g, h in zip(board["groups"], headings))
    ends = tab.eval_on_selector_all("#slice-charts .chart", """cs => cs.map(c => {
        const ts = [...c.querySelectorAll('.axis text')].map(t => t.textContent); return [ts[0], ts[ts.length - 1]]; })""")
    assert len({tuple(e) for e in ends}) == 1 and float(ends[0][0]) == 0 and float(ends[0][1]) == 1, ends
    assert seen["errors"] == []
    tab.context.close()


def test_a_runs_database_copied_alone_shows_its_grades(
    browser: Any, leaderboard_runs: dict[str, Any], tmp_path: Path
) -> None:
    """Without its run directory, a graded run still shows its grade, and the files cell
    says the directory is not here (not "no submission")."""
    import shutil

    alone = tmp_path / "copied" / "runs.duckdb"
    alone.parent.mkdir()
    shutil.copy(leaderboard_runs["db"], alone)
    page = tmp_path / "copied" / "leaderboard.html"
    assert run_cli("leaderboard", "--runs", alone, "--html", page, "--resamples", "50").returncode == 0
    tab, seen = open_page(browser, page, 1366)
    row = tab.locator("#runs tbody tr[data-run-id]").first
    assert "680 / 680" in row.inner_text() and "run directory not here" in row.inner_text()
    assert "no submission" not in row.inner_text() and seen["errors"] == []
    tab.context.close()
