"""``bench --per-kernel`` on a TPU: the kernel rows bench builds from a trace of the program, on
real XLA:TPU traces (TPU v5e, tests/data/profiles/tpu, recorded by
``benchmarks/tpu_chip_facts.py``), under the v5e's registry peak and by HBM traffic; and the
kernels of an XLA:TPU module made compilable alone (tiles and memory spaces taken out)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hloscope.analysis.fusions import fusion_report
from hloscope.analysis.hbm import kernel_roof_bytes
from hloscope.analysis.op_profile import op_profile, read_trace
from hloscope.analysis.peaks import vendor_peak
from hloscope.bench.extract import extract_kernel, kernel_instructions, without_tpu_layouts
from hloscope.bench.traced import traced_kernels
from hloscope.capture.target import Target
from hloscope.hlo.parser import parse
from hloscope.hlo.tiling import module_has_tpu_layouts

TPU = Path(__file__).resolve().parent / "data" / "profiles" / "tpu"
V5E = vendor_peak("TPU v5 lite")


def module_of(case: str):
    return Target.resolve(str(TPU / case / "dump")).choose_module("after", None).module


def rows(case: str):
    module = module_of(case)
    found = op_profile(read_trace(TPU / case), module)
    return found, traced_kernels(found, module, V5E)


@pytest.mark.parametrize("case", ["matmul", "elementwise", "conv_step", "lm_step"])
def test_kernel_rows_sum_to_the_device_time_with_hbm_bytes(case):
    found, kernels = rows(case)
    assert len(kernels) == len(found.kernels)
    assert sum(k.total_s for k in kernels) == pytest.approx(found.device_time_s, rel=1e-12)
    report = {k.name: k for k in fusion_report(module_of(case)).kernels}
    for kernel in kernels:
        if kernel.name in report:
            assert kernel.bytes == kernel_roof_bytes(report[kernel.name])  # through HBM
            assert kernel.median_s * kernel.executions == pytest.approx(kernel.time_s)


def test_the_lm_step_is_rooflined_by_hbm_traffic_not_all_bytes():
    """XLA's bytes accessed count on-chip (S(1)) operands; bench's rows leave them out."""
    _, kernels = rows("lm_step")
    report = {k.name: k for k in fusion_report(module_of("lm_step")).kernels}
    fewer = [
        k for k in kernels if k.name in report and k.bytes < report[k.name].cost.bytes_accessed
    ]
    assert fewer  # some kernels read operands already on chip


def test_roofline_positions_on_the_v5e():
    """A large bf16 product is compute-bound at 80% or more of the MXU peak; a large
    elementwise op memory-bound near 819 GB/s; neither above 100%."""
    _, [matmul] = rows("matmul")
    assert matmul.roofline.bound.value == "compute" and 0.8 <= matmul.roofline.fraction <= 1
    assert matmul.roofline.peak_flops_per_s == 197e12
    _, [elementwise] = rows("elementwise")
    assert elementwise.roofline.bound.value == "memory"
    assert 0.7 <= elementwise.roofline.fraction <= 1
    assert elementwise.roofline.bytes_per_s == pytest.approx(
        elementwise.bytes * elementwise.executions / elementwise.time_s
    )


def test_xla_tpu_kernels_lose_tiles_and_memory_spaces_for_a_compile_alone():
    """XLA's own parser reads every kernel of the LM step once its layouts are plain."""
    jaxlib_adapter = pytest.importorskip("hloscope.backends._jaxlib")
    pytest.importorskip("jax")
    module = module_of("lm_step")
    assert module_has_tpu_layouts(module)
    names = [inst.name for inst in kernel_instructions(module) if inst.opcode == "fusion"][:25]
    for name in names:
        text = without_tpu_layouts(extract_kernel(module, name).text)
        assert "S(1)" not in text and ":T(" not in text
        assert not module_has_tpu_layouts(parse(text))
        jaxlib_adapter.xla_parse(text)  # XLA's parser: the oracle
