"""The roofline chart (``bench -o roofline.svg``, the report's bench section): well-formed SVG,
each kernel where the roofline's maths puts it, names escaped."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET

import pytest

from hloscope.render.roofline_svg import RoofPoint, axes_for, bench_points, render_roofline_svg

SVG = "{http://www.w3.org/2000/svg}"
PEAK_FLOPS, PEAK_BYTES = 197e12, 819e9  # a TPU v5e's bf16 and HBM figures
RIDGE = PEAK_FLOPS / PEAK_BYTES


def chart(points):
    return ET.fromstring(render_roofline_svg(points, PEAK_FLOPS, PEAK_BYTES, 't <&> "q"'))


def line(root, cls):
    found = root.find(f".//{SVG}line[@class='{cls}']")
    return tuple(float(found.get(k)) for k in ("x1", "y1", "x2", "y2"))


def circle(root, name):
    for c in root.iter(f"{SVG}circle"):
        if c.get("data-name") == name:
            return float(c.get("cx")), float(c.get("cy")), float(c.get("r"))
    raise AssertionError(f"no circle for {name}")


def test_kernels_sit_where_the_roofline_puts_them():
    # At the ridge, at the peak: the corner of the two roofs. On the memory roof: half the
    # ridge's intensity at half the peak. Under the compute roof: 100x the ridge at 10%.
    at_ridge = RoofPoint("ridge", RIDGE * 1e6, 1e6, RIDGE * 1e6 / PEAK_FLOPS, 0.5)
    on_memory = RoofPoint("memory", RIDGE / 2 * 1e6, 1e6, RIDGE * 1e6 / PEAK_FLOPS, 0.2)
    under = RoofPoint("under", RIDGE * 100 * 1e6, 1e6, RIDGE * 100 * 1e6 / (PEAK_FLOPS / 10), 0.3)
    root = chart([at_ridge, on_memory, under])
    mx1, my1, mx2, my2 = line(root, "memory-roof")
    cx1, cy1, cx2, cy2 = line(root, "compute-roof")
    assert (mx2, my2) == (cx1, cy1) and cy1 == cy2  # the roofs meet at the ridge; compute flat
    x, y, _ = circle(root, "ridge")
    assert (x, y) == pytest.approx((cx1, cy1), abs=0.02)
    x, y, _ = circle(root, "memory")  # on the memory roof's line
    assert (y - my1) * (mx2 - mx1) == pytest.approx((my2 - my1) * (x - mx1), rel=1e-3)
    assert x < mx2
    # Slope one on log-log axes: a decade across is a decade up, drawn the same length when
    # the axes span as many decades as pixels allow; check through the axes' own mapping.
    axes = axes_for([at_ridge, on_memory, under], PEAK_FLOPS, PEAK_BYTES)
    x, y, _ = circle(root, "under")
    assert x == pytest.approx(axes.x(RIDGE * 100), abs=0.01)
    assert y == pytest.approx(axes.y(PEAK_FLOPS / 10), abs=0.01)
    assert axes.y(PEAK_FLOPS / 10) - cy1 == pytest.approx(
        (axes.y(1) - axes.y(10)), abs=0.01
    )  # one decade below the compute roof
    ridge = root.find(f".//{SVG}circle[@class='ridge']")
    assert float(ridge.get("cx")) == pytest.approx(axes.x(RIDGE), abs=0.01)


def test_circles_are_sized_by_their_share_of_the_time():
    points = [RoofPoint(n, 1e9, 1e6, 1e-3, share) for n, share in (("a", 0.64), ("b", 0.04))]
    root = chart(points)
    (_, _, ra), (_, _, rb) = circle(root, "a"), circle(root, "b")
    assert ra > rb


def test_names_are_escaped_and_nothing_is_fetched():
    evil = '<script>alert("x")</script> & fusion.1'
    text = render_roofline_svg([RoofPoint(evil, 1e9, 1e6, 1e-3, 1.0)], 1e12, 1e11, evil)
    root = ET.fromstring(text)  # well-formed: parses as XML
    assert "<script>" not in text and not list(root.iter(f"{SVG}script"))
    assert circle(root, evil)  # the attribute holds the name, escaped and read back whole
    assert "href" not in text and "http://" not in text.replace("http://www.w3.org/2000/svg", "")


def test_kernels_that_have_no_place_on_log_axes_are_counted():
    root = chart([RoofPoint("copy", 0, 1e6, 1e-4, 0.5), RoofPoint("dot", 1e9, 1e6, 1e-3, 0.5)])
    left = root.find(f".//{SVG}text[@class='left-out']")
    assert left is not None and left.text.startswith("1 kernel(s)")
    assert [
        c.get("data-name") for c in root.iter(f"{SVG}circle") if c.get("class") == "kernel"
    ] == ["dot"]


def test_bench_points_take_per_run_figures_and_the_program():
    data = {"module": "m", "median_s": 2e-3, "flops_per_s": 1e12, "bytes_per_s": 1e9}
    rows = [{"name": "k", "flops": 100, "bytes": 10, "executions": 3, "time_s": 1e-6, "share": 1}]
    kernel, program = bench_points(data, rows)
    assert (kernel.flops, kernel.bytes, kernel.seconds) == (300, 30, 1e-6)
    assert program.program and math.isclose(program.flops, 2e9)
    root = chart([kernel, program])
    assert root.find(f".//{SVG}rect[@class='program']") is not None
