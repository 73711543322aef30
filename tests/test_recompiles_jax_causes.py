"""Recompile causes and advice on programs shaped like real training code (issue 18, 7-10).

Oracles are JAX's own: ``_cache_size()`` of the jitted function, the backend compile events of
``jax.monitoring``, and for bucketing advice the compiles a fresh jit of the same function
makes when it is called with the bucketed sizes the advice names.
"""

from __future__ import annotations

import pytest
from frameworks_needed import needs_framework

jax = needs_framework("jax")
import jax.numpy as jnp  # noqa: E402

from hloscope.analysis.recompiles import Cause  # noqa: E402
from hloscope.drivers.compile_watch import watch_compiles  # noqa: E402
from hloscope.render.recompiles_text import ledger_text  # noqa: E402


def watched(run):
    with watch_compiles() as watch:
        run()
    return watch.report()


def batch_step(params, x, y, mask):
    """A training step: x, y and mask share the sequence length (dim 1)."""
    logits = jnp.einsum("bld,dk->blk", x, params["w"]) + params["b"]
    loss = ((logits - y) ** 2).sum(-1) * mask
    return loss.sum() / mask.sum()


def batch(length: int, width: int = 4):
    x = jnp.ones((2, length, width))
    y = jnp.zeros((2, length, 3))
    mask = jnp.ones((2, length))
    return x, y, mask


def fresh_jit():
    """A jit of a function object never compiled before (jits of one function share a cache)."""

    def train_step(params, x, y, mask):
        return batch_step(params, x, y, mask)

    return jax.jit(train_step)


PARAMS = {"w": jnp.ones((4, 3)), "b": jnp.zeros(3)}
LENGTHS = (5, 7, 9, 12, 17, 30)


def test_a_shared_dimension_is_priced_once_for_the_whole_signature():
    step = fresh_jit()
    ledger = watched(lambda: [step(PARAMS, *batch(n)) for n in LENGTHS])
    function = ledger.function("train_step")
    assert function.compiles == step._cache_size() == len(LENGTHS)
    sized = [a for a in function.advice if a.kind in ("bucket", "pad")]
    assert len(sized) == 1, [a.text for a in function.advice]  # one shared dimension
    [advice] = sized
    assert sorted(advice.arguments) == ["mask:1", "x:1", "y:1"]
    assert advice.sizes == list(LENGTHS)
    # The oracle: a fresh jit called with the padded sizes compiles exactly this often.
    fresh = fresh_jit()
    for n in LENGTHS:
        fresh(PARAMS, *batch(next(b for b in advice.buckets if b >= n)))
    assert advice.compiles_saved == len(LENGTHS) - fresh._cache_size()
    assert f"{fresh._cache_size()} compiles instead of {len(LENGTHS)}" in advice.text


def test_no_size_advice_when_padding_saves_nothing():
    """The width changes with the length in every call: padding one dimension saves nothing."""
    step = fresh_jit()
    pairs = [(5, 4), (6, 8), (7, 16)]

    def run():
        for n, width in pairs:
            x, y, mask = batch(n, width)
            step({"w": jnp.ones((width, 3)), "b": jnp.zeros(3)}, x, y, mask)

    function = watched(run).function("train_step")
    assert function.compiles == step._cache_size() == 3
    fresh = fresh_jit()
    for _length, width in pairs:  # padded to the largest length: still one compile per width
        x, y, mask = batch(max(p[0] for p in pairs), width)
        fresh({"w": jnp.ones((width, 3)), "b": jnp.zeros(3)}, x, y, mask)
    assert fresh._cache_size() == 3
    for advice in function.advice:
        assert advice.compiles_saved != 0, advice.text
        assert " 0 saved" not in advice.text
    assert not [a for a in function.advice if a.kind in ("bucket", "pad")]


def test_arguments_are_named_as_jax_names_them_and_tree_keys_are_named():
    def tree_step(params, x):
        return sum(jnp.sum(v) for v in params.values()) * x.sum()

    step = jax.jit(tree_step)
    x = jnp.ones(3)
    base = {"w": jnp.ones(2), "b": jnp.ones(2)}

    def run():
        step(base, x)
        step({**base, "c": jnp.ones(2)}, x)
        step(base, x)  # cached
        step({"w": jnp.ones(2)}, x)

    function = watched(run).function("tree_step")
    assert function.compiles == step._cache_size() == 3
    assert "params['w']" in function.events[0].signature
    assert "arg0" not in function.events[0].signature
    assert function.events[1].causes == [Cause.PYTREE]
    added = function.events[1].differences[0].text()
    assert "added" in added and "params['c']" in added
    removed = function.events[2].differences[0].text()
    assert "removed" in removed and "params['b']" in removed and "params['c']" in removed


def test_a_key_jax_prunes_as_unused_is_named_from_jaxs_explanation():
    def uses_w(params, x):
        return params["w"] * x

    step = jax.jit(uses_w)
    x = jnp.ones(2)
    function = watched(lambda: (step({"w": x}, x), step({"w": x, "unused": x}, x))).function(
        "uses_w"
    )
    assert function.compiles == step._cache_size() == 2
    [change] = function.events[1].differences
    assert change.cause is Cause.PYTREE
    assert change.text() == "params: keys added {'unused'}"


def test_clear_caches_is_its_own_cause_and_gets_no_hoist_advice():
    step = jax.jit(lambda x: x * 3)
    x = jnp.ones(4)

    def run():
        for _ in range(3):
            step(x)
            jax.clear_caches()

    function = watched(run).function("<lambda>")
    assert function.compiles == 3
    assert [e.causes for e in function.events][1:] == [[Cause.CACHE_CLEARED]] * 2
    kinds = {a.kind for a in function.advice}
    assert "cache_cleared" in kinds and "hoist" not in kinds


def test_hoist_only_for_one_call_site_in_a_loop():
    x = jnp.ones(2)

    def in_a_loop():
        for _ in range(3):

            def double(v):  # a new function object every time round
                return v * 2

            jax.jit(double)(x)

    function = watched(in_a_loop).function("double")
    assert [e.causes for e in function.events][1:] == [[Cause.FUNCTION_RECREATED]] * 2
    [hoist] = [a for a in function.advice if a.kind == "hoist"]
    assert "out of the loop at" in hoist.text

    def make_step():
        def scaled(v):
            return v * 2

        return jax.jit(scaled)

    def two_places():  # a factory called from two lines, no loop
        make_step()(x)
        make_step()(x)

    function = watched(two_places).function("scaled")
    assert function.compiles == 2
    kinds = [a.kind for a in function.advice]
    assert "hoist" not in kinds and "reuse" in kinds
    assert all("loop" not in a.text for a in function.advice)


@pytest.mark.parametrize("width", [80])
def test_fixes_wrap_at_the_width(width):
    step = fresh_jit()
    ledger = watched(lambda: [step(PARAMS, *batch(n)) for n in LENGTHS])
    text = ledger_text(ledger, width=width)
    assert max(len(line) for line in text.splitlines()) <= width, text
    assert "fix" in text


def _loss(w, x):
    return jnp.tanh(x @ w).mean()


@pytest.mark.parametrize(
    "transform",
    [jax.grad, jax.value_and_grad, lambda f: jax.vmap(f, in_axes=(None, 0))],
    ids=["grad", "value_and_grad", "vmap"],
)
def test_a_function_jitted_beside_its_transform_is_its_own_first_compile(transform):
    """jit(f) and jit(transform(f)) share f's name and line; JAX traces f inside the
    transform's trace and caches that trace, so jit(f)'s own first compile shows no tracing
    and the same arguments. It is another function (its results differ), not a change of
    devices or shardings: no sharding cause, no sharding advice."""

    def loss(w, x):
        return _loss(w, x)

    plain, transformed = jax.jit(loss), jax.jit(transform(loss))
    w, x = jnp.ones((4, 4)), jnp.ones((3, 4))

    def run():
        transformed(w, x)
        transformed(w, jnp.ones((5, 4)))
        plain(w, jnp.ones((5, 4)))

    ledger = watched(run)
    function = ledger.function("loss")
    # JAX's oracle: each jitted callable compiled what its own cache holds.
    assert function.compiles == transformed._cache_size() + plain._cache_size() == 3
    last = function.events[-1]
    assert last.causes == [Cause.FIRST], [d.text for d in last.differences]
    assert Cause.SHARDING not in function.cause_counts()
    assert not [a for a in function.advice if "sharding" in a.text]


def test_the_same_function_recompiled_for_new_arguments_is_not_called_another():
    """Results that differ because the arguments did (a batch size) are one function."""

    def per_example(w, x):
        return jnp.tanh(x @ w)

    step = jax.jit(per_example)
    ledger = watched(lambda: [step(jnp.ones((4, 4)), jnp.ones((n, 4))) for n in (2, 3)])
    events = ledger.function("per_example").events
    assert [e.causes for e in events] == [[Cause.FIRST], [Cause.SHAPE]]


def test_a_jitted_function_first_called_after_a_jit_of_its_grad_is_not_a_sharding_change():
    """step = jit(f); grad = jit(grad(step)): grad traces step and JAX caches that trace, so
    step's own first compile has no tracing, no explanation and the same arguments as grad's
    last: without its results it looks like a change of devices."""

    def loss(w, x):
        return _loss(w, x)

    step = jax.jit(loss)
    grad = jax.jit(jax.grad(step))
    w, x = jnp.ones((4, 4)), jnp.ones((3, 4))

    def run():
        grad(w, x)
        step(w, x)

    ledger = watched(run)
    events = ledger.function("loss").events
    assert len(events) == grad._cache_size() + step._cache_size() == 2
    assert events[-1].trace_seconds is None  # JAX's tracing cache hit, as described
    assert [e.causes for e in events] == [[Cause.FIRST], [Cause.FIRST]]
    assert "another function" in events[-1].differences[0].now
