"""explain-error on a failure read by its structure alone (issue 35): the fix its message's own
words point to, not its family's usual one; the family a plain argument check's message
says where no module row does; the JAX call the program made as its op; and such a failure
read after a host's start-up notes, which are not why the program stopped.

The JAX errors are real: a program of cases run in a child under the installed JAX on the CPU
(:mod:`raised_errors`), and the made batches' logs (``tests/data/made_errors_*``), of JAX
0.10.2 on the CPU and on a TPU v5e.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from raised_errors import cases_of, failing_run, marked_line

from hloscope.analysis.explain_error import Family, explain_error
from hloscope.analysis.explain_error.advice import AdviceKind
from hloscope.analysis.explain_error.device import platform_in_log
from hloscope.analysis.explain_error.message_fixes import (
    names_releases,
    pointed_fixes,
    structural_fixes,
)

DATA = Path(__file__).parent / "data"


def kinds(failure) -> list[str]:
    return [failure.advice_kind, *(kind for kind, _ in failure.more_advice)]


# ---- the words of a message, each fix on two wordings ------------------------------------------


@pytest.mark.parametrize(
    ("message", "fix"),
    [
        # Two element types side by side: jax.export's call, a Pallas alias's abstract values.
        (
            "ValueError: Dtype mismatch for args[0]: expected float32 and called with bfloat16",
            "cast_dtype",
        ),
        (
            "ValueError: input_output_aliases contains the mapping '0:0' referring to input[0] "
            "with abstract value int32[4,8] and to output with a different abstract value "
            "float32[4,8].",
            "cast_dtype",
        ),
        # Extents that must be equal, in jnp.interp's and lax.sort's words (made20).
        ("ValueError: xp and fp must be one-dimensional arrays of equal size", "fix_shapes"),
        ("TypeError: Arguments to sort must have equal shapes, got: (100,) (128,)", "fix_shapes"),
        # An array of a rank the op does not take; a shape it says should be another (made21).
        ("ValueError: convolve() only support 1-dimensional inputs.", "fix_shapes"),
        ("ValueError: value shape should be [2, 64, 4, 64]: but got (2, 64, 4, 32)", "fix_shapes"),
        # A type an op does not take: Pallas's reductions (made19, on the v5e), XLA:TPU's f64.
        ("NotImplementedError: Reductions over int8 not implemented.", "cast_dtype"),
        ("INVALID_ARGUMENT: float64 is not supported on TPU", "cast_dtype"),
        # A dtype the call does not accept.
        ("TypeError: randint only accepts integer dtypes, got float32", "cast_dtype"),
        (
            "ValueError: dtype argument to `normal` must be a float or complex dtype, got int32",
            "cast_dtype",
        ),
        # Extents that do not match: lengths, a shape, a block_shape, a number of outputs.
        (
            "* `in_specs` is a tuple of length 1 but `inputs` is a tuple of length 2, so the "
            "lengths do not match",
            "fix_shapes",
        ),
        (
            "ValueError: jnp.pad: pad_width with nd=4 has unsupported shape (2, 2). Valid "
            "shapes are (4, 2), (1, 2), (2,), (1,), or ().",
            "fix_shapes",
        ),
        (
            "ValueError: Index map function <lambda> at k.py:14 for args[0] must return 3 "
            "values to match block_shape=(Squeezed(), Blocked(block_size=128)).",
            "fix_shapes",
        ),
        (
            "RuntimeError: Mismatched number of outputs from callback. Expected: 1, Actual: 2",
            "fix_shapes",
        ),
        (
            "ValueError: Requested shape: (2352, 64) is not compatible with the stored shape: "
            "(784, 64).",
            "fix_shapes",
        ),
        # A typed key where an array is needed, in jax's and in Flax's words.
        (
            "TypeError: JAX array with PRNGKey dtype cannot be converted to a NumPy array.",
            "prng_key",
        ),
        ("TypeError: unexpected PRNG key type <class 'int'>", "prng_key"),
        # A buffer donated and used again, in PJRT's two wordings.
        (
            "INVALID_ARGUMENT: Attempt to donate the same buffer twice in Execute()",
            "reused_donation",
        ),
        (
            "RuntimeError: Invalid buffer passed: buffer has been deleted or donated.",
            "reused_donation",
        ),
        # An axis the mesh lacks; arrays on different devices.
        ("NameError: unbound axis name: batch", "mesh_axis"),
        ("ValueError: axis name 'model' not found in mesh", "mesh_axis"),
        ("ValueError: Received incompatible devices for jitted computation.", "same_devices"),
        ("ValueError: arrays committed to different devices: cpu:0 and cpu:1", "same_devices"),
    ],
)
def test_a_message_points_to_its_fix(message, fix):
    assert pointed_fixes(message)[0] == fix


@pytest.mark.parametrize(
    "message",
    [
        "ValueError: The shape of the input is fine",  # a shape, nothing wrong with it
        "ValueError: frobnicator quux refused 3 widgets",
        "TypeError: data type 'no_such_dtype' not understood",  # one type, no comparison
    ],
)
def test_a_message_that_points_to_no_fix_points_to_none(message):
    assert pointed_fixes(message) == []


@pytest.mark.parametrize(
    "message",
    [
        "ImportError: jaxlib version 0.4.20 is too old for jax 0.4.30; upgrade jaxlib",
        "RuntimeError: this libtpu was built for another jax release: jax 0.4.35 requires "
        "libtpu 0.0.5",
        "AttributeError: module 'jax' has no attribute 'tree_map'",
    ],
)
def test_only_a_message_that_names_releases_puts_install_first(message):
    assert names_releases(message)
    assert structural_fixes(message, [AdviceKind.OTHER, AdviceKind.INSTALL])[0] == "install"


def test_the_familys_install_goes_last_where_the_message_names_no_release():
    usual = [AdviceKind.INSTALL, AdviceKind.OTHER]
    assert structural_fixes("ValueError: No VJP is available", usual) == ["other", "install"]
    # What the message points to first, then the family's others; install not at all, as
    # the message says what to change.
    dtype = "ValueError: Dtype mismatch for args[0]: expected float32 and called with bfloat16"
    assert structural_fixes(dtype, usual) == ["cast_dtype", "other"]
    # Where the message points to nothing, it is read first and installing comes second,
    # before the family's other usual fixes (a reused donation is no answer to "quux").
    jax_call = [AdviceKind.INSTALL, AdviceKind.REUSED_DONATION]
    assert structural_fixes("ValueError: quux", jax_call) == ["other", "install", "reused_donation"]
    assert structural_fixes("ValueError: quux", [AdviceKind.INSTALL]) == ["other", "install"]
    # A family without install: still the message first, then the family's usual fix.
    sharding = [AdviceKind.SAME_DEVICES, AdviceKind.OTHER]
    assert structural_fixes("ValueError: quux", sharding) == ["other", "same_devices"]


# ---- JAX 0.10.2's own refusals, raised in a child ----------------------------------------------

_CASES = """
import sys, traceback
import jax, jax.numpy as jnp
from jax import export
from jax.experimental import pallas as pl


def normal_int():
    jax.random.normal(jax.random.key(0), (2,), dtype=jnp.int32)  # fails here: normal_int


def randint_float():
    key = jax.random.key(0)
    jax.random.randint(key, (2,), 0, 4, dtype=jnp.float32)  # fails here: randint_float


def pad_rank():
    jnp.pad(jnp.ones((2, 3, 4, 5)), ((1, 1), (1, 1)))  # fails here: pad_rank


def export_dtype():
    exported = export.export(jax.jit(lambda x: x * 2))(jax.ShapeDtypeStruct((3,), jnp.float32))
    exported.call(jnp.ones(3, jnp.bfloat16))  # fails here: export_dtype


def _add(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


def pallas_specs():
    x = jnp.ones((8, 128))
    spec = pl.BlockSpec((8, 128), lambda: (0, 0))
    out = jax.ShapeDtypeStruct(x.shape, x.dtype)
    call = pl.pallas_call(_add, out_shape=out, in_specs=[spec], interpret=True)
    call(x, x)  # fails here: pallas_specs
"""


@pytest.fixture(scope="module")
def raised(tmp_path_factory):
    pytest.importorskip("jax")
    return cases_of(tmp_path_factory.mktemp("message_fixes") / "cases.py", _CASES)


@pytest.mark.parametrize(
    ("case", "family", "op", "fix"),
    [
        # Raised in jax.random's and jax.numpy's own checks, modules no row of raised_in
        # holds: the family the message's fix says, the op the program called.
        ("normal_int", Family.JAX_CALL, "normal", "cast_dtype"),
        ("randint_float", Family.JAX_CALL, "randint", "cast_dtype"),
        ("pad_rank", Family.JAX_SHAPE, "pad", "fix_shapes"),
        # Raised in modules raised_in holds (the family's usual fix was install): the message's
        # own fix first.
        ("export_dtype", Family.JAX_EXPORT, None, "cast_dtype"),
        ("pallas_specs", Family.PALLAS, None, "fix_shapes"),
    ],
)
def test_jaxs_own_refusals_read_by_their_structure(raised, case, family, op, fix):
    program, texts = raised
    failures = explain_error(texts[case]).failures
    assert failures, texts[case][-600:]
    failure = failures[0]
    assert failure.family is family and failure.last_resort
    assert kinds(failure)[0] == fix and "install" not in kinds(failure)[:2]
    assert op is None or failure.finding.op == op
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"


@pytest.mark.parametrize(
    ("batch", "name", "family", "op", "fix"),
    [
        ("made_errors_blind17", "call_randint_float_offsets", "jax_call", "randint", "cast_dtype"),
        ("made_errors_blind17", "shape_pad_width_batch_images", "jax_shape", "pad", "fix_shapes"),
        ("made_errors_blind17", "shape_solve_batch_first_rhs", "jax_shape", "solve", "fix_shapes"),
        ("made_errors_blind17", "export_call_bfloat16_inputs", "jax_export", None, "cast_dtype"),
        ("made_errors_blind17", "pallas_in_specs_one_short", "pallas", None, "fix_shapes"),
        ("made_errors_blind17", "pallas_alias_int_to_float", "pallas", None, "cast_dtype"),
    ],
)
def test_the_made_batches_refusals_read_by_their_structure(batch, name, family, op, fix):
    failure = explain_error((DATA / batch / f"{name}.log").read_text()).failures[0]
    assert failure.family == family and kinds(failure)[0] == fix
    assert op is None or failure.finding.op == op


# ---- after a host's start-up notes --------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "fix"),
    [
        ("b17_pallas_squeezed_dim_missing_index", "fix_shapes"),  # "must return 3 values"
        # "must return integer scalars. Output[0] has type float32[]": an integer asked for,
        # a float given (since made29's reading; "other" before, "fix_shapes" its maker's).
        ("b17_pallas_index_map_true_division", "cast_dtype"),
    ],
)
def test_a_tpu_hosts_start_up_note_does_not_hide_the_kernels_refusal(name, fix):
    # libtpu's note on transparent hugepages prints above every program's output on the v5e;
    # the Pallas refusal after it, read by the module that raised it, is why the run stopped.
    text = (DATA / "made_errors_tpu_blind17" / f"{name}.log").read_text()
    failures = explain_error(text).failures
    assert "transparent hugepages" in text.lower()
    assert failures[0].family is Family.PALLAS and kinds(failures[0])[0] == fix
    assert [f.advice_kind for f in failures[1:]] == ["harmless"]


def test_a_donation_warning_does_not_hide_a_refusal_read_by_its_structure(tmp_path):
    script = tmp_path / "prog.py"
    script.write_text(
        "import jax, jax.numpy as jnp\n"
        "step = jax.jit(lambda x: x.sum(), donate_argnums=0)\n"
        "step(jnp.ones((8, 8)))\n"
        "jnp.pad(jnp.ones((2, 3, 4)), ((1, 1), (1, 1)))\n"
    )
    pytest.importorskip("jax")
    stderr = failing_run(script)
    assert "donated buffers were not usable" in stderr
    failures = explain_error(stderr).failures
    assert failures[0].family is Family.JAX_SHAPE and failures[0].finding.op == "pad"
    assert failures[0].finding.source == f"{script}:4"
    assert failures[-1].finding.warning


# ---- the platform a Pallas module in the frames is for ------------------------------------------


@pytest.mark.parametrize(
    ("frame", "platform"),
    [
        # Pallas's TPU kernels and its Mosaic lowering, in two releases' layouts.
        ("jax/experimental/pallas/ops/tpu/flash_attention.py", "tpu"),
        ("jax/_src/pallas/mosaic/lowering.py", "tpu"),
        # Its GPU kernels and Mosaic GPU.
        ("jax/experimental/pallas/ops/gpu/attention.py", "gpu"),
        ("jax/_src/pallas/mosaic_gpu/lowering.py", "gpu"),
    ],
)
def test_a_pallas_module_of_one_platform_in_the_frames_is_that_platform(frame, platform):
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/run.py", line 9, in <module>\n'
        "    out = attention(q, k, v)\n"
        f'  File "/usr/lib/python3/site-packages/{frame}", line 40, in attention\n'
        "    raise ValueError(msg)\n"
        "ValueError: block_q=100 must divide the sequence length 1000\n"
    )
    assert str(platform_in_log(text)) == platform
    assert platform_in_log(text.replace(frame, "jax/_src/pallas/core.py")) is None


# ---- a tracing error that failed as it was built ------------------------------------------------


def test_a_tracing_error_failing_as_it_is_built_is_still_a_tracing_error(tmp_path):
    # Keras 3 on JAX (made17): a symbolic tensor converted to bool; jax.errors'
    # TracerBoolConversionError formats its tracer and the Keras tensor has no _error_repr.
    keras = (DATA / "made_errors_blind17" / "tracing_keras_layer_norm_if.log").read_text()
    # The same class built with a value that is no tracer, raised by JAX 0.10.2 itself.
    script = tmp_path / "prog.py"
    script.write_text(
        "import jax\n"
        "def check(value):\n"
        "    raise jax.errors.TracerBoolConversionError(value)\n"
        "check('not a tracer')\n"
    )
    pytest.importorskip("jax")
    own = failing_run(script)
    assert "_error_repr" in own and "jax/_src/errors.py" in own
    for text in (keras, own):
        failure = explain_error(text).failures[0]
        assert failure.family is Family.JAX_TRACING and failure.last_resort


# ---- JAX removed its own frames: the call on the user's line ------------------------------------

_FILTERED = """
import sys, traceback
import jax, jax.numpy as jnp


def conv_rank():
    def conv(x, k):
        return jax.lax.conv_general_dilated(x, k, (1,), "SAME")  # fails here: conv_rank

    jax.jit(conv)(jnp.ones((4, 16)), jnp.ones((3, 1, 4)))


def matmul_heads():
    jnp.ones((4, 10, 8)) @ jnp.ones((3, 8, 16))  # fails here: matmul_heads


def einsum_subscripts():
    jnp.einsum("qd,kd->qk", jnp.ones((2, 3, 4)), jnp.ones((3, 4)))  # fails here: einsum_subscripts


def gather_unbound():
    jax.jit(lambda x: jax.lax.all_gather(x, "batch"))(jnp.ones(3))  # fails here: gather_unbound


def fori_missing():
    jax.lax.fori_loop(0, 10, lambda i, c: c)  # fails here: fori_missing


def cond_missing():
    jax.lax.cond(True, lambda: 1)  # fails here: cond_missing


def correlate_rank():
    jnp.correlate(jnp.ones((2, 3)), jnp.ones(3))  # fails here: correlate_rank


def jit_generator():
    def gen(x):
        yield x

    jax.jit(gen)(1.0)  # fails here: jit_generator


def own_raise_under_jit():
    def f(x):
        raise ValueError(f"shapes do not match: {x.shape}")  # fails here: own_raise_under_jit

    jax.jit(f)(jnp.ones(2))
"""


@pytest.fixture(scope="module")
def filtered(tmp_path_factory):
    pytest.importorskip("jax")
    return cases_of(tmp_path_factory.mktemp("filtered") / "cases.py", _FILTERED)


@pytest.mark.parametrize(
    ("case", "family", "op"),
    [
        # The traceback ends at the user's line; the call on it is where JAX raised.
        ("conv_rank", Family.JAX_SHAPE, "conv_general_dilated"),
        # Two arrays of other extents quoted ("Incompatible types for matmul arguments"),
        # entered by the @ operator's methods.
        ("matmul_heads", Family.JAX_SHAPE, "matmul"),
        # Raised in opt_einsum, jnp.einsum's own dependency: "the correct number of indices".
        ("einsum_subscripts", Family.JAX_SHAPE, "einsum"),
        # A collective's unbound axis: the collective the line calls.
        ("gather_unbound", Family.SHARDING, "all_gather"),
        # An array of a rank the op does not take ("only support 1-dimensional inputs").
        ("correlate_rank", Family.JAX_SHAPE, "correlate"),
    ],
)
def test_a_refusal_under_the_users_call_names_that_call(filtered, case, family, op):
    program, texts = filtered
    failure = explain_error(texts[case]).failures[0]
    assert failure.family is family and failure.finding.op == op
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"
    assert op == "all_gather" or kinds(failure)[0] == "fix_shapes"


def test_a_call_given_arguments_it_does_not_take_is_the_calls(filtered):
    # "fori_loop() missing 1 required positional argument", raised in JAX's API under a
    # filtered traceback: no fix named, but the words of a call's arguments.
    program, texts = filtered
    # (A transformation the line calls is no op: a generator given to jit names none.)
    cases = (
        ("fori_missing", "fori_loop"),
        ("cond_missing", "cond"),
        ("jit_generator", "TypeError"),
    )
    for case, op in cases:
        failure = explain_error(texts[case]).failures[0]
        assert failure.family is Family.JAX_CALL and failure.finding.op == op
        assert kinds(failure)[0] == "other"
        assert failure.finding.source == f"{program}:{marked_line(program, case)}"


def test_the_programs_own_raise_under_jit_is_no_call_of_jaxs(filtered):
    # JAX filtered the traceback too, but the line is the program's raise: no family.
    program, texts = filtered
    text = texts["own_raise_under_jit"]
    assert "JAX has removed its internal frames" in text
    assert explain_error(text).failures == []


@pytest.mark.parametrize(
    ("batch", "name", "family", "op"),
    [
        (
            "made_errors_blind18",
            "shape_conv1d_audio_no_channel",
            "jax_shape",
            "conv_general_dilated",
        ),
        ("made_errors_blind18", "shape_per_head_weights_batched_matmul", "jax_shape", "matmul"),
        ("made_errors_blind18", "shape_einsum_missing_batch_subscript", "jax_shape", "einsum"),
        # A collective's refusal is a sharding's, whatever fix its words point to.
        ("made_errors_blind18", "sharding_psum_scatter_grads_uneven", "sharding", "psum_scatter"),
        (
            "made_errors_tpu_blind18",
            "b18_shard_map_all_gather_wrong_axis",
            "sharding",
            "all_gather",
        ),
        # A collective's refusal in words of no fix ("sources and destinations must be unique").
        (
            "made_errors_blind21",
            "sharding_halo_exchange_duplicate_destination",
            "sharding",
            "ppermute",
        ),
        ("made_errors_blind21", "shape_convolve_batch_of_signals", "jax_shape", "convolve"),
        # A transformation as a decorator given a generator ("Expected a function, got a
        # generator function").
        ("made_errors_blind21", "call_jit_generator_augmentations", "jax_call", "TypeError"),
    ],
)
def test_the_made_batches_calls_under_filtered_tracebacks(batch, name, family, op):
    failure = explain_error((DATA / batch / f"{name}.log").read_text()).failures[0]
    assert (str(failure.family), failure.finding.op) == (family, op)


# ---- after a recogniser's general fix, the one its message points to -----------------------------


@pytest.mark.parametrize(
    ("path", "fix", "general"),
    [
        # A grid's dimension semantics one short of the grid's rank (v5e, made17).
        (
            DATA / "made_errors_tpu_blind17" / "b17_pallas_dimension_semantics_one_for_2d_grid.log",
            "fix_shapes",
            "replace_op",
        ),
        # An array as a dict's key: "unhashable type".
        (
            DATA / "error_logs" / "dev17b_scone_3_devicearray_dict_key.log",
            "hashable_static",
            "other",
        ),
    ],
)
def test_the_fix_a_message_points_to_comes_right_after_a_recognisers_general_one(
    path, fix, general
):
    failure = explain_error(path.read_text()).failures[0]
    # The recogniser's own words first (written for its family), then the message's fix.
    assert kinds(failure)[:2] == [general, fix]


@pytest.mark.parametrize(
    ("path", "op"),
    [
        # Mosaic's verifier: "'tpu.enqueue_dma' op DMA source and target shape mismatch"
        # (its maker's truth: the shapes).
        (DATA / "made_errors_tpu_blind18" / "b18_pallas_dma_into_smaller_buffer.log", "dma_start"),
        # Mosaic's matmul: "lhs must have a shape divisible by (16, 1), but got: (8, ...)".
        (DATA / "error_logs" / "jax_24486_mosaic_matmul_divisible.log", "dot_general"),
    ],
)
def test_a_mosaic_reason_no_rule_knows_that_points_to_shapes_is_the_shapes_first(path, op):
    # (Before made28's reading, Mosaic's general words came first and the shapes second.)
    failure = explain_error(path.read_text()).failures[0]
    assert (failure.finding.op, failure.advice_kind) == (op, "fix_shapes")
    assert failure.finding.suggestion.startswith(f"Mosaic refused the kernel's {op} for its shapes")


def test_a_compilers_failed_check_stays_a_bug_to_report_whatever_shapes_it_names():
    text = (DATA / "error_logs" / "fresh4_a_jax_29088_multigpu_hlo_verifier_dot.log").read_text()
    assert kinds(explain_error(text).failures[0])[0] == "report_bug"


# ---- counts that do not match: an array's extents, or a call's structure -------------------------


def test_counts_that_do_not_match_are_a_shape_only_where_they_are_an_arrays(tmp_path):
    # optax's chain given its state where its updates belong (made19): counts of a call's
    # arguments, no array's extent.
    optax_log = (DATA / "made_errors_blind19" / "call_optax_update_args_swapped.log").read_text()
    assert "number of updates and states has to be the same" in optax_log
    optax = explain_error(optax_log).failures[0]
    assert optax.family is Family.JAX_CALL and optax.last_resort
    # jax.nn's attention given 6 query heads for 4 key heads: counts of an array's heads.
    script = tmp_path / "prog.py"
    script.write_text(
        "import jax, jax.numpy as jnp\n"
        "q, k = jnp.ones((2, 8, 6, 16)), jnp.ones((2, 8, 4, 16))\n"
        "jax.nn.dot_product_attention(q, k, k)\n"
    )
    pytest.importorskip("jax")
    heads = explain_error(failing_run(script)).failures[0]
    assert heads.family is Family.JAX_SHAPE and heads.finding.op == "dot_product_attention"
    assert kinds(heads)[0] == "fix_shapes" and heads.finding.source == f"{script}:3"


def test_a_builtin_refusing_a_symbolic_dimension_is_the_exports(tmp_path):
    # float() of a shape-polymorphic export's dimension: Python's own TypeError, naming JAX's
    # symbolic type ('_DimExpr'); made20's mean pool, and a program of mine.
    made = (DATA / "made_errors_blind20" / "export_mean_pool_float_of_symbolic.log").read_text()
    script = tmp_path / "prog.py"
    script.write_text(
        "import jax, jax.numpy as jnp\n"
        "from jax import export\n"
        "def scale(x):\n"
        "    return x * float(x.shape[0])\n"
        "spec = jax.ShapeDtypeStruct(export.symbolic_shape('b'), jnp.float32)\n"
        "export.export(jax.jit(scale))(spec)\n"
    )
    pytest.importorskip("jax")
    own = failing_run(script)
    assert "'_DimExpr'" in own
    for text, line in ((made, "export_mean_pool_float_of_symbolic.py:7"), (own, f"{script}:4")):
        failure = explain_error(text).failures[0]
        assert failure.family is Family.JAX_EXPORT and failure.finding.source.endswith(line)


def test_jaxs_notice_counts_only_beside_the_exception_it_filtered():
    # The user's innermost line calls jnp.pad and JAX's notice follows the exception: JAX
    # raised inside that call. The same notice 20 KB away, after another traceback, says
    # nothing of this one.
    notice = (
        "--------------------\nFor simplicity, JAX has removed its internal frames from the "
        "traceback of the following exception. Set JAX_TRACEBACK_FILTERING=off to include "
        "these.\n"
    )
    traceback = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/prep.py", line 7, in <module>\n'
        "    padded = jnp.pad(images, ((1, 1), (1, 1)))\n"
        "ValueError: jnp.pad: pad_width with nd=4 has unsupported shape (2, 2). Valid shapes "
        "are (4, 2), (1, 2), (2,), (1,), or ().\n"
    )
    beside = explain_error(traceback + notice).failures
    assert beside and beside[0].family is Family.JAX_SHAPE and beside[0].finding.op == "pad"
    far = notice + "I0000 step 1 loss 0.5\n" * 1000 + traceback
    assert explain_error(far).failures == []
