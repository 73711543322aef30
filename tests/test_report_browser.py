"""The HTML report in a real browser: headless Chromium driven by selenium.

Debian's ``chromium`` and ``chromium-driver`` packages provide the browser and its driver
(``.ci/run`` installs them), selenium comes from the test extra. Without them these tests skip
in a user's clone and fail under ``CI=true``, like the corpus tests (tests/conftest.py).

What is checked: the samples' transformer report opens with no console error and no request
but the page itself (Chromium's performance log lists every request the page made); a
screenshot shows the summary and the kernel table (a real PNG, neither blank nor tiny);
clicking a column header sorts the rows (read from the DOM before and after); a metadata string
``<script>alert(1)</script>`` shows as text and never runs (``alert`` is replaced before the page
loads, and no dialog opens); MobileNetV2's table of 1,236 kernels sorts and shows all of them
although the page first lays out 200. How fast that page opens is measured by
benchmarks/bench_report_open.py, not asserted here.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import struct
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import SAMPLES

from hloscope.render.html.page import TABLE_PAGE
from hloscope.reporting import build_report

CHROMIUM = os.environ.get("HLOSCOPE_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("HLOSCOPE_CHROMEDRIVER", "/usr/bin/chromedriver")
TRANSFORMER = SAMPLES / "hlo" / "transformer_train.after_optimizations.txt"
EVIL = "<script>alert(1)</script>"
WIDTH, HEIGHT = 1400, 1000

pytestmark = pytest.mark.slow


def _missing() -> str | None:
    """Why the browser cannot be driven here, or ``None`` when it can."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install '.[test]')"
    for path in (CHROMIUM, CHROMEDRIVER):
        if not (Path(path).is_file() or shutil.which(path)):
            return f"{path} is missing (apt-get install chromium chromium-driver)"
    return None


@pytest.fixture(scope="module")
def driver() -> Iterator[object]:
    why = _missing()
    if why is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but the browser tests cannot run: {why}")
        pytest.skip(why)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--window-size={WIDTH},{HEIGHT}",
        "--hide-scrollbars",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    browser = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    # Record any alert/confirm/prompt instead of opening a dialog, on every page from now on.
    browser.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument",
        {
            "source": "window.__dialogs = [];"
            "for (const name of ['alert', 'confirm', 'prompt']) {"
            "  window[name] = (...args) => { window.__dialogs.push([name, String(args[0])]); };"
            "}"
        },
    )
    try:
        yield browser
    finally:
        browser.quit()


@pytest.fixture(scope="module")
def transformer_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_report(str(TRANSFORMER)).write(tmp_path_factory.mktemp("report") / "t.html")


def open_page(driver, path: Path) -> None:
    """Load ``path``, wait for it, and empty the logs of what came before."""
    driver.get_log("browser")
    driver.get_log("performance")
    driver.get(path.resolve().as_uri())
    # get() returns once the load has started; a large page on a busy machine may still be
    # parsing then, so wait for the load itself (the same page always completes).
    deadline = time.monotonic() + 60
    while driver.execute_script("return document.readyState") != "complete":
        assert time.monotonic() < deadline, "the page never finished loading"
        time.sleep(0.05)


def requested_urls(driver) -> list[str]:
    urls = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
    return urls


def shown_column(driver, key: str) -> list[str]:
    """The ``data-v`` of column ``key`` in the kernel rows on the page, top to bottom."""
    return driver.execute_script(
        "const table = document.getElementById('hs-kernel-table');"
        "const index = [...table.tHead.rows[0].cells]"
        "  .findIndex(c => c.dataset.key === arguments[0]);"
        "return [...table.tBodies[0].rows].map(r => r.cells[index].dataset.v);",
        key,
    )


def header(driver, key: str):
    from selenium.webdriver.common.by import By

    return driver.find_element(By.CSS_SELECTOR, f'#hs-kernel-table th[data-key="{key}"]')


# ---- a PNG read back --------------------------------------------------------------------------


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's header (and that it is one)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def png_colours(driver, data: bytes) -> tuple[int, int, int, float]:
    """Decode ``data`` with the browser's own PNG decoder (on a blank page: an image drawn on a
    canvas) and return its width, height, the number of colours among every 7th pixel, and the
    share of those pixels that are not white."""
    driver.get("about:blank")
    found = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "const img = new Image();"
        "img.onerror = () => done(null);"
        "img.onload = () => {"
        "  const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;"
        "  const g = c.getContext('2d'); g.drawImage(img, 0, 0);"
        "  const d = g.getImageData(0, 0, c.width, c.height).data;"
        "  const seen = new Set(); let inked = 0, n = 0;"
        "  for (let i = 0; i < d.length; i += 28) {"
        "    const v = (d[i] << 16) | (d[i + 1] << 8) | d[i + 2];"
        "    seen.add(v); n++; if (v !== 0xffffff) inked++;"
        "  }"
        "  done([img.width, img.height, seen.size, inked / n]);"
        "};"
        "img.src = 'data:image/png;base64,' + arguments[0];",
        base64.b64encode(data).decode("ascii"),
    )
    assert found is not None, "the browser could not decode the PNG"
    return found[0], found[1], found[2], found[3]


# ---- the transformer's report -----------------------------------------------------------------


def test_opens_without_console_errors_or_requests(driver, transformer_page: Path):
    open_page(driver, transformer_page)
    errors = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]
    assert errors == []
    assert requested_urls(driver) == [transformer_page.resolve().as_uri()]
    # Everything the page is made of is in it: no resource was fetched from anywhere.
    resources = driver.execute_script(
        "return performance.getEntriesByType('resource').map(r => r.name)"
    )
    assert resources == []
    assert driver.title == "hloscope report: jit_train_step"


def test_screenshot_shows_summary_and_table(driver, transformer_page: Path, tmp_path: Path):
    open_page(driver, transformer_page)
    visible = driver.execute_script(
        "const inView = el => { const r = el.getBoundingClientRect();"
        "  return r.width > 0 && r.height > 0 && r.top >= 0 && r.top < window.innerHeight; };"
        "return ['#hs-summary .hs-cards', '#hs-kernel-table thead', '#hs-kernel-table tbody tr']"
        "  .map(s => inView(document.querySelector(s)));"
    )
    assert visible == [True, True, True]
    shot = tmp_path / "report.png"
    assert driver.save_screenshot(str(shot))
    data = shot.read_bytes()
    assert 20_000 < len(data) < 5_000_000
    width, height = png_size(data)
    assert (width, height) == tuple(driver.execute_script("return [innerWidth, innerHeight]"))
    assert width >= 800 and height >= 600
    # Not blank: many colours (text, cards, badges), and ink on more than a sliver of it.
    decoded = png_colours(driver, data)
    assert decoded[:2] == (width, height)
    assert decoded[2] > 20, decoded
    assert 0.02 < decoded[3] < 0.9, decoded


def test_clicking_a_header_sorts_the_rows(driver, transformer_page: Path):
    open_page(driver, transformer_page)
    before = shown_column(driver, "index")
    assert [int(v) for v in before] == list(range(len(before)))  # schedule order
    byte_counts = [int(v) for v in shown_column(driver, "bytes")]
    header(driver, "bytes").click()
    after = [int(v) for v in shown_column(driver, "bytes")]
    assert after == sorted(byte_counts, reverse=True)  # numbers: largest first
    assert header(driver, "bytes").get_attribute("aria-sort") == "descending"
    header(driver, "bytes").click()
    assert [int(v) for v in shown_column(driver, "bytes")] == sorted(byte_counts)
    header(driver, "name").click()  # text: A-Z
    names = driver.execute_script(
        "return [...document.querySelectorAll('#hs-kernel-table tbody tr')]"
        ".map(r => r.cells[1].textContent.toLowerCase())"
    )
    assert names == sorted(names) and len(names) == len(before)


def test_filter_keeps_matching_rows(driver, transformer_page: Path):
    from selenium.webdriver.common.by import By

    open_page(driver, transformer_page)
    box = driver.find_element(By.CSS_SELECTOR, 'input[data-hs-filter="hs-kernel-table"]')
    box.send_keys("kind=kCustom bytes>64KiB")
    shown = [int(v) for v in shown_column(driver, "bytes")]
    kinds = driver.execute_script(
        "return [...document.querySelectorAll('#hs-kernel-table tbody tr')]"
        ".map(r => r.cells[2].textContent)"
    )
    assert shown and all(b > 64 * 1024 for b in shown)
    assert all("kCustom" in k for k in kinds)
    counter = driver.find_element(By.ID, "hs-kernel-table-count").text
    assert counter.startswith(f"{len(shown)} of 191 match")


def test_script_in_metadata_is_text_and_never_runs(driver, tmp_path: Path):
    text = TRANSFORMER.read_text()
    text = text.replace('1 "samples/transformer_train.py"', f'1 "{EVIL}.py"', 1)
    text = text.replace('op_name="jit(train_step)/', f'op_name="{EVIL}jit(train_step)/')
    hlo = tmp_path / "evil.after_optimizations.txt"
    hlo.write_text(text)
    page = build_report(str(hlo)).write(tmp_path / "evil.html")
    open_page(driver, page)
    from selenium.common.exceptions import NoAlertPresentException

    with pytest.raises(NoAlertPresentException):
        driver.switch_to.alert  # noqa: B018 - the property raises when no dialog is open
    assert driver.execute_script("return window.__dialogs") == []
    op_names = driver.execute_script(
        "return [...document.querySelectorAll('#hs-kernel-table tbody tr')]"
        ".map(r => r.cells[r.cells.length - 1].textContent)"
    )
    assert any(name.startswith(EVIL + "jit(train_step)/") for name in op_names)  # as text
    titles = driver.execute_script(
        "return [...document.querySelectorAll('#hs-line-table td[title]')].map(c => c.title)"
    )
    assert any(t.startswith(f"{EVIL}.py:") for t in titles)  # the source file's name too
    assert driver.execute_script("return document.scripts.length") == 2
    assert [e for e in driver.get_log("browser") if e["level"] == "SEVERE"] == []


# ---- a big table ---------------------------------------------------------------------------------


def test_big_table_sorts_every_row_and_shows_all(driver, corpus: Path, tmp_path: Path):
    from selenium.webdriver.common.by import By

    report = build_report(str(corpus / "generated/tf_keras_mobilenet_train"), graphs=0)
    page = report.write(tmp_path / "mobilenet.html")
    open_page(driver, page)
    total = len(report.rows)
    assert total > TABLE_PAGE
    assert len(shown_column(driver, "index")) == TABLE_PAGE
    header(driver, "bytes").click()
    heaviest = max(r["bytes"] for r in report.rows)
    assert int(shown_column(driver, "bytes")[0]) == heaviest  # sorted over all rows, not a page
    driver.find_element(By.ID, "hs-kernel-table-all").click()
    shown = [int(v) for v in shown_column(driver, "bytes")]
    assert len(shown) == total and shown == sorted(shown, reverse=True)
    assert [e for e in driver.get_log("browser") if e["level"] == "SEVERE"] == []


# ---- issue 19: links, widths, the filter ---------------------------------------------------------


def test_a_kernel_link_lands_below_the_sticky_header(driver, transformer_page: Path):
    from selenium.webdriver.common.by import By

    open_page(driver, transformer_page)
    links = driver.find_elements(By.CSS_SELECTOR, "#hs-line-table a.hs-k")
    assert len(links) > 10
    # Rows near the top, the middle and the end of the kernel table, each clicked in turn.
    picked = sorted({int(a.get_attribute("href").rpartition("-k")[2]) for a in links})
    for index in (picked[0], picked[len(picked) // 2], picked[-1]):
        link = driver.find_element(By.CSS_SELECTOR, f'#hs-line-table a.hs-k[href="#hs-k{index}"]')
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", link)
        link.click()
        place = driver.execute_script(
            "const row = document.getElementById(arguments[0]);"
            "const head = document.querySelector('#hs-kernel-table thead').getBoundingClientRect();"
            "const box = row.closest('.hs-scroll').getBoundingClientRect();"
            "const r = row.getBoundingClientRect();"
            "return {top: r.top, bottom: r.bottom, headBottom: head.bottom, boxBottom: box.bottom,"
            "  windowHeight: innerHeight, flash: row.classList.contains('hs-flash'),"
            "  hash: location.hash};",
            f"hs-k{index}",
        )
        assert place["top"] >= place["headBottom"] - 0.5, place  # not under the header
        assert place["bottom"] <= min(place["boxBottom"], place["windowHeight"]) + 0.5, place
        assert place["flash"] and place["hash"] == f"#hs-k{index}"


def test_every_column_is_on_screen_at_1400_px(driver, transformer_page: Path, tmp_path: Path):
    open_page(driver, transformer_page)
    assert driver.execute_script("return innerWidth") == WIDTH
    found = driver.execute_script(
        "const out = {};"
        "for (const id of ['hs-kernel-table', 'hs-line-table']) {"
        "  const table = document.getElementById(id);"
        "  const box = table.closest('.hs-scroll');"
        "  const right = box.getBoundingClientRect().right;"
        "  const keys = [...table.tHead.rows[0].cells].map(c => c.dataset.key);"
        "  const row = table.tBodies[0].rows[0];"
        "  out[id] = {scroll: box.scrollWidth - box.clientWidth, right: right,"
        "    cells: Object.fromEntries(keys.map((k, i) => {"
        "      const r = row.cells[i].getBoundingClientRect();"
        "      return [k, [r.left, r.right, r.width]]; }))};"
        "}"
        "out.page = document.documentElement.scrollWidth - innerWidth;"
        "return out;"
    )
    assert found["page"] <= 0
    for table in ("hs-kernel-table", "hs-line-table"):
        assert found[table]["scroll"] <= 0, found[table]  # no sideways scrolling
    kernels = found["hs-kernel-table"]
    for key in ("source", "op_name"):
        left, right, width = kernels["cells"][key]
        assert width >= 60 and right <= kernels["right"] + 0.5, (key, kernels)
    lines = found["hs-line-table"]
    for key in ("source", "code", "in"):
        left, right, width = lines["cells"][key]
        assert width >= 60 and right <= lines["right"] + 0.5, (key, lines)
    driver.execute_script("document.getElementById('hs-kernels').scrollIntoView()")
    assert driver.save_screenshot(str(tmp_path / "kernels-1400.png"))


def test_the_filter_accepts_blanks_around_operators(driver, transformer_page: Path):
    from selenium.webdriver.common.by import By

    open_page(driver, transformer_page)
    box = driver.find_element(By.CSS_SELECTOR, 'input[data-hs-filter="hs-kernel-table"]')
    box.send_keys("bytes > 10KiB")
    spaced = [int(v) for v in shown_column(driver, "bytes")]
    box.clear()
    box.send_keys("bytes>10KiB")
    tight = [int(v) for v in shown_column(driver, "bytes")]
    assert spaced == tight and 0 < len(spaced) < 191
    assert all(b > 10 * 1024 for b in spaced)
    box.clear()
    box.send_keys("kind = kCustom   bytes >= 16KiB")
    kinds = driver.execute_script(
        "return [...document.querySelectorAll('#hs-kernel-table tbody tr')]"
        ".map(r => r.cells[2].textContent)"
    )
    assert kinds and all("kCustom" in k for k in kinds)
    assert all(b >= 16 * 1024 for b in map(int, shown_column(driver, "bytes")))


def test_filter_placeholders_are_not_cut(driver, transformer_page: Path):
    open_page(driver, transformer_page)
    measured = driver.execute_script(
        "const g = document.createElement('canvas').getContext('2d');"
        "return [...document.querySelectorAll('input[data-hs-filter]')].map(input => {"
        "  const s = getComputedStyle(input); g.font = s.font;"
        "  const room = input.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);"
        "  return [input.placeholder, g.measureText(input.placeholder).width, room]; });"
    )
    assert len(measured) == 2
    for placeholder, needed, room in measured:
        assert needed <= room, (placeholder, needed, room)
    assert any("bytes > 1MiB" in p for p, _, _ in measured)  # it shows the blanks it accepts
