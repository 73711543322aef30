"""explain-error on JAX's API called the wrong way (issue 35): the common mistakes of a new
user, each read by its structure -- a builtin refusing a value's type inside JAX, a parameter
or an option the message names as the call's, a NumPy array asked for what only a JAX array
has, Python refusing a JAX function's signature, has_aux against what the function returns,
a shape a call takes said as a rule, ragged data -- not by one message's sentence; and whose
failure it is by where it was raised: the exception a program stopped for after another was
handled, a Pallas helper's own check, a slice raised as Pallas traced a kernel, the call a
chain's kernel wrapper went up to, a traced value printed inside jit.

The errors are real: a program of cases run in a child under the installed JAX on the CPU
(:mod:`raised_errors`); each case's line to fix is marked in it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from raised_errors import cases_of, failing_run, marked_line

from hloscope.analysis.explain_error import Family, explain_error
from hloscope.analysis.explain_error.advice import AdviceKind
from hloscope.analysis.unsupported import Platform

_CASES = """
import sys, traceback
import numpy as np
import jax, jax.numpy as jnp


def one_hot_float_classes():
    jax.nn.one_hot(jnp.array([1, 2]), 3.5)  # fails here: one_hot_float_classes


def split_float_count():
    jax.random.split(jax.random.key(0), 2.0)  # fails here: split_float_count


def checkpoint_static_argnums_past_args():
    jax.checkpoint(lambda x, n: x * n, static_argnums=(3,))(jnp.ones(3), 2)  # fails here: checkpoint_static_argnums_past_args


def choice_more_than_population():
    jax.random.choice(jax.random.key(0), 3, (5,), replace=False)  # fails here: choice_more_than_population


def resize_unknown_method():
    jax.image.resize(jnp.ones((4, 4)), (8, 8), method="bicubicx")  # fails here: resize_unknown_method


def zeros_of_a_misspelt_dtype():
    jnp.zeros(3, dtype="flot32")  # fails here: zeros_of_a_misspelt_dtype


def custom_jvp_rule_of_three():
    @jax.custom_jvp
    def f(x):
        return x

    f.defjvp(lambda primals, tangents: (primals[0], tangents[0], 1.0))
    jax.jvp(f, (1.0,), (1.0,))  # fails here: custom_jvp_rule_of_three


def numpy_array_updated_with_at():
    x = np.ones(3)
    x.at[0].set(2.0)  # fails here: numpy_array_updated_with_at


def numpy_array_waited_on():
    y = np.asarray(jnp.ones(3) * 2)
    y.block_until_ready()  # fails here: numpy_array_waited_on


def randint_without_maxval():
    jax.random.randint(jax.random.key(0), (3,), 0)  # fails here: randint_without_maxval


def grad_of_loss_and_metrics():
    jax.value_and_grad(lambda x: (x ** 2, {"a": x}))(1.0)  # fails here: grad_of_loss_and_metrics


def has_aux_of_a_plain_loss():
    jax.grad(lambda x: x ** 2, has_aux=True)(1.0)  # fails here: has_aux_of_a_plain_loss


def inverse_of_a_non_square():
    jnp.linalg.inv(jnp.ones((2, 3)))  # fails here: inverse_of_a_non_square


def array_of_ragged_lists():
    jnp.array([[1, 2], [3]])  # fails here: array_of_ragged_lists


def donate_argnums_past_the_arguments():
    jax.jit(lambda a: a, donate_argnums=3)(jnp.ones(8))  # fails here: donate_argnums_past_the_arguments


def scan_told_another_length():
    jax.lax.scan(lambda c, x: (c + x, None), 0.0, jnp.ones(3), length=4)  # fails here: scan_told_another_length


def reshape_with_two_unknowns():
    jnp.ones(6).reshape(-1, -1)  # fails here: reshape_with_two_unknowns


def pad_config_of_one_axis():
    jax.lax.pad(jnp.ones((2, 2)), 0.0, [(1, 1, 0)])  # fails here: pad_config_of_one_axis


def sort_by_more_keys_than_operands():
    jax.lax.sort((jnp.ones(3),), num_keys=2)  # fails here: sort_by_more_keys_than_operands


def matmul_of_a_scalar():
    jnp.matmul(2.0, jnp.ones(3))  # fails here: matmul_of_a_scalar


def own_index_past_the_end():
    devices = jax.devices()
    devices[9]  # fails here: own_index_past_the_end
"""  # noqa: E501


@pytest.fixture(scope="module")
def raised(tmp_path_factory):
    pytest.importorskip("jax")
    return cases_of(tmp_path_factory.mktemp("misuse") / "cases.py", _CASES, JAX_PLATFORMS="cpu")


@pytest.mark.parametrize(
    ("case", "family", "op", "advice"),
    [
        # A builtin refusing a value's type inside JAX's code: the call's argument.
        ("one_hot_float_classes", Family.JAX_CALL, "one_hot", AdviceKind.OTHER),
        ("split_float_count", Family.JAX_CALL, "split", AdviceKind.OTHER),
        # A parameter named as the call's ("the `static_argnums` argument to
        # `jax.checkpoint`"), a keyword's value quoted ("when 'replace=False'"), an option's
        # value the call does not know, a dtype's name NumPy does not know.
        ("checkpoint_static_argnums_past_args", Family.JAX_CALL, "checkpoint", AdviceKind.OTHER),
        ("choice_more_than_population", Family.JAX_CALL, "choice", AdviceKind.OTHER),
        ("resize_unknown_method", Family.JAX_CALL, "resize", AdviceKind.OTHER),
        ("zeros_of_a_misspelt_dtype", Family.JAX_CALL, "zeros", AdviceKind.OTHER),
        # What a rule the program gave JAX must return ("must produce a pair"), under jvp.
        ("custom_jvp_rule_of_three", Family.JAX_CALL, None, AdviceKind.OTHER),
        # A NumPy array asked for what only a JAX array has.
        ("numpy_array_updated_with_at", Family.JAX_CALL, None, AdviceKind.JNP_NOT_NP),
        ("numpy_array_waited_on", Family.JAX_CALL, None, AdviceKind.JNP_NOT_NP),
        # Python refusing a JAX function's signature before any of JAX's frames ran.
        ("randint_without_maxval", Family.JAX_CALL, "randint", AdviceKind.OTHER),
        # grad told otherwise than the function returns: has_aux.
        ("grad_of_loss_and_metrics", Family.JAX_CALL, "grad", AdviceKind.OTHER),
        ("has_aux_of_a_plain_loss", Family.JAX_CALL, "grad", AdviceKind.OTHER),
        # donate_argnums past the function's parameters: jit's, the positions to fix (not
        # static_argnums' advice).
        ("donate_argnums_past_the_arguments", Family.JAX_CALL, "jit", AdviceKind.OTHER),
        # A shape a call takes said as a rule; ragged data.
        ("inverse_of_a_non_square", Family.JAX_SHAPE, "inv", AdviceKind.FIX_SHAPES),
        ("array_of_ragged_lists", Family.JAX_SHAPE, "array", AdviceKind.FIX_SHAPES),
        # An array's axes in words near a sharding's ("disagrees with leading axis sizes",
        # "one unknown axis size", "the number of axes"), no mesh, device nor named axis in
        # them: the shapes, whatever the words reader says.
        ("scan_told_another_length", Family.JAX_SHAPE, "scan", AdviceKind.FIX_SHAPES),
        ("reshape_with_two_unknowns", Family.JAX_SHAPE, None, AdviceKind.FIX_SHAPES),
        ("pad_config_of_one_axis", Family.JAX_SHAPE, "pad", AdviceKind.FIX_SHAPES),
        # A rank an op does not take ("must have ndim at least 1"); a parameter's value
        # given as name=value that must be otherwise.
        ("matmul_of_a_scalar", Family.JAX_SHAPE, "matmul", AdviceKind.FIX_SHAPES),
        ("sort_by_more_keys_than_operands", Family.JAX_CALL, "sort", AdviceKind.OTHER),
    ],
)
def test_a_call_made_the_wrong_way(raised, case, family, op, advice):
    program, texts = raised
    (failure, *_) = explain_error(texts[case]).failures
    assert failure.family == family
    if op is not None:
        assert failure.finding.op == op
    assert failure.advice_kind == advice
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"


def test_the_programs_own_mistake_says_no_family(raised):
    # An IndexError of the program's own list, JAX nowhere in its traceback.
    _, texts = raised
    assert "IndexError" in texts["own_index_past_the_end"]
    assert not explain_error(texts["own_index_past_the_end"]).failures


@pytest.mark.parametrize(
    ("message", "advice"),
    [
        # Pasted alone: the NumPy array's missing JAX method says the fix by itself.
        ("AttributeError: 'numpy.ndarray' object has no attribute 'at'", AdviceKind.JNP_NOT_NP),
        (
            "AttributeError: 'ndarray' object has no attribute 'addressable_shards'",
            AdviceKind.JNP_NOT_NP,
        ),
    ],
)
def test_a_numpy_array_asked_for_a_jax_arrays_name_alone(message, advice):
    (failure, *_) = explain_error(message + "\n").failures
    assert (failure.family, failure.advice_kind) == (Family.JAX_CALL, advice)


def test_a_numpy_arrays_own_missing_name_is_not_read():
    # A name no JAX array has either: nothing says the program meant JAX's.
    text = "AttributeError: 'numpy.ndarray' object has no attribute 'foo'\n"
    assert not explain_error(text).failures


# ---- whose failure a chain or a kernel's trace says it is ------------------------------------

_TRACED = """
import sys, traceback
import numpy as np
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.sharding import AxisType, Mesh, PartitionSpec as P


def numpy_clip_of_a_traced_ratio():
    def loss(r):
        return np.clip(r, 0.8, 1.2).sum()  # fails here: numpy_clip_of_a_traced_ratio

    jax.grad(loss)(jnp.ones(4))


def when_on_a_vector():
    def kernel(x_ref, o_ref):
        o_ref[...] = x_ref[...]

        @pl.when(x_ref[...] > 0)  # fails here: when_on_a_vector
        def _():
            o_ref[...] = x_ref[...] * 2

    x = jnp.ones((8, 128))
    pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)


def kernel_slice_past_its_block():
    def kernel(h_ref, o_ref):
        o_ref[...] = h_ref[:, 128:256] * 2  # fails here: kernel_slice_past_its_block

    h = jnp.ones((8, 128))
    pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(h.shape, h.dtype), interpret=True)(h)


def tridiagonal_solve_in_half_precision():
    d = jnp.ones(4, jnp.float16)

    def solve(b):
        return jax.lax.linalg.tridiagonal_solve(d * 0, d * 4, d * 0, b)  # fails here: tridiagonal_solve_in_half_precision

    jax.jit(solve)(jnp.ones((4, 1), jnp.float16))


def grad_of_an_integer_output():
    jax.grad(lambda x: jnp.argmax(x))(jnp.ones(3))  # fails here: grad_of_an_integer_output


def vmap_of_a_keyword_argument():
    predict = lambda x, params: x * params
    jax.vmap(predict, in_axes=(0, None))(jnp.ones((4, 3)), params=2.0)  # fails here: vmap_of_a_keyword_argument


def loss_printed_in_jit():
    @jax.jit
    def step(w):
        loss = (w ** 2).sum()
        print(f"loss {loss:.3f}")  # fails here: loss_printed_in_jit
        return w - 0.1 * loss

    step(jnp.ones(3))


def outer_product_sharded_twice_on_one_axis():
    mesh = jax.make_mesh((2, 4), ("data", "model"), axis_types=(AxisType.Explicit,) * 2)
    with jax.set_mesh(mesh):
        x = jax.device_put(jnp.ones((8, 16)), P("data", "model"))
        jax.jit(lambda x: x[:, :, None] * x[:, None, :])(x)  # fails here: outer_product_sharded_twice_on_one_axis


def kernel_reduces_its_ref():
    def kernel(x_ref, o_ref):
        o_ref[...] = x_ref[...] - jnp.max(x_ref, axis=-1, keepdims=True)  # fails here: kernel_reduces_its_ref

    x = jnp.ones((8, 128))
    pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)


def tpu_prng_in_an_interpreted_kernel():
    def kernel(seed_ref, o_ref):
        pltpu.prng_seed(seed_ref[0])  # fails here: tpu_prng_in_an_interpreted_kernel
        o_ref[...] = jnp.zeros_like(o_ref)

    spec = pl.BlockSpec(memory_space=pltpu.SMEM)
    pl.pallas_call(
        kernel, out_shape=jax.ShapeDtypeStruct((8, 128), jnp.float32), in_specs=[spec], interpret=True
    )(jnp.array([0], jnp.int32))


def kernel_slices_by_a_size_read_from_a_ref():
    def kernel(n_ref, x_ref, o_ref):
        n = n_ref[0]
        o_ref[pl.ds(0, n)] = x_ref[pl.ds(0, n)] * 2.0  # fails here: kernel_slices_by_a_size_read_from_a_ref

    smem = pl.BlockSpec(memory_space=pltpu.SMEM)
    pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct((8,), jnp.float32),
        in_specs=[smem, pl.BlockSpec()],
        interpret=True,
    )(jnp.array([4], jnp.int32), jnp.ones(8))


def kernel_scales_its_ref():
    def kernel(x_ref, o_ref):
        o_ref[...] = 2 * x_ref  # fails here: kernel_scales_its_ref

    x = jnp.ones((8, 128))
    pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), interpret=True)(x)


def qdwh_eigh_on_the_cpu():
    from jax.lax.linalg import EighImplementation, eigh

    eigh(jnp.eye(4), implementation=EighImplementation.QDWH)  # fails here: qdwh_eigh_on_the_cpu


def extract_in_jit():
    jax.jit(lambda x: jnp.extract(x > 0, x))(jnp.ones(4))  # fails here: extract_in_jit


def bcoo_fromdense_in_jit():
    from jax.experimental import sparse

    jax.jit(lambda w: sparse.BCOO.fromdense(w))(jnp.eye(4))  # fails here: bcoo_fromdense_in_jit


def mesh_of_two_axes_named_once():
    devices = np.array(jax.devices()).reshape(2, 4)
    Mesh(devices, ("data",))  # fails here: mesh_of_two_axes_named_once
"""  # noqa: E501


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    pytest.importorskip("jax")
    return cases_of(
        tmp_path_factory.mktemp("traced") / "cases.py",
        _TRACED,
        JAX_PLATFORMS="cpu",
        XLA_FLAGS="--xla_force_host_platform_device_count=8",
    )


@pytest.mark.parametrize(
    ("case", "family", "op", "advice"),
    [
        # numpy's clip failed on JAX's array, and its fallback, handling that, converted the
        # traced value: the program stopped for the conversion, listed first.
        ("numpy_clip_of_a_traced_ratio", Family.JAX_TRACING, None, AdviceKind.JNP_NOT_NP),
        # pl.when's own check (Pallas's helpers raised it), in lax.cond's words: a kernel's.
        ("when_on_a_vector", Family.PALLAS, None, None),
        # A slice past its block raised as Pallas traced the kernel's body: the kernel's, at the
        # body's line, and a shape to fix.
        ("kernel_slice_past_its_block", Family.PALLAS, None, AdviceKind.FIX_SHAPES),
        # jaxlib's LAPACK wrapper refusing float16 in a chain: the op is the call on the
        # program's line the chain went up to.
        ("tridiagonal_solve_in_half_precision", None, "tridiagonal_solve", None),
        # grad of an integer output: another loss, not another cast.
        ("grad_of_an_integer_output", Family.JAX_SHAPE, "grad", AdviceKind.OTHER),
        # in_axes against a keyword argument: the entries first, the call made otherwise next.
        ("vmap_of_a_keyword_argument", Family.JAX_CALL, "vmap", AdviceKind.FIX_SHAPES),
        # A traced loss printed inside jit: jax.debug.print.
        ("loss_printed_in_jit", Family.JAX_TRACING, None, AdviceKind.OTHER),
        # A sharding rule's duplicate spec, restated by JAX at the op (a ShardingTypeError
        # naming mul): the restatement first.
        ("outer_product_sharded_twice_on_one_axis", Family.SHARDING, "mul", AdviceKind.RESHARD),
        # How a jnp function was called, inside a kernel's body (a Ref where an array
        # belongs); a TPU-only primitive made in a kernel run interpreted on the CPU.
        ("kernel_reduces_its_ref", Family.PALLAS, None, None),
        ("tpu_prng_in_an_interpreted_kernel", Family.PALLAS, None, None),
        # Words no reader knows, raised as Pallas traced a kernel's body (a bare assert on a
        # dynamic shape, a Ref with no operators): the kernel's; a dynamic shape's fix is a
        # static size.
        ("kernel_slices_by_a_size_read_from_a_ref", Family.PALLAS, None, AdviceKind.FIXED_SIZE),
        ("kernel_scales_its_ref", Family.PALLAS, None, None),
        # An option only the TPU has, asked for on the CPU: a missing lowering here.
        ("qdwh_eigh_on_the_cpu", Family.MISSING_LOWERING, None, AdviceKind.REPLACE_OP),
        # A size the data decides, inside jnp.extract and BCOO.fromdense: a static size.
        ("extract_in_jit", Family.JAX_TRACING, None, AdviceKind.FIXED_SIZE),
        ("bcoo_fromdense_in_jit", Family.JAX_TRACING, "bcoo_fromdense", AdviceKind.FIXED_SIZE),
        # A mesh's names against its devices' axes.
        ("mesh_of_two_axes_named_once", None, None, AdviceKind.MESH_AXIS),
    ],
)
def test_whose_failure_by_where_it_was_raised(traced, case, family, op, advice):
    program, texts = traced
    (failure, *_) = explain_error(texts[case]).failures
    if family is not None:
        assert failure.family == family
    if op is not None:
        assert failure.finding.op == op
    if advice is not None:
        assert failure.advice_kind == advice
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"


def test_in_axes_against_a_keyword_argument_offers_the_call_second(traced):
    _, texts = traced
    (failure, *_) = explain_error(texts["vmap_of_a_keyword_argument"]).failures
    assert [kind for kind, _ in failure.more_advice][:1] == [AdviceKind.OTHER]
    assert "positionally" in failure.more_advice[0][1]


def test_a_loss_printed_in_a_notebook_cell_is_read_from_the_cells_marked_line():
    # IPython quotes a frame's lines numbered, its own marked "---> 10".
    text = (
        "ConcretizationTypeError                   Traceback (most recent call last)\n"
        "Cell In[3], line 14\n"
        "---> 14 params = train_step(params, x)\n"
        "Cell In[3], line 9, in train_step(p, x)\n"
        "      8     loss = loss_fn(p, x)\n"
        '----> 9     print(f"loss {float(loss):.4f}")\n'
        "     10     return p\n"
        "ConcretizationTypeError: Abstract tracer value encountered where concrete value is "
        "expected: traced array with shape float32[]\n"
    )
    (failure, *_) = explain_error(text).failures
    assert failure.family == Family.JAX_TRACING
    assert failure.advice_kind == AdviceKind.OTHER
    assert "jax.debug.print" in failure.finding.suggestion


def test_an_option_only_one_platform_has_names_no_platform_it_ran_on(traced):
    # "QDWH implementation is only supported on TPU", raised on the CPU: the TPU is where the
    # option would run, not where the program did.
    _, texts = traced
    (failure, *_) = explain_error(texts["qdwh_eigh_on_the_cpu"]).failures
    assert "only supported on TPU" in failure.message
    assert failure.platform is not Platform.TPU


# ---- a recompile's nested functions; a symbolic dimension in a shape check ------------------

_NESTED_RETRACE = """
from functools import partial
import jax, jax.numpy as jnp

jax.config.update("jax_explain_cache_misses", True)


@partial(jax.jit, static_argnames="steps")
def rollout(h, steps):
    def step(h, _):
        h = jnp.tanh(h)
        return h, h.sum()

    return jax.lax.scan(step, h, None, length=steps)[1]


for steps in [3, 5, 7]:
    rollout(jnp.ones(4), steps=steps).block_until_ready()  # fails here: rollout
raise SystemExit(1)
"""


def test_a_function_made_inside_a_retraced_one_is_not_the_recompile(tmp_path):
    # The scan's body, made anew each time rollout is traced again, misses too ("never seen
    # function ... being re-defined repeatedly"): the miss to read is rollout's own, at the
    # loop's call, whose static argument changed.
    pytest.importorskip("jax")
    script = tmp_path / "nested.py"
    script.write_text(_NESTED_RETRACE)
    text = failing_run(script, JAX_PLATFORMS="cpu")
    assert "re-defined repeatedly" in text
    (failure, *_) = explain_error(text).failures
    assert failure.family == Family.RECOMPILE
    assert failure.finding.op == "rollout"
    assert failure.finding.source == f"{script}:{marked_line(script, 'rollout')}"


_SYMBOLIC = """
import math, sys, traceback
import jax, jax.numpy as jnp
from jax import export


def halves_of_a_symbolic_width():
    (w,) = export.symbolic_shape("w")
    f = jax.jit(lambda x: jnp.split(x, 2)[0])  # fails here: halves_of_a_symbolic_width
    export.export(f)(jax.ShapeDtypeStruct((w,), jnp.float32))


def sqrt_of_a_symbolic_length():
    def grid(x):
        side = int(math.sqrt(x.shape[0]))  # fails here: sqrt_of_a_symbolic_length
        return x.reshape(side, side)

    (n,) = export.symbolic_shape("n")
    export.export(jax.jit(grid))(jax.ShapeDtypeStruct((n,), jnp.float32))


def sum_of_two_symbolic_lengths():
    a, b = export.symbolic_shape("a, b")
    f = jax.jit(lambda x, y: x + y)  # fails here: sum_of_two_symbolic_lengths
    export.export(f)(jax.ShapeDtypeStruct((a,), jnp.float32), jax.ShapeDtypeStruct((b,), jnp.float32))


def concat_of_two_symbolic_widths():
    a, b = export.symbolic_shape("a, b")
    f = jax.jit(lambda x, y: jnp.concatenate([x, y], axis=0))  # fails here: concat_of_two_symbolic_widths
    export.export(f)(jax.ShapeDtypeStruct((4, a), jnp.float32), jax.ShapeDtypeStruct((4, b), jnp.float32))
"""  # noqa: E501


@pytest.fixture(scope="module")
def symbolic(tmp_path_factory):
    pytest.importorskip("jax")
    return cases_of(
        tmp_path_factory.mktemp("symbolic") / "cases.py", _SYMBOLIC, JAX_PLATFORMS="cpu"
    )


@pytest.mark.parametrize(
    "case",
    [
        "halves_of_a_symbolic_width",
        "sqrt_of_a_symbolic_length",
        # Shapes whose dimensions are names ("incompatible shapes for broadcasting: (a,),
        # (b,)"; a concatenate's "(4, a) ... (4, b)").
        "sum_of_two_symbolic_lengths",
        "concat_of_two_symbolic_widths",
    ],
)
def test_a_symbolic_dimension_in_a_check_is_the_exports(symbolic, case):
    # jnp.split's "rest is mod(w, 2)"; math.sqrt's "must be real number, not _DimExpr".
    program, texts = symbolic
    (failure, *_) = explain_error(texts[case]).failures
    assert failure.family == Family.JAX_EXPORT
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"


# ---- read after made28's scoring: each rule on a made log and a program of my own ----------

_RULES = """
import sys, traceback
import jax, jax.numpy as jnp


def vjp_pullback_of_another_type():
    y, pull = jax.vjp(lambda x: x * 2, jnp.ones(3))
    pull(jnp.ones(3, jnp.int32))  # fails here: vjp_pullback_of_another_type


def vjp_pullback_of_another_shape():
    y, pull = jax.vjp(lambda x: x * 2, jnp.ones(3))
    pull(jnp.ones(4))  # fails here: vjp_pullback_of_another_shape


def custom_vjp_fwd_of_one_value():
    @jax.custom_vjp
    def f(x):
        return jnp.sin(x)

    f.defvjp(lambda x: jnp.sin(x), lambda r, g: (g,))
    jax.vjp(f, 1.0)  # fails here: custom_vjp_fwd_of_one_value


def array_with_a_none():
    jnp.asarray([1.0, None])  # fails here: array_with_a_none


def float_of_a_state_step():
    @jax.jit
    def lr(state):
        return 0.1 / float(state["step"])  # fails here: float_of_a_state_step

    lr({"step": jnp.array(3)})
"""


@pytest.fixture(scope="module")
def rules(tmp_path_factory):
    pytest.importorskip("jax")
    return cases_of(tmp_path_factory.mktemp("rules") / "cases.py", _RULES, JAX_PLATFORMS="cpu")


_MADE28 = Path(__file__).parent / "data" / "made_errors_blind28"


@pytest.mark.parametrize(
    ("case", "made", "family", "advice"),
    [
        # A vjp function's cotangent of the output's shape and another type: the call's
        # argument to cast; of another shape: the shapes.
        (
            "vjp_pullback_of_another_type",
            "call_vjp_pullback_given_bf16_cotangent",
            Family.JAX_CALL,
            AdviceKind.CAST_DTYPE,
        ),
        ("vjp_pullback_of_another_shape", None, Family.JAX_SHAPE, AdviceKind.FIX_SHAPES),
        # A rule the program gave that must produce a pair: the rule, not extents (its words
        # name "length two" and "the first element").
        (
            "custom_vjp_fwd_of_one_value",
            "call_custom_vjp_fwd_returns_output_only",
            Family.JAX_CALL,
            AdviceKind.OTHER,
        ),
        # "None is not a valid value for jnp.array": the call's argument.
        (
            "array_with_a_none",
            "call_missing_sensor_readings_none_in_list",
            Family.JAX_CALL,
            AdviceKind.OTHER,
        ),
        # int()/float() of a leaf of a state (opt_state[1].count, state['step']): no
        # static_argnums names it; keep it an array.
        (
            "float_of_a_state_step",
            "tracing_optax_step_decay_schedule_int_of_count",
            Family.JAX_TRACING,
            AdviceKind.JNP_NOT_NP,
        ),
    ],
)
def test_rules_read_after_made28(rules, case, made, family, advice):
    program, texts = rules
    (failure, *_) = explain_error(texts[case]).failures
    assert (failure.family, failure.advice_kind) == (family, advice)
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"
    if made is not None:
        text = (_MADE28 / f"{made}.log").read_text()
        truth = json.loads((_MADE28 / f"{made}.json").read_text())["truth"]
        (failure, *_) = explain_error(text).failures
        assert (failure.family, failure.advice_kind) == (family, advice)
        assert (truth["kind"], truth["advice"]) == (family, advice)


def test_a_buffer_deleted_or_donated_in_the_runtimes_capitalised_words():
    # JAX 0.10.2's "Invalid buffer passed to Execute() ...: Buffer has been deleted or
    # donated." (made28), the lower-case wording's family and fix.
    text = (_MADE28 / "call_ema_update_reads_donated_params.log").read_text()
    (failure, *_) = explain_error(text).failures
    assert failure.family == Family.JAX_CALL
    assert failure.advice_kind == AdviceKind.REUSED_DONATION
    lower = text.replace("Buffer has been deleted", "buffer has been deleted")
    (failure, *_) = explain_error(lower).failures
    assert failure.advice_kind == AdviceKind.REUSED_DONATION


_MADE28_TPU = Path(__file__).parent / "data" / "made_errors_tpu_blind28"

_TPU28_RULES = """
import sys, traceback
import jax, jax.numpy as jnp
from jax import export


def while_carry_back_as_list():
    jax.lax.while_loop(lambda c: c[0] < 3, lambda c: [c[0] + 1, c[1]], (0, 1.0))  # fails here: while_carry_back_as_list


def fori_carry_back_as_list():
    jax.lax.fori_loop(0, 3, lambda i, c: [c[0] + 1.0, c[1]], (0.0, 1.0))  # fails here: fori_carry_back_as_list


def vmap_of_an_exported_function():
    exp = export.export(jax.jit(lambda w: w * 2))(jax.ShapeDtypeStruct((4,), jnp.float32))
    jax.vmap(exp.call)(jnp.ones((3, 4)))  # fails here: vmap_of_an_exported_function
"""  # noqa: E501


@pytest.fixture(scope="module")
def tpu28_rules(tmp_path_factory):
    pytest.importorskip("jax")
    folder = tmp_path_factory.mktemp("tpu28_rules")
    return cases_of(folder / "cases.py", _TPU28_RULES, JAX_PLATFORMS="cpu")


@pytest.mark.parametrize("case", ["while_carry_back_as_list", "fori_carry_back_as_list"])
def test_a_carry_returned_in_another_container_is_the_container(tpu28_rules, case):
    # "is a <class 'tuple'> but the corresponding component of the carry output is a <class
    # 'list'>, so their Python types differ": the leaves agree; the container to return.
    program, texts = tpu28_rules
    (failure, *_) = explain_error(texts[case]).failures
    assert failure.family == Family.JAX_SHAPE
    assert failure.advice_kind == AdviceKind.OTHER
    assert "return the same container (a tuple)" in failure.finding.suggestion
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"
    # The made TPU log (an LSTM's scan), whose maker wrote the same fix.
    text = (_MADE28_TPU / "b28_lstm_scan_carry_returned_as_list.log").read_text()
    (failure, *_) = explain_error(text).failures
    assert (failure.finding.op, failure.advice_kind) == ("scan", AdviceKind.OTHER)


def test_a_primitive_without_a_batching_rule_is_the_op(tpu28_rules):
    # "Batching rule for 'call_exported' not implemented": the primitive is the op, here and
    # in the made TPU log (its maker's truth).
    program, texts = tpu28_rules
    (failure, *_) = explain_error(texts["vmap_of_an_exported_function"]).failures
    assert (failure.family, failure.finding.op) == (Family.JAX_EXPORT, "call_exported")
    text = (_MADE28_TPU / "b28_vmap_over_exported_call.log").read_text()
    truth = json.loads((_MADE28_TPU / "b28_vmap_over_exported_call.json").read_text())["truth"]
    (failure, *_) = explain_error(text).failures
    assert failure.finding.op == truth["op"] == "call_exported"


def test_a_kernels_verifier_refusal_restated_by_pallas_is_read_once_with_its_fix():
    # On the v5e (made28): MLIR's "Verification failed" raised in Mosaic's lowering, then
    # Pallas's restatement "'tpu.matmul' op Expected matmul acc to be 32-bit": one failure,
    # the restatement's, whose fix is the accumulator's type (preferred_element_type).
    text = (_MADE28_TPU / "b28_pallas_bf16_attention_scores_accumulator.log").read_text()
    failures = [f for f in explain_error(text).failures if f.family == Family.PALLAS]
    assert len(failures) == 1
    assert failures[0].advice_kind == AdviceKind.CAST_DTYPE
    assert "preferred_element_type=jnp.float32" in failures[0].finding.suggestion
    # Without the restatement (an older JAX's log), MLIR's refusal is read as before.
    cut = text[: text.index("jax._src.pallas.mosaic.error_handling.VerificationError")]
    assert [f.family for f in explain_error(cut).failures][:1] == [Family.PALLAS]


# ---- a whole Jacobian or Hessian that does not fit: its products do ------------------------

_DERIVATIVES = """
import sys, traceback
import jax, jax.numpy as jnp


def jacobian_of_a_wide_layer():
    x = jnp.ones(10_000_000)
    jax.jacrev(lambda v: jnp.tanh(v) * 2.0)(x)  # fails here: jacobian_of_a_wide_layer


def hessian_of_a_long_vector():
    x = jnp.ones(10_000_000)
    jax.hessian(lambda v: jnp.sum(jnp.sin(v) ** 2))(x)  # fails here: hessian_of_a_long_vector
"""


@pytest.fixture(scope="module")
def derivatives(tmp_path_factory):
    pytest.importorskip("jax")
    folder = tmp_path_factory.mktemp("derivatives")
    return cases_of(folder / "cases.py", _DERIVATIVES, JAX_PLATFORMS="cpu")


@pytest.mark.parametrize(
    ("case", "api"),
    [("jacobian_of_a_wide_layer", "jacrev"), ("hessian_of_a_long_vector", "hessian")],
)
def test_a_whole_derivative_matrix_too_big_is_asked_as_products(derivatives, case, api):
    # The CPU's allocation of 400 TB for a 10^7 x 10^7 matrix: no batch or device holds it.
    program, texts = derivatives
    (failure, *_) = explain_error(texts[case]).failures
    assert failure.family == Family.DEVICE_ALLOCATION
    assert failure.advice_kind == AdviceKind.OTHER
    assert f"jax.{api}" in failure.finding.suggestion and "jax.jvp" in failure.finding.suggestion
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"


@pytest.mark.parametrize(
    "made",
    [
        # XLA:TPU's compile-time report on the v5e (made19, made23), whose makers wrote the
        # same fix ("other") by construction.
        "made_errors_tpu_blind19/b19_hessian_of_layer_weights",
        "made_errors_tpu_blind23/b23_saliency_jacobian_whole_batch",
    ],
)
def test_a_whole_derivative_matrix_over_the_hbm_is_asked_as_products(made):
    folder = Path(__file__).parent / "data"
    truth = json.loads((folder / f"{made}.json").read_text())["truth"]
    (failure, *_) = explain_error((folder / f"{made}.log").read_text()).failures
    assert failure.family == truth["kind"] == Family.OUT_OF_MEMORY
    assert failure.advice_kind == truth["advice"] == AdviceKind.OTHER


# ---- a value of another Python type than a parameter takes: not an array's extents ----------

_PYTHON_TYPES = """
import sys, traceback
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl


def _copy(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def out_shape_given_as_a_shape():
    x = jnp.ones((8, 128))
    pl.pallas_call(_copy, out_shape=x.shape, interpret=True)(x)  # fails here: out_shape_given_as_a_shape


def one_out_spec_for_two_outputs():
    x = jnp.ones((8, 128))
    shape = jax.ShapeDtypeStruct(x.shape, x.dtype)
    spec = pl.BlockSpec((8, 128), lambda: (0, 0))
    pl.pallas_call(_copy, out_shape=(shape, shape), out_specs=spec, interpret=True)(x)  # fails here: one_out_spec_for_two_outputs
"""  # noqa: E501


@pytest.fixture(scope="module")
def python_types(tmp_path_factory):
    pytest.importorskip("jax")
    folder = tmp_path_factory.mktemp("python_types")
    return cases_of(folder / "cases.py", _PYTHON_TYPES, JAX_PLATFORMS="cpu")


@pytest.mark.parametrize(
    ("case", "made"),
    [
        # "Invalid out_shape type: <class 'int'>" (a shape tuple's ints where a
        # ShapeDtypeStruct belongs), as made24's and made25's (v5e) makers wrote.
        ("out_shape_given_as_a_shape", "made_errors_blind24/pallas_out_shape_given_as_x_shape"),
        # "... is a pytree leaf but `out_shape` is a <class 'tuple'>, so their Python types
        # differ", as made23's and made24's makers wrote.
        ("one_out_spec_for_two_outputs", "made_errors_blind24/pallas_two_outputs_one_out_spec"),
    ],
)
def test_a_value_of_another_python_type_is_not_the_shapes(python_types, case, made):
    program, texts = python_types
    for text in (texts[case], (Path(__file__).parent / "data" / f"{made}.log").read_text()):
        (failure, *_) = explain_error(text).failures
        assert failure.family == Family.PALLAS
        assert failure.advice_kind == AdviceKind.OTHER
    (failure, *_) = explain_error(texts[case]).failures
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"


# ---- a kernel wrapper's refusal of a dtype: the op JAX's trace before transformation made ----

_LAPACK_DTYPES = """
import sys, traceback
import jax, jax.numpy as jnp


def half_precision_log_determinant():
    jax.jit(jnp.linalg.slogdet)(jnp.eye(3, dtype=jnp.float16))  # fails here: half_precision_log_determinant


def bfloat16_schur():
    jax.jit(jax.scipy.linalg.schur)(jnp.eye(3, dtype=jnp.bfloat16))  # fails here: bfloat16_schur
"""  # noqa: E501


@pytest.fixture(scope="module")
def lapack_dtypes(tmp_path_factory):
    pytest.importorskip("jax")
    folder = tmp_path_factory.mktemp("lapack_dtypes")
    return cases_of(folder / "cases.py", _LAPACK_DTYPES, JAX_PLATFORMS="cpu")


@pytest.mark.parametrize(
    ("case", "op", "made"),
    [
        (
            "half_precision_log_determinant",
            "lu",
            "made_errors_blind27/status_bf16_flow_log_det_cpu",
        ),
        ("bfloat16_schur", "schur", "made_errors_blind25/status_float16_rnn_schur_stability_cpu"),
    ],
)
def test_a_kernel_wrappers_dtype_refusal_names_the_op_jax_made(lapack_dtypes, case, op, made):
    # jaxlib's LAPACK wrapper raises KeyError(<class 'numpy.float16'>): the op is the one the
    # "JaxStackTraceBeforeTransformation" frame binds (lax_linalg.lu, lax_linalg.schur).
    program, texts = lapack_dtypes
    folder = Path(__file__).parent / "data"
    truth = json.loads((folder / f"{made}.json").read_text())["truth"]
    for text in (texts[case], (folder / f"{made}.log").read_text()):
        (failure, *_) = explain_error(text).failures
        assert failure.finding.op == op
        assert failure.advice_kind == AdviceKind.CAST_DTYPE
    assert truth["op"] == op


def test_a_kernels_dma_of_another_element_type_is_a_cast():
    # On the v5e (made29): Pallas's restatement of MLIR's verifier, "'tpu.enqueue_dma' op DMA
    # source and target element type mismatch": the cast (its maker's truth), in either of
    # Mosaic's words for it.
    folder = Path(__file__).parent / "data" / "made_errors_tpu_blind29"
    text = (folder / "b29_pallas_dma_bf16_into_f32_scratch.log").read_text()
    truth = json.loads((folder / "b29_pallas_dma_bf16_into_f32_scratch.json").read_text())
    for said in (text, text.replace("element type mismatch", "dtype mismatch")):
        (failure, *_) = [f for f in explain_error(said).failures if f.family == Family.PALLAS]
        assert failure.advice_kind == truth["truth"]["advice"] == AdviceKind.CAST_DTYPE


@pytest.mark.parametrize(
    "made",
    [
        # "0th dimension of all xs should be replicated" under jax.lax.scan(cell, h0, xs);
        # "The size of all_to_all split_axis (4) has to be divisible by ..." under
        # jax.lax.all_to_all(...): read by their words, the op the line calls (their makers').
        "made_errors_blind26/sharding_explicit_rnn_scan_over_time_sharded",
        "made_errors_blind17/sharding_all_to_all_expert_dispatch",
    ],
)
def test_a_failure_read_by_its_words_names_the_one_call_on_the_users_line(made):
    folder = Path(__file__).parent / "data"
    truth = json.loads((folder / f"{made}.json").read_text())["truth"]
    (failure, *_) = explain_error((folder / f"{made}.log").read_text()).failures
    assert failure.read_from == "words"
    assert failure.finding.op == truth["op"]
    assert failure.error_class == "ValueError"


def test_a_tracing_error_naming_no_function_is_the_call_on_the_users_line():
    # TracerBoolConversionError raised inside jnp.extract (compress's `if any(extra)`), made24:
    # no function named as needing a concrete value; the user's line calls jnp.extract.
    folder = Path(__file__).parent / "data" / "made_errors_blind24"
    truth = json.loads((folder / "tracing_extract_valid_depth_pixels.json").read_text())["truth"]
    text = (folder / "tracing_extract_valid_depth_pixels.log").read_text()
    (failure, *_) = explain_error(text).failures
    assert (failure.family, failure.finding.op) == (Family.JAX_TRACING, truth["op"])
    assert truth["op"] == "extract"


# ---- read after made29's scoring (CPU): each rule on a made log and a second wording --------

_MADE29 = Path(__file__).parent / "data" / "made_errors_blind29"


def _made29(name: str) -> tuple[str, dict[str, str | None]]:
    truth = json.loads((_MADE29 / f"{name}.json").read_text())["truth"]
    return (_MADE29 / f"{name}.log").read_text(), truth


@pytest.mark.parametrize(
    ("made", "second"),
    [
        # An integer asked for, a float given: the cast (a page table built as floats; an
        # index map's true division on the v5e, made17).
        (
            "pallas_page_table_built_as_float_array",
            "made_errors_tpu_blind17/b17_pallas_index_map_true_division",
        ),
        # A scan over an axis the mesh shards: "should be replicated" (made26's RNN too).
        (
            "sharding_explicit_scan_over_layer_sharded_stack",
            "made_errors_blind26/sharding_explicit_rnn_scan_over_time_sharded",
        ),
    ],
)
def test_the_fix_a_made29_message_points_to(made, second):
    text, truth = _made29(made)
    (failure, *_) = explain_error(text).failures
    assert (failure.family, failure.advice_kind) == (truth["kind"], truth["advice"])
    other = (Path(__file__).parent / "data" / f"{second}.log").read_text()
    (again, *_) = explain_error(other).failures
    assert again.advice_kind == truth["advice"]


_MADE29_RULES = """
import math, sys, traceback
import jax, jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def if_on_math_isfinite():
    @jax.jit
    def step(w, loss):
        if not math.isfinite(loss):  # fails here: if_on_math_isfinite
            return w
        return w - 0.1

    step(1.0, jnp.float32(2.0))


def lax_map_over_a_list():
    jax.lax.map(lambda x: x * 2, [1.0, 2.0, 3.0])  # fails here: lax_map_over_a_list


def smem_scratch_without_dtype():
    def kernel(x_ref, o_ref, s_ref):
        o_ref[...] = x_ref[...]

    x = jnp.ones((8, 128))
    pl.pallas_call(
        kernel,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        scratch_shapes=[pltpu.SMEM((8,))],  # fails here: smem_scratch_without_dtype
        interpret=True,
    )(x)


def array_of_a_map():
    jnp.array(map(float, range(3)))  # fails here: array_of_a_map


def removed_tree_map():
    jax.tree_map(lambda x: x, {"a": 1.0})  # fails here: removed_tree_map
"""


@pytest.fixture(scope="module")
def made29_rules(tmp_path_factory):
    pytest.importorskip("jax")
    folder = tmp_path_factory.mktemp("made29_rules")
    return cases_of(folder / "cases.py", _MADE29_RULES, JAX_PLATFORMS="cpu")


@pytest.mark.parametrize(
    ("case", "made", "family", "advice"),
    [
        # Python's math deciding a Python `if` inside jit: the branch to trace, not only math.
        (
            "if_on_math_isfinite",
            "tracing_skip_update_math_isnan_loss",
            Family.JAX_TRACING,
            AdviceKind.LAX_CONTROL_FLOW,
        ),
        # A leaf of xs without the leading axis: the xs' shapes (lax.map of a list).
        (
            "lax_map_over_a_list",
            "shape_scan_xs_ode_step_size_scalar_leaf",
            Family.JAX_SHAPE,
            AdviceKind.FIX_SHAPES,
        ),
        # An object of Pallas's called without an argument its signature asks for.
        (
            "smem_scratch_without_dtype",
            "pallas_vmem_scratch_without_dtype",
            Family.PALLAS,
            AdviceKind.OTHER,
        ),
        # A Python generator or map where an array belongs: a list to build, not a cast.
        (
            "array_of_a_map",
            "call_discounted_returns_jnp_array_of_generator",
            Family.JAX_CALL,
            AdviceKind.OTHER,
        ),
        # The script's own call of an API JAX removed: port it first, install second.
        ("removed_tree_map", "call_xla_computation_removed_hlo_dump", Family.JAX_CALL, "other"),
    ],
)
def test_rules_read_after_made29(made29_rules, case, made, family, advice):
    program, texts = made29_rules
    text, truth = _made29(made)
    assert (truth["kind"], truth["advice"]) == (family, advice)
    for said in (texts[case], text):
        (failure, *_) = explain_error(said).failures
        assert (failure.family, failure.advice_kind) == (family, advice)
    (failure, *_) = explain_error(texts[case]).failures
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"


# ---- read after made30's scoring (TPU): a collective's refusal in its primitive's words -------

_COLLECTIVE = """
import sys, traceback
import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P


def psum_scatter_untiled():
    mesh = jax.make_mesh((8,), ("x",))
    x = jax.device_put(jnp.ones((8, 16)), NamedSharding(mesh, P("x")))
    step = lambda a: jax.lax.psum_scatter(a, "x", scatter_dimension=1)  # fails here: psum_scatter_untiled
    jax.shard_map(step, mesh=mesh, in_specs=P("x"), out_specs=P("x"))(x)
"""  # noqa: E501


@pytest.fixture(scope="module")
def collective(tmp_path_factory):
    pytest.importorskip("jax")
    folder = tmp_path_factory.mktemp("collective")
    return cases_of(
        folder / "cases.py",
        _COLLECTIVE,
        JAX_PLATFORMS="cpu",
        XLA_FLAGS="--xla_force_host_platform_device_count=8",
    )


def test_a_collectives_refusal_in_its_primitives_words_is_a_sharding(collective):
    # "reduce_scatter operand scatter dimension size 16 must match shard count 8": read by
    # the primitive's name (a shape's words), a collective's: the sharding's, tiled=True.
    program, texts = collective
    made = Path(__file__).parent / "data" / "made_errors_tpu_blind30"
    truth = json.loads((made / "b30_psum_scatter_without_tiled.json").read_text())["truth"]
    chip = (made / "b30_psum_scatter_without_tiled.log").read_text()
    for text in (texts["psum_scatter_untiled"], chip):
        (failure, *_) = explain_error(text).failures
        assert (failure.family, failure.finding.op) == (Family.SHARDING, "reduce_scatter")
        assert failure.advice_kind == truth["advice"] == AdviceKind.OTHER
        assert "tiled=True" in failure.finding.suggestion
    (failure, *_) = explain_error(texts["psum_scatter_untiled"]).failures
    assert failure.finding.source == f"{program}:{marked_line(program, 'psum_scatter_untiled')}"


# ---- read after made30's scoring (CPU) --------------------------------------------------------

_MADE30 = """
import sys, traceback, uuid
import jax, jax.numpy as jnp
from jax.sharding import PartitionSpec as P


def fold_in_a_layer_name():
    jax.random.fold_in(jax.random.key(0), "encoder")  # fails here: fold_in_a_layer_name


def key_from_a_uuid():
    jax.random.key(uuid.UUID(int=2**100).int)  # fails here: key_from_a_uuid


def shard_mapped_step_given_a_keyword():
    mesh = jax.make_mesh((8,), ("x",))
    step = jax.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P("x"), out_specs=P("x"))
    step(a=jnp.ones(8))  # fails here: shard_mapped_step_given_a_keyword
"""


@pytest.fixture(scope="module")
def made30(tmp_path_factory):
    pytest.importorskip("jax")
    folder = tmp_path_factory.mktemp("made30")
    return cases_of(
        folder / "cases.py",
        _MADE30,
        JAX_PLATFORMS="cpu",
        XLA_FLAGS="--xla_force_host_platform_device_count=8",
    )


@pytest.mark.parametrize(
    ("case", "made", "op", "advice"),
    [
        # A builtin refusing to convert what jax.random was given: a string's int(), a
        # 128-bit id's C long: the random call's argument, an int key's fix.
        ("fold_in_a_layer_name", "call_fold_in_run_name_string", None, AdviceKind.PRNG_KEY),
        ("key_from_a_uuid", "call_seed_from_uuid_int_overflow", None, AdviceKind.PRNG_KEY),
        # The function shard_map returned, given a keyword ("_shard_map.<locals>.wrapped()
        # got an unexpected keyword argument"): how it was called, shard_map's.
        (
            "shard_mapped_step_given_a_keyword",
            "call_shard_map_loss_called_with_keyword_batch",
            "shard_map",
            None,
        ),
    ],
)
def test_rules_read_after_made30(made30, case, made, op, advice):
    program, texts = made30
    folder = Path(__file__).parent / "data" / "made_errors_blind30"
    truth = json.loads((folder / f"{made}.json").read_text())["truth"]
    for text in (texts[case], (folder / f"{made}.log").read_text()):
        (failure, *_) = explain_error(text).failures
        assert failure.family == truth["kind"] == Family.JAX_CALL
        if advice is not None:
            assert failure.advice_kind == truth["advice"] == advice
        if op is not None:
            assert failure.finding.op == truth["op"] == op
    (failure, *_) = explain_error(texts[case]).failures
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"


@pytest.mark.parametrize(
    ("line", "api"),
    [
        ("curvature = jax.jit(jax.hessian(loss))(w, x)", "hessian"),
        ("j = jax.jacobian(f)(x)", "jacobian"),
        ("j = jacrev(f)(x)", "jacrev"),
        # Another framework's method, or the program's own function of that name: no JAX
        # Jacobian asked for.
        ("jac = tape.jacobian(y, x)", None),
        ("j = jacobian(model, x)", None),
    ],
)
def test_only_jaxs_whole_derivative_calls_are_read_as_one(line, api):
    from hloscope.analysis.explain_error.memory_advice import derivative_matrix_fix

    found = derivative_matrix_fix([line])
    if api is None:
        assert found is None
    else:
        assert found is not None and found[0] == AdviceKind.OTHER and f"jax.{api}" in found[1]
