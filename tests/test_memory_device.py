"""``hloscope memory --device/--limit``: the peak against a device's memory, TPU tile padding
beside the logical peak, and the arrays padding inflates."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from hloscope.analysis.memory import LiveBuffer, MemoryResult
from hloscope.analysis.memory.device_report import device_report, padded_peak
from hloscope.analysis.memory.fit import memory_device
from hloscope.cli import cli
from hloscope.render.memory_text import render_memory

GiB = 1 << 30

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "hlo" / "transformer_train.after_optimizations.txt"


def _result(buffers: list[tuple[str, str, int]], peak: int | None = None) -> MemoryResult:
    live = [LiveBuffer(n, s, b, "temporary", n, "", "") for n, s, b in buffers]
    return MemoryResult(
        module="m",
        source="simulated",
        peak_bytes=peak if peak is not None else sum(b for _, _, b in buffers),
        breakdown={"parameters": 0, "outputs": 0, "temporaries": 0},
        peak_at={"index": 0, "instruction": "x", "kernel": None},
        live_at_peak=live,
        timeline=[(0, 0)],
    )


def test_tpu_padded_peak_counts_each_live_buffer_at_its_tile_size():
    # f32[128,6] takes 8x128 tiles: 128 rows of 128 lanes = 64 KiB for 3 KiB of data.
    result = _result([("narrow", "f32[128,6]{1,0}", 3072), ("wide", "f32[8,128]{1,0}", 4096)])
    padded = padded_peak(result)
    assert padded.logical_bytes == 7168
    assert padded.padded_bytes == 65536 + 4096
    assert padded.inflated == [("narrow", "f32[128,6]{1,0}", 3072, 65536)]


def test_sizes_already_padded_by_a_tpu_compile_add_nothing():
    # A TPU dump's buffer sizes are the padded ones: its layout prints the tile.
    result = _result([("p", "f32[128,6]{1,0:T(8,128)}", 65536), ("t", "(f32[2], s32[])", 16)])
    assert padded_peak(result).padded_bytes == result.peak_bytes


def test_device_report_on_a_tpu_judges_the_padded_peak():
    # 12 GiB of data that pads to 64/6 of itself: fits by the logical peak, not once padded.
    rows = 12 * GiB // 24
    result = _result([("x", f"f32[{rows},6]{{1,0}}", rows * 24)])
    report = device_report(result, "tpu-v5e", "80%")
    assert report["name"] == "tpu-v5e" and report["memory_bytes"] == 16 * GiB
    assert report["limit_bytes"] == int(16 * GiB * 0.8)
    assert report["logical_peak_bytes"] == rows * 24
    assert report["padded_peak_bytes"] == report["peak_bytes"] == rows * 512
    assert report["fits"] is False
    assert report["headroom_bytes"] == report["limit_bytes"] - rows * 512
    assert report["inflated"][0]["padded_bytes"] == rows * 512
    # A GPU stores the data as it is: the same peak fits an H100 with no padding keys.
    gpu = device_report(result, memory_device("h100"), 0.8)
    assert gpu["fits"] is True and gpu["peak_bytes"] == rows * 24
    assert "padded_peak_bytes" not in gpu and "inflated" not in gpu


def test_text_says_fits_or_does_not_with_the_headroom():
    result = _result([("x", "f32[128,6]{1,0}", 3072)])
    result.device = device_report(result, "tpu-v5e", "80%")
    text = render_memory(result)
    # A module without TPU layouts is not XLA:TPU's compile: its TPU verdict is an estimate.
    assert "fits (an estimate) on tpu-v5e (16.0 GiB): padded peak 64.0 KiB = 0% of memory" in text
    assert "under the 80% limit" in " ".join(text.split())
    assert "TPU tiles: logical peak 3.0 KiB, padded 64.0 KiB (+61.0 KiB of padding)" in text
    assert "x f32[128,6]{1,0}: 3.0 KiB of data, 21.3x" in text
    # Above the limit but within the memory: a warning, never a refusal's words.
    big = _result([("y", "f32[1024,1024]{1,0}", 21 * GiB)])
    big.device = device_report(big, "a100", "50%")
    assert big.device["verdict"] == "fits_above_limit" and big.device["fits"] is True
    assert big.device["within_limit"] is False
    assert render_memory(big, width=120).splitlines()[2] == (
        "fits on a100-40gb (40.0 GiB), above your 50% limit: peak 21.0 GiB = 52% of memory, "
        "1.0 GiB over the limit (a warning)"
    )
    # At 80 columns the verdict wraps at a space, the words unchanged.
    narrow = render_memory(big).splitlines()[2:4]
    assert narrow == [
        "fits on a100-40gb (40.0 GiB), above your 50% limit: peak 21.0 GiB = 52% of",
        "  memory, 1.0 GiB over the limit (a warning)",
    ]
    # Above the whole memory: does NOT fit.
    huge = _result([("z", "f32[1024,1024]{1,0}", 41 * GiB)])
    huge.device = device_report(huge, "a100", "50%")
    assert huge.device["verdict"] == "does_not_fit" and huge.device["fits"] is False
    assert render_memory(huge, width=120).splitlines()[2] == (
        "does NOT fit on a100-40gb (40.0 GiB): peak 41.0 GiB = 102% of memory, "
        "1.0 GiB more than the whole memory"
    )


def test_cli_device_json_and_text():
    runner = CliRunner()
    out = runner.invoke(cli, ["memory", str(SAMPLE), "--json", "--device", "tpu-v4"])
    assert out.exit_code == 0, out.output
    device = json.loads(out.stdout)["device"]
    assert {"name", "memory_bytes", "limit_bytes", "fits", "headroom_bytes"} <= set(device)
    assert device["name"] == "tpu-v4" and device["fits"] is True
    assert device["padded_peak_bytes"] >= device["logical_peak_bytes"]
    text = runner.invoke(cli, ["memory", str(SAMPLE), "--device", "h100", "--limit", "0.5"])
    assert text.exit_code == 0
    words = " ".join(text.stdout.split())  # the verdict wraps at the terminal's width
    assert "fits on h100 (80.0 GiB): peak " in words
    assert "under the 50% limit" in words and "TPU tiles" not in words


def test_cli_without_device_keeps_device_null():
    out = CliRunner().invoke(cli, ["memory", str(SAMPLE), "--json"])
    assert json.loads(out.stdout)["device"] is None


def test_cli_unknown_device_exits_2_naming_the_known_ones():
    out = CliRunner().invoke(cli, ["memory", str(SAMPLE), "--device", "tpu-v9000"])
    assert out.exit_code == 2
    assert "unknown device 'tpu-v9000'" in out.output and "tpu-v5e" in out.output


def test_cli_bad_limit_exits_2():
    out = CliRunner().invoke(cli, ["memory", str(SAMPLE), "--device", "h100", "--limit", "120%"])
    assert out.exit_code == 2 and "--limit" in out.output


def test_cli_over_the_limit_exits_0_unless_fail_over_limit():
    args = ["memory", str(SAMPLE), "--device", "h100", "--limit", "0.0000001%"]
    plain = CliRunner().invoke(cli, args)
    words = " ".join(plain.stdout.split())
    assert plain.exit_code == 0 and "fits on h100 (80.0 GiB), above your 1e-07% limit" in words
    assert "does NOT fit" not in words
    failing = CliRunner().invoke(cli, [*args, "--fail-over-limit"])
    assert failing.exit_code == 3
    fitting = CliRunner().invoke(
        cli, ["memory", str(SAMPLE), "--device", "h100", "--fail-over-limit"]
    )
    assert fitting.exit_code == 0


def test_cli_fail_over_limit_and_scale_need_device():
    for extra in (["--fail-over-limit"], ["--scale", "x:0"]):
        out = CliRunner().invoke(cli, ["memory", str(SAMPLE), *extra])
        assert out.exit_code == 2 and "needs --device" in out.output
