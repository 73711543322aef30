"""explain_error: TensorFlow, JAX and XLA error text explained (op, device, function, user code).

The oracles, strongest first:

* **live**: the tests make TF 2.21 and jax fail for real (a fixture each, so each framework
  is loaded once) and check the explanation against this file -- the op the function uses,
  the line that created it, marked ``# OP:name`` / ``# CALL:name`` / ``# DEF:name`` below;
* **corpus**: every ``tf_unsupported_errors/*.error.txt`` of ../shared/corpus, with the
  expectations derived from its ``SOURCE.py`` (which op each function uses, on which line,
  and through which calls), never copied out of the error files;
* **hand-written**: message forms no framework here can produce (TF 1.x, the MLIR bridge,
  TPU runtime errors), copied from the diagnostics notes and marked so.
"""

from __future__ import annotations

import ast
import re
import traceback
from pathlib import Path

import pytest
from big_logs import noisy_log
from conftest import CORPUS, corpus_path
from frameworks_needed import needs_framework

from hloscope.analysis.explain_error import (
    RECOGNISERS,
    ErrorExplanation,
    Failure,
    Family,
    clean_function_name,
    decode_log,
    explain_error,
    normalise_log,
)
from hloscope.analysis.unsupported import CheckReport, Platform, Reason
from hloscope.analysis.unsupported.fixes import suggest

HERE = Path(__file__)
SOURCE_LINES = HERE.read_text().splitlines()


def line_of(marker: str) -> int:
    """The line of this file that carries ``# marker`` (the live oracles' expectations)."""
    (line,) = [n for n, text in enumerate(SOURCE_LINES, 1) if text.rstrip().endswith(marker)]
    return line


def in_this_file(frame_file: str) -> bool:
    # TensorFlow strips the common prefix of its frames: `work/main/tests/test_x.py`.
    return frame_file.endswith(f"tests/{HERE.name}")


def only(explanation: ErrorExplanation) -> Failure:
    assert explanation.recognised, "nothing recognised"
    (failure,) = explanation.failures
    return failure


def innermost_here(failure: Failure) -> int:
    """The line of the innermost user frame, which must be in this file."""
    frame = failure.user_stack[0]
    assert in_this_file(frame.file), frame
    return frame.line


# ---- the corpus: expectations from SOURCE.py ---------------------------------------------------

# The TF op each Python API of SOURCE.py creates, None where XLA on CPU compiles it
# (diagnostics notes A1: tf.unique / tf.boolean_mask compile to bounded dynamic shapes).
API_OPS: dict[str, str | None] = {
    "tf.strings.as_string": "AsString",
    "tf.strings.length": "StringLength",
    "tf.py_function": "EagerPyFunc",
    "tf.numpy_function": "PyFunc",
    "tf.unique": None,
    "tf.boolean_mask": None,
    "tf.nn.relu": None,
    "tf.greater": None,
}


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else ""


def _calls_in_evaluation_order(node: ast.AST):
    """Calls in the order Python runs them (arguments before the call): TF creates ops, and
    reports the first unsupported one, in that order."""
    for child in ast.iter_child_nodes(node):
        yield from _calls_in_evaluation_order(child)
    if isinstance(node, ast.Call):
        yield node


def corpus_expectations(source: Path) -> dict[str, dict]:
    """Per attempt name (the error file's stem): the function, the op it should fail on (None
    when it compiles) and the user stack innermost first, as ``(line, function)``."""
    tree = ast.parse(source.read_text())
    functions = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    attempt = functions["attempt"]
    (call_in_attempt,) = [
        c
        for c in ast.walk(attempt)
        if isinstance(c, ast.Call) and _dotted(c.func) == attempt.args.args[1].arg
    ]
    expected = {}
    for statement in tree.body:
        call = getattr(statement, "value", None)
        if not (isinstance(call, ast.Call) and _dotted(call.func) == "attempt"):
            continue
        name, fn_name = call.args[0].value, call.args[1].id
        ops = [
            (API_OPS[_dotted(c.func)], c.lineno)
            for c in _calls_in_evaluation_order(functions[fn_name])
            if _dotted(c.func) in API_OPS
        ]
        op, line = next(((o, n) for o, n in ops if o), (None, None))
        expected[name] = {
            "function": fn_name,
            "op": op,
            "stack": [
                (line, fn_name),
                (call_in_attempt.lineno, "attempt"),
                (call.lineno, "<module>"),
            ],
        }
    return expected


def _corpus_errors() -> list[Path]:
    folder = CORPUS / "generated" / "tf_unsupported_errors"
    return sorted(folder.glob("*.error.txt")) if folder.is_dir() else []


@pytest.mark.parametrize("path", _corpus_errors() or [None], ids=lambda p: p.name if p else "none")
def test_every_corpus_error_is_explained_as_its_source_says(path):
    folder = corpus_path() / "generated" / "tf_unsupported_errors"
    if path is None:
        pytest.fail(f"no *.error.txt in {folder}")
    expected = corpus_expectations(folder / "SOURCE.py")[path.name.removesuffix(".error.txt")]
    explanation = explain_error(path.read_text())
    if expected["op"] is None:  # the function compiles: the file says so, nothing to explain
        assert not explanation.recognised
        return
    failure = only(explanation)
    assert failure.family == Family.TF2XLA
    assert failure.finding.op == expected["op"] and failure.finding.node == expected["op"]
    assert failure.finding.reason == Reason.NO_KERNEL
    assert failure.device == "XLA_CPU_JIT" and failure.platform == Platform.CPU
    assert failure.graph.name == expected["function"] == failure.finding.function
    assert [ref.name for ref in failure.chain] == [expected["function"]]
    frames = failure.user_stack
    assert [(f.line, f.function) for f in frames] == expected["stack"]
    assert {Path(f.file).stem for f in frames} == {folder.name}  # corpus/<case>.py
    assert failure.finding.source == f"{frames[0].file}:{expected['stack'][0][0]}"
    assert failure.finding.suggestion and failure.error_class == "InvalidArgumentError"


def test_corpus_expectations_cover_every_error_file(corpus):
    folder = corpus / "generated" / "tf_unsupported_errors"
    expected = corpus_expectations(folder / "SOURCE.py")
    assert {p.name.removesuffix(".error.txt") for p in _corpus_errors()} == set(expected)
    assert any(e["op"] for e in expected.values()) and any(not e["op"] for e in expected.values())


# ---- live TensorFlow ---------------------------------------------------------------------------


def _tf_error(call) -> tuple[str, str]:
    """``(the exception as the corpus writes it, the full traceback)`` of ``call()``."""
    try:
        call()
    except Exception as error:  # noqa: BLE001 - any TF error is the oracle's output
        return f"{type(error).__name__}: {error}", traceback.format_exc()
    pytest.fail("TensorFlow compiled a function that should not compile")


@pytest.fixture(scope="module")
def tf_errors() -> dict[str, tuple[str, str]]:
    """Real TF 2.21 error texts, one per case: loaded once for the module."""
    tf = needs_framework("tensorflow")

    @tf.function(jit_compile=True)
    def as_string(x):
        return tf.strings.as_string(x)  # OP:as_string

    @tf.function(jit_compile=True)
    def string_arg(s):
        return tf.strings.to_number(s)

    @tf.function(jit_compile=True)
    def loop(x):
        def body(i, y):
            return i + 1, y + tf.strings.to_number(tf.strings.as_string(y))  # OP:while_body

        return tf.while_loop(lambda i, y: i < 3, body, [tf.constant(0), x])[1]

    @tf.function(jit_compile=True)
    def sized(x):
        n = tf.cast(tf.random.uniform([], 1, 5), tf.int32)
        return x[0] + tf.zeros([n])  # OP:sized

    x = tf.constant([1.0, 2.0])
    return {
        "as_string": _tf_error(lambda: as_string(x)),
        "string_arg": _tf_error(lambda: string_arg(tf.constant(["1"]))),  # CALL:string_arg
        "loop": _tf_error(lambda: loop(x)),
        "sized": _tf_error(lambda: sized(x)),
    }


def test_tf_live_no_kernel(tf_errors):
    for text in tf_errors["as_string"]:  # the message alone, and inside its traceback
        failure = only(explain_error(text))
        assert (failure.finding.op, failure.finding.reason) == ("AsString", Reason.NO_KERNEL)
        assert failure.device == "XLA_CPU_JIT" and failure.platform == Platform.CPU
        assert failure.graph.name == "as_string" and failure.graph.id.startswith("__inference_")
        assert innermost_here(failure) == line_of("# OP:as_string")
        assert failure.user_stack[0].function == "as_string"
        assert failure.finding.suggestion == suggest("AsString")


def test_tf_live_string_argument_is_a_dtype_problem(tf_errors):
    failure = only(explain_error(tf_errors["string_arg"][0]))
    finding = failure.finding
    assert (finding.op, finding.node, finding.reason) == ("_Arg", "s", Reason.DTYPE)
    assert finding.dtype == "DT_STRING" and finding.function == "string_arg"
    assert innermost_here(failure) == line_of("# CALL:string_arg")
    assert finding.suggestion == suggest("_Arg")


def test_tf_live_while_body_chain_innermost_first(tf_errors):
    failure = only(explain_error(tf_errors["loop"][0]))
    assert failure.finding.op == "AsString" and failure.finding.node == "while/AsString"
    assert [ref.name for ref in failure.chain] == ["while_body", "loop"]
    assert (
        failure.chain[0].id.startswith("while_body_") and failure.finding.function == "while_body"
    )
    assert innermost_here(failure) == line_of("# OP:while_body")
    assert failure.user_stack[0].function == "body"


def test_tf_live_must_be_compile_time_constant(tf_errors):
    failure = only(explain_error(tf_errors["sized"][1]))
    assert failure.family == Family.TF_KNOWN_ISSUE
    assert (failure.finding.op, failure.finding.node) == ("Fill", "zeros")
    assert failure.finding.reason == Reason.DYNAMIC_SHAPE and failure.finding.function == "sized"
    assert innermost_here(failure) == line_of("# OP:sized")


# ---- live JAX ----------------------------------------------------------------------------------


def _jax_error(call) -> str:
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the traceback is the oracle's output
        MESSAGES[call] = str(error)
        return traceback.format_exc()
    pytest.fail("jax traced a function that should not trace")


# The exception's own text (no traceback, no class name) of each `_jax_error` call.
MESSAGES: dict = {}


# Each tracing error of the notes' table A3.1: (case, expected class, culprit API or "").
TRACING_CASES = [
    ("bool", "TracerBoolConversionError", ""),
    ("zeros", "TypeError", ""),
    ("arange", "ConcretizationTypeError", "jnp.arange"),
    ("mask", "NonConcreteBooleanIndexError", ""),
    ("at_set", "NonConcreteBooleanIndexError", ""),
    ("nonzero", "ConcretizationTypeError", "jnp.nonzero"),
    ("unique", "ConcretizationTypeError", "jnp.unique"),
    ("int", "ConcretizationTypeError", "int"),
    ("range", "TracerIntegerConversionError", ""),
    ("slice", "IndexError", ""),
    ("numpy", "TracerArrayConversionError", ""),
]


@pytest.fixture(scope="module")
def jax_errors() -> dict[str, str]:
    """Real jax error tracebacks, one per case."""
    jax = needs_framework("jax")
    import jax.numpy as jnp
    import numpy as np
    from jax import export

    def bool_(x):  # DEF:bool
        return x if x.sum() > 0 else -x  # OP:bool

    def zeros(x, n):  # DEF:zeros
        return jnp.zeros((n,))  # OP:zeros

    def arange(x, n):  # DEF:arange
        return jnp.arange(n)  # OP:arange

    def mask(x):  # DEF:mask
        return x[x > 2]  # OP:mask

    def at_set(x):  # DEF:at_set
        return x.at[x < 0].set(0)  # OP:at_set

    def nonzero(x):  # DEF:nonzero
        return jnp.nonzero(x > 0)  # OP:nonzero

    def unique(x):  # DEF:unique
        return jnp.unique(x)  # OP:unique

    def int_(x, n):  # DEF:int
        return x * int(n)  # OP:int

    def range_(x, n):  # DEF:range
        return sum(x[i] for i in range(n))  # OP:range

    def slice_(x, n):  # DEF:slice
        return x[:n]  # OP:slice

    def numpy_(x):  # DEF:numpy
        return np.asarray(x)  # OP:numpy

    def callback(x):
        return jax.pure_callback(np.sin, jax.ShapeDtypeStruct(x.shape, x.dtype), x)

    x = jnp.arange(5.0)
    with_n = {"zeros", "arange", "int", "range", "slice"}
    functions = {
        "bool": bool_, "zeros": zeros, "arange": arange, "mask": mask, "at_set": at_set,
        "nonzero": nonzero, "unique": unique, "int": int_, "range": range_, "slice": slice_,
        "numpy": numpy_,
    }  # fmt: skip
    texts = {}
    for name, f in functions.items():
        call = lambda f=f, name=name: jax.jit(f)(x, *((3,) if name in with_n else ()))  # noqa: E731
        texts[name] = _jax_error(call)
        texts[f"{name}.message"] = MESSAGES.pop(call)
    eye = jnp.eye(3)
    texts["eig_tpu"] = _jax_error(
        lambda: jax.jit(jnp.linalg.eig).trace(eye).lower(lowering_platforms=("tpu",))  # CALL:eig
    )
    texts["export_callback"] = _jax_error(
        lambda: export.export(jax.jit(callback))(x)  # CALL:export_callback
    )
    texts["export_eig_cuda"] = _jax_error(
        lambda: export.export(jax.jit(jnp.linalg.eig), platforms=("cuda",))(eye)  # CALL:cuda
    )
    exported = export.export(jax.jit(jnp.sin), platforms=("tpu",))(x)
    texts["wrong_platform"] = _jax_error(lambda: exported.call(x))  # CALL:wrong_platform
    with jax.no_tracing(True):
        texts["no_tracing"] = _jax_error(lambda: jax.jit(lambda a: a + 1)(x))  # CALL:no_tracing
    return texts


@pytest.mark.parametrize(("case", "error_class", "culprit"), TRACING_CASES)
def test_jax_tracing_errors(jax_errors, case, error_class, culprit):
    failure = only(explain_error(jax_errors[case]))
    finding = failure.finding
    assert failure.family == Family.JAX_TRACING and finding.reason == Reason.TRACING
    # The function JAX names as needing a concrete value is the op; else the call of JAX's
    # API on the user's line (jnp.zeros of a traced size); else the error's class.
    op = culprit.rsplit(".", 1)[-1] or {"zeros": "zeros"}.get(case) or error_class
    assert (finding.op, failure.error_class, finding.node) == (op, error_class, culprit)
    assert innermost_here(failure) == line_of(f"# OP:{case}")
    assert finding.source.endswith(f"{HERE.name}:{line_of(f'# OP:{case}')}")
    if failure.defined_at is not None:  # the classes that say "while tracing the function"
        assert failure.defined_at.line == line_of(f"# DEF:{case}")
        assert finding.function == failure.defined_at.function
    assert failure.platform is None
    # The fixes row of `Class:trigger` when there is one, else the class's own row.
    trigger = culprit.rsplit(".", 1)[-1] or {"TypeError": "shape", "IndexError": "slice"}.get(
        error_class, ""
    )
    specific = suggest(f"{error_class}:{trigger}") if trigger else ""
    assert finding.suggestion == (specific or suggest(error_class, Reason.TRACING))


@pytest.mark.parametrize(("case", "error_class", "culprit"), TRACING_CASES)
def test_jax_tracing_message_alone_still_names_the_class(jax_errors, case, error_class, culprit):
    # str(error): no traceback and no class name, so the form of the message decides.
    failure = only(explain_error(jax_errors[f"{case}.message"]))
    assert failure.error_class == error_class and failure.finding.node == culprit
    assert failure.finding.op == (culprit.rsplit(".", 1)[-1] or error_class)
    if failure.defined_at is not None:  # no traceback: the traced function's line is the source
        assert failure.finding.source.endswith(f"{HERE.name}:{line_of(f'# DEF:{case}')}")


def test_jax_no_tracing_names_the_retraced_function(jax_errors):
    failure = only(explain_error(jax_errors["no_tracing"]))
    assert failure.finding.op == "RuntimeError" and failure.finding.function == "<lambda>"
    assert innermost_here(failure) == line_of("# CALL:no_tracing")


def test_jax_eig_lowered_for_tpu(jax_errors):
    failure = only(explain_error(jax_errors["eig_tpu"]))
    assert failure.family == Family.MISSING_LOWERING
    assert (failure.finding.op, failure.finding.reason) == ("eig", Reason.NO_LOWERING)
    assert failure.platform == Platform.TPU and failure.finding.suggestion == suggest("eig")
    assert innermost_here(failure) == line_of("# CALL:eig")


def test_jax_export_of_a_callback(jax_errors):
    failure = only(explain_error(jax_errors["export_callback"]))
    assert failure.family == Family.JAX_EXPORT and failure.finding.reason == Reason.EXPORT
    assert failure.finding.op == "host_callback" and failure.finding.suggestion
    assert innermost_here(failure) == line_of("# CALL:export_callback")


def test_jax_export_of_a_custom_call_without_guarantees(jax_errors):
    failure = only(explain_error(jax_errors["export_eig_cuda"]))
    assert failure.family == Family.JAX_EXPORT
    assert failure.finding.op == "cuhybrid_eig_real"  # the target the refusal names
    assert innermost_here(failure) == line_of("# CALL:cuda")


def test_jax_export_used_on_another_platform(jax_errors):
    failure = only(explain_error(jax_errors["wrong_platform"]))
    assert failure.finding.op == "sin" and failure.platform == Platform.CPU
    assert failure.device == "cpu (exported for tpu)"
    assert innermost_here(failure) == line_of("# CALL:wrong_platform")


# ---- hand-written samples: forms that cannot be produced here ----------------------------------

# HAND-WRITTEN, from the diagnostics notes A1 (TF 1.x, tensorflow/tpu#176).
TF1_LIST = """\
  File "/usr/lib/python2.7/dist-packages/tensorflow/python/client/session.py", line 1335, in run
    raise type(e)(node_def, op, message)
tensorflow.python.framework.errors_impl.InvalidArgumentError: Compilation failure: Detected \
unsupported operations when trying to compile graph _functionalize_body_14[] on XLA_TPU_JIT:\
ResizeNearestNeighbor, ResizeNearestNeighbor, ResizeNearestNeighborGrad, ResizeNearestNeighborGrad
         [[Node: LoopCond = XlaWhile[T=[DT_INT32, DT_FLOAT], body=_functionalize_body_14[]]()]]
"""
# HAND-WRITTEN, from the diagnostics notes A1 (MLIR bridge, tensorflow/models#10256).
MLIR_LIST = """\
ex.mlir:3:3: error: The following operations cannot be legalized: tf.CropAndResize (count: 2); \
tf.NonMaxSuppressionV5 (count: 91); tf.Where (count: 3). These legalization failure(s) may be \
due to missing TF to HLO lowerings and/or unsupported attributes, etc.
ex.mlir:3:3: error: Emitting more detail about one op that failed to legalize...
ex.mlir:289:16: error: 'tf.CropAndResize' op is not legalizable
"""
# HAND-WRITTEN, from the diagnostics notes A3.5 (jax-ml/jax#19769, #21108).
C128 = (
    "jaxlib.xla_extension.XlaRuntimeError: INVALID_ARGUMENT: Element type C128 is not "
    "supported on TPU.\n"
)
X64 = (
    "jax.errors.JaxRuntimeError: UNIMPLEMENTED: While rewriting computation to not contain X64 "
    "element types, XLA encountered an HLO for which this rewriting is not implemented: "
    "%bitcast-convert.5 = s64[3]{0} bitcast-convert(f64[3]{0} %Arg_0.1)\n"
)
# HAND-WRITTEN, from the diagnostics notes A1 known issues and A3.2 (Pallas).
TENSOR_LIST = (
    "InvalidArgumentError: XLA compilation requires a fixed tensor list size. Set the max "
    "number of elements. This could also happen if you're using a TensorArray in a while loop "
    "that does not have its maximum_iteration set.\n\t [[{{node while/TensorListSetItem}}]]\n"
)
PALLAS = (
    "ValueError: Cannot lower pallas_call on platform: cpu. To use Pallas on GPU, install jaxlib "
    "GPU. To use Pallas on TPU, install jaxlib TPU and libtpu.\n"
)
TPU_PER_OP = (
    "Detected unsupported operations when trying to compile graph cluster_train_function_123[] "
    "on XLA_TPU_JIT: ExtractImagePatches (No registered 'ExtractImagePatches' OpKernel for "
    "XLA_TPU_JIT devices compatible with node {{node model/patches/ExtractImagePatches}}\n\t "
    "(OpKernel was found, but attributes didn't match) Requested Attributes: T=DT_INT64, "
    "ksizes=[1, 2, 2, 1]){{node model/patches/ExtractImagePatches}}One approach is to outside "
    "compile the unsupported ops to run on CPUs by enabling soft placement "
    "`tf.config.set_soft_device_placement(True)`. This has a potential performance penalty.\n"
)


def test_tf1_comma_list_counts_each_op():
    explanation = explain_error(TF1_LIST)
    assert [(f.finding.op, f.count) for f in explanation.failures] == [
        ("ResizeNearestNeighbor", 2),
        ("ResizeNearestNeighborGrad", 2),
    ]
    for failure in explanation.failures:
        assert failure.family == Family.TF1_LIST and failure.platform == Platform.TPU
        assert failure.graph.name == "_functionalize_body" and failure.user_stack == []


def test_mlir_bridge_list_with_counts():
    explanation = explain_error(MLIR_LIST)
    assert [(f.finding.op, f.count) for f in explanation.failures] == [
        ("CropAndResize", 2),
        ("NonMaxSuppressionV5", 91),
        ("Where", 3),
    ]
    assert explanation.failures[0].occurrences == 2  # the list and the detail line
    assert {f.family for f in explanation.failures} == {Family.MLIR_BRIDGE}
    assert explanation.failures[0].finding.suggestion == suggest("CropAndResize")


def test_element_type_not_supported_on_tpu():
    failure = only(explain_error(C128))
    assert failure.family == Family.XLA_STATUS and failure.status == "INVALID_ARGUMENT"
    assert (failure.finding.dtype, failure.platform) == ("c128", Platform.TPU)
    assert failure.error_class == "XlaRuntimeError"
    assert failure.finding.suggestion == suggest("c128", Reason.DTYPE)


def test_x64_rewriting_unimplemented_names_the_hlo_op():
    failure = only(explain_error(X64))
    assert failure.status == "UNIMPLEMENTED" and failure.finding.op == "bitcast-convert"
    assert failure.finding.dtype == "f64,s64" and failure.platform == Platform.TPU


def test_known_issue_and_pallas_forms():
    tensor_list = only(explain_error(TENSOR_LIST))
    assert tensor_list.family == Family.TF_KNOWN_ISSUE
    assert tensor_list.finding.node == "while/TensorListSetItem"
    assert tensor_list.finding.suggestion == suggest("TensorListReserve")
    pallas = only(explain_error(PALLAS))
    assert (pallas.family, pallas.finding.op, pallas.platform) == (
        Family.PALLAS,
        "pallas_call",
        Platform.CPU,
    )


# HAND-WRITTEN one-line forms from the diagnostics notes (A1 known issues, A3.2-A3.4): the
# text, and the family, op and platform it must give.
ONE_LINERS = [
    (
        "InvalidArgumentError: Trying to access resource Variable_1 located in device "
        "/job:localhost/replica:0/task:0/device:CPU:0 from device "
        "/job:localhost/replica:0/task:0/device:GPU:0",
        Family.TF_KNOWN_ISSUE,
        "resource",
        Platform.GPU,
    ),
    (
        "Support for TensorList crossing the XLA/TF boundary is not implemented",
        Family.TF_KNOWN_ISSUE,
        "TensorList",
        None,
    ),
    (
        "UnimplementedError: GPU MaxPool gradient ops do not yet have a deterministic XLA "
        "implementation.",
        Family.TF_KNOWN_ISSUE,
        "MaxPoolGrad",
        None,
    ),
    (
        "Only interpret mode is supported on CPU backend.",
        Family.PALLAS,
        "pallas_call",
        Platform.CPU,
    ),
    (
        "NotImplementedError: multi-platform lowering for python_callback",
        Family.JAX_EXPORT,
        "host_callback",
        None,
    ),
    (
        "ValueError: the platform for the specified backend cpu is different from the lowering "
        "platform cuda",
        Family.JAX_EXPORT,
        "lowering platform",
        Platform.GPU,
    ),
    (
        "NotImplementedError: MLIR translation rule for primitive 'schur' not found for "
        "platforms ['cpu', 'tpu']",
        Family.MISSING_LOWERING,
        "schur",
        None,
    ),
    (
        "NotImplementedError: QR algorithm is not supported on TPU",
        Family.MISSING_LOWERING,
        "qr",
        Platform.TPU,
    ),
    (
        "XlaRuntimeError: UNIMPLEMENTED: Unsupported algorithm for this backend",
        Family.XLA_STATUS,
        "UNIMPLEMENTED",
        None,
    ),
]


@pytest.mark.parametrize(("text", "family", "op", "platform"), ONE_LINERS)
def test_one_line_forms(text, family, op, platform):
    failure = only(explain_error(text))
    assert (failure.family, failure.finding.op, failure.platform) == (family, op, platform)
    assert failure.finding.suggestion


def test_a_bare_unimplemented_that_another_family_explained_is_dropped():
    text = "UNIMPLEMENTED: GPU MaxPool gradient ops do not yet have a deterministic XLA "
    text += "implementation."
    assert [f.family for f in explain_error(text).failures] == [Family.TF_KNOWN_ISSUE]


def test_tpu_dtype_mismatch_and_soft_placement_hint():
    failure = only(explain_error(TPU_PER_OP))
    finding = failure.finding
    assert (finding.op, finding.reason, finding.dtype) == (
        "ExtractImagePatches",
        "dtype",
        "DT_INT64",
    )
    assert failure.platform == Platform.TPU and failure.layer is None
    assert any("soft placement" in hint for hint in failure.hints)
    # The op's own row speaks of GPU convolutions only: a TPU log gets the dtype's row
    # (issue 31: "a TPU log gets GPU advice").
    assert finding.suggestion == suggest("DT_INT64")


# ---- what any log may look like ----------------------------------------------------------------


def test_unrecognised_text_is_not_guessed_at():
    for text in ("", "hello\n", "ValueError: something else\n", "compiled without error"):
        explanation = explain_error(text)
        assert not explanation.recognised and explanation.to_dict()["failures"] == []


def test_ansi_colours_and_windows_line_ends(tf_errors):
    text = tf_errors["loop"][1]
    coloured = re.sub(r"(AsString|tf2xla|File)", "\x1b[1;31m\\1\x1b[0m", text)
    coloured = "\x1b]0;title\x07" + coloured.replace("\n", "\r\n")
    plain, dressed = only(explain_error(text)), only(explain_error(coloured))
    assert dressed.to_dict() == plain.to_dict()
    assert "\x1b" not in normalise_log(coloured) and "\r" not in normalise_log(coloured)


def test_pytest_e_prefixes(jax_errors):
    prefixed = "\n".join(f"E   {line}" for line in jax_errors["nonzero"].splitlines())
    failure = only(explain_error(prefixed))
    assert failure.finding.node == "jnp.nonzero" and innermost_here(failure) == line_of(
        "# OP:nonzero"
    )


def test_repeats_merge_and_different_messages_stay_apart(tf_errors, jax_errors):
    as_string, loop = tf_errors["as_string"][0], tf_errors["loop"][0]
    log = "\n".join(["step 1", as_string, "retrying", as_string, loop, as_string, "done"])
    explanation = explain_error(log)
    assert [(f.finding.function, f.occurrences) for f in explanation.failures] == [
        ("as_string", 3),
        ("while_body", 1),
    ]
    mixed = explain_error(jax_errors["bool"] + "\n" + as_string + "\n" + jax_errors["unique"])
    assert [f.family for f in mixed.failures] == [
        Family.JAX_TRACING,
        Family.TF2XLA,
        Family.JAX_TRACING,
    ]


def test_a_5_mb_log_is_read_through_to_its_failure(tf_errors):
    # How fast is a benchmark row (benchmarks/bench_small_speeds.py), not a test's time bound.
    log = noisy_log(tf_errors["as_string"][1])
    explanation = explain_error(log)
    assert [f.finding.op for f in explanation.failures] == ["AsString"]
    assert innermost_here(explanation.failures[0]) == line_of("# OP:as_string")


def test_decode_log_reads_utf16_and_bad_bytes():
    assert decode_log("Element type C128\n".encode("utf-16")) == "Element type C128\n"
    assert decode_log(b"ok \xff\n") == "ok \ufffd\n"


def test_report_and_json_share_the_finding_fields(tf_errors):
    explanation = explain_error(tf_errors["loop"][0] + "\n" + C128)
    report = explanation.to_report("train.log")
    assert isinstance(report, CheckReport) and report.platform == Platform.CPU
    assert [f.op for f in report.findings] == ["AsString", "C128"]
    data = explanation.to_dict()
    assert data["recognised"] and data["platform"] == "cpu"
    assert data["families"] == ["tf2xla", "xla_status"]
    first = data["failures"][0]
    assert {k: first[k] for k in report.findings[0].to_dict()} == report.findings[0].to_dict()
    assert first["function_chain"] == ["while_body", "loop"] and first["device"] == "XLA_CPU_JIT"
    assert first["user_stack"][0]["line"] == line_of("# OP:while_body")
    tracing = explain_error("Array boolean indices must be concrete; got bool[5]")
    assert "cpu is assumed" in " ".join(tracing.to_report().notes)


@pytest.mark.parametrize(
    ("canonical", "name"),
    [
        ("__inference_f_53[_XlaMustCompile=true,config_proto=1]", "f"),
        ("__inference_train_step_2_53", "train_step_2"),
        ("while_body_19_const_0", "while_body"),
        ("cond_true_52", "cond_true"),
        ("__wrapped__IteratorGetNext_output_types_1_device_/job:localhost", "IteratorGetNext"),
        ("__forward_call_12_34", "call"),
        ("cluster_3_1a2b", "cluster_3_1a2b"),
        ("f", "f"),
    ],
)
def test_clean_function_name(canonical, name):
    assert clean_function_name(canonical) == name


def test_one_recogniser_per_family():
    assert [r.family for r in RECOGNISERS] == list(Family)
