"""How fast does the HTML report of a big model open in a browser?

The model is the MobileNetV2 training step of the corpus (TensorFlow, ~1,200 kernels, the
largest report the tests build). The report is built once (its build time is printed too) and
opened several times in headless Chromium (Debian's ``chromium`` and ``chromium-driver``,
driven by selenium), each time in a fresh navigation. Per run:

* ``load``: the page's ``loadEventEnd`` (Navigation Timing), from the start of the navigation
  to the end of the load event: the file read, parsed, styled, laid out and its script run.
  Target: < 3 s;
* ``dcl``: ``domContentLoadedEventEnd``; ``fcp``: first contentful paint;
* ``wall``: what ``driver.get`` took, driver round trips included.

The first run is a cold one (the browser's own start-up caches); the verdict uses the worst
run. On a shared machine, wall times include waiting for a core: the load average is printed.

    python benchmarks/bench_report_open.py [TARGET] [--runs N] [--check]

``--check`` exits 1 when a run misses the target.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hloscope.reporting import build_report  # noqa: E402
from hloscope.units import format_bytes  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "generated" / "tf_keras_mobilenet_train"
CHROMIUM = os.environ.get("HLOSCOPE_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("HLOSCOPE_CHROMEDRIVER", "/usr/bin/chromedriver")
TARGET_S = 3.0
RUNS = 5
TIMING = (
    "const n = performance.getEntriesByType('navigation')[0];"
    "const p = performance.getEntriesByType('paint')"
    "  .find(e => e.name === 'first-contentful-paint');"
    "return [n.loadEventEnd, n.domContentLoadedEventEnd, p ? p.startTime : null];"
)


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
    ):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("target", nargs="?", default=str(CORPUS))
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    if not Path(args.target).exists():
        sys.exit(f"{args.target}: not found (the corpus is ../shared/corpus; or pass a TARGET)")

    start = time.perf_counter()
    report = build_report(args.target)
    built = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as folder:
        page = report.write(Path(folder) / "report.html")
        size = page.stat().st_size
        print(
            f"report of {report.module[:60]}: {len(report.rows):,} kernels, "
            f"{len(report.graphs)} graphs, {format_bytes(size)}; built in {built:.2f} s"
        )
        driver = browser()
        try:
            driver.get("about:blank")
            loads = []
            for run in range(args.runs):
                driver.get("about:blank")
                begin = time.perf_counter()
                driver.get(page.as_uri())
                wall = time.perf_counter() - begin
                load, dcl, fcp = driver.execute_script(TIMING)
                loads.append(load / 1000)
                fcp_text = f"{fcp / 1000:.3f} s" if fcp is not None else "-"
                print(
                    f"run {run + 1}{' (cold)' if run == 0 else ''}: load {load / 1000:.3f} s, "
                    f"dcl {dcl / 1000:.3f} s, fcp {fcp_text}, wall {wall:.3f} s"
                )
        finally:
            driver.quit()
    worst, median = max(loads), statistics.median(loads)
    ok = worst < TARGET_S
    print(
        f"load: median {median:.3f} s, worst {worst:.3f} s; target < {TARGET_S:g} s: "
        f"{'met' if ok else 'MISSED'} (load average {os.getloadavg()[0]:.2f}, "
        f"{os.cpu_count()} cores)"
    )
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    sys.exit(main())
