"""The TensorFlow pre-flight check (``check_tf``): TensorFlow itself is the oracle.

TensorFlow stops at the first op it cannot compile; the check lists all of them. Each claim is
tested against TensorFlow: every op the check flags really fails to compile on its own, the
one op TensorFlow names for a whole function is among the check's, and every program that
TensorFlow compiled (the corpus's, the samples', the small ones here) checks clean. Nothing is
run or trained: functions are traced, and "compiling" means ``experimental_get_compiler_ir``,
which stops at HLO.

The lines marked ``# creates: OP`` are where each offender is created; the findings must point
at exactly those lines.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import pytest
from conftest import CORPUS, SAMPLES
from frameworks_needed import needs_framework

tf = needs_framework("tensorflow")

from hloscope.analysis.unsupported import TOP_LEVEL, Platform, Reason
from hloscope.backends.tf_graph import compile_error, trace_graph, xla_kernels
from hloscope.capture.errors import CaptureError
from hloscope.drivers.tf_check import check_tf

HERE = Path(__file__).resolve()
X = tf.TensorSpec([2], tf.float32)
S = tf.TensorSpec([2], tf.string)


# ---- a function with an offender in every kind of place ----------------------------------------


@tf.function
def nested_det(m):
    return tf.linalg.det(m)  # creates: MatrixDeterminant


@tf.function(jit_compile=True)
def many_offenders(x, s):  # creates: _Arg
    n = tf.strings.to_number(s)  # creates: StringToNumber

    def body(i, v):
        v = v + tf.reshape(tf.numpy_function(np.sin, [v], tf.float32), [2])  # creates: PyFunc
        return i + 1, v

    _, y = tf.while_loop(lambda i, v: i < 3, body, [0, x])

    def text_length():
        text = tf.strings.as_string(y)  # creates: AsString
        return tf.cast(tf.strings.length(text), tf.float32)  # creates: StringLength

    y = tf.cond(tf.reduce_sum(y) > 0, text_length, lambda: y)
    return y + n + nested_det(tf.stack([x, y]))


# Where each offender of many_offenders sits: (op, dtype, enclosing function's name starts with).
EXPECTED = {
    ("_Arg", "DT_STRING", TOP_LEVEL),
    ("StringToNumber", None, TOP_LEVEL),
    ("PyFunc", None, "while_body"),
    ("AsString", None, "cond_true"),
    ("StringLength", None, "cond_true"),
    ("MatrixDeterminant", None, "__inference_nested_det"),
}

# One tiny function per op type that creates the op, with its inputs. A string can enter a
# compiled function only as an argument (which XLA rejects first, as _Arg) or as a constant
# (which TensorFlow folds away on the host, string ops and all), so for ops that consume strings
# TensorFlow names the _Arg that feeds them.
M = tf.TensorSpec([2, 2], tf.float32)
ALONE: dict[str, tuple[Any, tuple[Any, ...]]] = {
    "_Arg": (lambda s: tf.strings.length(s), (S,)),
    "StringToNumber": (lambda s: tf.strings.to_number(s), (S,)),
    "StringLength": (lambda s: tf.strings.length(s), (S,)),
    "AsString": (lambda x: tf.strings.length(tf.strings.as_string(x)), (X,)),
    "PyFunc": (lambda x: tf.numpy_function(np.sin, [x], tf.float32), (X,)),
    "EagerPyFunc": (lambda x: tf.py_function(tf.sin, [x], tf.float32), (X,)),
    "MatrixDeterminant": (lambda m: tf.linalg.det(m), (M,)),
}


def marked_line(op: str) -> int:
    """The line of this file marked ``# creates: ... op ...``."""
    for number, line in enumerate(HERE.read_text().splitlines(), start=1):
        marker = line.partition("# creates:")[2]
        if op in marker.split():
            return number
    raise AssertionError(f"no line of {HERE.name} is marked '# creates: {op}'")


def unsupported_ops_named(error: str) -> list[str]:
    """The ops a TensorFlow error names as unsupported (one per 'Detected unsupported')."""
    return re.findall(r"Detected unsupported operations .*? on XLA_\w+_JIT: ?([\w.]+) \(", error)


@pytest.fixture(scope="module")
def offenders():
    return check_tf(many_offenders, X, S)


def test_every_offender_is_reported_where_it_sits(offenders):
    assert offenders.platform is Platform.CPU and not offenders.proxy
    assert not offenders.clean
    found = {(f.op, f.dtype, f.function) for f in offenders.findings}
    for op, dtype, function in EXPECTED:
        matches = [f for f in found if f[0] == op and f[1] == dtype and f[2].startswith(function)]
        assert len(matches) == 1, (op, function, sorted(found, key=str))
    assert len(offenders.findings) == len(EXPECTED), offenders.findings


def test_each_finding_points_at_the_line_that_created_it(offenders):
    for finding in offenders.findings:
        assert finding.source == f"{HERE}:{marked_line(finding.op)}", finding
        assert finding.suggestion, finding
        assert str(HERE) in finding.detail  # the user frames of the creation stack


def test_the_string_argument_is_a_dtype_problem(offenders):
    (arg,) = [f for f in offenders.findings if f.op == "_Arg"]
    assert (arg.node, arg.function, arg.reason, arg.dtype) == ("s", TOP_LEVEL, "dtype", "DT_STRING")
    assert "tf.strings.to_number" in arg.suggestion
    others = [f for f in offenders.findings if f.op != "_Arg"]
    assert {f.reason for f in others} == {Reason.NO_KERNEL} and {f.dtype for f in others} == {None}


def test_tensorflow_itself_reports_only_one_of_them(offenders):
    error = compile_error(many_offenders, X, S)
    assert error is not None
    named = unsupported_ops_named(error)
    assert len(named) == 1, error
    assert named[0] in {f.op for f in offenders.findings}
    assert len({f.op for f in offenders.findings}) >= 5


def test_each_offender_alone_really_fails_to_compile(offenders):
    for finding in offenders.findings:
        assert finding.op in ALONE, f"add a one-op function for {finding.op} to ALONE"
        fn, inputs = ALONE[finding.op]
        alone = {f.op for f in check_tf(fn, *inputs).findings}
        assert finding.op in alone  # the check flags the op in the tiny function too
        error = compile_error(fn, *inputs)
        assert error is not None, finding.op  # ...and TensorFlow refuses to compile it,
        (named,) = unsupported_ops_named(error)
        assert named in (finding.op, "_Arg") and named in alone, error  # ...naming the op
        if finding.dtype:
            assert f"T={finding.dtype}" in error  # "attributes didn't match ... T=DT_STRING"


def test_keyword_arguments_are_traced_too(offenders):
    by_keyword = check_tf(many_offenders, X, s=S)
    assert [(f.op, f.node) for f in by_keyword.findings] == [
        (f.op, f.node) for f in offenders.findings
    ]


def test_a_function_that_compiles_is_clean_and_tensorflow_agrees():
    weights = tf.Variable(tf.ones([2, 2]))

    @tf.function
    def scale(v):
        return v * 0.5 + tf.nn.softmax(v)

    @tf.function(jit_compile=True)
    def supported(x, n):
        def body(i, v):
            return i + 1, tf.tanh(tf.linalg.matvec(weights, v))

        _, y = tf.while_loop(lambda i, v: i < n, body, [0, x], maximum_iterations=4)
        y = tf.cond(tf.reduce_max(y) > 0, lambda: scale(y), lambda: tf.where(y > 0, y, -y))
        weights.assign_add(tf.ones([2, 2]) * tf.reduce_mean(y))
        return tf.gather(tf.sort(y), [1, 0]) + tf.cast(tf.argmax(y), tf.float32)

    inputs = (X, tf.TensorSpec([], tf.int32))
    for platform in Platform:
        report = check_tf(supported, *inputs, platform=platform)
        assert report.clean and report.findings == [], (platform, report.findings)
    # The walk went into the while body, both branches and the nested tf.function.
    notes = check_tf(supported, *inputs).notes
    assert re.search(r"and [4-9] nested functions", notes[0]), notes
    assert compile_error(supported, *inputs) is None


def test_plain_functions_models_and_numpy_inputs():
    keras = needs_framework("keras")
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, activation="relu")])
    assert check_tf(model, np.ones((4, 3), np.float32)).clean
    report = check_tf(lambda x: tf.strings.as_string(x), np.ones(2, np.float32))
    # The string result leaves through an Identity, which has no DT_STRING kernel either.
    assert [(f.op, f.dtype) for f in report.findings] == [
        ("AsString", None),
        ("Identity", "DT_STRING"),
    ]
    # The lambda is in this file: the finding's source is its line.
    assert report.findings[0].source.startswith(f"{HERE}:")


def test_inputs_that_do_not_fit_are_one_capture_error():
    with pytest.raises(CaptureError, match="cannot trace"):
        check_tf(many_offenders, X)  # s is missing
    with pytest.raises(CaptureError, match="static shape"):
        compile_error(lambda x: x + 1, tf.TensorSpec([None], tf.float32))


# ---- what TensorFlow does before it looks kernels up: the check follows it ---------------------
#
# TensorFlow inlines nested functions, computes on the host whatever depends on constants only
# (so an unsupported op of a constant compiles), passes constants into cond and while bodies,
# and removes what inlining leaves unused. Each case compares the check with compiling.

STATE = tf.Variable(tf.ones([2]))
# Captured from outside: inputs of the compiled function, never folded like constants (the
# Python graph shows this small eager tensor as a Const all the same).
EAGER_TEXT = tf.constant(["5", "6"])
EAGER_MATRIX = tf.constant([[1.0, 2.0], [2.0, 1.0]])


@tf.function
def det_of(m):
    return tf.linalg.det(m)


@tf.function
def to_number(text):
    return tf.strings.to_number(text)


@tf.function
def number_and_text_number(x):
    return x + 1, tf.strings.to_number(tf.strings.as_string(x))


@tf.function
def stateful_det_of_constant():
    STATE.assign_add(tf.ones([2]))
    return tf.linalg.det(tf.eye(2))


@tf.function
def constant_text():
    return tf.constant(["1", "2"])


def text_number(value):
    return tf.strings.to_number(tf.strings.as_string(value))


def cond_on_constant(x):
    c = tf.constant([1.0, 2.0])
    return tf.cond(tf.reduce_sum(x) > 0, lambda: x + text_number(c), lambda: x)


def while_on_invariant_constant(x):
    c = tf.constant([1.0, 2.0])
    return tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v + text_number(c)), [0, x])[1]


def while_on_changing_constant(x):
    start = tf.constant([1.0, 2.0])
    step = lambda i, c: (i + 1, c + text_number(c))  # noqa: E731
    return tf.while_loop(lambda i, c: i < 3, step, [0, start])[1] + x


def constant_after_control_dependency(x):
    with tf.control_dependencies([tf.identity(x)]):
        c = tf.constant(["1", "2"])
    return x + tf.strings.to_number(c)


def string_into_cond(x):
    text = tf.strings.as_string(tf.constant([1.0, 2.0]))  # folded to a string Const...
    # ...which still crosses into the branch: StatelessIf has no DT_STRING kernel.
    return tf.cond(tf.reduce_sum(x) > 0, lambda: x + tf.strings.to_number(text), lambda: x)


def x_matrix(x):
    return tf.reshape(tf.concat([x, x], 0), [2, 2])


AGREEMENT = {
    "nested function of a constant": lambda x: x + det_of(tf.eye(2)),
    "nested function of the input": lambda x: x + det_of(x_matrix(x)),
    "nested string function of a constant": lambda x: x + to_number(tf.constant(["1", "2"])),
    "nested function returning a string constant": lambda x: (
        x + tf.strings.to_number(constant_text())
    ),
    "unused output of a nested function": lambda x: number_and_text_number(x)[0],
    "used output of a nested function": lambda x: number_and_text_number(x)[1],
    "stateful nested function": lambda x: (STATE.assign(x), x + stateful_det_of_constant())[1],
    "constant in a while body": lambda x: tf.while_loop(
        lambda i, v: i < 3, lambda i, v: (i + 1, v + to_number(tf.constant(["1", "2"]))), [0, x]
    )[1],
    "constant in a cond branch": lambda x: tf.cond(
        tf.reduce_sum(x) > 0, lambda: x + tf.strings.to_number(tf.constant(["1"])), lambda: x
    ),
    "constant passed into a cond": cond_on_constant,
    "loop-invariant constant passed into a while": while_on_invariant_constant,
    "loop-variant constant passed into a while": while_on_changing_constant,
    "string constant crossing into a cond": string_into_cond,
    "constant after a control dependency": constant_after_control_dependency,
    "unsupported op of a constant": lambda x: x + tf.linalg.det(tf.eye(2)),
    "unsupported op of the input": lambda x: x + tf.linalg.det(x_matrix(x)),
    "constant too large to fold": lambda x: (
        x + tf.reduce_sum(tf.linalg.det(tf.ones([1024, 1024, 2, 2])))
    ),
    "static shape": lambda x: x + text_number(tf.cast(tf.shape(x), tf.float32)),
    "static size": lambda x: x + text_number(tf.cast(tf.size(x), tf.float32)),
    "data-dependent shape": lambda x: (
        x + text_number(tf.cast(tf.shape(tf.unique(x).y), tf.float32))[0]
    ),
    "unused unsupported op": lambda x: (tf.strings.as_string(x), x + 1)[1],
    "unused unsupported op of a constant": lambda x: (
        tf.strings.as_string(tf.constant([1.0])),
        x + 1,
    )[1],
    "unused numpy_function": lambda x: (tf.numpy_function(np.sin, [x], tf.float32), x + 1)[1],
    "tf.print": lambda x: (tf.print(x), x + 1)[1],
    "tf.py_function": lambda x: tf.py_function(tf.sin, [x], tf.float32),
    "histogram": lambda x: tf.cast(tf.histogram_fixed_width(x, [0.0, 1.0], 4), tf.float32),
    "stateful random": lambda x: x + tf.random.uniform([2]),
    "unique (bounded dynamic shape)": lambda x: tf.unique(x).y,
    "one-argument where": lambda x: tf.cast(tf.where(x > 0), tf.float32),
    "boolean_mask": lambda x: tf.boolean_mask(x, x > 0),
    "assert": lambda x: (tf.debugging.assert_positive(x), x)[1],
    "check_numerics": lambda x: tf.debugging.check_numerics(x, "bad"),
    "static TensorArray": lambda x: tf.TensorArray(tf.float32, size=2).unstack(x).stack(),
    "top_k": lambda x: tf.math.top_k(x, 1).values,
    "einsum": lambda x: tf.einsum("i,i->", x, x),
    "sort": lambda x: tf.sort(x),
    "captured eager string tensor": lambda x: x + tf.strings.to_number(EAGER_TEXT),
    "captured eager tensor into an unsupported op": lambda x: x + tf.linalg.det(EAGER_MATRIX),
    "captured variable into an unsupported op": lambda x: x + text_number(STATE),
    "captured values into ops that compile": lambda x: tf.linalg.matvec(EAGER_MATRIX, x) * STATE,
}


@pytest.mark.parametrize("case", list(AGREEMENT))
def test_the_check_agrees_with_compiling(case):
    fn = AGREEMENT[case]
    report = check_tf(fn, X)
    error = compile_error(fn, X)
    assert report.clean == (error is None), (report.findings, error)
    if error is not None:
        (named,) = unsupported_ops_named(error)
        assert named in {f.op for f in report.findings}, (named, report.findings)


def test_failures_after_the_kernel_lookup_need_compiling():
    """Reading the graph finds what ValidateGraph would refuse; an op whose input must be a
    compile-time constant fails later, and only asking TensorFlow (compile_error) shows it."""
    fn = lambda x: tf.cast(tf.math.bincount(tf.cast(x, tf.int32)), tf.float32)  # noqa: E731
    assert check_tf(fn, X).clean
    error = compile_error(fn, X)
    assert error is not None and "must be a compile-time constant" in error


# ---- platforms ----------------------------------------------------------------------------------


def test_tpu_is_checked_by_cpu_proxy_and_says_so():
    double = tf.TensorSpec([2], tf.float64)
    cpu = check_tf(lambda x: x * 2, double, platform="cpu")
    assert cpu.clean and not cpu.proxy
    assert not any("PROXY" in note for note in cpu.notes)

    tpu = check_tf(lambda x: x * 2, double, platform="tpu")
    assert tpu.platform is Platform.TPU and tpu.proxy
    assert any("PROXY" in n and "XLA_CPU_JIT" in n and "XLA_TPU_JIT" in n for n in tpu.notes)
    assert any("emulated" in note and "DT_INT64" in note for note in tpu.notes)
    (arg,) = [f for f in tpu.findings if f.op == "_Arg"]
    assert (arg.reason, arg.dtype, arg.function) == (Reason.DTYPE, "DT_DOUBLE", TOP_LEVEL)
    assert "float32" in arg.suggestion
    assert {f.dtype for f in tpu.findings} == {"DT_DOUBLE"}

    # 64-bit integers compile on TPU (emulated): a note, not a finding.
    int64 = check_tf(lambda x: x * 2, tf.TensorSpec([2], tf.int64), platform="tpu")
    assert int64.clean and any("nodes use them" in note for note in int64.notes)


def test_gpu_proxy_knows_the_gpu_convolution_types():
    conv = tf.function(lambda x, w: tf.nn.conv2d(x, w, 1, "SAME"))
    inputs = (tf.TensorSpec([1, 4, 4, 2], tf.int32), tf.TensorSpec([3, 3, 2, 2], tf.int32))
    assert check_tf(conv, *inputs, platform="cpu").clean
    assert compile_error(conv, *inputs) is None  # CPU compiles an int32 convolution
    gpu = check_tf(conv, *inputs, platform="gpu")
    assert gpu.proxy and any("DT_INT32" in note for note in gpu.notes)
    assert [(f.op, f.reason, f.dtype) for f in gpu.findings] == [("Conv2D", "dtype", "DT_INT32")]
    floats = (tf.TensorSpec([1, 4, 4, 2]), tf.TensorSpec([3, 3, 2, 2]))
    assert check_tf(conv, *floats, platform="gpu").clean


def test_the_kernel_registry_is_tensorflows_own():
    """The kernels come from the installed TensorFlow, registered lazily: reading them forced
    the registration (zero ``*_JIT`` kernels exist until something was compiled)."""
    kernels = xla_kernels("XLA_CPU_JIT")
    assert len(kernels) > 300 and "MatMul" in kernels and "AsString" not in kernels
    (matmul,) = kernels.registrations("MatMul")
    assert "DT_FLOAT" in matmul.allowed["T"] and "DT_STRING" not in matmul.allowed["T"]
    # The graph plumbing has kernels too: that is why it needs no allow-list.
    for op in ("_Arg", "_Retval", "Const", "Identity", "NoOp", "While", "StatelessIf"):
        assert op in kernels, op
    assert len(xla_kernels("XLA_TPU_JIT")) == 0  # tensorflow-cpu: no TPU kernels
    program = trace_graph(many_offenders, X, S)
    assert {n.graph_op for n in program.nodes if n.op == "_Arg" and n.function is None} == {
        "Placeholder"
    }


# ---- no false alarms: every TensorFlow program of the corpus and the samples ------------------

RECORDERS = ("save_ir", "attempt")


def tf_sources() -> list[str]:
    """The corpus folders whose SOURCE.py builds TensorFlow programs."""
    if not CORPUS.is_dir():
        return []
    return sorted(
        path.parent.name
        for path in (CORPUS / "generated").glob("*/SOURCE.py")
        if "import tensorflow" in path.read_text()
    )


def load_programs(source: Path) -> list[tuple[str, Any, tuple[Any, ...]]]:
    """``(name, function, inputs)`` of each program a corpus SOURCE.py hands to TensorFlow.

    The file is run as written, except that its calls which compile or run something are
    recorded instead: ``save_ir(fn, args, name)`` and ``attempt(name, fn, *args)`` give the
    programs and their inputs, and a bare top-level call (``train_step(x, y)``) is skipped:
    the check needs the function and its inputs, not a training step.
    """
    tree = ast.parse(source.read_text(), str(source))
    kept = []
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef) and statement.name in RECORDERS:
            continue
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            called = statement.value.func
            if not (isinstance(called, ast.Name) and called.id in RECORDERS):
                continue
        kept.append(statement)
    tree.body = kept
    programs: list[tuple[str, Any, tuple[Any, ...]]] = []
    namespace = {
        "__name__": f"corpus_{source.parent.name}",
        "save_ir": lambda fn, args, name: programs.append((name, fn, tuple(args))),
        "attempt": lambda name, fn, *args: programs.append((name, fn, args)),
    }
    with mock.patch.dict(os.environ):  # the sources set TF_CPP_MIN_LOG_LEVEL
        exec(compile(tree, str(source), "exec"), namespace)
    return programs


def tensorflow_verdict(folder: Path, name: str) -> str | None:
    """What TensorFlow said when the corpus was made: None when it compiled the program (its
    HLO is in the folder, or its error file says so), else the error text."""
    if (folder / f"{name}.hlo.txt").is_file():
        return None
    text = (folder / f"{name}.error.txt").read_text()
    return None if text.strip() == "compiled without error" else text


def test_the_corpus_has_tensorflow_programs(corpus):
    assert {"tf_keras_resnet50", "tf_keras_mobilenet_train", "tf_unsupported_errors"} <= set(
        tf_sources()
    )


@pytest.mark.parametrize("folder", tf_sources())
def test_corpus_programs_check_as_tensorflow_compiled_them(corpus, folder):
    """Full size (ResNet50 at 224x224, the MobileNetV2 training step): tracing is a few seconds
    each, and nothing is compiled or run."""
    needs_framework("keras")
    source = corpus / "generated" / folder / "SOURCE.py"
    programs = load_programs(source)
    assert programs
    for name, fn, inputs in programs:
        report = check_tf(fn, *inputs)
        error = tensorflow_verdict(source.parent, name)
        if error is None:
            assert report.clean and not report.findings, (name, report.findings)
            continue
        # TensorFlow named one op and the line that created it: the check has both.
        (op,) = unsupported_ops_named(error)
        line = re.findall(r'File "[^"]+", line (\d+)', error)[-1]
        matching = [f for f in report.findings if f.op == op]
        assert matching, (name, op, report.findings)
        assert matching[0].source == f"{source}:{line}", (matching[0].source, line)


def test_the_keras_sample_checks_clean():
    needs_framework("keras")
    spec = importlib.util.spec_from_file_location("keras_cnn_sample", SAMPLES / "keras_cnn.py")
    sample = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sample)
    step, inputs = sample.make()
    # TensorFlow compiles it: its optimized HLO is committed in samples/hlo.
    assert (SAMPLES / "hlo" / "keras_cnn.after_optimizations.txt").is_file()
    for platform in Platform:
        report = check_tf(step, *inputs, platform=platform)
        assert report.clean, (platform, report.findings)
    assert check_tf(sample.build_model(), np.zeros((2, 16, 16, 3), np.float32)).clean
