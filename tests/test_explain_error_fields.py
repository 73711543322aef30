"""explain-error's fields where the family is right (issue 35, round 5): the user's line and
the failing op, read by general rules from the structure of a message (an MLIR location's
call sites, a notebook cell's file name, the script Python ran), each on two wordings: one
from a spent blind log of the corpus (``tests/data/error_logs``), one from another source (a
thread in ``tests/data/family_logs``, or JAX 0.10.2's own error run in a child here)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hloscope.analysis.explain_error import explain_error
from hloscope.analysis.explain_error.log import Log
from hloscope.analysis.explain_error.mlir_location import source_in_locations
from hloscope.analysis.explain_error.user_line import message_stack, user_source

FAMILY_LOGS = Path(__file__).parent / "data" / "family_logs"
CORPUS = Path(__file__).parent / "data" / "error_logs"


def first(text: str):
    explanation = explain_error(text)
    assert explanation.recognised
    return explanation.failures[0]


def run_jax(program: Path, source: str) -> str:
    """What ``source``, written to ``program`` and run with JAX on the CPU, prints."""
    program.parent.mkdir(parents=True, exist_ok=True)
    program.write_text(textwrap.dedent(source))
    done = subprocess.run(
        [sys.executable, str(program)],
        capture_output=True,
        text=True,
        env={**os.environ, "JAX_PLATFORMS": "cpu"},
        timeout=300,
        check=False,
    )
    assert done.returncode != 0, done.stdout[-2000:]
    return done.stderr


# ---- the user's line --------------------------------------------------------------------------


def test_a_leaked_value_is_placed_where_it_was_made_in_a_notebook_cell(tmp_path):
    # JAX names the line that made a leaked tracer, in a cell of older IPython a file named
    # `<ipython-input-N-hash>`; the traceback's line is only where it was used later.
    spent = first((CORPUS / "fresh2_a_jax_25847_solve_compile_time_eval_leak.log").read_text())
    assert spent.finding.source == "<ipython-input-8-ba96c25111b3>:8"
    cell = """
        leaked = []
        def solve_fn(x):
            y = jnp.sin(x)  # made here
            leaked.append(y)
            return y
        jax.jit(solve_fn)(jnp.ones(3))
        jnp.cos(leaked[0])
    """
    text = run_jax(
        tmp_path / "notebook.py",
        f"""
        import jax, jax.numpy as jnp
        cell = {textwrap.dedent(cell)!r}
        exec(compile(cell, "<ipython-input-5-0a1b2c3d4e5f>", "exec"), {{"jax": jax, "jnp": jnp}})
        """,
    )
    made = textwrap.dedent(cell).splitlines().index("    y = jnp.sin(x)  # made here") + 1
    assert first(text).finding.source == f"<ipython-input-5-0a1b2c3d4e5f>:{made}"


def test_the_script_python_ran_is_the_users_even_in_a_folder_named_after_a_framework(tmp_path):
    # A repro at the root of a checkout of jax (`~/packages/jax/repro.py`): its folder is
    # named after a framework, but it is the script Python ran (its outermost `<module>`).
    script = tmp_path / "packages" / "jax" / "repro.py"
    text = run_jax(
        script,
        """
        import jax
        import jax.numpy as jnp

        def f(x):
            return jnp.zeros(int(x))  # fails here

        jax.jit(f)(3.0)
        """,
    )
    line = script.read_text().splitlines().index("    return jnp.zeros(int(x))  # fails here")
    assert first(text).finding.source == f"{script}:{line + 1}"
    spent = (CORPUS / "fresh2_a_jax_28757_custom_vjp_bwd_shape.log").read_text()
    log = Log(spent)
    stack = message_stack(log, spent.index("ValueError"))
    assert user_source(stack) == "/usr/local/google/home/mattjj/packages/jax/rahul11.py:16"


@pytest.mark.parametrize(
    "stack",
    [
        # A framework's own module-level code, imported by a frame the paste left out.
        [("/home/u/src/jax/jax/__init__.py", "<module>")],
        # An installed library's, and Python's runpy running a module.
        [("/venv/lib/python3.11/site-packages/lib/cli.py", "<module>")],
        [("/usr/lib/python3.11/runpy.py", "<module>")],
    ],
)
def test_module_level_code_of_a_package_or_python_is_no_script_of_the_users(stack):
    from hloscope.hlo.metadata import StackFrame

    assert user_source([StackFrame(file, 3, fn) for file, fn in stack]) is None


@pytest.mark.parametrize(
    ("path", "line"),
    [
        # A verifier's error under `at loc(...)` (jax#25419), and MLIR's own diagnostic,
        # `error: "jit(f)/..."(callsite(...`, without `loc` (jax#28095).
        (FAMILY_LOGS / "jax_25419_verifier_add_ipython.log", "<ipython-input-2-fff9f9eef5ff>:1"),
        (FAMILY_LOGS / "jax_28095_debug_callback_key_layout.log", "/home/neil/src/tjax/a.py:14"),
    ],
)
def test_the_line_of_an_mlir_location_is_its_innermost_call_site_of_the_users(path, line):
    assert source_in_locations(path.read_text()) == line


def test_a_message_with_no_traceback_takes_its_line_from_the_ops_mlir_location():
    spent = CORPUS / "fresh3_a_jax_30619_shardy_pure_callback_verifier.log"
    # Its call sites: the cell's function, then the cell that called it, then IPython's.
    assert first(spent.read_text()).finding.source == "<ipython-input-3-ee5dbf344464>:16"


# ---- the op -----------------------------------------------------------------------------------

_EXPLICIT_MESH = """
import jax, jax.numpy as jnp
from jax.sharding import PartitionSpec as P, AxisType
mesh = jax.make_mesh((4,), ("X",), axis_types=(AxisType.{axes},))
jax.set_mesh(mesh)
"""


def run_on_mesh(tmp_path: Path, body: str, axes: str = "Explicit", **env: str) -> str:
    """JAX's error for ``body`` on a mesh of 4 CPU devices with axes of type ``axes``."""
    program = tmp_path / "mesh.py"
    program.write_text(_EXPLICIT_MESH.format(axes=axes) + textwrap.dedent(body))
    done = subprocess.run(
        [sys.executable, str(program)],
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "JAX_PLATFORMS": "cpu",
            "XLA_FLAGS": "--xla_force_host_platform_device_count=4",
            **env,
        },
        timeout=300,
        check=False,
    )
    assert done.returncode != 0, done.stdout[-2000:]
    return done.stderr


def test_a_primitive_without_a_sharding_rule_is_the_op(tmp_path):
    spent = first((CORPUS / "fresh2_a_jax_28538_repeat_scatter_add_rule.log").read_text())
    assert spent.finding.op == "scatter-add"
    # JAX 0.10.2's own refusal, for a primitive of this test's without a sharding rule.
    text = run_on_mesh(
        tmp_path,
        """
        from jax._src.lax import utils
        from jax._src.interpreters import mlir
        halve_p = utils.standard_primitive(lambda x: x.shape, lambda x: x.dtype, "halve")
        mlir.register_lowering(halve_p, mlir.lower_fun(lambda x: x / 2, multiple_results=False))
        jax.jit(halve_p.bind)(jax.device_put(jnp.arange(8.0), P("X")))
        """,
    )
    assert first(text).finding.op == "halve"


@pytest.mark.parametrize(
    ("call", "op"),
    [
        (
            "jax.lax.broadcast_in_dim(jnp.ones(8), (2, 8), (1,), out_sharding=P('X', None))",
            "broadcast_in_dim",
        ),
        ("jnp.zeros((8,), out_sharding=P('X'))", "zeros"),
    ],
)
def test_the_op_a_partition_spec_was_passed_to_is_the_op(tmp_path, call, op):
    text = run_on_mesh(tmp_path, f"jax.jit(lambda: {call})()", axes="Auto")
    assert first(text).finding.op == op
    spent = first((CORPUS / "fresh_jax_29839_pspec_broadcast.log").read_text())
    assert spent.finding.op == "broadcast_in_dim"


@pytest.mark.parametrize(
    ("call", "op"),
    [
        # The rule that raised, in a traceback JAX did not filter: the primitive it is of.
        (
            "a = jax.device_put(jnp.ones((8, 4)), P('X', None))\n"
            "b = jax.device_put(jnp.ones((4, 8)), P(None, None))\n"
            "jax.jit(lambda a, b: jnp.einsum('ij,jk->ik', a, b,"
            " out_sharding=P(None, None, unreduced={'X'})))(a, b)",
            "dot_general",
        ),
        (
            "x = jax.device_put(jnp.ones((8,), jnp.complex64), P('X'))\n"
            "jax.jit(lambda x: x.view(jnp.float32))(x)",
            "scatter",
        ),
        # The message's own words: "Input 0 to qr must be unsharded".
        ("jax.jit(jnp.linalg.qr)(jax.device_put(jnp.ones((8, 4)), P('X')))", "qr"),
    ],
)
def test_a_sharding_refusal_names_the_primitive_whose_rule_raised(tmp_path, call, op):
    text = run_on_mesh(tmp_path, call, JAX_TRACEBACK_FILTERING="off")
    assert first(text).finding.op == op


def test_a_pasted_traceback_names_the_rule_that_raised():
    spent = first((CORPUS / "fresh3_a_jax_31918_unreduced_contracting_dim.log").read_text())
    assert spent.finding.op == "dot_general"


@pytest.mark.parametrize(
    ("path", "op"),
    [
        # HLO's opcode printed after the instruction's shape (a spent fresh3 log), and the
        # name without XLA's unique suffix where the line was cut before it (a spent fresh).
        (CORPUS / "fresh3_a_xla_26995_tpu_x64_rewrite_c64.log", "all-reduce"),
        (CORPUS / "fresh_tpuinference_2458_scoped_vmem_flash.log", "flash_attention"),
        # Another thread's, its message wrapped before the instruction (tpu-inference#3407),
        # and a CHECK naming the instruction it is about (a spent fresh2 log).
        (CORPUS / "tpuinf_3407_scoped_vmem.log", "flash_attention"),
        (CORPUS / "fresh2_a_xla_47378_hoist_fused_bitcasts_check.log", "parameter"),
    ],
)
def test_the_hlo_instruction_a_message_prints_gives_the_op(path, op):
    assert first(path.read_text()).finding.op == op


# ---- known failures in other words ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "free"),
    [
        # On a logger's E line, its message cut after the size (a spent fresh log: marin#2387).
        (
            (CORPUS / "fresh_marin_2387_vllm_hbm_fragmentation.log").read_text(),
            None,
        ),
        # A project's notes quoting it cut before the period, and XLA:TPU's error E0100
        # wrapped over three lines (as public notes quote them).
        (
            "RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 12.00G\n",
            None,
        ),
        (
            "ValueError: RESOURCE_EXHAUSTED: E0100: RuntimeBufferAllocationFailure:\n"
            "Error allocating device buffer: Attempting to allocate 16.00M.\n"
            "That was not possible. There are 15.47M free.; (0x1x0_HBM0)\n",
            16221471,
        ),
    ],
)
def test_a_tpu_buffer_that_could_not_be_allocated_in_any_cut_of_its_words(text, free):
    failure = first(text)
    assert str(failure.family) == "device_allocation" and str(failure.platform) == "tpu"
    assert failure.allocation.requested_bytes and failure.allocation.free_bytes == free
    assert failure.advice_kind == "free_memory"


@pytest.mark.parametrize(
    ("text", "op", "reason"),
    [
        # A wrapper's lower-case "mosaic failed ..." with the op's MLIR line after it, without
        # "The MLIR operation involved:" (a spent fresh log: helion#3204).
        (
            (CORPUS / "fresh_helion_3204_mosaic_f16_load.log").read_text(),
            "tpu.load",
            "Invalid vector type for load",
        ),
        # Its usual form, the op after "The MLIR operation involved:" (jax#30104).
        (
            "XlaRuntimeError: INTERNAL: Mosaic failed to compile TPU kernel: Target does not "
            'support this comparison\n\nThe MLIR operation involved:\n  %13060 = "arith.cmpf"'
            "(%11789, %283) <{predicate = 1 : i64}> : (vector<8x128x2xbf16>, "
            "vector<8x128x2xbf16>) -> vector<8x128x2xi1>\n",
            "arith.cmpf",
            "Target does not support this comparison",
        ),
        # Under INVALID_ARGUMENT, its reason on the lines after the colon (a spent fresh log:
        # sgl-jax#1546), and on the same line (tpu-inference#2506).
        (
            (CORPUS / "fresh_sglangjax_1546_mla_block_tiling.log").read_text(),
            "tpu_custom_call",
            "CompileTimeMosaicMisalignedBlockAndTiling: Operand of shape (..., 16, 256)",
        ),
        (
            "INVALID_ARGUMENT: Mosaic failed to compile TPU kernel: Failed to verify layout for "
            "Mosaic kernel operand 9: XLA layout ({0:S(1)}) does not match Mosaic layout "
            "({0:T(128)S(1)}) for an operand of shape s32[0].\n",
            "tpu_custom_call",
            "Failed to verify layout for Mosaic kernel operand 9",
        ),
    ],
)
def test_mosaics_refusal_in_other_cuts_of_its_words_is_a_pallas_kernels(text, op, reason):
    failure = first(text)
    assert str(failure.family) == "pallas" and str(failure.platform) == "tpu"
    assert failure.finding.op == op
    assert any(reason in hint for hint in failure.hints)


@pytest.mark.parametrize(
    "text",
    [
        # A spent fresh log's (maxtext#1330), and JAX 0.10.2's own words (its
        # pallas/mosaic/lowering.py) with the version string it prints after them.
        (CORPUS / "fresh_maxtext_1330_pallas_libtpu_age.log").read_text(),
        "RuntimeError: Pallas TPU requires a libtpu version that's at most a month old. Found "
        "version string:\nPJRT C API\nTFRT TPU v5 lite\n",
    ],
)
def test_a_libtpu_older_than_pallas_allows_is_a_version_to_install(text):
    failure = first(text)
    assert str(failure.family) == "pallas" and failure.advice_kind == "install"


@pytest.mark.parametrize(
    ("text", "op", "first_fix"),
    [
        # jaxlib's words for cuSOLVER's status, no call named (a spent fresh log: ksim-gym#46).
        ((CORPUS / "fresh_ksimgym_46_cusolver_4090.log").read_text(), "cuSOLVER", "free_memory"),
        # XLA's and jaxlib's for ROCm's hipSOLVER (their ConvertStatus tables).
        ("INTERNAL: hipSolver allocation failed\n", "hipSolver", "free_memory"),
        # cuBLAS's own status string, under JAX (a spent fresh log: flax#5010) and
        # TransformerEngine's "cuBLAS Error:" (a public project's notes).
        (
            (CORPUS / "fresh_flax_5010_cublas_unsupported_value.log").read_text(),
            "cuBLAS/cuSOLVER/cuSPARSE",
            "install",
        ),
        (
            "cublaslt_gemm.cu:412 in function cublas_gemm:\ncuBLAS Error: an unsupported value "
            "or parameter was passed to the function\n",
            "cuBLAS/cuSOLVER/cuSPARSE",
            "install",
        ),
    ],
)
def test_a_gpu_math_librarys_status_in_words_without_its_call(text, op, first_fix):
    failure = first(text)
    assert str(failure.family) == "backend_startup" and str(failure.platform) == "gpu"
    assert failure.finding.op == op and failure.advice_kind == first_fix


@pytest.mark.parametrize(
    ("text", "call"),
    [
        # jaxlib's ROCm solver kernel (a spent fresh3 log: ROCm/jax#718), and a CUDA
        # allocation's own call (public notes: "cudaMallocAsync(...) failed: out of memory").
        (
            (CORPUS / "fresh3_b_rocmjax_718_hipsolver_potrf_oom.log").read_text(),
            "hipGetLastError",
        ),
        (
            "RuntimeError: cudaMallocAsync(&data, size, stream) failed: out of memory\n",
            "cudaMallocAsync",
        ),
    ],
)
def test_a_gpu_call_that_found_no_memory_is_memory_held_elsewhere(text, call):
    failure = first(text)
    assert str(failure.family) == "device_allocation" and str(failure.platform) == "gpu"
    assert failure.finding.op == call and failure.advice_kind == "free_memory"


def test_a_c_programs_call_out_of_memory_is_no_gpus():
    assert not explain_error("init_list() failed: out of memory\n").recognised


_CUSTOM_RULES = {
    "vjp": """
        import jax, jax.numpy as jnp

        @jax.custom_vjp
        def f(x):
            return jnp.sin(x)

        f.defvjp(lambda x: (f(x), x), lambda x, g: (jnp.ones(10),))
        jax.grad(f)(3.14)  # fails here
        """,
    "jvp": """
        import jax, jax.numpy as jnp

        @jax.custom_jvp
        def f(x):
            return jnp.sin(x)

        f.defjvp(lambda primals, tangents: (f(primals[0]), jnp.ones(10)))
        jax.jvp(f, (3.14,), (1.0,))  # fails here
        """,
}


@pytest.mark.parametrize("rule", ["vjp", "jvp"])
def test_a_custom_rules_outputs_that_do_not_fit_are_its_shapes(tmp_path, rule):
    # JAX 0.10.2's words ("... of type float32[10] ..., so the shapes do not match").
    script = tmp_path / "rule.py"
    text = run_jax(script, _CUSTOM_RULES[rule])
    failure = first(text)
    assert str(failure.family) == "jax_shape" and failure.finding.op == f"custom_{rule}"
    assert failure.advice_kind == "fix_shapes"
    line = [i for i, t in enumerate(script.read_text().splitlines(), 1) if "# fails here" in t]
    assert failure.finding.source == f"{script}:{line[0]}"


def test_a_custom_vjp_rule_in_an_older_releases_words():
    # jax#28757's "Before" ("the same shape/dtypes as the args tuple"), its script at the
    # root of a checkout of jax.
    failure = first((CORPUS / "fresh2_a_jax_28757_custom_vjp_bwd_shape.log").read_text())
    assert (str(failure.family), failure.finding.op) == ("jax_shape", "custom_vjp")
    assert failure.finding.source == "/usr/local/google/home/mattjj/packages/jax/rahul11.py:16"


@pytest.mark.parametrize(
    ("text", "node"),
    [
        # XLA:GPU's verifier on an op it made (a spent fresh log: jax#39157), JAX's verifier
        # under "Cannot lower jaxpr" (jax#25419) and MLIR's "Verification failed:" with the
        # location before the op (jax#28095): the primitive the location names, else the op.
        ((CORPUS / "fresh_jax_39157_scf_if_verifier.log").read_text(), "scf.if"),
        ((FAMILY_LOGS / "jax_25419_verifier_add_ipython.log").read_text(), "add"),
        ((FAMILY_LOGS / "jax_28095_debug_callback_key_layout.log").read_text(), "debug_callback"),
    ],
)
def test_a_module_the_compilers_own_verifier_refused_is_a_bug_to_report(text, node):
    failure = first(text)
    assert str(failure.family) == "xla_crash" and failure.advice_kind == "report_bug"
    assert failure.finding.node == node


def test_a_verifier_refusal_another_family_reads_is_that_familys():
    # The verifier counted a custom call's shardings: the sharding family's reading stands
    # (a spent fresh3 log: jax#30619).
    text = (CORPUS / "fresh3_a_jax_30619_shardy_pure_callback_verifier.log").read_text()
    assert [str(f.family) for f in explain_error(text).failures] == ["sharding"]


def test_a_quoted_op_in_prose_is_no_verifiers_refusal():
    assert not explain_error("The 'scf.if' op takes a region for each branch.\n").recognised


def test_a_reused_keys_op_is_the_function_it_was_passed_to(tmp_path):
    spent = first((CORPUS / "fresh2_a_jax_25953_key_reuse_device_put.log").read_text())
    assert spent.finding.op == "random_split"
    text = run_jax(
        tmp_path / "keys.py",
        """
        import jax
        jax.config.update("jax_debug_key_reuse", True)
        key = jax.random.key(0)
        jax.random.normal(key, (2,))
        jax.random.uniform(key, (2,))
        """,
    )
    # JAX 0.10.2 names no function ("Previously-consumed key passed to jit-compiled
    # function at index 0"): the op is jax.random's function the program called with the
    # key (the frame under its line), not a word of that phrase.
    assert "Previously-consumed key passed to jit-compiled" in text
    assert first(text).finding.op == "uniform"


@pytest.mark.parametrize(
    "path",
    [
        # The op after "The MLIR operation involved:" printed without a result (`"func.func"()
        # <{...}>`): a spent fresh2 log (jax#34936) and an older thread (jax#32639).
        CORPUS / "fresh2_a_jax_34936_mosaic_export_legalize.log",
        CORPUS / "jax_32639_mosaic_sparsecore.log",
    ],
)
def test_mosaics_op_printed_without_a_result_is_the_op(path):
    assert first(path.read_text()).finding.op == "func.func"
