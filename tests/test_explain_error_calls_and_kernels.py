"""explain-error on what the program called (issue 35): a Pallas kernel's failure at the line
that called the kernel, its body's line beside it; the callback whose results JAX refused;
counts a call was given against those it takes, whose fix is the call; TensorFlow's XLA on
the CPU and its sizes drawn at random.

The errors are real: programs of cases run in a child under the installed JAX on the CPU
(:mod:`raised_errors`), the made batches' logs (``tests/data/made_errors_*``: JAX 0.10.2 and
TensorFlow 2.21 on the CPU and on a TPU v5e, each case's line marked by its maker), and logs
users pasted (``tests/data/error_logs``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from raised_errors import cases_of, failing_run, marked_line

from hloscope.analysis.explain_error import Family, explain_error
from hloscope.analysis.explain_error.advice import AdviceKind
from hloscope.analysis.explain_error.message_fixes import compares_counts

DATA = Path(__file__).parent / "data"


def _made(batch: str, case: str) -> tuple[str, dict[str, str | None]]:
    """A made case's log and its maker's truth."""
    folder = DATA / batch
    truth = json.loads((folder / f"{case}.json").read_text())["truth"]
    return (folder / f"{case}.log").read_text(), truth


def _line(source: str | None) -> str:
    """``file.py:N`` of a ``/path/to/file.py:N``."""
    assert source is not None
    return source.rsplit("/", 1)[-1]


def _kinds(failure) -> list[str]:
    return [failure.advice_kind, *(kind for kind, _ in failure.more_advice)]


# ---- a Pallas kernel's failure: the line that called it, its body's line beside it ----------


@pytest.mark.parametrize(
    ("batch", "case", "kernel_line"),
    [
        # JAX 0.10.2 on a v5e: a lowering rule refused a type in the kernel's body; JAX traced
        # the body (line 8) and re-raised at the program's pallas_call (line 11).
        ("made_errors_tpu_blind19", "b19_pallas_complex64_kernel", 8),
        ("made_errors_tpu_blind20", "b20_pallas_top_k_in_kernel", 8),
        ("made_errors_tpu_blind15", "b15_pallas_gather_in_kernel", 8),
        # Mosaic's verifier: JAX put the kernel's frames in the last traceback itself, whose
        # innermost (the body's line) is the maker's line too.
        ("made_errors_tpu_blind18", "b18_pallas_dma_into_smaller_buffer", None),
        ("made_errors_tpu_blind18", "b18_pallas_float16_kernel", None),
    ],
)
def test_a_kernels_failure_is_at_the_line_that_called_it(batch, case, kernel_line):
    text, truth = _made(batch, case)
    (failure, *_) = explain_error(text).failures
    assert failure.family == Family.PALLAS
    assert _line(failure.finding.source) == truth["user_line"]
    body = [hint for hint in failure.hints if "in the kernel's body at" in hint]
    if kernel_line is None:
        assert not body  # the line is the body's already
    else:
        assert body == [f"in the kernel's body at /home/user/made/{case}.py:{kernel_line}"]


def test_a_kernels_location_gives_way_to_the_call_only_where_jax_raised_again():
    # jax#34674 (a later JAX): the verifier's location names the body (test.py:6) called at
    # test.py:9, and JAX re-raised the error at line 9: the user's line.
    chained = (
        DATA
        / "error_logs"
        / "dev20_a_jax_pr34674_mosaic_logistic_bf16_vector_broadcast_verification.log"
    )
    (failure, *_) = explain_error(chained.read_text()).failures
    assert _line(failure.finding.source) == "test.py:9"
    # jax#18370 (JAX 0.4.2x): one traceback, at the compiled call (line 54); the location's
    # line in the kernel (16) is the nearer one there, and the thread's.
    once = DATA / "error_logs" / "fresh7_a_jax_18370_pallas_tpu_padded_transpose.log"
    (failure, *_) = explain_error(once.read_text()).failures
    assert _line(failure.finding.source) == "test_tpu.py:16"


def test_a_pallas_call_inside_a_jitted_function_keeps_its_own_line():
    # JAX's trace before transforming shows the pallas_call inside step() (line 23): nearer
    # than the jit call the last traceback ends at (line 32), and no kernel's body.
    text = (DATA / "pallas_errors" / "block_shape.log").read_text()
    (failure, *_) = explain_error(text).failures
    assert failure.finding.source == "/home/user/kernels/kernel.py:23"


# ---- the callback whose results JAX refused, and counts a call was given ------------------

_CASES = """
import sys, traceback
import numpy as np
import jax, jax.numpy as jnp
from jax.experimental import io_callback


def pure_two_results():
    host = lambda x: (np.asarray(x) * 2, np.asarray(x) + 1)
    f = jax.jit(lambda x: jax.pure_callback(host, jax.ShapeDtypeStruct((3,), jnp.float32), x))
    f(jnp.ones(3, jnp.float32)).block_until_ready()  # fails here: pure_two_results


def io_returns_a_value():
    host = lambda x: np.asarray(x).sum()
    f = jax.jit(lambda x: (io_callback(host, None, x), x)[1])
    f(jnp.ones(3)).block_until_ready()  # fails here: io_returns_a_value


def pure_wrong_shape():
    host = lambda x: np.zeros((2,), np.float32)
    f = jax.jit(lambda x: jax.pure_callback(host, jax.ShapeDtypeStruct((4,), jnp.float32), x))
    f(jnp.ones(4, jnp.float32)).block_until_ready()  # fails here: pure_wrong_shape


def grad_argnums_past_args():
    loss = lambda w, x: jnp.sum(w * x)
    jax.grad(loss, argnums=(0, 2))(jnp.ones(3), jnp.ones(3))  # fails here: grad_argnums_past_args


def two_in_shardings_for_three_arguments():
    s = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    f = jax.jit(lambda a, b, c: a + b + c, in_shardings=(s, s))
    f(jnp.ones(2), jnp.ones(2), jnp.ones(2))  # fails here: two_in_shardings_for_three_arguments
"""


@pytest.fixture(scope="module")
def raised(tmp_path_factory):
    pytest.importorskip("jax")
    return cases_of(tmp_path_factory.mktemp("calls") / "cases.py", _CASES, JAX_PLATFORMS="cpu")


@pytest.mark.parametrize(
    ("case", "op"),
    [
        ("pure_two_results", "pure_callback"),
        ("io_returns_a_value", "io_callback"),  # declared no result, returned one
        ("pure_wrong_shape", "pure_callback"),
    ],
)
def test_the_callback_whose_results_jax_refused_is_the_op(raised, case, op):
    program, texts = raised
    (failure, *_) = explain_error(texts[case]).failures
    assert (failure.family, failure.finding.op) == (Family.XLA_STATUS, op)
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"


@pytest.mark.parametrize(
    ("batch", "case"),
    [
        ("made_errors_blind17", "status_callback_returns_pair"),
        ("made_errors_blind17", "status_io_callback_log_write"),
        ("made_errors_tpu_blind18", "b18_callback_result_shape_wrong"),  # on a v5e
    ],
)
def test_the_callback_is_the_op_in_the_made_logs(batch, case):
    text, truth = _made(batch, case)
    (failure, *_) = explain_error(text).failures
    assert failure.finding.op == truth["op"]


@pytest.mark.parametrize("case", ["grad_argnums_past_args", "two_in_shardings_for_three_arguments"])
def test_counts_a_call_was_given_have_the_call_fixed(raised, case):
    # grad's argnums past the positional arguments: the call's family, made otherwise; jit's
    # in_shardings fewer than its arguments: the shapes' words, then the call.
    program, texts = raised
    (failure, *_) = explain_error(texts[case]).failures
    assert failure.family == Family.JAX_CALL
    assert AdviceKind.OTHER in _kinds(failure)[:2]
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"


def test_counts_of_a_made_call_and_not_of_an_allocation():
    text, truth = _made("made_errors_blind19", "call_saliency_grad_argnums_one_based")
    (failure, *_) = explain_error(text).failures
    assert (failure.family, failure.advice_kind) == (truth["kind"], truth["advice"])
    text, truth = _made("made_errors_blind20", "sharding_jit_in_shardings_fewer_than_args")
    (failure, *_) = explain_error(text).failures
    assert _kinds(failure)[:2] == [AdviceKind.FIX_SHAPES, AdviceKind.OTHER]
    # An allocation's bytes are no count of a call's: the memory's own fixes stay second.
    text, truth = _made("made_errors_blind18", "oom_vmap_pair_features")
    (failure, *_) = explain_error(text).failures
    assert AdviceKind.OTHER not in _kinds(failure)[:2]
    assert truth["advice"] in _kinds(failure)[:2]


@pytest.mark.parametrize(
    ("message", "counts"),
    [
        ("requires at least 3 positional arguments ... but got only 2 positional arguments", True),
        ("Mismatched number of outputs from callback. Expected: 1, Actual: 2", True),
        ("a tuple of length equal to the number of positional arguments", True),
        # An array's extent is the shapes' to fix, whatever counts come with it.
        ("got 2 arguments of shapes f32[4,8] and f32[8,4]", False),
        ("Out of memory allocating 2473901162496 bytes.", False),
    ],
)
def test_counts_compared_are_of_no_array(message, counts):
    assert compares_counts(message) is counts


# ---- TensorFlow's XLA on the CPU, and a size drawn at random ----------------------------------


@pytest.mark.parametrize(
    ("batch", "case"),
    [
        ("made_errors_blind17", "tf_specaugment_time_mask_jit"),  # tf.ones of a random width
        ("made_errors_blind21", "tf_cutout_random_patch_size_jit"),
        ("made_errors_blind19", "tf_random_shift_pad_jit"),
    ],
)
def test_tf_on_the_cpu_with_a_size_known_only_at_run_time(batch, case):
    text, truth = _made(batch, case)
    (failure, *_) = explain_error(text).failures
    assert failure.family == Family.TF_KNOWN_ISSUE
    assert str(failure.platform) == truth["device"] == "cpu"  # "initialized for platform Host"
    # A Python value first; a size drawn at random cannot be one: its bound, masked, next.
    assert _kinds(failure)[:2] == [AdviceKind.STATIC_ARGS, AdviceKind.FIXED_SIZE]
    assert truth["advice"] in _kinds(failure)[:2]


# ---- whose failure it is: the call's, the export's, a kernel wrapper's ---------------------

_OWNERS = """
import sys, traceback
from typing import NamedTuple
import jax, jax.numpy as jnp
from jax import export
from jax.experimental import pallas as pl


def fori_upper_from_float():
    steps = 10.0
    jax.lax.fori_loop(0, steps, lambda i, c: c + i, 0.0)  # fails here: fori_upper_from_float


class Stats(NamedTuple):
    mean: jax.Array
    var: jax.Array


def export_namedtuple_result():
    f = jax.jit(lambda x: Stats(x.mean(), x.var()))
    exp = export.export(f)(jax.ShapeDtypeStruct((8,), jnp.float32))
    exp.serialize()  # fails here: export_namedtuple_result


def export_called_with_fewer_args():
    f = jax.jit(lambda w, x: x @ w)
    spec = jax.ShapeDtypeStruct
    exp = export.export(f)(spec((4, 2), jnp.float32), spec((3, 4), jnp.float32))
    exp.call(jnp.ones((3, 4)))  # fails here: export_called_with_fewer_args


def jit_shardings_with_kwargs():
    s = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    f = jax.jit(lambda a, b: a * b, in_shardings=(s, s))
    f(jnp.ones(2), b=jnp.ones(2))  # fails here: jit_shardings_with_kwargs


def bincount_in_jit():
    f = jax.jit(lambda y: jnp.bincount(y))  # fails here: bincount_in_jit
    f(jnp.array([0, 1, 1, 3]))


def eigh_float16():
    m = jnp.eye(4, dtype=jnp.float16)
    jnp.linalg.eigh(m)  # fails here: eigh_float16


def pallas_params_dict():
    def kernel(x_ref, o_ref):
        o_ref[...] = x_ref[...] + 1
    x = jnp.ones((8, 128))
    params = {"mosaic": {"vmem_limit_bytes": 1}}
    out = jax.ShapeDtypeStruct(x.shape, x.dtype)
    pl.pallas_call(kernel, out_shape=out, interpret=True, compiler_params=params)(x)  # fails here: pallas_params_dict
"""  # noqa: E501


# made23's kinds, on programs of my own (eight CPU devices for the sharding ones).
_MADE23_KINDS = """
import sys, traceback
from functools import partial
import jax, jax.numpy as jnp
from jax.experimental import io_callback
from jax.sharding import AxisType, PartitionSpec as P


def setdiff_in_jit():
    f = jax.jit(lambda a, b: jnp.setdiff1d(a, b))  # fails here: setdiff_in_jit
    f(jnp.arange(10), jnp.arange(3))


def io_callback_ordered_under_vmap():
    def log_it(x):
        return io_callback(lambda v: None, None, x, ordered=True)  # fails here: io_callback_ordered_under_vmap
    jax.vmap(log_it)(jnp.ones(4))


def eigh_top_k_on_cpu():
    m = jnp.eye(6)
    jax.lax.linalg.eigh(m, subset_by_index=(0, 2))  # fails here: eigh_top_k_on_cpu


def repeat_on_explicit_mesh():
    mesh = jax.make_mesh((8,), ("b",), axis_types=(AxisType.Explicit,))
    with jax.set_mesh(mesh):
        x = jax.device_put(jnp.ones((8, 4)), P("b", None))
        jax.jit(lambda a: jnp.repeat(a, 3, axis=0, total_repeat_length=24))(x)  # fails here: repeat_on_explicit_mesh


def ppermute_two_to_one():
    mesh = jax.make_mesh((8,), ("i",))
    perm = [(0, 1), (1, 1)]
    f = jax.shard_map(lambda x: jax.lax.ppermute(x, "i", perm), mesh=mesh, in_specs=P("i"), out_specs=P("i"))
    x = jax.device_put(jnp.arange(8.0), jax.sharding.NamedSharding(mesh, P("i")))
    jax.jit(f)(x)  # fails here: ppermute_two_to_one
"""  # noqa: E501


@pytest.fixture(scope="module")
def owners(tmp_path_factory):
    pytest.importorskip("jax")
    return cases_of(
        tmp_path_factory.mktemp("owners") / "cases.py",
        _OWNERS + _MADE23_KINDS,
        JAX_PLATFORMS="cpu",
        XLA_FLAGS="--xla_force_host_platform_device_count=8",
    )


@pytest.mark.parametrize(
    ("case", "family", "op", "advice"),
    [
        # Arguments of one call that must agree: the call's, cast.
        ("fori_upper_from_float", Family.JAX_CALL, "fori_loop", AdviceKind.CAST_DTYPE),
        # A pytree type jax.export cannot serialize; an exported function called otherwise.
        ("export_namedtuple_result", Family.JAX_EXPORT, "serialize", AdviceKind.OTHER),
        ("export_called_with_fewer_args", Family.JAX_EXPORT, "call exported", AdviceKind.OTHER),
        # A message whose subject is JAX's transformation: the call that refused is named.
        ("jit_shardings_with_kwargs", Family.JAX_CALL, "pjit", AdviceKind.OTHER),
        # jnp.bincount's length traced: the API JAX names, and a static size.
        ("bincount_in_jit", Family.JAX_TRACING, "bincount", AdviceKind.FIXED_SIZE),
        # jaxlib's LAPACK wrapper refusing float16 (a KeyError, then its own words): a kernel's
        # limit, the call the program made, at the line the chain ends at.
        ("eigh_float16", Family.XLA_STATUS, "eigh", AdviceKind.CAST_DTYPE),
        # pallas_call on the user's line owns the refusal of how it was called.
        ("pallas_params_dict", Family.PALLAS, "pallas_call", None),
        # "The error arose in setdiff1d()": the API, and the size it takes.
        ("setdiff_in_jit", Family.JAX_TRACING, "setdiff1d", AdviceKind.FIXED_SIZE),
        # A host callback refusing the transformation it was put under: how it was used.
        ("io_callback_ordered_under_vmap", Family.JAX_CALL, "io_callback", AdviceKind.OTHER),
        # An option implemented on some platforms only ("not supported on CPU and GPU").
        ("eigh_top_k_on_cpu", Family.MISSING_LOWERING, "eigh", AdviceKind.REPLACE_OP),
        # Sharding in types asking for out_sharding.
        ("repeat_on_explicit_mesh", Family.SHARDING, "repeat", AdviceKind.RESHARD),
        # A collective's own check, whatever the words reader makes of the log.
        ("ppermute_two_to_one", Family.SHARDING, "ppermute", AdviceKind.OTHER),
    ],
)
def test_whose_failure_it_is(owners, case, family, op, advice):
    program, texts = owners
    (failure, *_) = explain_error(texts[case]).failures
    assert (failure.family, failure.finding.op) == (family, op)
    if advice is not None:
        assert failure.advice_kind == advice
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"
    if family == Family.MISSING_LOWERING:  # the platform the message names first
        assert str(failure.platform) == "cpu"


@pytest.mark.parametrize(
    ("batch", "case"),
    [
        ("made_errors_blind22", "call_fori_loop_steps_from_config_float"),
        ("made_errors_blind22", "call_rollout_scan_without_length_notebook"),
        ("made_errors_blind22", "export_served_without_params_argument"),
        ("made_errors_blind18", "export_call_static_kwarg"),
        ("made_errors_blind19", "export_call_params_gained_key"),
        ("made_errors_blind22", "export_namedtuple_outputs_serialize"),
        ("made_errors_blind22", "shape_equinox_layernorm_on_sequence"),  # shape=(64,) ...
        ("made_errors_blind22", "status_float16_pca_svd_cpu"),
        ("made_errors_blind22", "status_orthogonal_init_float16_params_cpu"),
        ("made_errors_blind22", "tracing_bincount_class_weights_in_step"),
        ("made_errors_blind22", "call_jit_in_shardings_called_with_kwargs"),
        ("made_errors_blind22", "pallas_compiler_params_old_dict"),
        # On a v5e: each read after libtpu's start-up note (a harmless warning before it).
        ("made_errors_tpu_blind22", "b22_mesh_flat_devices_two_axes"),
        ("made_errors_tpu_blind22", "b22_pallas_program_id_axis_past_grid"),
        ("made_errors_tpu_blind22", "b22_shard_map_check_rep_keyword"),
    ],
)
def test_whose_failure_it_is_in_the_made_logs(batch, case):
    text, truth = _made(batch, case)
    (failure, *_) = explain_error(text).failures
    assert failure.family == truth["kind"]
    if truth["op"] is not None:
        assert failure.finding.op == truth["op"]
    if truth["advice"] is not None and truth["kind"] != Family.PALLAS:
        assert truth["advice"] in _kinds(failure)[:2]
    assert _line(failure.finding.source) == truth["user_line"].rsplit("/", 1)[-1]


def test_a_keyword_jax_dropped_is_the_programs_to_rename_unless_a_library_passed_it():
    text, _ = _made("made_errors_tpu_blind22", "b22_shard_map_check_rep_keyword")
    (failure, *_) = explain_error(text).failures
    assert _kinds(failure)[:2] == [AdviceKind.OTHER, AdviceKind.INSTALL]
    assert "'check_rep'" in failure.finding.suggestion
    # The same call made by an installed library: the releases go together, installed first.
    library = text.replace(
        'File "/home/user/made/b22_shard_map_check_rep_keyword.py"',
        'File "/usr/lib/python3/site-packages/meshlib/layers.py"',
    )
    (failure, *_) = explain_error(library).failures
    assert failure.advice_kind == AdviceKind.INSTALL


@pytest.mark.parametrize(
    ("message", "fix"),
    [
        # Shapes printed as tuples beside their word (Equinox's LayerNorm; a Flax parameter).
        ("ValueError: `shape=(64,) and `x.shape=(16, 64)`.", AdviceKind.FIX_SHAPES),
        ("ScopeParamShapeError: expected shape (3540, 512) but got shape (3891, 512)", "fix"),
        # An axis past those a grid or array has (Pallas's program_id; NumPy's words).
        ("ValueError: Axis 1 is out of bounds for grid (4,)", AdviceKind.FIX_SHAPES),
        ("AxisError: axis 2 is out of bounds for array of dimension 2", AdviceKind.FIX_SHAPES),
    ],
)
def test_shapes_the_message_prints_or_an_axis_past_them_point_to_the_shapes(message, fix):
    from hloscope.analysis.explain_error.message_fixes import pointed_fixes, structural_fixes

    assert pointed_fixes(message)[0] == AdviceKind.FIX_SHAPES
    # A fix alone is followed by the message's own words.
    assert structural_fixes(message, [AdviceKind.FIX_SHAPES]) == [
        AdviceKind.FIX_SHAPES,
        AdviceKind.OTHER,
    ]


def test_the_words_of_a_chain_are_read_to_its_end():
    from hloscope.analysis.explain_error.log import Log

    text, _ = _made("made_errors_blind22", "status_float16_pca_svd_cpu")
    first = text.index("KeyError: <class")
    said = Log(text).caused_messages(first)
    assert said and said[-1].startswith("NotImplementedError: (KeyError(")
    assert "Unsupported dtype float16" in said[-1]


# ---- sharding in types: the op the user's line called, where the message opens with a word ---

_PAD_SHARDED = """
import sys, traceback
import jax, jax.numpy as jnp
from jax.sharding import AxisType, PartitionSpec as P


def pad_sharded_rows():
    mesh = jax.make_mesh((8,), ("rows",), axis_types=(AxisType.Explicit,))
    with jax.set_mesh(mesh):
        x = jax.device_put(jnp.ones((64, 4)), P("rows", None))
        jax.jit(lambda a: jnp.pad(a, ((0, 3), (0, 0))))(x)  # fails here: pad_sharded_rows
"""


def test_a_sharding_types_word_is_not_its_op(tmp_path):
    # "padding on sharded dims ... is not implemented" (JAX 0.10.2, eight CPU devices): the
    # op is jnp.pad's, which the user's line called.
    pytest.importorskip("jax")
    program, texts = cases_of(
        tmp_path / "cases.py",
        _PAD_SHARDED,
        JAX_PLATFORMS="cpu",
        XLA_FLAGS="--xla_force_host_platform_device_count=8",
    )
    (failure, *_) = explain_error(texts["pad_sharded_rows"]).failures
    assert (failure.family, failure.finding.op) == (Family.SHARDING, "pad")
    assert failure.finding.source == f"{program}:{marked_line(program, 'pad_sharded_rows')}"


@pytest.mark.parametrize(
    "case",
    ["sharding_explicit_pad_for_next_token_shift", "sharding_explicit_top_k_over_vocab_shards"],
)
def test_a_sharding_types_op_in_the_made_logs(case):
    text, truth = _made("made_errors_blind22", case)
    (failure, *_) = explain_error(text).failures
    assert (failure.family, failure.finding.op) == (truth["kind"], truth["op"])


# ---- XLA:TPU's sum of a program's temporaries: a smaller batch, then rematerialisation -------


@pytest.mark.parametrize(
    ("batch", "case"),
    [
        # A remat policy that saves every activation; an RNN's gradient over a long sequence
        # (both v5e, "the total memory required for HLO temporaries (...) exceeds available
        # HBM (15.75G)").
        ("made_errors_tpu_blind18", "b18_remat_policy_saves_everything"),
        ("made_errors_tpu_blind22", "b22_rnn_grad_long_sequence"),
        # A learning-rate sweep vmapped over the weights: the batch's fix first.
        ("made_errors_tpu_blind22", "b22_lr_sweep_vmapped_weights"),
    ],
)
def test_tpu_temporaries_are_cut_by_a_smaller_batch_then_by_remat(batch, case):
    text, truth = _made(batch, case)
    (failure, *_) = explain_error(text).failures
    assert failure.family == Family.OUT_OF_MEMORY
    assert _kinds(failure)[:3] == [
        AdviceKind.SMALLER_BATCH,
        AdviceKind.REMAT,
        AdviceKind.BIGGER_DEVICE,
    ]
    assert truth["advice"] in _kinds(failure)[:2]
    assert "jax.checkpoint" in dict(failure.more_advice)[AdviceKind.REMAT]


@pytest.mark.parametrize(
    ("batch", "case"),
    [
        ("made_errors_blind23", "tracing_setdiff1d_unseen_items"),
        ("made_errors_blind23", "tracing_trim_silence_notebook"),  # "Error arose in the `filt`"
        ("made_errors_blind23", "call_vmap_ordered_io_callback_logging"),
        ("made_errors_tpu_blind23", "b23_ordered_io_callback_under_vmap"),
        ("made_errors_tpu_blind22", "b22_pure_callback_in_loss_under_grad"),
        ("made_errors_blind23", "lowering_eigh_subset_spectral_clustering_cpu"),
        ("made_errors_blind23", "lowering_svd_subset_lora_init_cpu"),  # "not implemented for"
        ("made_errors_blind23", "sharding_explicit_repeat_without_out_sharding"),
        ("made_errors_tpu_blind23", "b23_ring_ppermute_for_eight_chips"),
    ],
)
def test_made23s_kinds_in_the_made_logs(batch, case):
    text, truth = _made(batch, case)
    (failure, *_) = explain_error(text).failures
    assert failure.family == truth["kind"]
    if truth["op"] is not None:
        assert failure.finding.op == truth["op"]
    assert truth["advice"] in _kinds(failure)[:2]
    assert _line(failure.finding.source) == truth["user_line"].rsplit("/", 1)[-1]


# ---- a function's first trace is not its recompile ------------------------------------------

_RETRACED = """\
import jax
import jax.numpy as jnp

jax.config.update("jax_explain_cache_misses", True)


@jax.jit
def scale(x, factor=2.0):
    return x * factor


scale(jnp.ones(3), 2.0)
scale(jnp.ones(3), factor=2.0)  # traced again: the keyword
raise SystemExit(1)
"""


def test_the_miss_that_traced_a_function_again_is_read_not_its_first_trace(tmp_path):
    pytest.importorskip("jax")
    script = tmp_path / "retraced.py"
    script.write_text(_RETRACED)
    stderr = failing_run(script)
    (failure, *_) = explain_error(stderr).failures
    again = 1 + _RETRACED.split("\n").index(
        "scale(jnp.ones(3), factor=2.0)  # traced again: the keyword"
    )
    assert (failure.family, failure.finding.op) == (Family.RECOMPILE, "scale")
    assert failure.finding.source == f"{script}:{again}"


@pytest.mark.parametrize(
    "case",
    [
        "recompile_step_called_positional_then_keyword",
        "recompile_eval_highest_precision_alternating",
    ],
)
def test_the_retrace_in_the_made_logs(case):
    text, truth = _made("made_errors_blind23", case)
    (failure, *_) = explain_error(text).failures
    assert failure.family == truth["kind"]
    assert _line(failure.finding.source) == truth["user_line"]


# ---- Python's math on a traced value: jax.numpy's function of the same name -----------------

_HOST_MATH = """
import math
import sys, traceback
import jax, jax.numpy as jnp


def warmup_schedule():
    lr = jax.jit(lambda step: 1e-3 * math.exp(-step / 100))  # fails here: warmup_schedule
    lr(jnp.asarray(10.0))


def log_prob_of_count():
    f = jax.jit(lambda n: math.log(n) + 1.0)  # fails here: log_prob_of_count
    f(jnp.asarray(3.0))
"""


@pytest.mark.parametrize("case", ["warmup_schedule", "log_prob_of_count"])
def test_pythons_math_on_a_traced_value_wants_jax_numpy(tmp_path, case):
    pytest.importorskip("jax")
    program, texts = cases_of(tmp_path / "cases.py", _HOST_MATH, JAX_PLATFORMS="cpu")
    (failure, *_) = explain_error(texts[case]).failures
    assert failure.family == Family.JAX_TRACING
    assert _kinds(failure)[:2] == [AdviceKind.JNP_NOT_NP, AdviceKind.STATIC_ARGS]
    assert "math." in failure.finding.suggestion
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"


def test_pythons_math_in_a_made_optax_schedule():
    text, truth = _made("made_errors_blind23", "tracing_cosine_schedule_math_cos")
    (failure, *_) = explain_error(text).failures
    assert failure.advice_kind == truth["advice"] == AdviceKind.JNP_NOT_NP


# ---- the raising module's family over the words reader's, where they disagree ---------------


def test_pallas_own_check_is_pallas_whatever_its_words_say():
    # "Pytree for `out_specs` and `out_shape` do not match" reads like shard_map's to the
    # words reader; jax/_src/pallas/core.py raised it (made23, JAX 0.10.2).
    text, truth = _made("made_errors_blind23", "pallas_layernorm_stats_dict_out_shape")
    (failure, *_) = explain_error(text).failures
    assert failure.family == truth["kind"] == Family.PALLAS
    # The same message raised by shard_map's own module is a sharding's.
    moved = text.replace("jax/_src/pallas/core.py", "jax/_src/shard_map.py")
    (failure, *_) = explain_error(moved).failures
    assert failure.family == Family.SHARDING


# ---- a NumPy library given a traced array: the user's call into it --------------------------

_HOST_LIBRARY = """
import sys, traceback
import jax, jax.numpy as jnp
from scipy.special import logsumexp
from scipy import ndimage


def scipy_logsumexp_under_grad():
    nll = lambda w: -logsumexp(w * 2.0)  # fails here: scipy_logsumexp_under_grad
    jax.grad(nll)(jnp.ones(4))


def ndimage_blur_under_jit():
    blur = jax.jit(lambda img: ndimage.gaussian_filter(img, 1.0))  # fails here: ndimage_blur_under_jit
    blur(jnp.ones((8, 8)))
"""  # noqa: E501


@pytest.mark.parametrize("case", ["scipy_logsumexp_under_grad", "ndimage_blur_under_jit"])
def test_a_numpy_librarys_conversion_is_the_users_call(tmp_path, case):
    pytest.importorskip("scipy")
    pytest.importorskip("jax")
    program, texts = cases_of(tmp_path / "cases.py", _HOST_LIBRARY, JAX_PLATFORMS="cpu")
    (failure, *_) = explain_error(texts[case]).failures
    assert failure.family == Family.JAX_TRACING
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"


def test_a_jax_librarys_own_numpy_call_stays_its_line():
    # distrax#291 (spent): distrax itself called NumPy on a tracer -- its line is the bug's.
    text = (DATA / "error_logs" / "distrax_291_array.log").read_text()
    (failure, *_) = explain_error(text).failures
    assert failure.finding.source.endswith("distrax/_src/distributions/distribution.py:354")
    made, truth = _made("made_errors_blind24", "tracing_scipy_logsumexp_in_loss")
    (failure, *_) = explain_error(made).failures
    assert _line(failure.finding.source) == truth["user_line"]


# ---- limits of one platform's implementation, and of a symbolic export ----------------------

_PLATFORM_LIMITS = """
import sys, traceback
import jax, jax.numpy as jnp
from jax import export


def export_fft_symbolic_for_tpu():
    (n,) = export.symbolic_shape("n")
    f = jax.jit(lambda x: jnp.abs(jnp.fft.fft(x)))  # fails here: export_fft_symbolic_for_tpu
    export.export(f, platforms=("tpu",))(jax.ShapeDtypeStruct((n,), jnp.complex64))


def eigh_jacobi_on_cpu():
    from jax._src.lax.linalg import EighImplementation
    jax.lax.linalg.eigh(jnp.eye(4), implementation=EighImplementation.JACOBI)  # fails here: eigh_jacobi_on_cpu
"""  # noqa: E501


@pytest.mark.parametrize(
    ("case", "family", "op"),
    [
        # "Shape polymorphism for FFT with non-constant fft_length is not implemented for TPU
        # and GPU": the export's limit, the op named (not a missing lowering of the TPU's).
        ("export_fft_symbolic_for_tpu", Family.JAX_EXPORT, "fft"),
        # "Jacobi implementation is not supported on CPU": an option of eigh's on this CPU.
        ("eigh_jacobi_on_cpu", Family.MISSING_LOWERING, "eigh"),
    ],
)
def test_a_platforms_or_a_symbolic_exports_limit(tmp_path, case, family, op):
    pytest.importorskip("jax")
    program, texts = cases_of(tmp_path / "cases.py", _PLATFORM_LIMITS, JAX_PLATFORMS="cpu")
    (failure, *_) = explain_error(texts[case]).failures
    assert (failure.family, failure.finding.op) == (family, op)
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"


@pytest.mark.parametrize(
    "case",
    ["lowering_eigh_jacobi_for_hessian_spectrum_cpu", "export_spectrogram_rfft_symbolic_len"],
)
def test_the_limits_in_the_made_logs(case):
    text, truth = _made("made_errors_blind24", case)
    (failure, *_) = explain_error(text).failures
    assert (failure.family, failure.finding.op) == (truth["kind"], truth["op"])
    assert str(failure.platform) == str(truth["device"])
    assert _line(failure.finding.source) == truth["user_line"]


# ---- a value given where JAX takes a function ---------------------------------------------

_NOT_FUNCTIONS = """
import sys, traceback
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl


def remat_policy_by_name():
    f = jax.checkpoint(lambda w, x: jnp.tanh(x @ w), policy="dots_saveable")
    jax.grad(lambda w: f(w, jnp.ones((4, 4))).sum())(jnp.ones((4, 4)))  # fails here: remat_policy_by_name


def fori_body_called():
    body = lambda i, x: x * 2
    x = jnp.ones(3)
    jax.jit(lambda x: jax.lax.fori_loop(0, 3, body(0, x), x))(x)  # fails here: fori_body_called


def tree_map_arguments_swapped():
    jax.tree.map({"a": jnp.ones(2)}, lambda x: x + 1)  # fails here: tree_map_arguments_swapped


def scan_body_result():
    step = lambda c, x: (c + x, c)
    jax.lax.scan(step(0.0, 1.0), 0.0, jnp.ones(5))  # fails here: scan_body_result


def cond_branch_values():
    x = jnp.ones(3)
    jax.lax.cond(x.sum() > 0, x * 2, x * 3)  # fails here: cond_branch_values


def index_map_tuple():
    def kernel(x_ref, o_ref):
        o_ref[...] = x_ref[...] + 1

    x = jnp.ones((16, 128))
    spec = pl.BlockSpec((8, 128), (0, 0))
    out = pl.BlockSpec((8, 128), lambda i: (i, 0))
    shape = jax.ShapeDtypeStruct(x.shape, x.dtype)
    pl.pallas_call(kernel, out_shape=shape, grid=(2,), in_specs=[spec], out_specs=out, interpret=True)(x)  # fails here: index_map_tuple


def own_string_called():
    name = "relu"
    name(3)  # fails here: own_string_called
"""  # noqa: E501


@pytest.fixture(scope="module")
def not_functions(tmp_path_factory):
    pytest.importorskip("jax")
    program = tmp_path_factory.mktemp("not_functions") / "cases.py"
    return cases_of(program, _NOT_FUNCTIONS, JAX_PLATFORMS="cpu")


@pytest.mark.parametrize(
    ("case", "family", "op", "given"),
    [
        # Python calling the value inside JAX ("'str' object is not callable"), in a
        # traceback JAX filtered and in JAX's own frames (tree_util).
        ("remat_policy_by_name", Family.JAX_CALL, None, "a 'str'"),
        ("tree_map_arguments_swapped", Family.JAX_CALL, None, "a 'dict'"),
        # JAX's own checks, in their words: the API is the op.
        ("fori_body_called", Family.JAX_CALL, "fori_loop", "body_fun of fori_loop"),
        ("scan_body_result", Family.JAX_CALL, "scan", "f of scan"),
        ("cond_branch_values", Family.JAX_CALL, "cond", "true_fun and false_fun of cond"),
        # Raised in Pallas's spec: the kernel's family, the same fix.
        ("index_map_tuple", Family.PALLAS, None, "a 'tuple'"),
    ],
)
def test_a_value_given_where_jax_takes_a_function(not_functions, case, family, op, given):
    program, texts = not_functions
    (failure, *_) = explain_error(texts[case]).failures
    assert failure.family == family
    if op is not None:
        assert failure.finding.op == op
    assert failure.advice_kind == AdviceKind.OTHER
    assert failure.finding.suggestion.startswith(f"JAX was given {given} where it takes")
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"


def test_the_programs_own_value_called_says_no_family(not_functions):
    # The same words raised in the program's own code, JAX nowhere in the traceback.
    _, texts = not_functions
    assert "'str' object is not callable" in texts["own_string_called"]
    assert not explain_error(texts["own_string_called"]).failures


@pytest.mark.parametrize(
    ("batch", "case"),
    [
        ("made_errors_blind22", "call_remat_policy_given_by_name"),
        ("made_errors_tpu_blind24", "b24_remat_policy_given_by_name"),
        ("made_errors_blind23", "pallas_blockspec_index_map_given_as_tuple"),
    ],
)
def test_a_value_given_where_jax_takes_a_function_in_the_made_logs(batch, case):
    text, truth = _made(batch, case)
    (failure, *_) = explain_error(text).failures
    assert (str(failure.family), failure.advice_kind) == (truth["kind"], truth["advice"])
    assert _line(failure.finding.source) == truth["user_line"]


# ---- a value of another type than JAX's own code takes --------------------------------------

_ANOTHER_TYPE = """
import sys, traceback
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl


def _copy_through_scratch(x_ref, o_ref, acc_ref):
    acc_ref[...] = x_ref[...] * 2
    o_ref[...] = acc_ref[...]


def scratch_as_shape_dtype_struct():
    x = jnp.ones((8, 128))
    out = jax.ShapeDtypeStruct(x.shape, x.dtype)
    scratch = [jax.ShapeDtypeStruct((8, 128), jnp.float32)]
    pl.pallas_call(_copy_through_scratch, out_shape=out, scratch_shapes=scratch, interpret=True)(x)  # fails here: scratch_as_shape_dtype_struct


def scratch_as_plain_shape():
    x = jnp.ones((8, 128))
    out = jax.ShapeDtypeStruct(x.shape, x.dtype)
    pl.pallas_call(_copy_through_scratch, out_shape=out, scratch_shapes=[(8, 128)], interpret=True)(x)  # fails here: scratch_as_plain_shape


def unflatten_with_a_list_of_treedefs():
    leaves, treedef = jax.tree.flatten({"a": 1})
    jax.tree.unflatten([treedef], leaves)  # fails here: unflatten_with_a_list_of_treedefs


def own_list_asked_for_a_shape():
    jax.eval_shape(lambda x: x * 2, [1.0, 2.0]).shape  # fails here: own_list_asked_for_a_shape
"""  # noqa: E501


@pytest.fixture(scope="module")
def another_type(tmp_path_factory):
    pytest.importorskip("jax")
    program = tmp_path_factory.mktemp("another_type") / "cases.py"
    return cases_of(program, _ANOTHER_TYPE, JAX_PLATFORMS="cpu")


@pytest.mark.parametrize(
    ("case", "family", "given"),
    [
        # Raised in Pallas's spec code: the kernel's family.
        ("scratch_as_shape_dtype_struct", Family.PALLAS, "'ShapeDtypeStruct' for 'get_ref_aval'"),
        ("scratch_as_plain_shape", Family.PALLAS, "'int' for 'get_ref_aval'"),
        # Raised in JAX's tree utilities, which no module row names: the call's argument.
        ("unflatten_with_a_list_of_treedefs", Family.JAX_CALL, "'list' for 'unflatten'"),
    ],
)
def test_a_name_jax_asked_of_the_programs_value_is_another_type_given(
    another_type, case, family, given
):
    program, texts = another_type
    (failure, *_) = explain_error(texts[case]).failures
    assert failure.family == family
    # The type first, releases that go together after (not the other way round: JAX's own
    # modules are of one release).
    assert _kinds(failure)[:2] == [AdviceKind.OTHER, AdviceKind.INSTALL]
    assert failure.finding.suggestion.startswith(f"JAX's own code asked a {given}")
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"


def test_a_name_the_programs_own_code_asked_is_not_read(another_type):
    _, texts = another_type
    assert "'list' object has no attribute 'shape'" in texts["own_list_asked_for_a_shape"]
    assert not explain_error(texts["own_list_asked_for_a_shape"]).failures


def test_a_name_jax_asked_of_jaxlibs_object_is_still_releases():
    # A C extension's type prints dotted: jaxlib's object of another release than jax's.
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/me/train.py", line 3, in <module>\n'
        "    import jax; jax.devices()\n"
        '  File "/usr/lib/python3/site-packages/jax/_src/xla_bridge.py", line 900, in devices\n'
        "    return get_backend(backend).get_default_layout()\n"
        "AttributeError: 'jaxlib.xla_extension.Client' object has no attribute "
        "'get_default_layout'\n"
    )
    (failure, *_) = explain_error(text).failures
    assert not failure.finding.suggestion.startswith("JAX's own code asked")
    assert failure.advice_kind == AdviceKind.INSTALL


@pytest.mark.parametrize(
    ("batch", "case"),
    [
        ("made_errors_blind22", "pallas_scratch_as_shape_dtype_struct"),
        ("made_errors_blind24", "pallas_scratch_shapes_plain_tuple"),
        ("made_errors_tpu_blind24", "b24_pallas_scratch_as_shape_dtype_struct"),
    ],
)
def test_a_name_jax_asked_in_the_made_logs(batch, case):
    text, truth = _made(batch, case)
    (failure, *_) = explain_error(text).failures
    assert (str(failure.family), failure.advice_kind) == (truth["kind"], truth["advice"])
    assert _line(failure.finding.source) == truth["user_line"]


# ---- a string entering a compiled TensorFlow function -----------------------------------------


@pytest.mark.parametrize(
    ("batch", "case"),
    [
        # TF 2.21, jit_compile=True: a tf.string argument (serialized records, PNG bytes) fed
        # to the compiled function; no cast makes it a number inside XLA.
        ("made_errors_blind25", "tf_parse_tfrecord_in_step_jit"),
        ("made_errors_blind15", "tf_decode_png_jit"),
    ],
)
def test_a_string_argument_of_a_compiled_function_moves_its_string_work_out(batch, case):
    text, truth = _made(batch, case)
    (failure, *_) = explain_error(text).failures
    assert (failure.family, failure.advice_kind) == (Family.TF2XLA, AdviceKind.REPLACE_OP)
    assert truth["advice"] == AdviceKind.REPLACE_OP
    assert "convert it to numbers before the call" in failure.finding.suggestion


def test_the_trace_before_transformation_is_where_an_op_was_made_not_raised():
    # JAX 0.10.2 on a v5e: pure_callback inside a Pallas kernel; the trace JAX took before
    # transforming ends in jax/_src/callback.py (where the op was made), the exception was
    # raised by Pallas's TPU lowering: a kernel's failure, not how a callback was called.
    text, truth = _made("made_errors_tpu_blind26", "b26_pallas_host_callback_in_kernel")
    (failure, *_) = explain_error(text).failures
    assert "JaxStackTraceBeforeTransformation" in text
    assert str(failure.family) == truth["kind"] == "pallas"
    assert failure.finding.op == truth["op"] == "pure_callback"
