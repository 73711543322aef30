"""The report's TPU MXU section lists what ``hloscope check --device tpu`` lists, worst first,
and is absent when every product fills the unit."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from frameworks_needed import needs_framework

from hloscope.cli import cli
from hloscope.reporting import build_report

jax = needs_framework("jax")
jnp = pytest.importorskip("jax.numpy")


def _hlo(tmp_path: Path, name: str, fn, *shapes) -> Path:
    lowered = jax.jit(fn).lower(*(jnp.ones(s, jnp.float32) for s in shapes))
    path = tmp_path / f"{name}.hlo"
    path.write_text(lowered.as_text(dialect="hlo", debug_info=True))
    return path


def _two_layers(x, w1, w2):
    return jnp.tanh(x @ w1) @ w2


def test_the_section_has_check_s_findings_in_its_order(tmp_path):
    path = _hlo(tmp_path, "mlp", _two_layers, (64, 100), (100, 200), (200, 8))
    check = CliRunner().invoke(cli, ["check", str(path), "--device", "tpu", "--json"])
    expected = [(f["node"], f["padded_shape"]) for f in json.loads(check.stdout)["mxu"]]
    assert len(expected) == 2
    report = build_report(str(path), graphs=0)
    assert report.mxu is not None and report.mxu.size == 128
    assert [(r.node, r.padded_shape) for r in report.mxu.rows] == expected
    assert "mxu" in report.to_dict()["sections"]
    page = report.to_html()
    section = page.split('id="hs-mxu"')[1].split("</section>")[0]
    # Each row's product and its padded shape, as the check prints them.
    for node, padded in expected:
        assert f"<code>{node}</code>" in section and f"<code>{padded}</code>" in section
    assert re.search(r'href="#hs-mxu">TPU MXU<', page)


def test_no_section_when_every_product_fills_the_unit(tmp_path):
    path = _hlo(tmp_path, "aligned", lambda x, w: x @ w, (128, 256), (256, 128))
    report = build_report(str(path), graphs=0)
    assert report.mxu is None and 'id="hs-mxu"' not in report.to_html()
