"""``hloscope compile-time SCRIPT.py:FUNCTION --scale``: compiles at three sizes, the growth of
the compile time fitted through two and checked on the third (this machine's XLA:CPU here; the
XLA:TPU offline compiles are in ``test_compile_growth_tpu.py``).

The oracle of a prediction is the compile itself: the check size is compiled and measured, and
the fit made from the two other sizes must be of the right kind (``growth_checks``: within 50%;
how close it comes on a quiet machine is ``benchmarks/bench_compile_growth.py``'s). Only ratios
are asserted, never absolute times. Each size is compiled five times, in turn (each in a fresh
child), and the fastest kept, as ``--repeat 5`` does: other work on a shared machine only ever
slows a compile. A check that misses by 25% is measured once more (``--refresh``: every size
compiled again), as a user would re-measure a surprising one.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from growth_checks import REMEASURE, RIGHT_KIND

from hloscope.capture.scaled_arguments import ArgumentScale, parse_scale_at
from hloscope.cli import cli
from hloscope.errors import UsageProblem

pytest.importorskip("jax")

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "compile_growth_programs.py"


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path_factory.getbasetemp() / "growth-cache"))


def growth(*options: str, function: str = "loop_model", script: Path = PROGRAMS) -> dict:
    result = CliRunner().invoke(
        cli, ["compile-time", f"{script}:{function}", *options, "--json"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def checked_growth(*options: str, function: str) -> dict:
    """:func:`growth`, measured again once when its check misses by 25% or more."""
    found = growth(*options, function=function)
    if abs(found["total"]["check"]["error"]) >= REMEASURE:
        found = growth(*options, "--refresh", function=function)
    return found


def test_a_python_loop_grows_with_its_layers_and_the_fit_predicts_the_third_size():
    found = checked_growth(
        "--scale",
        "layers",
        "--sizes",
        "50,100,200",
        "--repeat",
        "5",
        "--at",
        "400",
        function="wide_loop_model",
    )
    assert found["sizes"] == [50, 100, 200]
    total = found["total"]
    assert abs(total["check"]["error"]) < RIGHT_KIND, total
    assert total["growth"] != "flat"
    times = [p["total_s"] for p in found["points"]]
    assert times[2] > times[0]  # four times the layers: a longer compile
    assert found["predicted_at_s"] > total["check"]["measured_s"]
    # every stage JAX times was fitted, and each stage's fit says its own check
    assert {"trace_s", "lower_s", "backend_s"} <= set(found["stages"])
    trace = found["stages"]["trace_s"]
    assert trace["check"]["measured_s"] == found["points"][2]["stages"]["trace_s"]


def test_a_scan_compiles_flat_in_its_length_and_the_fit_says_flat():
    # ARG:DIM form: the scanned weights' leading dimension is the layer count
    found = checked_growth(
        "--scale", "ws:0", "--sizes", "25,200,400", "--repeat", "5", function="wide_scan_model"
    )
    assert found["sizes"] == [25, 200, 400]
    assert found["total"]["growth"] == "flat", found["total"]
    assert abs(found["total"]["check"]["error"]) < RIGHT_KIND, found["total"]


def test_the_default_sizes_are_the_examples_own_and_its_multiples():
    # example_args(layers=4): n = 4, fitted at 4 and 8, checked at 12
    found = growth("--scale", "layers")
    assert found["sizes"] == [4, 8, 12]
    assert [p["label"] for p in found["points"]] == ["1n", "2n", "3n"]
    # and an argument's dimension: the scanned weights have 4 rows in the example
    scanned = growth("--scale", "ws:0", function="scan_model")
    assert scanned["sizes"] == [4, 8, 12]


def test_the_text_says_the_fit_its_check_and_the_estimate(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    result = CliRunner().invoke(
        cli,
        ["compile-time", f"{PROGRAMS}:loop_model", "--scale", "layers", "--at", "64"],
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "check at 12: predicted" in out
    assert "at 64: about" in out and "an estimate" in out
    assert all(len(line) <= 80 for line in out.splitlines())
    # one progress line per compile, on stderr
    assert result.stderr.count("compiling at") == 3  # --repeat 1


def test_a_missing_script_is_one_line_before_any_compile_is_announced(tmp_path):
    missing = tmp_path / "gone.py"
    result = CliRunner().invoke(cli, ["compile-time", f"{missing}:f", "--scale", "layers"])
    assert result.exit_code == 2
    assert result.stderr.strip() == f"hloscope: error: {missing}: no such file"


def test_a_size_the_script_cannot_build_is_one_line(tmp_path):
    script = tmp_path / "fixed.py"
    script.write_text(
        textwrap.dedent(
            """
            import jax, jax.numpy as jnp
            def f(x):
                return x * 2
            f.example_args = (jax.ShapeDtypeStruct((4, 8), jnp.float32),)
            """
        )
    )
    result = CliRunner().invoke(cli, ["compile-time", f"{script}:f", "--scale", "layers"])
    assert result.exit_code != 0
    assert "layers" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (["--scale", "x:y"], "--scale"),
        (["--scale", "layers", "--sizes", "4,4,8"], "must differ"),
        (["--scale", "layers", "--at", "big"], "--at"),
        (["--slices", "2x2,2x4"], "--device"),
        (["--at", "64"], "--scale or --slices"),
        (["--scale", "layers", "--slices", "2x2,2x4"], "exclude"),
    ],
)
def test_bad_options_are_one_line(options, said):
    result = CliRunner().invoke(cli, ["compile-time", f"{PROGRAMS}:loop_model", *options])
    assert result.exit_code == 2, result.output
    assert said in result.output
    assert "Traceback" not in result.output


def test_a_target_that_is_not_a_function_is_one_line(tmp_path):
    (tmp_path / "m.hlo").write_text("HloModule m\n\nENTRY e {\n  ROOT p = f32[] parameter(0)\n}\n")
    result = CliRunner().invoke(cli, ["compile-time", str(tmp_path / "m.hlo"), "--scale", "x:0"])
    assert result.exit_code == 2, result.output
    assert "SCRIPT.py:FUNCTION" in result.output


def test_slices_take_no_sizes():
    result = CliRunner().invoke(
        cli,
        [
            "compile-time",
            f"{PROGRAMS}:sharded_step",
            "--device",
            "tpu-v5e",
            "--slices",
            "2x2,2x4",
            "--sizes",
            "1,2,3",
        ],
    )
    assert result.exit_code == 2 and "--sizes" in result.output


def test_a_scale_is_told_to_the_child_as_text():
    assert parse_scale_at("x:0=64") == (ArgumentScale("x", 0), 64, False)
    assert parse_scale_at("layers*2") == (ArgumentScale("layers"), 2, True)
    assert parse_scale_at("1:2=8") == (ArgumentScale(1, 2), 8, False)
    with pytest.raises(UsageProblem):
        parse_scale_at("layers")


def test_an_argument_the_function_does_not_take_is_a_usage_error():
    # Found in the capture's child, said as the command line's mistake (exit 2), as a
    # SCRIPT.py:FUNCTION the script does not define is: not as the script's own failure.
    result = CliRunner().invoke(
        cli, ["compile-time", f"{PROGRAMS}:loop_model", "--scale", "nope:0", "--json"]
    )
    assert result.exit_code == 2, result.output
    assert "--scale: no argument 'nope'" in result.output
    assert "stderr in" not in result.output and "Traceback" not in result.output
