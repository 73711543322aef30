"""TensorFlow: retraces seen in-process, and the XLA compiles the tracing count hides.

Oracles: ``tf.function``'s own ``experimental_get_tracing_count()`` for traces, and for XLA
compiles the modules XLA itself dumped during the same run (``--xla_dump_to`` in the user's
``XLA_FLAGS``, which the watched run keeps), read back with hloscope's dump index.
"""

from __future__ import annotations

import logging
import os
import textwrap

import pytest
from frameworks_needed import needs_framework

tf = needs_framework("tensorflow")

from hloscope.analysis.recompiles import Cause, ledger_of_dump  # noqa: E402
from hloscope.drivers.compile_watch import watch_compiles  # noqa: E402
from hloscope.drivers.script_recompiles import recompiles_of_script  # noqa: E402
from hloscope.dump.index import load_dump  # noqa: E402


def tf_logger_state():
    logger = logging.getLogger("tensorflow")
    return logger.level, logger.propagate, list(logger.handlers), logger.disabled


def test_retraces_match_tensorflows_tracing_count(capsys):
    @tf.function
    def scale(x, k):
        return x * k

    before = tf_logger_state()
    with watch_compiles(jax=False) as watch:
        scale(tf.ones([3]), 2)
        scale(tf.ones([4]), 2)  # shape
        scale(tf.ones([4]), 2)  # cache hit
        scale(tf.ones([4]), 3)  # a Python value
        scale(tf.ones([4], tf.float64), tf.constant(2.0, tf.float64))  # dtype, a tensor now
    assert tf_logger_state() == before
    function = watch.report().function(scale)
    assert function.compiles == scale.experimental_get_tracing_count() == 4
    assert function.traces == 4
    assert [[str(c) for c in e.causes] for e in function.events] == [
        ["first"],
        ["shape"],
        ["static_value"],
        ["dtype", "static_value"],
    ]
    assert function.argument("x").varying_dims == {0: [3, 4]}
    assert function.argument("k").values == ["2", "3"]
    assert function.defined_at.endswith(f":{scale.python_function.__code__.co_firstlineno}")
    assert all(e.trace_seconds is not None and e.trace_seconds > 0 for e in function.events)
    kinds = {a.kind for a in function.advice}
    assert {"input_signature", "static_argument", "dtype"} <= kinds
    captured = capsys.readouterr()
    assert "retracing" not in captured.err and "FuncGraph" not in captured.err


def test_tf_function_recreated_in_a_loop():
    x = tf.ones([2])
    made = []
    with watch_compiles(jax=False) as watch:
        for _ in range(3):
            made.append(tf.function(lambda v: v + 1))
            made[-1](x)
    function = watch.report().function("<lambda>")
    assert function.compiles == sum(f.experimental_get_tracing_count() for f in made) == 3
    assert [e.causes for e in function.events][1:] == [[Cause.FUNCTION_RECREATED]] * 2
    assert any(a.kind == "hoist" for a in function.advice)


def test_logger_restored_when_the_traced_code_raises():
    @tf.function
    def broken(x):
        raise RuntimeError("inside the trace")

    before = tf_logger_state()
    with pytest.raises(RuntimeError, match="inside the trace"), watch_compiles(jax=False):
        broken(tf.ones([1]))
    assert tf_logger_state() == before


SCRIPT = """
import sys
import tensorflow as tf

@tf.function(jit_compile=True)
def zeros_of_sum(x):
    n = tf.cast(tf.reduce_sum(x), tf.int32)   # a shape: tf2xla makes x a compile-time constant
    return tf.zeros([n])

for v in (1.0, 2.0, 1.0, 3.0):
    zeros_of_sum(tf.fill([1], v))

@tf.function(jit_compile=True, reduce_retracing=True)
def doubled(x):
    return x * 2.0

for n in (3, 4, 5, 4):
    doubled(tf.ones([n]))
print("tracing", zeros_of_sum.experimental_get_tracing_count(),
      doubled.experimental_get_tracing_count())
"""


@pytest.mark.slow
def test_xla_compiles_per_value_with_one_trace(tmp_path, monkeypatch):
    script = tmp_path / "constant_arg.py"
    script.write_text(textwrap.dedent(SCRIPT))
    dump = tmp_path / "xla_dump"
    flags = os.environ.get("XLA_FLAGS", "")
    monkeypatch.setenv("XLA_FLAGS", f"{flags} --xla_dump_to={dump} --xla_dump_hlo_as_text")
    run = recompiles_of_script(script, out_dir=tmp_path / "run", timeout=300)
    assert run.ok, run.error_line()
    stdout = (tmp_path / "run" / "stdout.txt").read_text().split()
    assert stdout[:3] == ["tracing", "1", "2"]  # TensorFlow's own tracing counts

    xla = ledger_of_dump(load_dump(dump))  # what XLA itself compiled in that run
    constant = run.ledger.function("zeros_of_sum")
    assert constant.traces == 1
    assert constant.compiles == 3 == xla.function("zeros_of_sum").compiles
    assert [e.causes for e in constant.events] == [
        [Cause.FIRST],
        [Cause.STATIC_VALUE],
        [Cause.STATIC_VALUE],
    ]
    assert constant.argument("x").values == ["[1]", "[2]", "[3]"]
    assert any(a.kind == "constant_argument" for a in constant.advice)
    assert constant.defined_at.endswith("constant_arg.py:5")

    shapes = run.ledger.function("doubled")
    assert shapes.traces == 2
    assert shapes.compiles == 3 == xla.function("doubled").compiles
    assert shapes.argument("x").varying_dims == {0: [3, 4, 5]}
    assert [e.causes for e in shapes.events][1:] == [[Cause.SHAPE], [Cause.SHAPE]]
    bucket = next(a for a in shapes.advice if a.kind in ("bucket", "pad"))
    assert all(any(b >= s for b in bucket.buckets) for s in (3, 4, 5))


FLOAT_SCRIPT = """
import tensorflow as tf

@tf.function(jit_compile=True)
def sgd_step(w, g, lr):
    return w - lr * g

@tf.function(jit_compile=True)
def sharpened(logits, temperature=1.0):
    return tf.nn.softmax(logits / temperature)

w = tf.ones([8, 4])
for i in range(3):
    sgd_step(w, w, 0.5 * (i + 1))
for t in (0.7, 1.3):
    sharpened(tf.ones([2, 5]), temperature=t)
print("tracing", sgd_step.experimental_get_tracing_count(),
      sharpened.experimental_get_tracing_count())
"""


@pytest.mark.slow
def test_a_python_float_under_jit_compile_gets_its_fix(tmp_path):
    """A Python float given to a ``jit_compile=True`` function is no XLA argument (its value
    is baked into the graph), yet every value is a trace and a compile: each function's
    argument shows its values and the fix is a tensor or an input_signature."""
    script = tmp_path / "float_args.py"
    script.write_text(textwrap.dedent(FLOAT_SCRIPT))
    run = recompiles_of_script(script, out_dir=tmp_path / "run", timeout=300)
    assert run.ok, run.error_line()
    stdout = (tmp_path / "run" / "stdout.txt").read_text().split()
    assert stdout[:3] == ["tracing", "3", "2"]  # TensorFlow's own tracing counts
    for name, argument, values in (
        ("sgd_step", "lr", ["0.5", "1.0", "1.5"]),
        ("sharpened", "temperature", ["0.7", "1.3"]),
    ):
        function = run.ledger.function(name)
        assert function.compiles == len(values)
        assert [e.causes for e in function.events][1:] == [[Cause.STATIC_VALUE]] * (len(values) - 1)
        assert function.argument(argument).values == values
        assert f"{argument}={values[0]}" in function.events[0].signature
        (fix,) = [a for a in function.advice if a.argument == argument]
        assert fix.kind == "static_argument"
        assert "tf.constant" in fix.text and "input_signature" in fix.text
