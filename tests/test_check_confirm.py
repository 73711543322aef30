"""``hloscope check ... --device tpu-v5e``: each finding confirmed by XLA:TPU or dropped.

XLA:TPU is the oracle: a child process compiles the same ops for a v5e with plain
``jax.jit(...).lower(...).compile()`` on libtpu's topology (no hloscope), and the tests hold
hloscope's answer to what it said. Every compile runs in a child (libtpu never loads in this
process); the tests skip without libtpu, except under ``CI=true`` where that fails them.
Without libtpu (``sys.modules["libtpu"] = None`` in the child) the answer is the static one,
labelled so, with the same exit status.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from frameworks_needed import needs_libtpu

from hloscope import devices
from hloscope.backends import libtpu_environment

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = Path(__file__).resolve().parent / "tpu_check_programs.py"
# The oracle compiles for a v5e: libtpu's environment for that chip's row.
LIBTPU_ENV = {**libtpu_environment(devices.lookup("tpu-v5e")), "JAX_PLATFORMS": "cpu"}

ORACLE = f"""
import json, sys
sys.path.insert(0, {str(PROGRAMS.parent)!r})
import jax, tpu_check_programs as programs
from jax.experimental import topologies
topo = topologies.get_topology_desc(
    platform="tpu", topology_name="v5e:1x1", chips_per_host_bounds=(1, 1, 1))
on = jax.sharding.SingleDeviceSharding(topo.devices[0])
said = {{"device_kind": topo.devices[0].device_kind}}
for name, (fn, types) in programs.ORACLE.items():
    specs = [jax.ShapeDtypeStruct(shape, dtype, sharding=on) for shape, dtype in types]
    try:
        jax.jit(fn).lower(*specs).compile()
        said[name] = None
    except Exception as error:
        said[name] = str(error).strip().splitlines()[0]
print(json.dumps(said))
"""


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="200", **extra)
    return env


@pytest.fixture(scope="module")
def xla_tpu() -> dict[str, str | None]:
    """What XLA:TPU says of each oracle program: ``None`` (compiled) or its first line."""
    needs_libtpu()
    done = subprocess.run(
        [sys.executable, "-c", ORACLE],
        env={**_env(), **LIBTPU_ENV},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hloscope-cache")


def _check(*args: str, cache: Path, block_libtpu: bool = False) -> tuple[int, str]:
    """``hloscope check ARGS`` in a child: its status and stdout (stderr may hold JAX's own
    start-up lines); ``block_libtpu`` hides libtpu from it."""
    start = "import sys, runpy\n"
    if block_libtpu:
        start += "sys.modules['libtpu'] = None\n"
    start += (
        "sys.argv = ['hloscope', *sys.argv[1:]]\nrunpy.run_module('hloscope', run_name='__main__')"
    )
    done = subprocess.run(
        [sys.executable, "-c", start, "check", *args],
        env=_env(HLOSCOPE_CACHE=str(cache)),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode in (0, 3), done.stderr[-2000:]
    return done.returncode, done.stdout


def _json(
    function: str, cache: Path, device: str = "tpu", block_libtpu: bool = False
) -> tuple[int, dict]:
    code, out = _check(
        f"{PROGRAMS}:{function}", "--device", device, "--json",
        cache=cache, block_libtpu=block_libtpu,
    )  # fmt: skip
    return code, json.loads(out[out.index("{") :])


def _device(function: str, cache: Path) -> tuple[int, dict]:
    return _json(function, cache, "tpu-v5e")


def _problems(report: dict) -> list[dict]:
    return [f for f in report["findings"] if not f["warning"]]


# ---- what XLA:TPU compiles is clean -------------------------------------------------------------


@pytest.mark.parametrize(
    ("function", "oracle"), [("matmul_f64", "matmul_f64"), ("matmul_c128", "matmul_c128")]
)
def test_what_xla_tpu_compiles_is_clean(xla_tpu, cache, function, oracle):
    assert xla_tpu[oracle] is None  # the v5e compiles it
    static_code, static = _json(function, cache)
    assert static_code == 3 and _problems(static), "the static scan flags 64-bit types"
    code, report = _device(function, cache)
    assert code == 0, report
    assert report["clean"] and not _problems(report)
    assert report["compiled_for"] == xla_tpu["device_kind"] == "TPU v5 lite"
    assert report["device"] == "tpu-v5e"
    dropped = report["notes"][0]
    assert dropped.startswith("confirmed by XLA:TPU (TPU v5 lite)")
    assert "dropped what it compiled" in dropped and "dot" in dropped


# ---- what XLA:TPU refuses is found, in its words ------------------------------------------------


@pytest.mark.parametrize(
    ("function", "oracle", "op"),
    [
        ("eig", "eig", "eig"),
        ("fft_c128", "fft_c128", "fft"),
        ("rfft_f64", "rfft_f64", "fft"),
    ],
)
def test_what_xla_tpu_refuses_is_found_with_its_words(xla_tpu, cache, function, oracle, op):
    words = xla_tpu[oracle]
    assert words is not None  # the v5e refuses it
    code, report = _device(function, cache)
    assert code == 3
    (finding,) = _problems(report)
    assert finding["op"] == op
    assert finding["confirmed_by"] == "XLA:TPU (TPU v5 lite)"
    assert words in finding["compiler_message"]


def test_text_shows_the_compilers_words_and_what_compiled(xla_tpu, cache):
    code, out = _check(f"{PROGRAMS}:fft_c128", "--device", "tpu-v5e", "--wide", cache=cache)
    assert code == 3
    assert f"XLA:TPU (TPU v5 lite): {xla_tpu['fft_c128']}" in out
    assert "note: confirmed by XLA:TPU (TPU v5 lite)" in out


# ---- several candidates: some confirmed, the others dropped -------------------------------------


def _static_ops(report: dict) -> set[str]:
    return {f"{f['op']} {f['dtype']}" if f["dtype"] else f["op"] for f in _problems(report)}


def test_several_candidates_the_confirmed_stay_the_others_go(xla_tpu, cache):
    assert xla_tpu["matmul_f64"] is None
    assert xla_tpu["eig"] is not None and xla_tpu["fft_c128"] is not None
    _, static = _json("mixed", cache)
    assert {"dot f64", "eig", "fft c128"} <= _static_ops(static)
    code, report = _device("mixed", cache)
    assert code == 3
    found = {f["op"]: f for f in _problems(report)}
    assert set(found) == {"eig", "fft"}
    assert xla_tpu["eig"] in found["eig"]["compiler_message"]
    assert xla_tpu["fft_c128"] in found["fft"]["compiler_message"]
    assert all(f["confirmed_by"] == "XLA:TPU (TPU v5 lite)" for f in found.values())


def test_a_second_program_keeps_the_refused_solve_and_drops_the_matmul(xla_tpu, cache):
    assert xla_tpu["lu_f64"] is not None
    _, static = _json("solve_f64", cache)
    assert "dot f64" in _static_ops(static) and len(_problems(static)) > 1
    code, report = _device("solve_f64", cache)
    assert code == 3
    (finding,) = _problems(report)
    assert finding["op"] == "custom-call" and finding["dtype"] == "f64"
    assert xla_tpu["lu_f64"].split(":")[0] in finding["compiler_message"]  # UNIMPLEMENTED
    assert (
        "LuDecomposition" in finding["compiler_message"] and "LuDecomposition" in xla_tpu["lu_f64"]
    )


# ---- what the static scan misses ----------------------------------------------------------------


@pytest.mark.parametrize("function", ["outer_product", "big_table"])
def test_the_whole_compile_finds_what_the_static_scan_misses(xla_tpu, cache, function):
    words = xla_tpu[function]
    assert words is not None and words.startswith("RESOURCE_EXHAUSTED")
    static_code, static = _json(function, cache)
    assert static_code == 0 and not _problems(static)
    code, report = _device(function, cache)
    assert code == 3
    (finding,) = _problems(report)
    assert finding["reason"] == "out_of_memory"
    assert finding["compiler_message"] == words


# ---- Pallas kernels: the fix explain-error knows, not "see the message" -------------------------


def test_a_kernel_too_big_for_vmem_is_found_with_its_fix(xla_tpu, cache):
    words = xla_tpu["pallas_whole_array"]
    assert words is not None and words.startswith("RESOURCE_EXHAUSTED") and "vmem" in words
    static_code, static = _json("pallas_whole_array", cache)
    assert static_code == 0 and not _problems(static)
    code, report = _device("pallas_whole_array", cache)
    assert code == 3
    (finding,) = _problems(report)
    assert (finding["op"], finding["reason"]) == ("vmem", "out_of_memory")
    assert finding["compiler_message"] == words
    assert (
        "256.0 MiB of VMEM" in finding["suggestion"] and "smaller blocks" in finding["suggestion"]
    )


def test_a_block_shape_off_the_tiles_is_found_with_blocks_that_fit(xla_tpu, cache):
    assert "divisible by 8 and 128" in str(xla_tpu["pallas_block_shape"])  # JAX's own refusal
    code, report = _json("pallas_block_shape", cache)  # lowering refuses it: no libtpu needed
    assert code == 3
    (finding,) = _problems(report)
    assert finding["reason"] == "compile_error"
    assert "multiples of 8 and 128" in finding["suggestion"]
    assert (
        "the block (100, 100) of the array (1000, 1000) could be (104, 128)"
        in finding["suggestion"]
    )


# ---- host callbacks compile: warnings stay warnings ---------------------------------------------


@pytest.mark.parametrize("function", ["callback", "debug_print"])
def test_host_callbacks_stay_warnings(xla_tpu, cache, function):
    assert xla_tpu[function] is None
    code, report = _device(function, cache)
    assert code == 0 and report["clean"]
    warnings = [f for f in report["findings"] if f["warning"]]
    assert any(f["reason"] == "host_callback" for f in warnings)
    assert all(f["confirmed_by"] is None for f in warnings)


# ---- an HLO file: its instructions compiled alone, the module whole -----------------------------

LOWER_FOR_CPU = f"""
import sys
sys.path.insert(0, {str(PROGRAMS.parent)!r})
import jax, tpu_check_programs as p
print(jax.jit(p.mixed).lower(*p.mixed.example_args).compiler_ir("hlo").as_hlo_module().to_string())
"""


def test_an_hlo_file_is_confirmed_instruction_by_instruction(xla_tpu, cache, tmp_path):
    path = tmp_path / "mixed.before_optimizations.txt"
    done = subprocess.run(
        [sys.executable, "-c", LOWER_FOR_CPU],
        env=_env(JAX_PLATFORMS="cpu"),
        capture_output=True,
        text=True,
        check=True,
    )
    path.write_text(done.stdout)
    code, out = _check(str(path), "--device", "tpu-v5e", "--json", cache=cache)
    report = json.loads(out[out.index("{") :])
    assert code == 3
    found = {f["op"]: f for f in _problems(report)}
    # On CPU eig lowered to LAPACK: XLA:TPU has no such kernel; the f64 matmul compiles.
    assert set(found) == {"lapack_sgeev_ffi", "fft"}
    assert xla_tpu["fft_c128"] in found["fft"]["compiler_message"]
    assert all(f["confirmed_by"] == "XLA:TPU (TPU v5 lite)" for f in found.values())


def test_op_verdicts_are_cached(xla_tpu, cache):
    _device("fft_c128", cache)
    cached = list((cache / "tpu-ops").glob("*.json"))
    assert cached
    assert any(not json.loads(p.read_text())["ok"] for p in cached)


# ---- without libtpu: the static answer, labelled ------------------------------------------------


@pytest.mark.parametrize(("function", "status"), [("matmul_f64", 3), ("callback", 0)])
def test_without_libtpu_the_static_answer_is_labelled(cache, function, status):
    code, static = _json(function, cache, block_libtpu=True)
    labelled_code, labelled = _json(function, cache, "tpu-v5e", block_libtpu=True)
    assert code == labelled_code == status
    assert labelled["notes"][0] == (
        "static scan; pip install 'hloscope[tpu]' to confirm with XLA:TPU"
    )
    assert labelled["notes"][1:] == static["notes"]
    assert labelled["compiled_for"] is None
    strip = ("confirmed_by", "compiler_message")
    assert [{k: v for k, v in f.items() if k not in strip} for f in labelled["findings"]] == (
        static["findings"]
    )
    assert "compiled_for" not in static  # the output without --device is as it was


# ---- the Python API: hloscope.check(..., device=) -----------------------------------------------

API = """
import json, sys
sys.path.insert(0, {folder!r})
import hloscope, tpu_check_programs as p
out = {{}}
for name in ("matmul_f64", "eig"):
    fn = getattr(p, name)
    live = hloscope.check(fn, *fn.example_args, device="tpu-v5e")
    spec = hloscope.check({programs!r} + ":" + name, device="tpu-v5e")
    out[name] = [
        [[f.op, f.confirmed_by, f.compiler_message] for f in r.findings if not f.warning]
        for r in (live, spec)
    ]
print(json.dumps(out))
"""


def test_the_python_api_confirms_with_xla_tpu(xla_tpu, cache):
    code = API.format(folder=str(PROGRAMS.parent), programs=str(PROGRAMS))
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**_env(), "HLOSCOPE_CACHE": str(cache), "JAX_PLATFORMS": "cpu"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    # A live function and its SCRIPT.py:FUNCTION give the same answer, XLA:TPU's.
    for live, spec in got.values():
        assert [f[:2] for f in live] == [f[:2] for f in spec]
    assert got["matmul_f64"][0] == []  # the v5e compiles a float64 matmul
    (eig,) = got["eig"][0]
    assert eig[0] == "eig" and eig[1] == "XLA:TPU (TPU v5 lite)"
    assert xla_tpu["eig"] in eig[2]
