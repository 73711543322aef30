"""``hloscope.check`` of JAX functions: lowered for a platform without its device.

jax is the oracle throughout: where the check says a primitive has no TPU lowering, jax's own
lowering raises; where it says jax.export refuses a program, jax.export raises; where it says a
tracing error and its fix, jax raises that error, and the fixed function traces, runs and
checks clean. Each finding's source must be the line of this file that has the offending call
(marked ``# <- name`` below).
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

import numpy as np
import pytest
from frameworks_needed import needs_framework

jax = needs_framework("jax")
jnp = pytest.importorskip("jax.numpy")

import hloscope  # noqa: E402
from hloscope.analysis.unsupported import TOP_LEVEL, Reason  # noqa: E402
from hloscope.drivers.jax_check import check_jax  # noqa: E402

HERE = Path(__file__).resolve()
SOURCE = HERE.read_text().splitlines()


def line_of(marker: str) -> str:
    """``file:line`` of the one line of this file ending in ``# <- marker``."""
    hits = [n for n, text in enumerate(SOURCE, 1) if text.rstrip().endswith(f"# <- {marker}")]
    assert len(hits) == 1, f"marker {marker!r} found {len(hits)} times"
    return f"{HERE}:{hits[0]}"


@contextlib.contextmanager
def x64():
    """64-bit types on inside the block, the previous setting back after it."""
    scoped = getattr(jax, "enable_x64", None)
    if scoped is None:  # older jax
        from jax.experimental import enable_x64 as scoped
    before = jax.config.jax_enable_x64
    with scoped(True):
        yield
    assert jax.config.jax_enable_x64 == before


MATRIX = jnp.eye(3, dtype=jnp.float32) + 0.1
VECTOR = jnp.arange(5.0)
N = jnp.int32(3)


def only(report, reason):
    found = [f for f in report.findings if f.reason is reason]
    assert len(found) == 1, [f.to_dict() for f in report.findings]
    return found[0]


# ---- platform-specific lowerings ----------------------------------------------------------------


def nonsymmetric_eig(a):
    return jnp.linalg.eig(a)[0]  # <- eig


def symmetric_eigh(a):
    return jnp.linalg.eigh(a)[0]


def test_eig_has_no_tpu_lowering_and_the_fix_names_eigh():
    with pytest.raises(NotImplementedError, match="MLIR translation rule for primitive 'eig'"):
        jax.jit(nonsymmetric_eig).trace(MATRIX).lower(lowering_platforms=("tpu",))
    report = hloscope.check(nonsymmetric_eig, MATRIX, platform="tpu")
    assert not report.clean
    finding = only(report, Reason.NO_LOWERING)
    assert finding.op == "eig"
    assert finding.function == TOP_LEVEL
    assert finding.source == line_of("eig")
    assert "jnp.linalg.eigh" in finding.suggestion
    assert "not found for platform tpu" in finding.detail


def test_eig_lowers_on_cpu_with_a_lapack_kernel_cpu_provides():
    text = jax.jit(nonsymmetric_eig).trace(MATRIX).lower(lowering_platforms=("cpu",)).as_text()
    assert re.search(r"custom_call @lapack_\w*geev", text)
    report = hloscope.check(nonsymmetric_eig, MATRIX, platform="cpu")
    assert report.clean and not report.findings, [f.to_dict() for f in report.findings]


def test_eigh_for_tpu_is_clean_tpu_provides_eigh():
    text = jax.jit(symmetric_eigh).trace(MATRIX).lower(lowering_platforms=("tpu",)).as_text()
    assert "custom_call @Eigh" in text
    report = hloscope.check(symmetric_eigh, MATRIX, platform="tpu")
    assert report.clean and not report.findings, [f.to_dict() for f in report.findings]
    assert any("by cross-platform lowering (no TPU device used)" in note for note in report.notes)


def two_eigs_in_float64(a):
    first = jnp.linalg.eig(a)[0]  # <- eig one
    second = jnp.linalg.eig(a * 2)[0]  # <- eig two
    return first + second, a * 3.0  # <- f64 multiply


def test_every_unlowerable_use_is_reported_and_the_rest_still_checked():
    with x64():
        a = jnp.eye(3, dtype=jnp.float64) + 0.1
        report = check_jax(two_eigs_in_float64, a, platform="tpu")
    missing = [f for f in report.findings if f.reason is Reason.NO_LOWERING]
    assert sorted(f.source for f in missing) == sorted([line_of("eig one"), line_of("eig two")])
    wide = [f for f in report.findings if f.reason is Reason.DTYPE]
    assert {f.dtype for f in wide} >= {"f64", "c128"}  # the stand-ins keep eig's c128 type
    multiply = next(f for f in wide if f.op == "multiply" and f.dtype == "f64")
    assert multiply.source == line_of("f64 multiply")


def test_eig_for_gpu_lowers_but_export_refuses_its_kernel():
    with pytest.raises(ValueError, match="cuhybrid_eig_real"):
        jax.export.export(jax.jit(nonsymmetric_eig), platforms=["cuda"])(MATRIX)
    report = hloscope.check(nonsymmetric_eig, MATRIX, platform="gpu")
    assert report.clean  # it compiles for CUDA; export is a warning
    finding = only(report, Reason.EXPORT)
    assert finding.op == "cuhybrid_eig_real"
    assert finding.source == line_of("eig")


# ---- primitives reached through library wrappers ------------------------------------------------
# jnp.roots, jax.scipy.linalg.sqrtm, jnp.linalg.eigvals are jitted functions: the equations JAX
# makes inside them carry jax's frames only, and the user's call is a frame of the equation that
# calls them. The finding's line is the innermost user frame of the whole stack.

POLYNOMIAL = jnp.array([1.0, -6.0, 11.0, -6.0])


def polynomial_roots(p):
    return jnp.roots(p, strip_zeros=False) * 2  # <- roots


def matrix_square_root(a):
    return jax.scipy.linalg.sqrtm(a) + 1.0  # <- sqrtm


def spectra_of_two(a):
    first = jnp.linalg.eigvals(a)  # <- eigvals one
    second = jnp.linalg.eigvals(a + 1.0)  # <- eigvals two
    return first + second


def _own_frames_are_all_jax(fn, arg, primitive):
    """JAX's own record of the primitive's equation names no line outside jax: the case."""
    from hloscope.backends import _jaxlib as jaxlib_adapter
    from hloscope.backends import jax_lowering

    placed = jax_lowering.equations_with_callers(jax.make_jaxpr(fn)(arg).jaxpr)
    own = [jaxlib_adapter.equation_frames(e) for e, _ in placed if e.primitive.name == primitive]
    return bool(own) and not any(own)


@pytest.mark.parametrize(
    ("fn", "arg", "primitive", "marker"),
    [
        (polynomial_roots, POLYNOMIAL, "eig", "roots"),
        (matrix_square_root, MATRIX, "schur", "sqrtm"),
    ],
)
def test_a_primitive_inside_a_jax_wrapper_has_the_users_line(fn, arg, primitive, marker):
    with pytest.raises(NotImplementedError, match=f"primitive '{primitive}' not found"):
        jax.jit(fn).trace(arg).lower(lowering_platforms=("tpu",))
    assert _own_frames_are_all_jax(fn, arg, primitive)
    finding = only(check_jax(fn, arg, platform="tpu"), Reason.NO_LOWERING)
    assert finding.op == primitive
    assert finding.source == line_of(marker)
    assert finding.function == TOP_LEVEL


def test_a_jitted_wrapper_called_twice_gives_each_call_its_line():
    report = check_jax(spectra_of_two, MATRIX, platform="tpu")
    missing = [f for f in report.findings if f.reason is Reason.NO_LOWERING]
    assert sorted(f.source for f in missing) == sorted(
        [line_of("eigvals one"), line_of("eigvals two")]
    )


def test_export_refusal_inside_a_wrapper_has_the_users_line():
    # export's own message locates the kernel only as loc("eig"): the line comes from the module
    with pytest.raises(ValueError, match=r'cuhybrid_eig_real.*at loc\("eig"\)'):
        jax.export.export(jax.jit(polynomial_roots), platforms=["cuda"])(POLYNOMIAL)
    finding = only(check_jax(polynomial_roots, POLYNOMIAL, platform="gpu"), Reason.EXPORT)
    assert finding.op == "cuhybrid_eig_real"
    assert finding.source == line_of("roots")


def _module_from(folder: Path, name: str, text: str):
    """Import ``text`` as module ``name`` from ``folder`` (removed from sys.path after)."""
    import importlib
    import sys

    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.py").write_text(text)
    sys.path.insert(0, str(folder))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(folder))


def _line_in(path: Path, marker: str) -> str:
    lines = path.read_text().splitlines()
    return f"{path}:{next(n for n, t in enumerate(lines, 1) if t.endswith(f'# <- {marker}'))}"


HELPERS = """\
import jax
import jax.numpy as jnp


@jax.jit
def _spectrum(a):
    return jnp.linalg.eigvals(a)  # <- helper eigvals


def spectral_radius(a):
    return jnp.abs(_spectrum(a)).max()
"""


def test_a_users_helper_module_two_frames_deep_is_the_source(tmp_path):
    helpers = _module_from(tmp_path / "mylib", "hloscope_test_spectral_helpers", HELPERS)

    def step(a):
        return helpers.spectral_radius(a) + 1.0

    finding = only(check_jax(step, MATRIX, platform="tpu"), Reason.NO_LOWERING)
    assert finding.source == _line_in(Path(helpers.__file__), "helper eigvals")


VENDORED = """\
import jax
import jax.numpy as jnp
import numpy as np


def eigen_features(a):
    return jnp.real(jnp.linalg.eigvals(a))  # <- library eigvals


def host_norm(x):
    shape = jax.ShapeDtypeStruct((), x.dtype)
    return jax.pure_callback(lambda v: np.float32(np.linalg.norm(v)), shape, x)
"""


def test_a_frameworks_own_frames_are_skipped_as_kernels_sources_skip_them(tmp_path):
    # A file in a folder named flax is the framework's, not the user's (the rule of kernels'
    # sources), though JAX's own rule takes it for user code.
    library = _module_from(tmp_path / "vendor" / "flax", "hloscope_test_flax_ops", VENDORED)

    def features(a):
        return library.eigen_features(a) * 2  # <- calls the library

    def norm_of(x):
        return library.host_norm(x) + 1.0  # <- calls the callback

    from hloscope.backends.jax_lowering import lower_for

    facts = lower_for(features, (MATRIX,), platform="tpu", export=False)
    assert str(facts.missing[0].uses[0].where) == _line_in(
        Path(library.__file__), "library eigvals"
    )  # JAX's rule
    missing = only(check_jax(features, MATRIX, platform="tpu"), Reason.NO_LOWERING)
    assert missing.source == line_of("calls the library")
    callback = only(check_jax(norm_of, VECTOR, platform="tpu"), Reason.HOST_CALLBACK)
    assert callback.source == line_of("calls the callback")


# ---- host callbacks -----------------------------------------------------------------------------


def with_callback(x):
    y = jax.pure_callback(np.sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x)  # <- callback
    return y * 2


def test_pure_callback_on_cpu_warns_and_jax_export_really_refuses_it():
    with pytest.raises(NotImplementedError, match="serialization of host_callbacks"):
        jax.export.export(jax.jit(with_callback), platforms=["cpu"])(VECTOR)
    report = hloscope.check(with_callback, VECTOR, platform="cpu")
    assert report.clean  # warnings only
    callback = only(report, Reason.HOST_CALLBACK)
    assert callback.op == "xla_ffi_python_cpu_callback"
    assert callback.source == line_of("callback")
    assert "jax.export" in callback.suggestion
    export = only(report, Reason.EXPORT)
    assert export.node == "host_callbacks"
    assert "serialization of host_callbacks is not yet implemented" in export.detail
    assert export.source == line_of("callback")


def test_pure_callback_for_tpu_is_found_in_the_jaxpr():
    # JAX lowers a TPU callback to send/recv with a TPU client: off TPU it cannot be lowered.
    with pytest.raises(ValueError, match="different from the lowering platform tpu"):
        jax.jit(with_callback).trace(VECTOR).lower(lowering_platforms=("tpu",))
    report = hloscope.check(with_callback, VECTOR, platform="tpu")
    assert report.clean
    callback = only(report, Reason.HOST_CALLBACK)
    assert callback.op == "pure_callback"
    assert callback.source == line_of("callback")
    assert "send/recv" in callback.detail
    assert only(report, Reason.EXPORT).node == "host_callbacks"


# ---- 64-bit types on TPU ------------------------------------------------------------------------


def double_it(x):
    return x * 2.0  # <- double


def test_float64_is_flagged_for_tpu_and_fine_for_cpu():
    with x64():
        x = jnp.ones(4, dtype=jnp.float64)
        text = jax.jit(double_it).trace(x).lower(lowering_platforms=("tpu",)).as_text()
        assert "f64" in text
        tpu = check_jax(double_it, x, platform="tpu")
        cpu = check_jax(double_it, x, platform="cpu")
    assert not tpu.clean
    multiply = next(f for f in tpu.findings if f.op == "multiply")
    assert (multiply.reason, multiply.dtype) == (Reason.DTYPE, "f64")
    assert multiply.source == line_of("double")
    assert "jax_enable_x64" in multiply.suggestion
    assert cpu.clean and not cpu.findings
    # Without x64 the same function is 32-bit and clean for TPU.
    assert check_jax(double_it, jnp.ones(4), platform="tpu").clean


# ---- tracing errors: one case per error of the table, each with its fix -------------------------


def bool_conversion(x):
    if x.sum() > 0:  # <- bool
        return x
    return -x


def bool_conversion_fixed(x):
    return jax.lax.cond(x.sum() > 0, lambda v: v, lambda v: -v, x)


def shape_from_value(x, n):
    return jnp.zeros((n,)) + x.sum()  # <- shape


shape_from_value_fixed = jax.jit(shape_from_value, static_argnames="n")


def arange_traced(x, n):
    return jnp.arange(n) + x.sum()  # <- arange


arange_traced_fixed = jax.jit(arange_traced, static_argnames="n")


def boolean_index(x):
    return x[x > 2]  # <- boolean index


def boolean_index_fixed(x):
    return jnp.where(x > 2, x, 0)


def nonzero(x):
    return jnp.nonzero(x > 2)[0]  # <- nonzero


def nonzero_fixed(x):
    return jnp.nonzero(x > 2, size=5, fill_value=-1)[0]


def unique(x):
    return jnp.unique(x)  # <- unique


def unique_fixed(x):
    return jnp.unique(x, size=5, fill_value=0.0)


def int_of_tracer(x, n):
    return x * int(n)  # <- int


def int_of_tracer_fixed(x, n):
    return x * n.astype(x.dtype)


def range_traced(x, n):
    total = 0.0
    for i in range(n):  # <- range
        total = total + x[i]
    return total


def range_traced_fixed(x, n):
    return jax.lax.fori_loop(0, n, lambda i, total: total + x[i], 0.0)


def slice_traced(x, n):
    return x[:n]  # <- slice


def slice_traced_fixed(x, n):
    return jax.lax.dynamic_slice(x, (n,), (2,))


def numpy_on_tracer(x):
    return np.asarray(x) + 1  # <- asarray


def numpy_on_tracer_fixed(x):
    return jnp.asarray(x) + 1


# (function, fixed function, args, exception class, marker, words the fix must have, node)
TRACING_CASES = [
    (bool_conversion, bool_conversion_fixed, (VECTOR,), "TracerBoolConversionError", "bool",
     ("lax.cond", "jnp.where", "static"), ""),
    (shape_from_value, shape_from_value_fixed, (VECTOR, 3), "TypeError", "shape",
     ("static_argnames",), "shape"),
    (arange_traced, arange_traced_fixed, (VECTOR, 3), "ConcretizationTypeError", "arange",
     ("static_argnames",), "jnp.arange"),
    (boolean_index, boolean_index_fixed, (VECTOR,), "NonConcreteBooleanIndexError",
     "boolean index", ("three-argument", "jnp.where(mask, x, fill)"), ""),
    (nonzero, nonzero_fixed, (VECTOR,), "ConcretizationTypeError", "nonzero",
     ("jnp.nonzero(m, size=K",), "jnp.nonzero"),
    (unique, unique_fixed, (VECTOR,), "ConcretizationTypeError", "unique",
     ("jnp.unique(x, size=K",), "jnp.unique"),
    (int_of_tracer, int_of_tracer_fixed, (VECTOR, N), "ConcretizationTypeError", "int",
     ("astype",), "int"),
    (range_traced, range_traced_fixed, (VECTOR, N), "TracerIntegerConversionError", "range",
     ("fori_loop",), ""),
    (slice_traced, slice_traced_fixed, (VECTOR, N), "IndexError", "slice",
     ("dynamic_slice",), "slice"),
    (numpy_on_tracer, numpy_on_tracer_fixed, (VECTOR,), "TracerArrayConversionError",
     "asarray", ("jax.numpy",), ""),
]  # fmt: skip


def traced_args(args):
    """The example arguments as the broken function sees them: ints become traced int32."""
    return tuple(jnp.int32(a) if isinstance(a, int) else a for a in args)


@pytest.mark.parametrize(
    "broken, fixed, args, error, marker, words, node",
    TRACING_CASES,
    ids=[case[0].__name__ for case in TRACING_CASES],
)
def test_tracing_error_is_a_finding_with_its_line_and_fix(
    broken, fixed, args, error, marker, words, node
):
    broken_args = traced_args(args)
    with pytest.raises(Exception) as raised:
        jax.jit(broken).trace(*broken_args)
    assert type(raised.value).__name__ == error

    report = hloscope.check(broken, *broken_args, platform="tpu")
    assert not report.clean
    finding = only(report, Reason.TRACING)
    assert finding.op == error
    assert finding.node == node
    assert finding.function == TOP_LEVEL
    assert finding.source == line_of(marker)
    for word in words:
        assert word in finding.suggestion, (word, finding.suggestion)
    assert finding.detail and "See https://" not in finding.detail


@pytest.mark.parametrize("case", TRACING_CASES, ids=[case[0].__name__ for case in TRACING_CASES])
def test_the_fixed_function_runs_and_checks_clean(case):
    _, fixed, args, *_ = case
    fixed_args = tuple(a for a in args)
    jax.block_until_ready(
        jax.jit(fixed)(*fixed_args) if not hasattr(fixed, "lower") else fixed(*fixed_args)
    )
    for platform in ("cpu", "tpu"):
        report = hloscope.check(fixed, *fixed_args, platform=platform)
        assert report.clean and not report.findings, [f.to_dict() for f in report.findings]


def test_an_argument_that_should_be_static_is_named_in_the_fix():
    report = check_jax(shape_from_value, VECTOR, N, platform="cpu")
    assert "argument n" in only(report, Reason.TRACING).suggestion


def test_a_nested_function_is_its_own_group():
    def outer(x):
        def body(i, total):
            return total + x[i] * int(i)  # <- nested int

        return jax.lax.fori_loop(0, 3, body, 0.0)

    finding = only(check_jax(outer, VECTOR), Reason.TRACING)
    assert finding.source == line_of("nested int")
    assert finding.function == "outer.body"


# ---- the report ---------------------------------------------------------------------------------


def test_report_to_dict_and_dataframe():
    report = hloscope.check(nonsymmetric_eig, MATRIX, platform="tpu")
    data = report.to_dict()
    assert data["platform"] == "tpu" and data["proxy"] is False and data["clean"] is False
    assert data["findings"][0]["reason"] == "no_lowering"
    frame = report.to_dataframe()
    assert list(frame["op"]) == ["eig"] and frame.loc[0, "source"] == line_of("eig")


def test_a_jitted_function_keeps_its_static_arguments():
    jitted = jax.jit(lambda x, n: jnp.zeros((n,)) + x.sum(), static_argnums=1)
    assert check_jax(jitted, VECTOR, 4, platform="tpu").clean


def test_a_capture_is_checked_offline_and_the_lowering_for_tpu_is_not():
    # A capture holds what JAX lowered for this machine (CPU): its LAPACK kernel does not exist
    # on TPU, although the function itself, lowered for TPU, uses TPU's own Eigh.
    capture = hloscope.capture(symmetric_eigh, MATRIX)
    offline = hloscope.check(capture, platform="tpu")
    assert [f.reason for f in offline.findings] == [Reason.CUSTOM_CALL]
    assert offline.findings[0].op.startswith("lapack_") and offline.findings[0].op.endswith(
        "syevd_ffi"
    )
    assert hloscope.check(symmetric_eigh, MATRIX, platform="tpu").clean


def test_hlo_values_take_no_example_arguments():
    capture = hloscope.capture(symmetric_eigh, MATRIX)
    with pytest.raises(TypeError):
        hloscope.check(capture, MATRIX, platform="tpu")
    with pytest.raises(TypeError):
        hloscope.check(42, platform="tpu")
