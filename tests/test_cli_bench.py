"""``hloscope bench`` and ``hloscope extract`` on the command line."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner

from tests.conftest import SAMPLES
from tests.frameworks_needed import needs_framework

needs_framework("jax")

import hloscope  # noqa: E402
from hloscope.bench.api import CONTRACT_KEYS, KERNEL_KEYS  # noqa: E402
from hloscope.cli import cli  # noqa: E402

FUSED = SAMPLES / "hlo" / "fusion_refactor_fused.after_optimizations.txt"
SPLIT = SAMPLES / "hlo" / "fusion_refactor_split.after_optimizations.txt"
QUICK = ("--budget", "300ms", "--kernel-budget", "30ms")

ELEMENTWISE = """HloModule scale_{n}, entry_computation_layout={{(f32[{n}]{{0}})->f32[{n}]{{0}}}}

ENTRY %main (x: f32[{n}]) -> f32[{n}] {{
  %x = f32[{n}]{{0}} parameter(0)
  %s = f32[{n}]{{0}} sine(%x)
  %c = f32[{n}]{{0}} cosine(%x)
  %m = f32[{n}]{{0}} multiply(%s, %c)
  %t = f32[{n}]{{0}} tanh(%x)
  ROOT %a = f32[{n}]{{0}} add(%m, %t)
}}
"""


@pytest.fixture(autouse=True)
def private_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path_factory.getbasetemp() / "hloscope-cache"))
    monkeypatch.setenv("COLUMNS", "120")


def run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def sizes(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sizes")
    small, large = folder / "small.hlo", folder / "large.hlo"
    small.write_text(ELEMENTWISE.format(n=1 << 19))
    large.write_text(ELEMENTWISE.format(n=4 << 19))
    return small, large


def test_per_kernel_times_the_kernels_inside_the_program(tmp_path):
    chart = tmp_path / "roofline.svg"
    code, out, err = run("bench", SPLIT, "--per-kernel", "-o", chart, *QUICK)
    assert code == 0, err
    assert "timed inside the program, from a trace of 5 steps" in out
    assert "per step beside the program's" in out and "gap" in out
    module = hloscope.parse(SPLIT)
    timed = [k.name for k in module.entry.instructions if k.opcode == "fusion"]
    assert any(name in out for name in timed)
    root = ET.parse(chart).getroot()  # the chart: well-formed SVG with the kernels drawn
    assert root.findall(".//{http://www.w3.org/2000/svg}circle[@class='kernel']")
    assert f"wrote {chart}" in err


def test_isolated_needs_per_kernel():
    code, _, err = run("bench", SPLIT, "--isolated")
    assert code == 2 and "--isolated goes with --per-kernel" in err


def test_per_kernel_table_shows_the_kernel_sum_beside_the_program():
    code, out, err = run("bench", SPLIT, "--per-kernel", "--isolated", *QUICK)
    assert code == 0, err
    assert "beside the program's" in out and "median" in out
    module = hloscope.parse(SPLIT)
    timed = [k.name for k in module.entry.instructions if k.opcode == "fusion"]
    assert timed and all(name in out for name in timed)
    assert "skipped 1:" in out and "host callback" in out
    assert "roofline" in out and "peak" in out


def test_json_is_the_contract():
    code, out, err = run("bench", SPLIT, "--per-kernel", "--isolated", "--json", *QUICK)
    assert code == 0, err
    data = json.loads(out)
    assert tuple(data) == CONTRACT_KEYS
    assert all(tuple(k) == KERNEL_KEYS for k in data["kernels"])
    assert [s["name"] for s in data["skipped"]] == ["debug_callback.1"]


def test_csv_has_a_row_per_kernel():
    code, out, err = run("bench", FUSED, "--per-kernel", "--isolated", "--csv", *QUICK)
    assert code == 0, err
    header, *rows = out.strip().splitlines()
    assert header.split(",")[: len(KERNEL_KEYS)] == list(KERNEL_KEYS)
    assert len(rows) == 2
    code, out, _ = run("bench", FUSED, "--csv", "--budget", "200ms")
    assert code == 0 and out.splitlines()[0].startswith("device,module,runs,median_s")


def test_vs_detects_the_slower_program_and_fail_slower_exits_3(sizes):
    small, large = sizes
    code, out, err = run("bench", small, "--vs", large, "--budget", "2s", "--fail-slower", "50")
    assert code == 3, (out, err)
    assert "slower" in out and "--fail-slower" in err
    code, out, err = run("bench", large, "--vs", small, "--budget", "2s", "--fail-slower", "50")
    assert code == 0, err
    assert "faster" in out


def test_vs_of_a_program_against_itself(sizes):
    small, _ = sizes
    code, out, err = run(
        "bench", small, "--vs", small, "--budget", "1s", "--precision", "3%", "--json"
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["comparison"]["verdict"].startswith("no significant difference")
    assert tuple(data["a"]) == CONTRACT_KEYS


@pytest.mark.parametrize(
    ("args", "status", "words"),
    [
        (("--precision", "0%"), 2, "--precision"),
        (("--budget", "soon"), 2, "--budget"),
        (("--fail-slower", "5"), 2, "--vs"),  # what the command line cannot use: 2
        (("--json", "--csv"), 2, "exclude"),
        (("--device", "tpu"), 1, "no tpu device"),
    ],
)
def test_bad_options_are_one_line_errors(args, status, words):
    budget = () if "--budget" in args else ("--budget", "100ms")
    code, _, err = run("bench", FUSED, *budget, *args)
    assert code == status, err
    assert words in err and "Traceback" not in err


def test_extract_writes_a_module_xla_reads(tmp_path):
    from hloscope.backends._jaxlib import xla_parse

    target = tmp_path / "k.hlo"
    code, _, err = run("extract", FUSED, "multiply_add_fusion", "-o", target)
    assert code == 0, err
    assert "wrote" in err and "multiply_add_fusion" in err
    text = target.read_text()
    xla_parse(text)
    module = hloscope.parse(text)
    assert module.entry.root.name == "multiply_add_fusion"
    code, out, _ = run("extract", FUSED, "multiply_add_fusion", "--runnable")
    assert code == 0 and "fusion(" not in out
    xla_parse(out)


def test_extract_refuses_what_cannot_run_alone_and_unknown_names():
    code, _, err = run("extract", SPLIT, "debug_callback.1")
    assert code == 1 and "cannot run alone" in err and "host callback" in err
    code, _, err = run("extract", SPLIT, "no_such_kernel")
    assert code == 2 and "no kernel named" in err  # a name that matches nothing: usage, 2


def test_the_roofline_says_how_the_cpu_peak_was_calibrated():
    from hloscope.bench.peaks import LLC_MULTIPLE, last_level_cache

    code, out, err = run("bench", FUSED, "--json", "--budget", "200ms")
    assert code == 0, err
    roof = json.loads(out)["roofline"]
    calibration = roof["calibration"]
    llc = last_level_cache().bytes
    assert calibration["llc_bytes"] == llc
    assert calibration["memory"]["array_bytes"] == LLC_MULTIPLE * llc
    for part in ("compute", "memory", "cache"):
        assert calibration[part]["best_of"] >= 3 and calibration[part]["spread"] >= 0
    assert roof["memory_level"] == "cache"  # this small program's data fits in the cache
    assert isinstance(roof["recalibrated"], list)
    code, out, err = run("bench", FUSED, "--budget", "200ms")
    assert code == 0, err
    flat = " ".join(out.split())
    assert "best of" in flat and f"the {llc >> 20} MiB last-level cache" in flat


def test_per_kernel_text_shows_the_top_20_by_default_and_every_kernel_on_request():
    """A transformer step has 191 kernels on XLA:CPU: the text shows the 20 slowest and says
    how many were left out and their share; --top N shows N, --all every one; the JSON keeps
    them all."""
    program = SAMPLES / "hlo" / "transformer_train.after_optimizations.txt"
    code, out, err = run("bench", program, "--per-kernel", "--json", *QUICK)
    assert code == 0, err
    kernels = json.loads(out)["kernels"]
    assert len(kernels) > 100
    code, out, err = run("bench", program, "--per-kernel", *QUICK)
    assert code == 0, err
    said = " ".join(out.split())
    assert f"(20 of {len(kernels)} kernels shown; the other {len(kernels) - 20} hold" in said
    code, out, err = run("bench", program, "--per-kernel", "--top", "5", *QUICK)
    assert f"(5 of {len(kernels)} kernels shown" in " ".join(out.split())
    code, out, err = run("bench", program, "--per-kernel", "--all", *QUICK)
    assert code == 0 and "kernels shown" not in out
