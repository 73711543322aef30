"""The report's "what if" section as a page shows it: every name escaped, the ranking's order,
the figures and the change for the best; the page's JSON carries ``try --json``'s data.

The outcomes here are written by hand (no compile: that the figures are XLA:TPU's is
``tests/test_try.py``'s test of ``report --try``); what is tested is the page."""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import pytest

from hloscope.analysis.variants import VariantOutcome, judge
from hloscope.render.html.try_section import try_section
from hloscope.reporting import build_report

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "hlo"
EVIL = "--flags '--xla_x=<script>alert(1)</script>'"


def _outcome(name, settings, peak, fingerprint, **more):
    return VariantOutcome(
        name,
        settings,
        compiled=True,
        peak_bytes=peak,
        flops=1e9,
        hbm_bytes=2 * peak,
        collective_bytes=0,
        exposed_comm_s=0.0,
        step_s=peak / 1e12,
        fingerprint=fingerprint,
        **more,
    )


@pytest.fixture(scope="module")
def result():
    baseline = _outcome("baseline", {}, 3 << 30, "a")
    variants = [
        _outcome("remat=nothing_saveable", {"remat": "nothing_saveable"}, 1 << 30, "b"),
        _outcome("remat=everything_saveable", {"remat": "everything_saveable"}, 3 << 30, "a"),
        _outcome(EVIL, {"flags": ["--xla_x=<script>alert(1)</script>"]}, 2 << 30, "c"),
        VariantOutcome(
            "dp", {"shard": "dp"}, applicable=False, error="batch.x: <b>not divisible</b>"
        ),
    ]
    return judge("train.py:step", "tpu-v5e", baseline, variants, goal="memory")


@pytest.fixture(scope="module")
def page(result):
    report = build_report(SAMPLE / "transformer_train.after_optimizations.txt", graphs=0)
    report.what_if = try_section(result)
    report.what_if_data = result.to_dict()
    return report, report.to_html()


def test_every_name_and_error_is_escaped(page):
    _, html = page
    assert "<script>alert(1)" not in html
    assert "<b>not divisible" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;b&gt;not divisible&lt;/b&gt;" in html


def test_the_section_ranks_and_marks_no_effect(page, result):
    report, html = page
    section = re.search(r'<section id="hs-what-if">(.*?)</section>', html, re.S).group(1)
    names = [unescape(n) for n in re.findall(r'data-variant="([^"]*)"', section)]
    assert names == result.to_dict()["ranking"]
    assert names[0] == "remat=nothing_saveable"  # the smallest peak first, by memory
    rows = {r.name: r for r in report.what_if.rows}
    assert rows["remat=everything_saveable"].no_effect == "as baseline (its remat)"
    assert rows["dp"].state == "cannot apply" and rows["dp"].fits == "n/a"
    assert "3.0 GiB -&gt; 1.0 GiB" in section  # what nothing_saveable changed, said
    assert "jax.checkpoint_policies.nothing_saveable" in section
    assert "what-if" in report.section_names()
    assert html.count('href="#hs-what-if"') == 1  # the navigation links to it


def test_the_pages_json_has_trys_data(page, result):
    _, html = page
    data = json.loads(re.search(r'id="hloscope-data">(.*?)</script>', html).group(1))
    assert data["what_if"] == json.loads(json.dumps(result.to_dict()))
    assert "what-if" in data["sections"]
