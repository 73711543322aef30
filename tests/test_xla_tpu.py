"""XLA:TPU compiles made on this machine, with XLA:TPU itself as the oracle.

Each program of ``tests/tpu/programs.py`` is compiled twice: by hloscope (``--device``, through
the XLA:TPU backend in the capture's child process) and by ``tests/tpu/oracle.py`` (plain JAX,
``jax.experimental.topologies``, in its own process). What hloscope reports must be what XLA:TPU
says: the peak is ``memory_analysis().peak_memory_in_bytes``, the FLOPs ``cost_analysis()``'s,
the collectives those XLA's own parser finds in the compiled module.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from click.testing import CliRunner
from frameworks_needed import needs_libtpu

from hloscope.cli import cli

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "tpu" / "programs.py"
SINGLE_CHIP = ("lm_step", "lm_step_remat", "conv_step", "narrow")
ONE_CHIP = ("v5e:1x1", "1,1,1")
#: Every answer the tests ask of the oracle (function, topology, host bounds): one child
#: process compiles them all at the first question, one JAX start-up instead of ten.
ORACLES = (
    *[(name, *ONE_CHIP) for name in SINGLE_CHIP],
    *[(name, *ONE_CHIP) for name in ("pallas_mlp", "pallas_mlp_estimated", "dropout")],
    ("spmd_step", "v5e:2x4", None),
    ("spmd_step_64", "v5p:4x4x4", None),
    ("conv_step", "v6e:1x1", "1,1,1"),
)


@pytest.fixture(autouse=True)
def _libtpu_and_cache(tmp_path_factory, monkeypatch):
    needs_libtpu()
    # One cache for the module's tests: a program is compiled once, then read from the cache.
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path_factory.getbasetemp() / "tpu-cache"))


def _spec(name: str, topology: str, bounds: str | None) -> str:
    """An answer as ``tests/tpu/oracle.py --each`` names it."""
    return "/".join([name, topology, *([bounds] if bounds else [])])


@cache
def _oracles() -> dict[str, dict]:
    specs = [_spec(*one) for one in ORACLES]
    done = subprocess.run(
        [sys.executable, str(HERE / "tpu" / "oracle.py"), "--each", *specs],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def oracle(name: str, topology: str, bounds: str | None = None) -> dict:
    """XLA:TPU's own figures for ``name`` compiled for ``topology`` (listed in ORACLES)."""
    assert (name, topology, bounds) in ORACLES, f"add {(name, topology, bounds)} to ORACLES"
    return _oracles()[_spec(name, topology, bounds)]


def hloscope_json(*args: str) -> dict:
    result = CliRunner().invoke(cli, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def target(name: str) -> str:
    return f"{PROGRAMS}:{name}"


@pytest.mark.parametrize("name", SINGLE_CHIP)
def test_memory_peak_is_xla_tpus_peak(name):
    got = hloscope_json("memory", target(name), "--device", "tpu-v5e")
    want = oracle(name, "v5e:1x1", "1,1,1")
    assert got["peak_bytes"] == want["peak"]
    assert got["source"] == "xla_tpu"
    assert got["compiled_for"] == want["device_kind"] == "TPU v5 lite"
    assert got["device"]["fits"] is True
    # The live range's peak is kept beside it, named, and is a lower bound of what is reserved.
    assert 0 < got["figures"]["live_range_peak_bytes"] <= got["peak_bytes"]


@pytest.mark.parametrize("name", SINGLE_CHIP)
def test_fusions_flops_are_xla_tpus(name):
    got = hloscope_json("fusions", target(name), "--device", "tpu-v5e")
    want = oracle(name, "v5e:1x1", "1,1,1")
    # XLA adds its FLOPs in 32-bit floats: equal to its rounding.
    assert got["summary"]["flops"] == pytest.approx(want["flops"], rel=2**-23)
    assert got["compiled_for"] == "TPU v5 lite"


def test_pallas_kernels_without_an_estimate_cost_what_xla_tpu_counts_with_one():
    # XLA:TPU counts a Pallas kernel's FLOPs only from its cost_estimate. hloscope estimates a
    # kernel given none from its jaxpr: the same program with the exact estimates is the oracle.
    got = hloscope_json("fusions", target("pallas_mlp"), "--device", "tpu-v5e")
    with_estimates = oracle("pallas_mlp_estimated", "v5e:1x1", "1,1,1")
    without = oracle("pallas_mlp", "v5e:1x1", "1,1,1")
    assert got["summary"]["flops"] == pytest.approx(with_estimates["flops"], rel=2**-23)
    assert without["flops"] < with_estimates["flops"] / 100  # XLA:TPU alone counts ~nothing
    assert any("hloscope's estimate" in note for note in got["summary"]["notes"])
    # The estimated program: hloscope counts what XLA:TPU counts, and estimates nothing.
    given = hloscope_json("fusions", target("pallas_mlp_estimated"), "--device", "tpu-v5e")
    assert given["summary"]["flops"] == pytest.approx(with_estimates["flops"], rel=2**-23)
    assert not given["summary"]["flagged"]


def test_a_module_xla_tpu_numbers_anew_keeps_its_live_range():
    # The optimized module's files carry another id than the module before optimizations:
    # its buffer assignment and live range are still this compile's, not hloscope's
    # simulation's.
    got = hloscope_json("memory", target("dropout"), "--device", "tpu-v5e")
    want = oracle("dropout", "v5e:1x1", "1,1,1")
    assert got["peak_bytes"] == want["peak"]
    assert (
        "live_range_peak_bytes" in got["figures"] and "simulated_peak_bytes" not in got["figures"]
    )
    assert 0 < got["figures"]["live_range_peak_bytes"] <= got["peak_bytes"]
    fusions = hloscope_json("fusions", target("dropout"), "--device", "tpu-v5e")
    assert fusions["summary"]["flops"] == pytest.approx(want["flops"], rel=2**-23)


def test_remat_lowers_the_peak_and_costs_flops():
    plain = hloscope_json("memory", target("lm_step"), "--device", "tpu-v5e")
    remat = hloscope_json("memory", target("lm_step_remat"), "--device", "tpu-v5e")
    assert remat["peak_bytes"] < plain["peak_bytes"]
    assert (
        oracle("lm_step_remat", "v5e:1x1", "1,1,1")["flops"]
        > oracle("lm_step", "v5e:1x1", "1,1,1")["flops"]
    )


@pytest.mark.parametrize(
    ("name", "device", "topology"),
    [("spmd_step", "tpu-v5e:2x4", "v5e:2x4"), ("spmd_step_64", "tpu-v5p:4x4x4", "v5p:4x4x4")],
)
def test_collectives_on_a_slice_are_xla_tpus(name, device, topology):
    got = hloscope_json("collectives", target(name), "--device", device)
    want = oracle(name, topology)
    counts: dict[str, int] = {}
    for row in got["collectives"]:
        counts[row["kind"]] = counts.get(row["kind"], 0) + 1
    expected: dict[str, int] = {}
    for opcode, n in want["collectives"].items():
        kind = opcode.removesuffix("-start")
        expected[kind] = expected.get(kind, 0) + n
    assert counts == expected and counts
    assert got["compiled_for"] == want["device_kind"]
    assert got["per_device_peak_bytes"] == want["peak"]
    assert got["step"]["total_s"] > 0


def test_a_second_command_reads_the_cached_compile():
    from hloscope.capture.target import Target

    first = Target.resolve(target("narrow"), device="tpu-v5e")
    again = Target.resolve(target("narrow"), device="tpu-v5e")
    other = Target.resolve(target("narrow"), device="tpu-v6e")
    assert again.from_cache and again.output_dir == first.output_dir
    assert other.output_dir != first.output_dir
    assert other.compile_info()["compiled_for"] == "TPU v6 lite"


def test_a_program_that_does_not_fit_is_an_answer(tmp_path):
    script = tmp_path / "too_big.py"
    script.write_text(
        "import jax, jax.numpy as jnp\n"
        "@jax.jit\n"
        "def big(x):\n"
        "    return jnp.sort(jnp.outer(x, x) + 1.0, axis=0)\n"
        "big.example_args = (jax.ShapeDtypeStruct((70000,), jnp.float32),)\n"
    )
    got = hloscope_json("memory", f"{script}:big", "--device", "tpu-v5e")
    refused = got["does_not_fit"]
    assert "RESOURCE_EXHAUSTED" in refused["message"]
    # XLA:TPU's own figures, read from its words: it needs more than the chip has.
    assert refused["needs_bytes"] > refused["available_bytes"] > 15 * 2**30
    assert got["device"]["fits"] is False
    # What fills it: the buffers XLA:TPU had assigned before it gave up.
    assert got["live_at_peak"] and got["live_at_peak"][0]["bytes"] > 2**30
    failed = CliRunner().invoke(
        cli, ["memory", f"{script}:big", "--device", "tpu-v5e", "--fail-over-limit"]
    )
    assert failed.exit_code == 3
    assert "does NOT fit on tpu-v5e: XLA:TPU needs" in " ".join(failed.stdout.split())


def test_without_libtpu_the_answer_is_an_estimate(tmp_path):
    # A libtpu package without its library shadows the real one: the backend is unavailable.
    fake = tmp_path / "shadow" / "libtpu"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(fake.parent), os.environ.get("PYTHONPATH", "")]),
        "HLOSCOPE_CACHE": str(tmp_path / "cache"),
        "JAX_PLATFORMS": "cpu",
    }
    command = [sys.executable, "-m", "hloscope", "memory", target("narrow"), "--device"]
    done = subprocess.run(
        [*command, "tpu-v5e", "--json"], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert "an estimate for tpu-v5e from a cpu compile" in done.stderr
    assert "pip install 'hloscope[tpu]'" in done.stderr
    payload = json.loads(done.stdout)
    assert "compiled_for" not in payload and payload["source"] == "memory_analysis"
    # Every command still answers, from this machine's compile, labelled.
    for command in (["fusions"], ["collectives"], ["summary"]):
        done = subprocess.run(
            [sys.executable, "-m", "hloscope", *command, target("narrow"), "--device", "tpu-v5e"],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        assert done.returncode == 0, (command, done.stderr)
        assert "an estimate for tpu-v5e" in done.stderr, command


def test_the_python_api_compiles_for_a_device_in_process(tmp_path):
    script = (
        "import jax, jax.numpy as jnp, json, hloscope, sys\n"
        f"sys.path.insert(0, {str(HERE / 'tpu')!r})\n"
        "import programs\n"
        "args = programs.example_args()['narrow']()\n"
        "cap = hloscope.capture(programs.narrow, *args, device='tpu-v5e')\n"
        "print(json.dumps([cap.compiled_for, cap.backend, cap.memory['peak_memory_in_bytes']]))\n"
    )
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    kind, backend, peak = json.loads(done.stdout.strip().splitlines()[-1])
    assert (kind, backend) == ("TPU v5 lite", "xla-tpu")
    assert peak == oracle("narrow", "v5e:1x1", "1,1,1")["peak"]


def test_a_slice_the_arguments_mesh_does_not_fit_is_one_line():
    result = CliRunner().invoke(
        cli, ["collectives", target("spmd_step"), "--device", "tpu-v5e:2x2"]
    )
    assert result.exit_code != 0
    assert "Traceback" not in result.output


def test_mesh_reshapes_the_arguments_mesh_for_the_slice():
    got = hloscope_json(
        "collectives", target("spmd_step"), "--device", "tpu-v5e:2x4", "--mesh", "data=2,model=4"
    )
    assert "data=2" in json.dumps(got) and "model=4" in json.dumps(got)


def test_report_and_passes_read_the_tpu_compile(tmp_path):
    page = tmp_path / "report.html"
    result = CliRunner().invoke(
        cli, ["report", target("narrow"), "--device", "tpu-v5e", "-o", str(page), "--graphs", "0"]
    )
    assert result.exit_code == 0, result.output
    assert "compiled for TPU v5 lite (tpu-v5e) by XLA:TPU" in page.read_text()
    passes = hloscope_json("passes", target("narrow"), "--device", "tpu-v5e")
    # XLA:TPU's own pipeline: its per-pass snapshots, not XLA:CPU's.
    assert passes["rows"] and "hlo_device_type_async_wrapper" in json.dumps(passes)


def test_a_function_closing_over_its_own_mesh_is_told_the_fix(tmp_path):
    script = tmp_path / "closes_over_mesh.py"
    script.write_text(
        "import jax, jax.numpy as jnp, numpy as np\n"
        "from jax.sharding import Mesh, NamedSharding, PartitionSpec as P\n"
        "mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ('data', 'model'))\n"
        "@jax.jit\n"
        "def step(w, x):\n"
        "    y = jnp.tanh(x @ w)\n"
        "    return jax.lax.with_sharding_constraint(y, NamedSharding(mesh, P('data')))\n"
        "def _args():\n"
        "    w = jax.device_put(jnp.zeros((256, 512)), NamedSharding(mesh, P(None, 'model')))\n"
        "    return w, jax.device_put(jnp.zeros((64, 256)), NamedSharding(mesh, P('data')))\n"
        "EXAMPLE_ARGS = {'step': _args}\n"
    )
    result = CliRunner().invoke(cli, ["collectives", f"{script}:step", "--device", "tpu-v5e:2x4"])
    assert result.exit_code == 1  # the compile asked for failed, with the fix in one line
    assert "uses a Mesh of this machine's devices itself" in result.output
    assert "Traceback" not in result.output


def test_diff_compiles_one_function_for_two_chips():
    got = hloscope_json(
        "diff", target("conv_step"), target("conv_step"), "--device-a", "tpu-v5e",
        "--device-b", "tpu-v6e",
    )  # fmt: skip
    v5e, v6e = oracle("conv_step", "v5e:1x1", "1,1,1"), oracle("conv_step", "v6e:1x1", "1,1,1")
    assert got["compiled_for"] == {"a": v5e["device_kind"], "b": v6e["device_kind"]}
    # Each side's peak is its own chip's XLA:TPU peak, and the change is their difference.
    assert got["memory"]["a"]["peak_bytes"] == v5e["peak"]
    assert got["memory"]["b"]["peak_bytes"] == v6e["peak"]
    assert got["memory"]["delta_bytes"] == v6e["peak"] - v5e["peak"]
