"""TensorFlow retraces under ``reduce_retracing`` and ``input_signature`` (issue 18.9).

Oracle: ``tf.function``'s own ``experimental_get_tracing_count()`` and its concrete functions'
input signatures (``None`` where a generalised trace left a dimension open).
"""

from __future__ import annotations

from frameworks_needed import needs_framework

tf = needs_framework("tensorflow")

from hloscope.drivers.compile_watch import watch_compiles  # noqa: E402


def concrete_shapes(function) -> list[str]:
    """The input shapes of every concrete function TensorFlow made, as ``[None, 3]``."""
    shapes = []
    for concrete in function._list_all_concrete_functions():
        [spec] = concrete.structured_input_signature[0]
        shapes.append(str(spec.shape.as_list()).replace("'", ""))
    return shapes


def test_a_generalised_trace_shows_its_none_dimensions_and_no_reduce_retracing_advice():
    @tf.function(reduce_retracing=True)
    def rows(x):
        return tf.reduce_sum(x, axis=1)

    with watch_compiles(jax=False) as watch:
        for n in (2, 5, 7, 9, 4):
            rows(tf.ones([n, 3]))
    function = watch.report().function(rows)
    assert function.compiles == rows.experimental_get_tracing_count() == 2
    shown = [e.arguments[0].type_text() for e in function.events]
    assert sorted(shown) == sorted(
        f"float32[{s.strip('[]').replace(' ', '')}]" for s in concrete_shapes(rows)
    )
    assert shown == ["float32[2,3]", "float32[None,3]"]
    texts = [a.text for a in function.advice]
    assert not any("reduce_retracing=True" in t for t in texts), texts
    # 5, 7, 9 and 4 were served by the generalised trace: nothing to pad.
    assert not [a for a in function.advice if a.kind in ("bucket", "pad")], texts
    [signature] = [a for a in function.advice if a.kind == "input_signature"]
    assert "tf.TensorSpec([None, 3], tf.float32)" in signature.text


def test_input_signature_advice_keeps_the_dimensions_that_never_varied():
    @tf.function
    def cols(x):
        return x * 2.0

    with watch_compiles(jax=False) as watch:
        for n in (2, 3, 4):
            cols(tf.ones([n, 5, 3]))
    function = watch.report().function(cols)
    assert function.compiles == cols.experimental_get_tracing_count() == 3
    [signature] = [a for a in function.advice if a.kind == "input_signature"]
    assert "tf.TensorSpec([None, 5, 3], tf.float32)" in signature.text
    assert "?" not in signature.text
    assert "reduce_retracing=True" in signature.text  # it has neither yet
    # The advice is right: with that signature TensorFlow traces once for every size.
    signed = tf.function(cols.python_function, input_signature=[tf.TensorSpec([None, 5, 3])])
    for n in (2, 3, 4):
        signed(tf.ones([n, 5, 3]))
    assert signed.experimental_get_tracing_count() == 1
