"""The rules written for the made corpus (``tests/data/made_errors``, issue 35), each on a
wording from elsewhere besides the made log: an older JAX's words from a public thread or
source, or a second program's message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hloscope.analysis.explain_error import Failure, explain_error

MADE = Path(__file__).parent / "data" / "made_errors"


def _first(text: str) -> Failure:
    failures = explain_error(text).failures
    assert failures, text
    return failures[0]


def _made(name: str) -> Failure:
    return _first((MADE / f"{name}.log").read_text())


def _at_truth_line(failure: Failure, name: str) -> bool:
    """Whether the failure's user line is the case's truth (make.py's marked line)."""
    truth = json.loads((MADE / f"{name}.json").read_text())["truth"]["user_line"]
    return bool(failure.finding.source) and failure.finding.source.endswith("/" + truth)


# ---- concatenate's two refusals (jax_structure) -------------------------------------------------

CONCAT_WORDINGS = [
    # JAX 0.10 (made: shape_concatenate).
    (
        "TypeError: Cannot concatenate arrays with shapes that differ in dimensions other than "
        "the one being concatenated: concatenating along dimension 0 for shapes (2, 3), (2, 4).",
        "(2, 3), (2, 4)",
    ),
    # JAX's lax before "concatenating along" (its source, 2019-2020).
    (
        "TypeError: Cannot concatenate arrays with shapes that differ in dimensions other than "
        "the one being concatenated: dimension 1 for shapes (3, 4), (5, 4).",
        "(3, 4), (5, 4)",
    ),
    # A paste that wrapped after the colon (a user's notes, 2025).
    (
        "TypeError: Cannot concatenate arrays with shapes that differ in dimensions other than "
        "the one being concatenated:\nconcatenating along dimension 3 for shapes "
        "(4, 4, 71721, 1), (4, 1, 71721, 1).",
        "(4, 4, 71721, 1), (4, 1, 71721, 1)",
    ),
    # The rank refusal (made: shape_concatenate_rank).
    (
        "TypeError: Cannot concatenate arrays with different numbers of dimensions: got (2, 3), "
        "(3,).",
        "(2, 3), (3,)",
    ),
]


@pytest.mark.parametrize(("text", "shapes"), CONCAT_WORDINGS)
def test_concatenate_refusals_in_every_wording(text: str, shapes: str) -> None:
    failure = _first(text)
    assert (str(failure.family), failure.finding.op) == ("jax_shape", "concatenate")
    assert failure.advice_kind == "fix_shapes"
    assert shapes in failure.finding.suggestion


def test_concatenate_in_the_made_logs() -> None:
    for name in ("shape_concatenate", "shape_concatenate_rank"):
        failure = _made(name)
        assert failure.finding.op == "concatenate"
        assert _at_truth_line(failure, name)


# ---- a custom rule's structure: the API's own name (jax_structure) -------------------------------


@pytest.mark.parametrize(
    ("text", "op"),
    [
        # custom_vjp, JAX 0.10 (made: call_custom_vjp_bwd).
        (
            "TypeError: Custom VJP bwd rule must produce an output with the same container "
            "(pytree) structure as the args tuple of the primal function, and in particular must "
            "produce a tuple of length equal to the number of arguments to the primal function, "
            "but got bwd output structure PyTreeDef((*,)) for primal input structure "
            "PyTreeDef((*, *)).",
            "custom_vjp",
        ),
        # custom_vjp, JAX 0.2 ("Custom VJP rule", no "bwd").
        (
            "TypeError: Custom VJP rule must produce an output with the same container (pytree) "
            "structure as the args tuple of the primal function, and in particular must produce "
            "a tuple of length equal to the number of arguments to the primal function, but got "
            "VJP output structure PyTreeDef(tuple, [*]) for primal input structure "
            "PyTreeDef(tuple, [*,*]).",
            "custom_vjp",
        ),
        # custom_jvp: "equal container (pytree) structures" (made: shape_custom_jvp_rule).
        (
            "TypeError: Custom JVP rule softclip_jvp for function softclip must produce primal "
            "and tangent outputs with equal container (pytree) structures, but got PyTreeDef(*) "
            "and PyTreeDef((*, *)) respectively.",
            "custom_jvp",
        ),
    ],
)
def test_custom_rules_name_their_api(text: str, op: str) -> None:
    failure = _first(text)
    assert (str(failure.family), failure.finding.op, failure.advice_kind) == (
        "jax_shape",
        op,
        "fix_shapes",
    )


# ---- a transformation's per-argument spec (api_spec) --------------------------------------------

SPEC_WORDINGS = [
    # JAX 0.10 (made: call_vmap_in_axes).
    (
        "ValueError: vmap in_axes must be an int, None, or a tuple of entries corresponding to "
        "the positional arguments passed to the function, but got len(in_axes)=3, len(args)=2",
        "vmap",
        "3 entries for 2 arguments",
    ),
    # JAX 0.3 (jax-ml/jax#9928, 2022).
    (
        "ValueError: vmap in_axes specification must be a tree prefix of the corresponding "
        "value, got specification (0, 0) for value tree PyTreeDef((*, *, *)).",
        "vmap",
        "",
    ),
    # jit's in_shardings, named pjit by the message (made: call_in_shardings_tree).
    (
        "ValueError: pjit in_shardings specification must be a tree prefix of the positional "
        "arguments tuple. In particular, pjit in_shardings must either be a Sharding, a "
        "PartitionSpec, or a tuple of length equal to the number of positional arguments. But "
        "pjit in_shardings is the wrong length: got a tuple or list of length 2 for an args "
        "tuple of length 1.",
        "jit",
        "2 entries for 1 arguments",
    ),
    # pmap (JAX 0.3's words, jax-ml/jax#13214's kind).
    (
        "ValueError: pmap in_axes specification must be a tree prefix of the corresponding "
        "value, got specification [None, 0, None, 0] for value tree PyTreeDef((*, *, *, *)).",
        "pmap",
        "",
    ),
]


@pytest.mark.parametrize(("text", "op", "counts"), SPEC_WORDINGS)
def test_a_spec_that_does_not_fit_the_arguments(text: str, op: str, counts: str) -> None:
    failure = _first(text)
    assert (str(failure.family), failure.finding.op, failure.advice_kind) == (
        "jax_call",
        op,
        "fix_shapes",
    )
    assert counts in failure.finding.suggestion


def test_out_axes_made_log_reads_the_spec_not_the_pytree_detail() -> None:
    failure = _made("call_vmap_out_axes")
    assert (failure.finding.op, failure.advice_kind) == ("vmap", "fix_shapes")
    assert "out_axes" in failure.finding.suggestion


@pytest.mark.parametrize(
    ("name", "what"), [("call_jit_non_callable", "an array"), ("call_grad_non_callable", "3.0")]
)
def test_a_transformation_given_no_function(name: str, what: str) -> None:
    failure = _made(name)
    assert (str(failure.family), failure.advice_kind) == ("jax_call", "other")
    assert what in failure.finding.suggestion and "jax.jit(f)" in failure.finding.suggestion
    assert _at_truth_line(failure, name)


def test_not_callable_words_elsewhere_are_not_read() -> None:
    # a message that merely quotes the words in prose, not as an exception's
    assert not explain_error("all good: nothing to see here").failures


# ---- jax.export (jax_export, export_artifact) ----------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # JAX 0.10 (made: export_callback).
        "NotImplementedError: serialization of host_callbacks is not yet implemented",
        # JAX 0.4.2x, jax.experimental.export.
        "ValueError: serialization error, unimplemented lowered.compile_args: host_callbacks",
    ],
)
def test_a_host_callback_in_an_export_is_taken_out(text: str) -> None:
    failure = _first(text)
    assert (str(failure.family), failure.finding.op) == ("jax_export", "host_callback")
    assert failure.advice_kind == "replace_op"


_OLD_DESERIALIZE = """\
Traceback (most recent call last):
  File "/home/me/serve.py", line 12, in <module>
    exp = export.deserialize(blob)
  File "/opt/py/site-packages/jax/experimental/export/_export.py", line 301, in deserialize
    return serialization.deserialize(blob)
  File "/opt/py/site-packages/jax/experimental/export/serialization.py", line 97, in deserialize
    exp = ser_flatbuf.Exported.GetRootAsExported(ser)
  File "/opt/py/site-packages/flatbuffers/table.py", line 94, in Get
    return encode.Get(packer_type, self.Bytes, off)
IndexError: index out of range
"""


@pytest.mark.parametrize("name", ["export_deserialize_garbage", "export_deserialize_truncated"])
def test_bytes_deserialize_cannot_read(name: str) -> None:
    failure = _made(name)
    assert (str(failure.family), failure.finding.op) == ("jax_export", "deserialize")
    assert failure.error_class == "struct.error"
    assert _at_truth_line(failure, name)
    assert "'rb'" in failure.finding.suggestion


def test_bytes_deserialize_cannot_read_in_jax_experimental_export() -> None:
    explanation = explain_error(_OLD_DESERIALIZE)
    assert len(explanation.failures) == 1
    failure = explanation.failures[0]
    assert (str(failure.family), failure.error_class) == ("jax_export", "IndexError")
    assert failure.finding.source == "/home/me/serve.py:12"


def test_a_deserialize_frame_without_an_error_is_not_a_failure() -> None:
    text = '  File "/x/jax/_src/export/serialization.py", line 151, in deserialize\n'
    assert not explain_error(text).failures


# ---- Pallas BlockSpecs (pallas_specs) ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "rank"),
    [
        # JAX 0.10 (made: pallas_block_rank).
        (
            "ValueError: Block shape for args[0] (= (Blocked(block_size=4), "
            "Blocked(block_size=4))) must have the same number of dimensions as the array shape "
            "(16,).",
            "2 block dimensions",
        ),
        # Without "for args[N]" (a kernel writer's notes, 2026, a 4-D block for a 5-D array).
        (
            "ValueError: Block shape (= (Blocked(block_size=1), Blocked(block_size=1), "
            "Blocked(block_size=64), Blocked(block_size=128))) must have the same number of "
            "dimensions as the array shape (2, 16, 64, 64, 128)",
            "4 block dimensions",
        ),
    ],
)
def test_a_block_shape_of_another_rank(text: str, rank: str) -> None:
    failure = _first(text)
    assert (str(failure.family), failure.finding.op, failure.advice_kind) == (
        "pallas",
        "pallas_call",
        "fix_shapes",
    )
    assert rank in failure.finding.suggestion


@pytest.mark.parametrize(
    ("name", "detail"),
    [
        ("pallas_index_map_arity", "it takes 1, it was given 2"),
        ("pallas_out_index_map_arity", "it lacks 1 more"),
    ],
)
def test_an_index_map_of_another_arity(name: str, detail: str) -> None:
    failure = _made(name)
    assert (str(failure.family), failure.advice_kind) == ("pallas", "fix_shapes")
    assert detail in failure.finding.suggestion
    assert _at_truth_line(failure, name)


def test_python_arity_errors_outside_an_index_map_are_not_pallas() -> None:
    text = """\
Traceback (most recent call last):
  File "/home/me/train.py", line 3, in <module>
    step(1, 2)
TypeError: step() takes 1 positional argument but 2 were given
"""
    assert all(str(f.family) != "pallas" for f in explain_error(text).failures)


# ---- a compiled executable called with other types (compiled_call) -------------------------------


@pytest.mark.parametrize(
    ("text", "detail"),
    [
        # JAX 0.10 (made: call_compiled_other_shape).
        (
            "TypeError: Argument types differ from the types for which this computation was "
            "compiled. Perhaps you are calling the compiled executable with a different "
            "enable_x64 mode than when it was AOT compiled? The mismatches are:\n"
            "Argument 'x' compiled with float32[3] and called with float32[4]",
            "argument 'x': compiled for float32[3], called with float32[4]",
        ),
        # JAX 0.3-0.4 (its source and tests).
        (
            "TypeError: Computation was compiled for different input types and called with "
            "different types. One of the mismatches is:\nCompiled with:\n ShapedArray(float32[])"
            "\ncalled with:\n ShapedArray(int32[])",
            "compiled for ShapedArray(float32[]), called with ShapedArray(int32[])",
        ),
        (
            "TypeError: Computation was compiled for different input types and called with "
            "different types. Here are the 2 mismatches:\nCompiled with float32[8,8] and called "
            "with int32[8,8] for arg x\nCompiled with float32[8,8] and called with int32[8,8] "
            "for arg y",
            "argument 'x': compiled for float32[8,8], called with int32[8,8]",
        ),
        ("TypeError: Computation compiled for 2 inputs but called with 1", "2 inputs"),
    ],
)
def test_a_compiled_executable_called_with_other_types(text: str, detail: str) -> None:
    failure = _first(text)
    assert (str(failure.family), failure.advice_kind) == ("jax_call", "fix_shapes")
    assert detail in failure.finding.suggestion


# ---- a primitive's dtype rule (jax_operands) ----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "op", "accepted"),
    [
        # JAX 0.10 (made: linalg_qr_integer).
        (
            "TypeError: qr does not accept dtype int32 at position 0. Accepted dtypes at "
            "position 0 are subtypes of floating, complexfloating.",
            "qr",
            "floating, complexfloating",
        ),
        # JAX's older rule, without positions (its cumulative reductions' source).
        (
            "TypeError: cumsum does not accept dtype bool. Accepted dtypes are subtypes of number.",
            "cumsum",
            "number",
        ),
        # Quoted without the accepted ones (a user's notes on complex max, 2026).
        ("TypeError: gt does not accept dtype complex64 at position 0.", "gt", "complex64"),
    ],
)
def test_a_dtype_a_primitive_does_not_accept(text: str, op: str, accepted: str) -> None:
    failure = _first(text)
    assert (str(failure.family), failure.finding.op, failure.advice_kind) == (
        "jax_shape",
        op,
        "cast_dtype",
    )
    assert accepted in failure.finding.suggestion


def test_a_prng_key_dtype_is_not_a_cast() -> None:
    failures = explain_error("TypeError: add does not accept dtype key<fry>.").failures
    assert all(f.advice_kind != "cast_dtype" for f in failures)


# ---- a custom call jax.export refuses (jax_export) ----------------------------------------------


def test_a_named_custom_call_export_refuses_is_allowed_or_replaced() -> None:
    failure = _made("export_eig_for_cuda")
    assert str(failure.family) == "jax_export" and str(failure.platform) == "gpu"
    kinds = [failure.advice_kind, *(kind for kind, _ in failure.more_advice)]
    assert kinds[:2] == ["disable_check", "replace_op"]
    assert failure.finding.op in failure.finding.suggestion
    # the same refusal from an older JAX's log (jax.experimental.export, a TPU target)
    older = (
        "ValueError: Cannot serialize code with custom calls whose targets have no "
        "compatibility guarantees: tpu_custom_call. See https://github.com/google/jax/blob/"
        "main/jax/experimental/jax2tf/README.md#native-serialization-custom-call-targets\n"
        "Examples are:\n"
        "%0 = stablehlo.custom_call @tpu_custom_call(%arg0) : (tensor<8xf32>) -> "
        "tensor<8xf32>\n"
    )
    failure = _first(older)
    assert failure.finding.op == "tpu_custom_call"
    assert [failure.advice_kind, *(k for k, _ in failure.more_advice)][:2] == [
        "disable_check",
        "replace_op",
    ]


def test_does_not_accept_dtype_in_prose_is_no_primitive() -> None:
    failures = explain_error("the old kernel: it does not accept dtype int32 here").failures
    assert all(f.finding.op != "it" for f in failures)


def test_the_dtype_rule_is_read_in_linear_time_on_a_long_word() -> None:
    # keyed on its words, not a word class at every position: a 400 kB token costs no more
    # than a scan (it took 2 s at 20 kB when the primitive's class opened the pattern)
    import time

    text = "x" * 400_000 + "\nTypeError: qr does not accept dtype int32 at position 0.\n"
    start = time.perf_counter()
    failures = explain_error(text).failures
    assert time.perf_counter() - start < 5.0
    assert failures and failures[0].finding.op == "qr"
