"""explain-error round 12 (issue 35), the fields: the device, the op and the user's line the
spent blind parts (``tests/data/error_logs/fresh*``, first-37) missed where their family was
right, each rule tested on two wordings: one from a spent part, one from elsewhere (JAX 0.10.2's
own error made in a child process, an older public thread, XLA's own source)."""

from __future__ import annotations

from hloscope.analysis.explain_error.mlir_location import source_in_locations
from tests.explain_error_reading import first, spent
from tests.test_explain_error_fields import run_jax

# ---- the user's line: the op's own location in the message -------------------------------------

# A primitive whose lowering makes an op MLIR's verifier refuses (an f32 add of an i32), with
# one frame kept in each location: JAX then prints a name location around one file location,
# `"jit(f)/bad_add"("f"("/x.py":13:11 to :20))`, with no `loc(` before it in MLIR's own error.
_BAD_LOWERING = """
    import os
    os.environ["JAX_TRACEBACK_IN_LOCATIONS_LIMIT"] = "1"
    import jax, jax.numpy as jnp
    from jax.extend.core import Primitive
    from jax.interpreters import mlir
    from jax._src.lib.mlir.dialects import hlo
    p = Primitive("bad_add")
    p.def_abstract_eval(lambda x: x)
    def low(ctx, x):
        y = mlir.ir_constant(jnp.ones(3, jnp.int32))
        return [hlo.AddOp(x, y, results=[x.type]).result]
    mlir.register_lowering(p, low)
    def f(x):
        return p.bind(x)  # line 15: the op is made here
    jax.jit(f).lower(jnp.ones(3))  # line 16: the call that lowers it
"""


def test_an_mlir_diagnostics_file_location_is_the_ops_line(tmp_path):
    # Mosaic's pass pipeline (jax#18370, spent): the op's location is a name around one file
    # location, `error: "/transpose[...]"("/root/test_tpu.py":16:0): ...`; the traceback's
    # user frame (line 54) only called the kernel.
    failure = spent("fresh7_a_jax_18370_pallas_tpu_padded_transpose")
    assert failure.finding.source == "/root/test_tpu.py:16"
    assert failure.finding.op == "transpose"
    # JAX 0.10.2's own MLIR verifier error, made in a child process: its MLIRError line gives
    # the op's location in the same form (a name around a name around a file location).
    program = tmp_path / "bad_lowering.py"
    log = run_jax(program, _BAD_LOWERING)
    mlir_error = next(line for line in log.splitlines() if line.startswith("error: "))
    assert "loc(" not in mlir_error and "callsite(" not in mlir_error, mlir_error
    assert source_in_locations(mlir_error) == f"{program}:15"
    # The whole log: the made line, not the call at line 16.
    assert first(log).finding.source == f"{program}:15"


def test_a_location_in_an_installed_library_is_not_the_users_line():
    # The location's one file is a library's: the traceback's user frame stays the line.
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/train.py", line 9, in <module>\n'
        "    step(x)\n"
        "jaxlib.mlir._mlir_libs._site_initialize.<locals>.MLIRError: Failure while executing"
        " pass pipeline:\n"
        'error: "/transpose[permutation=(1, 0)]"("/usr/lib/python3/site-packages/lib/k.py":16:0)'
        ": 'vector.transpose' op Padded transposes unsupported\n"
    )
    assert first(text).finding.source == "/home/u/train.py:9"
