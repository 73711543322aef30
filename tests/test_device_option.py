"""One ``--device`` for every command: a row registered at run time is taken (and listed) by
memory, collectives, fusions, diff, report and check, and priced with its own figures; the
peaks and the roofline use them too. Unknown names are one-line usage errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from hloscope import devices
from hloscope.analysis.collectives import CollectiveKind, Link, collective_seconds
from hloscope.analysis.peaks import device_peak, vendor_peak, vendor_peaks
from hloscope.analysis.roofline import Bound, roofline, roofline_seconds
from hloscope.bench.peaks import peak_for
from hloscope.cli import cli
from hloscope.devices import Device, Interconnect, Platform, TpuTopology

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "hlo" / "transformer_train.after_optimizations.txt"
FUSED = ROOT / "samples" / "hlo" / "fusion_refactor_fused.after_optimizations.txt"
SPLIT = ROOT / "samples" / "hlo" / "fusion_refactor_split.after_optimizations.txt"
SPMD = ROOT / "tests" / "data" / "generated" / "jax_collectives"
GiB = 1 << 30
NAME = "tpu-zz9"

#: A made-up TPU: figures no built-in row has, so each command's use of them shows.
ICI = Interconnect("2D torus", 4, 7e9, 14e9, 3e-6, False, "https://example.com/zz9 (ICI)")
ZZ9 = Device(
    NAME,
    Platform.TPU,
    "TPU zz9",
    r"\bTPU zz9\b",
    aliases=("zz9",),
    flops_per_s={"bf16": 123e12},
    memory_bytes_per_s=456e9,
    memory_bytes=3 * GiB,
    interconnect=ICI,
    mxu=256,
    tile=(8, 128),
    tpu_topology=TpuTopology("zz9", 2, "zz9pod"),
    sources={"flops_per_s": "https://example.com/zz9", "memory_bytes": "https://example.com/zz9"},
)


@pytest.fixture
def zz9():
    devices.register(ZZ9)
    try:
        yield ZZ9
    finally:
        devices.unregister(NAME)


def run(*args: str) -> dict:
    out = CliRunner().invoke(cli, [str(a) for a in args])
    assert out.exit_code == 0, out.output
    return json.loads(out.output) if "--json" in args else {}


def test_memory_fits_against_the_registered_capacity(zz9):
    data = run("memory", SAMPLE, "--json", "--device", "zz9")
    device = data["device"]
    assert device["name"] == NAME and device["memory_bytes"] == 3 * GiB
    assert device["limit_bytes"] == int(3 * GiB * 0.8)
    assert device["source"] == "https://example.com/zz9"
    # A TPU: the peak is padded to tiles, as for the built-in TPUs.
    assert device["padded_peak_bytes"] >= device["logical_peak_bytes"]


def test_collectives_are_priced_on_the_registered_interconnect(zz9):
    data = run("collectives", SPMD, "--module", "jit_talk", "--json", "--device", f"{NAME}:2x4")
    assert data["device"]["name"] == NAME and data["device"]["slice"] == "2x4"
    assert data["device"]["ring_bytes_per_s"] == 14e9
    link = Link(ICI.ring_bytes_per_s, ICI.link_bytes_per_s, ICI.latency_s, ICI.switch)
    priced = [c for c in data["collectives"] if c["estimate_s"]]
    assert priced
    for c in priced:
        if c["kind"] not in ("send", "recv"):
            kind = CollectiveKind(c["kind"])
            expected = collective_seconds(kind, c["bytes"], c["group_size"], link)
            assert c["estimate_s"] == pytest.approx(expected), c["name"]
    assert data["step"]["device"] == NAME and data["step"]["compute_peak"] == NAME


def test_fusions_diff_and_report_take_it(zz9, tmp_path):
    fusions = run("fusions", SPMD, "--module", "jit_talk", "--json", "--device", NAME)
    assert fusions["communication"]["device"] == NAME and fusions["step"]["device"] == NAME
    diff = run("diff", FUSED, SPLIT, "--json", "--device", NAME)
    assert diff["communication"]["step"]["a"]["device"] == NAME
    page = tmp_path / "r.html"
    run("report", SPMD, "--module", "jit_talk", "--graphs", "0", "-o", page, "--device", NAME)
    assert f"<code>{NAME}</code>" in page.read_text()


def test_check_measures_against_its_mxu(zz9):
    out = CliRunner().invoke(cli, ["check", str(SAMPLE), "--device", "zz9", "--json"])
    assert out.exit_code in (0, 3), out.output
    mxu = json.loads(out.stdout)["mxu"]
    assert mxu and {f["mxu_size"] for f in mxu} == {256}


@pytest.mark.parametrize("command", ["memory", "collectives", "fusions", "diff", "report", "check"])
def test_every_device_help_lists_the_registry_and_the_slice_form(zz9, command):
    out = CliRunner(env={"COLUMNS": "200"}).invoke(cli, [command, "--help"])
    assert out.exit_code == 0
    text = " ".join(out.output.split())
    assert NAME in text and "NAME:SLICE" in text and "tpu-v5e:2x4" in text


def test_peaks_and_roofline_use_its_figures(zz9):
    peak = device_peak(zz9)
    assert peak is not None and peak.flops_per_s == {"bf16": 123e12}
    assert peak.bytes_per_s == 456e9
    assert vendor_peak("TPU zz9") == peak and peak in vendor_peaks()

    class Jax:  # what peak_for reads of a jax.Device
        platform = "tpu"
        device_kind = "TPU zz9"

    assert peak_for(Jax()) == peak
    choice = peak.choose("f32")  # a TPU lists no f32 peak: bf16 passes
    assert choice.flops_per_s == 123e12 and "bf16" in choice.note
    line = roofline(flops=123e9, nbytes=1e3, seconds=2e-3, peak=choice)
    assert line.bound is Bound.COMPUTE and line.fraction == pytest.approx(0.5)
    from hloscope.analysis.cost import Cost

    assert roofline_seconds(Cost.of(read=456 * 10**9), peak) == pytest.approx(1.0)


@pytest.mark.parametrize("command", ["memory", "collectives", "fusions", "report"])
def test_once_unregistered_the_name_is_a_one_line_usage_error(command):
    out = CliRunner().invoke(cli, [command, str(SAMPLE), "--device", NAME])
    assert out.exit_code == 2
    lines = out.output.strip().splitlines()
    assert len(lines) == 1 and f"unknown device {NAME!r}" in lines[0]
    assert "tpu-v5e" in lines[0]  # the names there are


@pytest.mark.parametrize(
    "extra",
    [["--mesh", "data=2"], ["--device", "tpu-v5e:2x4", "--mesh", "data=x"]],
    ids=["mesh-without-device", "malformed-mesh"],
)
def test_a_mesh_that_cannot_be_used_is_a_usage_error_before_any_capture(extra, tmp_path):
    script = tmp_path / "never_run.py"
    script.write_text(
        "raise SystemExit('imported: a capture started')\ndef step(x):\n    return x\n"
    )
    result = CliRunner().invoke(cli, ["collectives", f"{script}:step", *extra])
    assert result.exit_code == 2, result.output
    assert "--mesh" in result.output and "imported" not in result.output
