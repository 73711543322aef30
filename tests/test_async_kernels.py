"""Async ops (``fusion-start``/``-done`` and friends) are the kernels they wrap: counted, costed
as XLA costs them, and marked async in the report."""

from __future__ import annotations

import pytest

import hloscope
from hloscope.backends import _jaxlib as adapter

FUSION_START = """
HloModule m

fused {
  p0 = f32[1024]{0} parameter(0)
  e = f32[1024]{0} exponential(p0)
  ROOT m = f32[1024]{0} multiply(e, p0)
}

ENTRY main {
  x = f32[1024]{0} parameter(0)
  s = ((f32[1024]{0}), f32[1024]{0}, u32[]) fusion-start(x), kind=kLoop, calls=fused
  ROOT d = f32[1024]{0} fusion-done(s)
}
"""

SYNC = FUSION_START.replace(
    "  s = ((f32[1024]{0}), f32[1024]{0}, u32[]) fusion-start(x), kind=kLoop, calls=fused\n"
    "  ROOT d = f32[1024]{0} fusion-done(s)",
    "  ROOT s = f32[1024]{0} fusion(x), kind=kLoop, calls=fused",
)


def test_an_async_fusion_is_its_kernel():
    pytest.importorskip("jax")
    module = hloscope.parse(FUSION_START)
    report = hloscope.fusion_report(module)
    (kernel,) = report.kernels
    same = hloscope.fusion_report(hloscope.parse(SYNC)).kernels[0]
    assert (kernel.kind, kernel.ops, kernel.cost.flops) == (same.kind, same.ops, same.cost.flops)
    assert report.summary.fusion_count == 1 and report.summary.kernel_count == 1
    row = report.rows()[0]
    assert row["where"] == "s async"
    xla = adapter.xla_cost_analysis(FUSION_START)
    total = hloscope.module_cost(module).total
    assert (total.flops, total.transcendentals) == (xla["flops"], xla["transcendentals"])
    assert total.bytes_accessed == xla["bytes accessed"]
    assert report.summary.flops == xla["flops"]
