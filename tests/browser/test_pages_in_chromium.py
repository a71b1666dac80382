"""The comparison page and the leaderboard page, built from the bundled golden set, read in
headless Chromium at 420 px and 1280 px: screenshots kept in tests/browser/artefacts/ (and read
back: not blank, the chart's colours drawn), and what the browser laid out: no horizontal scroll
of the page, the y-axis labels signed and inside their chart, every bar titled with its query,
the leaderboard sorted by a click on a column header."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from qrelkit.models import Comparison, Leaderboard
from qrelkit.render.html import render
from qrelkit.render.html_leaderboard import render_leaderboard

from . import pages, png
from .cdp import Browser, Page

OpenPage = Callable[[Path, int], Page]
WIDTHS = (420, 1280)
HEIGHT = 2400
UP, DOWN = (0x1A, 0x7F, 0x37), (0xCF, 0x22, 0x2E)
"""The bar colours of the delta chart (gain, loss)."""


@pytest.fixture(scope="module")
def comparison() -> Comparison:
    return pages.comparison()


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory) -> Leaderboard:
    return pages.leaderboard(tmp_path_factory.mktemp("runs"))


@pytest.fixture(scope="module")
def files(comparison: Comparison, board: Leaderboard, artefacts: Path) -> dict[str, Path]:
    written = {"compare": artefacts / "compare.html", "leaderboard": artefacts / "leaderboard.html"}
    written["compare"].write_text(render(comparison), encoding="utf-8")
    written["leaderboard"].write_text(render_leaderboard(board), encoding="utf-8")
    return written


@pytest.fixture
def open_page(browser: Browser) -> Iterator[OpenPage]:
    opened: list[Page] = []

    def at(path: Path, width: int) -> Page:
        page = browser.page(path, width, HEIGHT)
        opened.append(page)
        return page

    yield at
    for p in opened:
        p.close()


def _not_blank(image: png.Image, width: int) -> None:
    assert (image.width, image.height) == (width, HEIGHT)
    pixels = image.rgb.reshape(-1, 3)
    background = np.all(pixels == 255, axis=1).mean()
    assert background < 0.97, f"{background:.1%} of the screenshot is white"
    colours = np.unique(pixels[:: max(1, len(pixels) // 200_000)], axis=0)
    assert len(colours) > 50, f"only {len(colours)} colours"


@pytest.mark.parametrize("width", WIDTHS)
def test_the_comparison_page_reads_at(width: int, files: dict[str, Path], open_page: OpenPage, artefacts: Path) -> None:
    page = open_page(files["compare"], width)
    layout = page.evaluate(
        "({scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth})"
    )
    assert layout["scroll"] <= layout["client"] == width, layout  # no horizontal scroll of the page
    shot = artefacts / f"compare-{width}.png"
    image = png.read(page.screenshot(shot))
    _not_blank(image, width)
    pixels = image.rgb.reshape(-1, 3)
    for colour in (UP, DOWN):  # bars of both signs were painted
        assert np.all(pixels == colour, axis=1).sum() > 20, colour


@pytest.mark.parametrize("width", WIDTHS)
def test_the_axis_labels_are_signed_and_inside_their_chart(
    width: int, comparison: Comparison, files: dict[str, Path], open_page: OpenPage
) -> None:
    page = open_page(files["compare"], width)
    ticks = page.evaluate(
        """Array.from(document.querySelectorAll('svg[aria-label^="per-query delta"]')).map(svg => {
             const box = svg.getBoundingClientRect();
             return Array.from(svg.querySelectorAll("text")).map(t => {
               const r = t.getBoundingClientRect();
               return {text: t.textContent, left: r.left - box.left, right: box.right - r.right, width: r.width};
             });
           })"""
    )
    assert len(ticks) == 2
    for chart, metric in zip(ticks, (comparison.headline, comparison.recall), strict=True):
        top = max(abs(b - a) for a, b in comparison.per_query[metric].values()) or 1.0
        assert [t["text"] for t in chart] == [f"+{top:.2f}", "0", f"-{top:.2f}"]
        for t in chart:  # drawn whole: the sign is not cut off at the chart's left edge
            assert t["left"] >= 0 and t["right"] >= 0 and t["width"] > 0, t


def test_every_bar_is_titled_with_its_query_in_the_dom(
    comparison: Comparison, files: dict[str, Path], open_page: OpenPage
) -> None:
    page = open_page(files["compare"], 420)
    titles = page.evaluate(
        """Array.from(document.querySelectorAll('svg[aria-label^="per-query delta"]')).map(svg =>
             Array.from(svg.querySelectorAll("rect")).map(r => {
               const t = r.querySelector("title");
               return t === null ? null : t.textContent;
             }))"""
    )
    for chart, metric in zip(titles, (comparison.headline, comparison.recall), strict=True):
        assert None not in chart and len(chart) == comparison.queries
        assert {t.split(":")[0] for t in chart} == set(comparison.per_query[metric])


@pytest.mark.parametrize("width", WIDTHS)
def test_the_leaderboard_reads_at(width: int, files: dict[str, Path], open_page: OpenPage, artefacts: Path) -> None:
    page = open_page(files["leaderboard"], width)
    layout = page.evaluate(
        """({scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth,
             table: document.querySelector(".scroll").scrollWidth > document.querySelector(".scroll").clientWidth})"""
    )
    assert layout["scroll"] <= layout["client"] == width, layout
    if width == 420:
        assert layout["table"], "the wide table scrolls inside its box"
    _not_blank(png.read(page.screenshot(artefacts / f"leaderboard-{width}.png")), width)


def test_a_click_on_a_header_sorts_the_leaderboard(
    board: Leaderboard, files: dict[str, Path], open_page: OpenPage
) -> None:
    page = open_page(files["leaderboard"], 1280)
    col = 1 + 4 * board.metrics.index("nDCG@10")  # the mean of the headline
    click = f"""(() => {{ document.querySelector('th[data-col="{col}"]').click();
                 return Array.from(document.querySelectorAll("tbody tr")).map(r => r.cells[0].textContent); }})()"""
    means = {r.run: r.cells["nDCG@10"].mean for r in board.rows}
    first = page.evaluate(click)
    assert first == sorted(means, key=lambda r: -(means[r] or 0.0))  # highest first
    second = page.evaluate(click)
    assert second == sorted(means, key=lambda r: means[r] or 0.0)
    by_name = page.evaluate(
        """(() => { document.querySelector('th[data-col="0"]').click();
                    return Array.from(document.querySelectorAll("tbody tr")).map(r => r.cells[0].textContent); })()"""
    )
    assert by_name == sorted(means, reverse=True)  # text, descending on the first click
    deltas = f"""(() => {{ document.querySelector('th[data-col="{col + 1}"]').click();
                 return Array.from(document.querySelectorAll("tbody tr")).map(r => r.cells[0].textContent); }})()"""
    order = page.evaluate(deltas)
    assert order[-1] == board.baseline  # no delta: last, whichever way


def test_the_png_reader_reads_what_chromium_paints(browser: Browser, tmp_path: Path) -> None:
    """The reader itself, against colours the test chose: three blocks at known places."""
    page_file = tmp_path / "blocks.html"
    page_file.write_text(
        "<html><body style='margin:0;background:#fff'>"
        "<div style='position:absolute;left:0;top:0;width:100px;height:50px;background:rgb(10,200,30)'></div>"
        "<div style='position:absolute;left:300px;top:100px;width:20px;height:300px;background:rgb(250,5,128)'></div>"
        "<div style='position:absolute;left:0;top:2000px;width:420px;height:3px;"
        "background:linear-gradient(90deg,#000,#fff)'></div></body></html>",
        encoding="utf-8",
    )
    page = browser.page(page_file, 420, HEIGHT)
    try:
        image = png.read(page.screenshot(tmp_path / "blocks.png"))
    finally:
        page.close()
    assert tuple(image.rgb[10, 10]) == (10, 200, 30) and tuple(image.rgb[49, 99]) == (10, 200, 30)
    assert tuple(image.rgb[50, 10]) == (255, 255, 255) and tuple(image.rgb[10, 100]) == (255, 255, 255)
    assert tuple(image.rgb[250, 310]) == (250, 5, 128) and tuple(image.rgb[399, 319]) == (250, 5, 128)
    ramp = image.rgb[2001, :, 0].astype(int)
    assert ramp[0] < 10 and ramp[-1] > 245 and np.all(np.diff(ramp) >= 0)  # the gradient rises left to right


def test_the_command_line_browser_dumps_the_signed_axis_and_the_titles(
    comparison: Comparison, files: dict[str, Path], artefacts: Path
) -> None:
    """The same page through `chromium --headless --dump-dom` and `--screenshot`, as a developer
    would check it by hand."""
    import subprocess

    from .cdp import find_browser

    executable = find_browser()
    assert executable is not None
    common = [executable, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=420,2000"]
    url = files["compare"].resolve().as_uri()
    dom = subprocess.run([*common, "--dump-dom", url], capture_output=True, text=True, timeout=60, check=True).stdout
    charts = pages.delta_svgs(pages.parse(dom))
    top = max(abs(b - a) for a, b in comparison.per_query[comparison.headline].values())
    assert [t.all_text() for t in charts[0].find("text")] == [f"+{top:.2f}", "0", f"-{top:.2f}"]
    titles = [r.find("title")[0].all_text() for r in charts[0].find("rect")]
    assert len(titles) == comparison.queries and all(": " in t and " → B " in t for t in titles)
    shot = artefacts / "compare-420-cli.png"
    shot.unlink(missing_ok=True)
    subprocess.run([*common, f"--screenshot={shot}", url], capture_output=True, timeout=60, check=True)
    image = png.read(shot.read_bytes())
    assert (image.width, image.height) == (420, 2000)
    assert np.all(image.rgb.reshape(-1, 3) == 255, axis=1).mean() < 0.97
