"""``hloscope memory SCRIPT.py:FUNCTION --scale ARG:DIM --device NAME``: each size compiled as
the target is, by the backend the registry picks for the device (a capture child each); the peak
fitted as a + b*size from two compiles predicts a third within 5%, and the largest size under
the limit.

Oracles: the compiler itself. On a GPU row this machine's JAX stands in (an estimate), and each
size's peak is the one :func:`hloscope.drivers.memory.memory_of_function` gives the function
compiled here at that size; on a TPU each peak is XLA:TPU's own ``memory_analysis()`` of the
function compiled directly for the chip at that size (``tests/memory_scale_oracle.py``: plain
JAX, no hloscope), for two programs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from frameworks_needed import needs_framework, needs_libtpu

from hloscope.analysis.memory.scale_fit import ScalePoint, ScaleSpec, fit_scale, parse_scale
from hloscope.cli import cli
from hloscope.errors import UsageProblem

GiB = 1 << 30
HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "memory_scale_programs.py"


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    # One cache for the module: a size compiled once is read back by the next test.
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path_factory.getbasetemp() / "scale-cache"))
    monkeypatch.setenv("COLUMNS", "80")


def _memory(function: str, *options: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["memory", f"{PROGRAMS}:{function}", *options])
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.output if result.exit_code else result.stdout


def _scale(function: str, spec: str, device: str) -> dict:
    code, out = _memory(function, "--json", "--device", device, "--scale", spec)
    assert code == 0, out
    return json.loads(out)["scale"]


def test_parse_scale():
    assert parse_scale("tokens:0") == ScaleSpec("tokens", 0)
    assert parse_scale("1:-1") == ScaleSpec(1, -1)
    assert parse_scale("x:0:8,16,40") == ScaleSpec("x", 0, (8, 16, 40))
    for bad in ("x", "x:y", ":0", "x:0:8,16", "x:0:8,8,16", "x:0:0,4,8", "x:0:1:2"):
        with pytest.raises(UsageProblem):
            parse_scale(bad)


def test_the_line_its_check_and_the_largest_size_under_the_limit():
    spec = ScaleSpec("x", 0)
    compiled = {"backend": "xla-tpu", "compiled_by": "XLA:TPU", "compiled_for": "TPU v5 lite"}
    points = (ScalePoint(10, 1_100), ScalePoint(20, 2_100), ScalePoint(30, 3_300))
    result = fit_scale(spec, points, 10_000, compiled)
    assert (result.intercept, result.slope) == (100.0, 100.0)
    assert result.predicted_check_bytes == 3_100 and result.error == pytest.approx(-200 / 3_300)
    assert result.largest_size == 99  # 100 + 100 * 99 = 10,000: at the limit, not over it
    assert result.predict(100) > 10_000
    payload = result.to_dict()
    assert payload["compiled_by"] == "XLA:TPU" and payload["largest_size_peak_bytes"] == 10_000
    assert "does_not_compile" not in payload["check"]
    # A peak that does not grow: any size fits; one over the limit from the start: none does.
    flat = fit_scale(spec, (ScalePoint(1, 50), ScalePoint(2, 50), ScalePoint(3, 50)), 99, {})
    assert flat.largest_size is None
    over = fit_scale(spec, (ScalePoint(1, 500), ScalePoint(2, 600), ScalePoint(3, 700)), 99, {})
    assert over.largest_size == 0
    refused = ScalePoint(30, 5_000, refused=True)
    assert fit_scale(spec, (*points[:2], refused), 10_000, {}).to_dict()["check"][
        "does_not_compile"
    ]
    with pytest.raises(UsageProblem, match="same size"):
        fit_scale(spec, (points[0], points[0], points[2]), 10_000, compiled)


@pytest.mark.slow
def test_on_a_gpu_row_each_size_is_this_machines_compile_and_the_fit_holds():
    jax = needs_framework("jax")
    sys.path.insert(0, str(HERE))
    import memory_scale_programs as programs

    from hloscope.drivers.memory import memory_of_function

    scale = _scale("train_step", "tokens:0", "h100")
    assert [p["size"] for p in scale["points"]] == [8, 16] and scale["check"]["size"] == 24
    assert scale["backend"] == "jax" and scale["compiled_for"] is None
    assert scale["estimate_note"].startswith("an estimate for h100")
    assert scale["bytes_per_size"] > 0
    # The check is its own compile: the same peak as compiling the function here at that size.
    params, _ = programs.train_step.example_args()
    tokens = jax.numpy.zeros((24, programs.T), jax.numpy.int32)
    direct = memory_of_function(programs.train_step, params, tokens)
    assert scale["check"]["peak_bytes"] == direct.peak_bytes
    assert abs(scale["check"]["error"]) <= 0.05
    # The largest size is the last whose predicted peak is under 80% of 80 GiB.
    limit = int(80 * GiB * 0.8)
    assert scale["limit_bytes"] == limit
    a, b = scale["intercept_bytes"], scale["bytes_per_size"]
    largest = scale["largest_size"]
    assert a + b * largest <= limit < a + b * (largest + 1)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("function", "spec", "position", "sizes"),
    [("mlp_step", "x:0", 2, (16, 32, 48)), ("train_step", "tokens:0:4,8,16", 1, (4, 8, 16))],
)
def test_on_a_tpu_each_size_is_xla_tpus_own_peak(function, spec, position, sizes):
    needs_framework("jax")
    needs_libtpu()
    oracle = subprocess.Popen(  # runs while hloscope compiles the same sizes
        [sys.executable, str(HERE / "memory_scale_oracle.py"), str(PROGRAMS), function]
        + [str(position), "0", *map(str, sizes)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    scale = _scale(function, spec, "tpu-v5e")
    out, err = oracle.communicate(timeout=600)
    assert oracle.returncode == 0, err[-3000:]
    want = {int(size): figures["peak_memory_in_bytes"] for size, figures in json.loads(out).items()}
    assert scale["backend"] == "xla-tpu" and scale["compiled_by"] == "XLA:TPU"
    assert scale["compiled_for"] == "TPU v5 lite" and scale["estimate_note"] is None
    found = {p["size"]: p["peak_bytes"] for p in [*scale["points"], scale["check"]]}
    assert found == want
    # The line through the first two still predicts the third.
    assert abs(scale["check"]["error"]) <= 0.05
    assert scale["limit_bytes"] == int(16 * GiB * 0.8)


@pytest.mark.slow
def test_bad_argument_or_dimension_is_a_usage_error_from_the_child():
    needs_framework("jax")
    # Each found in the capture's child, said as the command line's mistake (exit 2).
    for spec, message in (
        ("nope:0", "no argument 'nope' (arguments: w1, w2, x)"),
        ("x:2", "no dimension 2"),
        ("5:0", "argument 5 does not exist"),
    ):
        code, out = _memory("mlp_step", "--device", "h100", "--scale", spec)
        assert code == 2, out
        assert message in " ".join(out.split()), out


@pytest.mark.slow
def test_cli_scale_text_fits_80_columns():
    needs_framework("jax")
    code, text = _memory("mlp_step", "--device", "h100", "--scale", "x:0")
    assert code == 0, text
    part = text[text.index("scale: argument x, dimension 0") :]
    words = " ".join(part.split())
    assert "each size an estimate for h100 from a " in words
    assert "largest size under the 64.0 GiB limit of h100: " in words
    assert max(map(len, part.splitlines())) <= 80, part


def test_cli_scale_is_refused_before_anything_compiles():
    code, out = _memory("mlp_step", "--device", "h100", "--scale", "x")
    assert code == 2 and "--scale 'x'" in out
    code, out = _memory("mlp_step", "--scale", "x:0")
    assert code == 2 and "--scale needs --device" in out
    sample = HERE.parent / "samples" / "hlo" / "transformer_train.after_optimizations.txt"
    result = CliRunner().invoke(cli, ["memory", str(sample), "--device", "h100", "--scale", "x:0"])
    assert result.exit_code == 2 and "SCRIPT.py:FUNCTION" in result.output
