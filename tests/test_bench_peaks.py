"""The vendor peaks (the device registry's, every figure with its source), the CPU
calibration, and the roofline."""

from __future__ import annotations

import json

import pytest

from hloscope.analysis.peaks import DevicePeak, PeakChoice, vendor_peaks
from hloscope.analysis.roofline import Bound, roofline
from hloscope.bench.peaks import peak_for
from tests.frameworks_needed import needs_framework

#: The device kinds the issue names, each as JAX spells its device_kind.
DEVICE_KINDS = {
    "TPU v2": "tpu-v2",
    "TPU v3": "tpu-v3",
    "TPU v4": "tpu-v4",
    "TPU v5 lite": "tpu-v5e",
    "TPU v5": "tpu-v5p",
    "TPU v5p": "tpu-v5p",
    "TPU v6 lite": "tpu-v6e",
    "TPU7x": "tpu-v7",
    "NVIDIA A100-SXM4-80GB": "a100-80gb",
    "NVIDIA A100-SXM4-40GB": "a100-40gb",
    "NVIDIA A100 80GB PCIe": "a100-80gb-pcie",
    "NVIDIA H100 80GB HBM3": "h100",
    "NVIDIA H100 PCIe": "h100-pcie",
    "NVIDIA H200": "h200",
    "NVIDIA B200": "b200",
    "NVIDIA L4": "l4",
}


class FakeDevice:
    """Only what peak_for reads: a platform and a device kind."""

    def __init__(self, kind: str, platform: str = "gpu") -> None:
        self.device_kind = kind
        self.platform = platform


@pytest.mark.parametrize("kind", sorted(DEVICE_KINDS))
def test_each_device_kind_finds_its_entry(kind):
    entry = peak_for(FakeDevice(kind, "tpu" if kind.startswith("TPU") else "gpu"))
    assert entry is not None and entry.name == DEVICE_KINDS[kind]


def test_every_entry_carries_its_source_and_sane_figures():
    peaks = vendor_peaks()
    assert len({p.name for p in peaks}) == len(peaks)
    for entry in peaks:
        assert entry.source.startswith("https://"), entry.name
        assert "(" in entry.source  # the figures as the page states them
        assert 1e11 <= entry.bytes_per_s <= 1e13, entry.name  # 100 GB/s .. 10 TB/s
        assert entry.flops_per_s and all(1e12 <= v <= 1e16 for v in entry.flops_per_s.values())
        if not entry.tpu:
            assert "sparsity" in entry.note  # dense figures, said so


def test_bf16_beats_f32_and_ridges_are_where_the_datasheets_put_them():
    h100 = next(p for p in vendor_peaks() if p.name == "h100")
    assert h100.choose("bf16").flops_per_s > h100.choose("f32").flops_per_s
    # 989.5 TFLOP/s over 3.35 TB/s: a bf16 matmul needs ~295 FLOPs per byte to be compute-bound.
    assert h100.choose("bf16").ridge == pytest.approx(989.5e12 / 3350e9)


def test_a_tpu_program_in_f32_is_measured_against_bf16_with_a_note():
    v4 = next(p for p in vendor_peaks() if p.name == "tpu-v4")
    choice = v4.choose("f32")
    assert choice.element_type == "bf16" and "bf16" in choice.note


def test_unknown_devices_have_no_peak():
    assert peak_for(FakeDevice("Some Future Accelerator", "gpu")) is None


def test_roofline_bound_follows_the_ridge():
    peak = PeakChoice(DevicePeak("toy", {"f32": 100e9}, 10e9, "https://example"), 100e9, "f32")
    memory = roofline(flops=1e6, nbytes=1e6, seconds=1e-3, peak=peak)  # 1 FLOP/B < ridge 10
    compute = roofline(flops=1e8, nbytes=1e6, seconds=2e-3, peak=peak)  # 100 FLOP/B > 10
    assert memory.bound is Bound.MEMORY and compute.bound is Bound.COMPUTE
    assert memory.fraction == pytest.approx((1e6 / 10e9) / 1e-3)
    assert compute.fraction == pytest.approx((1e8 / 100e9) / 2e-3)
    assert memory.flops_per_s == pytest.approx(1e9) and memory.bytes_per_s == pytest.approx(1e9)
    assert roofline(1e6, 1e6, 1e-3, None).bound is None


def test_cpu_calibration_is_sane_and_cached(tmp_path, monkeypatch):
    jax = needs_framework("jax")
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path))
    from hloscope.bench.peaks import calibrate_cpu, cpu_cache_path, cpu_peak

    cpu = jax.devices("cpu")[0]
    assert peak_for(cpu, calibrate=False) is None  # nothing cached yet
    measured = calibrate_cpu()
    assert measured.measured and "measured on this machine" in measured.source
    # A CPU does between 0.1 GFLOP/s and 100 TFLOP/s, and moves between 0.1 GB/s and 10 TB/s.
    assert 1e8 < measured.flops_per_s["f32"] < 1e14
    assert 1e8 < measured.bytes_per_s < 1e13
    record = json.loads(cpu_cache_path().read_text())
    assert record["flops_per_s"]["f32"] == measured.flops_per_s["f32"]
    assert record["seconds"] > 0
    again = cpu_peak()  # read back, not measured again
    assert again.flops_per_s == measured.flops_per_s and again.bytes_per_s == measured.bytes_per_s
    assert peak_for(cpu).source == measured.source
