"""explain-error on TensorFlow refusing an op's inputs (issue 35's families it lacked): shapes
or element types an op does not take, said by TensorFlow itself, not XLA, in each of the
places it says them -- shape inference as a ``tf.function`` builds its graph (``Dimensions
must be equal ... for '{{node MatMul}} = MatMul[...]'``), an op's definition refusing an
input's type (``Input 'y' of 'Mul' Op has type int32``), a kernel run eagerly (``[Op:AddV2]``
after the device's function tag), a graph's node as it runs (``[[{{node add}}]]``, with or
without ``jit_compile``), AutoGraph's loop whose variable changes shape -- read by
TensorFlow's tags, not its sentences: the op, the node, the device, the user's line where
the op was made (not AutoGraph's generated file), the fix the sentence points to.

The errors are real: programs of cases run in a child under the installed TensorFlow on the
CPU (:mod:`raised_errors`), each case's line to fix marked in it: under ``tf.function``, the
line inside the function where TensorFlow says the op was made ("in user code").
"""

from __future__ import annotations

import io

import pytest
from raised_errors import cases_of, marked_line
from rich.console import Console

from hloscope.analysis.explain_error import Family, explain_error
from hloscope.analysis.explain_error.advice import AdviceKind
from hloscope.analysis.unsupported import Platform
from hloscope.render.explain_error_text import explanation_view

_CASES = """
import os, sys, traceback
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
os.environ["KERAS_BACKEND"] = "tensorflow"
import tensorflow as tf


def graph_matmul_of_other_inner_sizes():
    @tf.function(jit_compile=True)
    def project(x, w):
        return tf.matmul(x, w)  # fails here: graph_matmul_of_other_inner_sizes

    project(tf.ones((2, 3)), tf.ones((4, 5)))


def graph_concat_of_other_widths():
    @tf.function
    def features(a, b):
        return tf.concat([a, b], axis=0)  # fails here: graph_concat_of_other_widths

    features(tf.ones((2, 3)), tf.ones((2, 4)))


def graph_conv_of_an_unbatched_image():
    @tf.function(jit_compile=True)
    def stem(image, kernel):
        return tf.nn.conv2d(image, kernel, 1, "SAME")  # fails here: graph_conv_of_an_unbatched_image

    stem(tf.ones((8, 8, 3)), tf.ones((3, 3, 3, 4)))


def graph_loss_of_int_labels():
    @tf.function(jit_compile=True)
    def loss(logits, labels):
        return tf.reduce_mean(logits * labels)  # fails here: graph_loss_of_int_labels

    loss(tf.ones((4,)), tf.ones((4,), tf.int32))


def graph_loop_grows_its_buffer():
    @tf.function
    def doubled(x):
        i = tf.constant(0)
        while i < 3:  # fails here: graph_loop_grows_its_buffer
            x = tf.concat([x, x], 0)
            i += 1
        return x

    doubled(tf.ones((2,)))


def dataset_map_of_other_widths():
    ds = tf.data.Dataset.from_tensors((tf.ones((3,)), tf.ones((4, 2))))
    ds.map(lambda a, b: a + b)  # fails here: dataset_map_of_other_widths


def eager_matmul_of_other_inner_sizes():
    tf.matmul(tf.ones((2, 3)), tf.ones((4, 5)))  # fails here: eager_matmul_of_other_inner_sizes


def eager_reshape_to_fewer_values():
    tf.reshape(tf.ones((2, 3)), (4,))  # fails here: eager_reshape_to_fewer_values


def eager_gather_past_the_end():
    tf.gather(tf.ones((3,)), [5])  # fails here: eager_gather_past_the_end


def graph_run_of_other_lengths():
    spec = [tf.TensorSpec([None]), tf.TensorSpec([None])]
    add = tf.function(lambda a, b: a + b, input_signature=spec)
    add(tf.ones((2,)), tf.ones((3,)))  # fails here: graph_run_of_other_lengths


def xla_run_of_other_lengths():
    spec = [tf.TensorSpec([None]), tf.TensorSpec([None])]
    add = tf.function(lambda a, b: a + b, input_signature=spec, jit_compile=True)
    add(tf.ones((2,)), tf.ones((3,)))  # fails here: xla_run_of_other_lengths


def concat_of_two_types():
    @tf.function(jit_compile=True)
    def joined(a, b):
        return tf.concat([a, b], 0)  # fails here: concat_of_two_types

    joined(tf.ones((2,)), tf.ones((2,), tf.int32))


def variable_assigned_another_shape():
    v = tf.Variable(tf.ones((2, 3)))
    v.assign(tf.ones((3, 2)))  # fails here: variable_assigned_another_shape


def keras_fit_labels_past_the_classes():
    import keras
    import numpy as np

    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3)])
    loss = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    model.compile(loss=loss, optimizer="sgd")
    model.fit(np.ones((8, 4)), np.full((8,), 5), epochs=1, verbose=0)  # fails here: keras_fit_labels_past_the_classes


def convert_to_another_type():
    tf.convert_to_tensor(tf.ones((2,)), dtype=tf.int32)  # fails here: convert_to_another_type
"""  # noqa: E501


@pytest.fixture(scope="module")
def raised(tmp_path_factory):
    pytest.importorskip("tensorflow")
    return cases_of(tmp_path_factory.mktemp("tf_ops") / "cases.py", _CASES)


@pytest.mark.parametrize(
    ("case", "op", "advice", "platform"),
    [
        # Shape inference as a tf.function's graph is built (with and without XLA): the op
        # from the node's tag, the line inside the function where the op was made.
        ("graph_matmul_of_other_inner_sizes", "MatMul", AdviceKind.FIX_SHAPES, None),
        ("graph_concat_of_other_widths", "ConcatV2", AdviceKind.FIX_SHAPES, None),
        ("graph_conv_of_an_unbatched_image", "Conv2D", AdviceKind.FIX_SHAPES, None),
        ("dataset_map_of_other_widths", "AddV2", AdviceKind.FIX_SHAPES, None),
        # An op's definition refusing an input's element type; a conversion to another.
        ("graph_loss_of_int_labels", "Mul", AdviceKind.CAST_DTYPE, None),
        ("convert_to_another_type", "convert_to_tensor", AdviceKind.CAST_DTYPE, None),
        ("concat_of_two_types", "ConcatV2", AdviceKind.CAST_DTYPE, None),
        # A variable assigned a value of another shape.
        ("variable_assigned_another_shape", "assign", AdviceKind.FIX_SHAPES, None),
        # Keras's fit on TensorFlow: "Graph execution error:", the node's definition, then a
        # label past the classes and the node's tag.
        (
            "keras_fit_labels_past_the_classes",
            "SparseSoftmaxCrossEntropyWithLogits",
            AdviceKind.OTHER,
            None,
        ),
        # AutoGraph's loop whose variable grows.
        ("graph_loop_grows_its_buffer", "while_loop", AdviceKind.FIX_SHAPES, None),
        # A kernel run eagerly: the device from its function's tag.
        ("eager_matmul_of_other_inner_sizes", "MatMul", AdviceKind.FIX_SHAPES, Platform.CPU),
        ("eager_reshape_to_fewer_values", "Reshape", AdviceKind.FIX_SHAPES, Platform.CPU),
        ("eager_gather_past_the_end", "GatherV2", AdviceKind.OTHER, Platform.CPU),
        # A graph's node as it runs, and its XLA kernel's under jit_compile.
        ("graph_run_of_other_lengths", "add", AdviceKind.FIX_SHAPES, None),
        ("xla_run_of_other_lengths", "add", AdviceKind.FIX_SHAPES, None),
    ],
)
def test_tensorflow_refusing_an_ops_inputs(raised, case, op, advice, platform):
    program, texts = raised
    (failure, *_) = explain_error(texts[case]).failures
    assert failure.family == Family.TF_OP
    assert failure.finding.op == op
    assert failure.advice_kind == advice
    assert failure.platform == platform
    assert failure.finding.source == f"{program}:{marked_line(program, case)}"


def test_the_fix_quotes_the_shapes_and_types(raised):
    _, texts = raised
    (matmul, *_) = explain_error(texts["eager_matmul_of_other_inner_sizes"]).failures
    assert "[2,3], [4,5]" in matmul.finding.suggestion
    (labels, *_) = explain_error(texts["graph_loss_of_int_labels"]).failures
    assert "int32 against float32" in labels.finding.suggestion


def test_autographs_generated_file_is_not_your_code(raised):
    # AutoGraph's converted copy of the function stands in the traceback too: TensorFlow's
    # own file, whose source is the program's function TF names "in user code".
    program, texts = raised
    console = Console(width=200, record=True, color_system=None, file=io.StringIO())
    console.print(explanation_view(explain_error(texts["graph_matmul_of_other_inner_sizes"])))
    said = console.export_text()
    assert "__autograph_generated_file" not in said
    assert "TensorFlow refused its inputs" in said
    line = marked_line(program, "graph_matmul_of_other_inner_sizes")
    assert f"{program}:{line} in project " in said


def test_the_shapes_are_quoted_when_the_message_ends_the_text():
    # A pasted message with no newline after it: its last shape is quoted whole.
    said = (
        "ValueError: Dimensions must be equal, but are 3 and 4 for '{{node MatMul}} = "
        "MatMul[T=DT_FLOAT, transpose_a=false, transpose_b=false](a, b)' with input shapes: "
        "[2,3], [4,5]"
    )
    (failure,) = explain_error(said).failures
    assert failure.family == Family.TF_OP and failure.finding.op == "MatMul"
    assert "([2,3], [4,5])" in failure.finding.suggestion
