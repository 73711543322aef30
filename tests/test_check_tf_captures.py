"""Captured values are inputs, not constants: TensorFlow itself is the oracle.

A ``tf.function`` that reads an eager tensor or a ``tf.Variable`` from outside gets it as an
extra argument at every call (``ConcreteFunction.captured_inputs``). The compiler sees an
``_Arg`` and cannot fold what it feeds, even where the Python graph shows a small captured
eager tensor as a ``Const``. Each case here is compiled by TensorFlow
(``experimental_get_compiler_ir``, which stops at HLO) and the check must agree: refused when
TensorFlow refuses, naming the op TensorFlow names; clean when TensorFlow compiles.
"""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from frameworks_needed import needs_framework

tf = needs_framework("tensorflow")

from hloscope.analysis.unsupported import TOP_LEVEL, Reason
from hloscope.backends.tf_graph import compile_error, trace_graph
from hloscope.cli import cli
from hloscope.drivers.tf_check import check_tf

X = tf.TensorSpec([2], tf.float32)

# Module-level eager values, as a training script holds them. Small eager tensors are captured
# through a Const node in the Python graph; large ones and variables through a Placeholder.
MATRIX = tf.constant([[2.0, 1.0], [1.0, 3.0]])
OFFSETS = tf.constant([0.5, -0.5])
LABELS = tf.constant(["3", "4"])
BIG_TABLE = tf.constant(np.linspace(0.0, 1.0, 512, dtype=np.float32))
VOCAB = tf.Variable(["7", "8"])
SCALE = tf.Variable([1.5, 2.5])
COUNTER = tf.Variable(0.0)


def square(v):
    return tf.reshape(tf.concat([v, v], 0), [2, 2])


@tf.function
def nested_describes_offsets(x):
    return x + tf.strings.to_number(tf.strings.as_string(OFFSETS))


@tf.function
def nested_det_of_scale(x):
    return x * tf.linalg.det(square(SCALE))


@tf.function
def nested_scaled(x):
    return tf.tanh(x * SCALE + OFFSETS)


def while_reads_scale_through_numpy(x):
    def body(i, v):
        return i + 1, v + tf.reshape(tf.numpy_function(np.cos, [SCALE], tf.float32), [2])

    return tf.while_loop(lambda i, v: i < 3, body, [0, x])[1]


def while_with_captured_tensor_as_text(x):
    def body(i, v):
        return i + 1, v + tf.strings.to_number(tf.strings.as_string(OFFSETS))

    return tf.while_loop(lambda i, v: i < 2, body, [0, x])[1]


def while_calls_nested_det(x):
    return tf.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, nested_det_of_scale(v)), [0, x])[
        1
    ]


def cond_on_captured_matrix(x):
    return tf.cond(tf.reduce_sum(x) > 0, lambda: x + tf.linalg.det(MATRIX), lambda: x - OFFSETS)


def closure_over_local_eager_tensor():
    local = tf.constant([[1.0, 0.0], [0.0, 4.0]])  # eager: this runs outside any tf.function
    return lambda x: x + tf.linalg.det(local)


def compiling_loop_over_variable(x):
    def body(i, v):
        return i + 1, tf.linalg.matvec(MATRIX, v) * SCALE + OFFSETS

    return tf.while_loop(lambda i, v: i < 3, body, [0, x])[1]


def counted(x):
    COUNTER.assign_add(tf.reduce_sum(x))
    return x * SCALE + COUNTER


# name -> (function, whether TensorFlow should refuse it: written down so a change in how
# TensorFlow treats captures shows up as a failing oracle, not as a silently weaker test).
REFUSED = {
    "eager matrix into det": (lambda x: x + tf.linalg.det(MATRIX), True),
    "eager float tensor into as_string": (
        lambda x: x + tf.strings.to_number(tf.strings.as_string(OFFSETS)),
        True,
    ),
    "eager string tensor": (lambda x: x + tf.strings.to_number(LABELS), True),
    "eager string tensor only measured": (
        lambda x: x + tf.cast(tf.strings.length(LABELS), tf.float32),
        True,
    ),
    "large eager tensor into py_function": (
        lambda x: x + tf.reduce_sum(tf.py_function(tf.sin, [BIG_TABLE], tf.float32)),
        True,
    ),
    "string variable": (lambda x: x + tf.strings.to_number(VOCAB), True),
    "float variable into det": (lambda x: x + tf.linalg.det(square(SCALE)), True),
    "variable into numpy_function in a while body": (while_reads_scale_through_numpy, True),
    "eager tensor into as_string in a while body": (while_with_captured_tensor_as_text, True),
    "eager tensor in a nested tf.function": (nested_describes_offsets, True),
    "variable in a nested tf.function": (nested_det_of_scale, True),
    "variable in a nested tf.function in a while body": (while_calls_nested_det, True),
    "eager matrix in a cond branch": (cond_on_captured_matrix, True),
    "closure over a local eager tensor": (closure_over_local_eager_tensor(), True),
    # No false alarms: captured values used only by ops that compile.
    "eager tensors into matmul": (lambda x: tf.linalg.matvec(MATRIX, x) + OFFSETS, False),
    "variables in a while body": (compiling_loop_over_variable, False),
    "variable in a nested tf.function (compiles)": (lambda x: nested_scaled(x) + 1, False),
    "assigned variable": (counted, False),
    "large eager tensor reduced": (lambda x: x + tf.reduce_max(BIG_TABLE), False),
    # Still folded: a constant made inside the function is a constant.
    "string constant made inside": (lambda x: x + tf.strings.to_number(tf.constant(["1"])), False),
}


def unsupported_ops_named(error: str) -> list[str]:
    return re.findall(r"Detected unsupported operations .*? on XLA_\w+_JIT: ?([\w.]+) \(", error)


@pytest.mark.parametrize("case", list(REFUSED))
def test_the_check_agrees_with_compiling(case):
    fn, refused = REFUSED[case]
    function = tf.function(fn)
    error = compile_error(function, X)
    assert (error is not None) == refused, error  # TensorFlow's own verdict
    report = check_tf(function, X)
    assert report.clean == (error is None), (report.findings, error)
    if error is not None:
        (named,) = unsupported_ops_named(error)
        assert named in {f.op for f in report.findings}, (named, report.findings)
        # What TensorFlow refuses is never waved through as "computed from constants only".
        assert not any("computed from constants only" in note for note in report.notes)


def test_a_captured_string_tensor_is_an_argument_of_its_dtype():
    function = tf.function(lambda x: x + tf.strings.to_number(LABELS))
    error = compile_error(function, X)
    assert "T=DT_STRING" in error  # TensorFlow: "attributes didn't match ... T=DT_STRING"
    program = trace_graph(function, X)
    (node,) = [n for n in program.nodes if n.captured]
    # The Python graph holds the small eager tensor as a Const; the compiler sees an _Arg.
    assert (node.op, node.graph_op, dict(node.type_attrs)) == (
        "_Arg",
        "Const",
        {"T": ("DT_STRING",)},
    )
    report = check_tf(function, X)
    (arg,) = [f for f in report.findings if f.op == "_Arg"]
    assert (arg.function, arg.reason, arg.dtype) == (TOP_LEVEL, Reason.DTYPE, "DT_STRING")
    assert "captured" in arg.detail and "captures" in arg.suggestion
    # Its source is the line that used the captured tensor, not the def line of the function.
    assert arg.source is not None and arg.source.startswith(__file__)
    line = int(arg.source.rsplit(":", 1)[1])
    assert "LABELS" in Path(__file__).read_text().splitlines()[line - 1]


def test_a_captured_string_variable_is_told_to_fix_the_variable():
    function = tf.function(lambda x: x + tf.strings.to_number(VOCAB))
    error = compile_error(function, X)
    assert unsupported_ops_named(error) == ["ReadVariableOp"] and "dtype=DT_STRING" in error
    (read,) = [f for f in check_tf(function, X).findings if f.op == "ReadVariableOp"]
    assert (read.reason, read.dtype) == (Reason.DTYPE, "DT_STRING")
    assert "reads a value the function captured" in read.detail
    assert "tf.string Variable" in read.suggestion


def test_a_string_parameter_keeps_the_parameters_advice():
    (arg,) = check_tf(
        tf.function(lambda s: tf.strings.length(s)), tf.TensorSpec([2], tf.string)
    ).findings[:1]
    assert (arg.op, arg.dtype) == ("_Arg", "DT_STRING")
    assert "captured" not in arg.detail and "captures" not in arg.suggestion


def test_the_notes_say_what_was_captured():
    (note,) = [
        n for n in check_tf(tf.function(lambda x: x * SCALE + OFFSETS), X).notes if "captures" in n
    ]
    assert "captures 2 values" in note and "not folded" in note
    assert not any("captures" in n for n in check_tf(tf.function(lambda x: x * 2), X).notes)


def test_parameters_are_not_marked_captured():
    program = trace_graph(tf.function(lambda x: x * SCALE), X)
    arguments = [n for n in program.nodes if n.op == "_Arg" and n.function is None]
    assert [(n.name, n.captured) for n in arguments][0] == ("x", False)
    assert [n.captured for n in arguments[1:]] == [True]  # SCALE's handle
    assert len(arguments) == len(program.functions[None].args)


# ---- the command line: what TensorFlow refuses exits 3 -----------------------------------------

SCRIPT = """
import tensorflow as tf

WEIGHTS = tf.constant([[1.0, 2.0], [0.0, 1.0]])
NAMES = tf.Variable(["0.5", "1.5"])


@tf.function
def scaled_by_determinant(x):
    return x * tf.linalg.det(WEIGHTS)


@tf.function
def shifted_by_names(x):
    return x + tf.strings.to_number(NAMES)


@tf.function
def projected(x):
    return tf.linalg.matvec(WEIGHTS, x)


FUNCTIONS = ("scaled_by_determinant", "shifted_by_names", "projected")
EXAMPLE_ARGS = {name: (tf.ones([2]),) for name in FUNCTIONS}
"""


@pytest.fixture(scope="module")
def script(tmp_path_factory):
    path = tmp_path_factory.mktemp("captures") / "captured_model.py"
    path.write_text(textwrap.dedent(SCRIPT))
    return path


@pytest.mark.parametrize(
    ("function", "refused"),
    [("scaled_by_determinant", True), ("shifted_by_names", True), ("projected", False)],
)
def test_the_cli_exits_3_exactly_when_tensorflow_refuses(script, function, refused):
    namespace: dict = {}
    exec(compile(script.read_text(), str(script), "exec"), namespace)
    error = compile_error(namespace[function], X)
    assert (error is not None) == refused, error
    result = CliRunner().invoke(cli, ["check", f"{script}:{function}", "--device", "cpu", "--json"])
    assert result.exit_code == (3 if refused else 0), result.output
    findings = json.loads(result.stdout)["findings"]
    if refused:
        (named,) = unsupported_ops_named(error)
        assert named in {f["op"] for f in findings}
    else:
        assert findings == []
