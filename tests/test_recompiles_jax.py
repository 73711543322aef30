"""The JAX compile watcher and the ledger, against JAX's own counts.

Every scenario runs real jitted code under ``hloscope.drivers.compile_watch.watch_compiles``; the
oracles are JAX's own: the jitted function's ``_cache_size()`` (one entry per compile) and the
``/jax/core/compile/backend_compile_duration`` events of ``jax.monitoring`` (one per XLA
compile), counted by a listener of the test's own. Each scenario changes one thing between
calls, and the ledger must name exactly that cause.
"""

from __future__ import annotations

import contextlib
import logging
from collections import Counter

import pytest
from frameworks_needed import needs_framework

jax = needs_framework("jax")
import jax.numpy as jnp  # noqa: E402

from hloscope.analysis.recompiles import Cause  # noqa: E402
from hloscope.capture.compile_watch import JAX_LOGGERS  # noqa: E402
from hloscope.drivers.compile_watch import watch_compiles  # noqa: E402
from hloscope.testing import CompileLimitExceeded, assert_max_compiles  # noqa: E402

BACKEND = "/jax/core/compile/backend_compile_duration"


@contextlib.contextmanager
def backend_compiles():
    """JAX's own count of XLA compiles per ``fun_name`` while the block runs."""
    counts: Counter[str] = Counter()

    def listener(event: str, duration: float, **kwargs) -> None:
        if event == BACKEND:
            counts[kwargs.get("fun_name")] += 1

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        yield counts
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)


def watched(run):
    """Run ``run()`` under the watcher and JAX's own event count: (ledger, counts)."""
    with backend_compiles() as counts, watch_compiles() as watch:
        run()
    return watch.report(), counts


def causes(function) -> list[list[str]]:
    return [[str(c) for c in event.causes] for event in function.events]


def check_counts(ledger, counts, name: str, *jitted) -> None:
    """The ledger's compiles of ``name`` equal JAX's cache entries and backend events."""
    function = ledger.function(name)
    assert function.compiles == sum(j._cache_size() for j in jitted)
    assert function.compiles == counts[f"jit({name})"]
    # Every XLA compile JAX reported is in the ledger, eager ops included.
    assert ledger.compiles == sum(counts.values())


def test_shape_change():
    @jax.jit
    def shape_fn(x):
        return x * 2

    ledger, counts = watched(lambda: [shape_fn(jnp.ones(n)) for n in (3, 4, 3, 5)])
    check_counts(ledger, counts, "shape_fn", shape_fn)
    function = ledger.function(shape_fn)
    assert causes(function) == [["first"], ["shape"], ["shape"]]
    assert function.argument("x").varying_dims == {0: [3, 4, 5]}
    first_line = shape_fn.__wrapped__.__code__.co_firstlineno  # the decorator's line
    assert function.defined_at.endswith(f"test_recompiles_jax.py:{first_line}")
    assert all("test_recompiles_jax.py" in e.call_site for e in function.events)
    change = function.events[1].differences[0]
    assert (change.path, change.before, change.now) == ("x", "f32[3]", "f32[4]")


def test_dtype_change():
    @jax.jit
    def dtype_fn(x):
        return x + 1

    ledger, counts = watched(
        lambda: [dtype_fn(jnp.ones(3, dtype)) for dtype in (jnp.float32, jnp.int32)]
    )
    check_counts(ledger, counts, "dtype_fn", dtype_fn)
    function = ledger.function("dtype_fn")
    assert causes(function) == [["first"], ["dtype"]]
    assert function.argument("x").dtypes == ["f32", "i32"]
    assert any(a.kind == "dtype" for a in function.advice)


def test_weak_type_change():
    @jax.jit
    def weak_fn(x, y):
        return x * y

    x = jnp.ones(3)
    ledger, counts = watched(lambda: (weak_fn(x, 2.0), weak_fn(x, jnp.float32(2.0))))
    check_counts(ledger, counts, "weak_fn", weak_fn)
    function = ledger.function("weak_fn")
    assert causes(function) == [["first"], ["weak_type"]]
    assert function.events[1].differences[0].path == "y"
    assert any(a.kind == "python_scalar" and a.argument == "y" for a in function.advice)


def test_static_value_change():
    def scaled(x, k):
        return x * k

    static_fn = jax.jit(scaled, static_argnums=1)
    x = jnp.ones(3)
    ledger, counts = watched(lambda: [static_fn(x, k) for k in (2, 3, 2, 4)])
    check_counts(ledger, counts, "scaled", static_fn)
    function = ledger.function("scaled")
    assert causes(function) == [["first"], ["static_value"], ["static_value"]]
    assert function.argument("k").values == ["2", "3", "4"]
    assert [e.statics for e in function.events] == [{"k": "2"}, {"k": "3"}, {"k": "4"}]
    assert function.argument("x").varying_dims == {}


def test_pytree_change():
    @jax.jit
    def tree_fn(t):
        return sum(t.values())

    x = jnp.ones(2)
    ledger, counts = watched(lambda: (tree_fn({"a": x}), tree_fn({"a": x, "b": x})))
    check_counts(ledger, counts, "tree_fn", tree_fn)
    assert causes(ledger.function("tree_fn")) == [["first"], ["pytree"]]


def test_function_recreated_in_a_loop():
    x = jnp.ones(2)
    made = []

    def loop():
        for _ in range(3):
            made.append(jax.jit(lambda v: v + 1))
            made[-1](x)

    ledger, counts = watched(loop)
    check_counts(ledger, counts, "<lambda>", *made)
    function = ledger.function("<lambda>")
    assert causes(function) == [["first"], ["function_recreated"], ["function_recreated"]]
    assert any(a.kind == "hoist" for a in function.advice)


def test_context_change():
    @jax.jit
    def context_fn(a, b):
        return a @ b

    m = jnp.ones((4, 4))

    def run():
        context_fn(m, m)
        with jax.default_matmul_precision("highest"):
            context_fn(m, m)

    ledger, counts = watched(run)
    check_counts(ledger, counts, "context_fn", context_fn)
    function = ledger.function("context_fn")
    assert causes(function) == [["first"], ["context"]]
    change = function.events[1].differences[0]
    assert change.path == "jax_default_matmul_precision"
    assert "highest" in change.now


def test_config_and_shape_change_at_once_names_both():
    """JAX's own explanation names only the context here (it hides the shape change)."""

    @jax.jit
    def both_fn(x):
        return x * 2

    def run():
        both_fn(jnp.ones(3))
        with jax.default_matmul_precision("highest"):
            both_fn(jnp.ones(4))

    ledger, counts = watched(run)
    check_counts(ledger, counts, "both_fn", both_fn)
    event = ledger.function("both_fn").events[1]
    assert set(event.causes) == {Cause.CONTEXT, Cause.SHAPE}
    assert "Tracing context doesn't match" in event.explanation
    assert "now f32[4]" not in event.explanation  # what hloscope adds


def test_first_compile_only_and_dataframe():
    @jax.jit
    def once(x):
        return x - 1

    ledger, counts = watched(lambda: [once(jnp.ones(2)) for _ in range(5)])
    check_counts(ledger, counts, "once", once)
    function = ledger.function("once")
    assert causes(function) == [["first"]] and function.advice == []
    frame = ledger.to_dataframe()
    assert len(frame) == ledger.compiles
    assert list(frame[frame.function == "once"]["cause"]) == ["first"]
    timed = frame[frame.function == "once"].iloc[0]
    assert timed.xla_s > 0 and timed.lowering_s > 0 and timed.tracing_s > 0
    assert timed.seconds == pytest.approx(timed.xla_s + timed.lowering_s + timed.tracing_s)


def test_decorator_form_accumulates():
    @jax.jit
    def inner(x):
        return x + 3

    @watch_compiles()
    def run(n):
        inner(jnp.ones(n))

    run(2)
    run(3)
    run(2)
    function = run.watch.report().function("inner")
    assert function.compiles == inner._cache_size() == 2


def logger_state():
    state = []
    for name in (*JAX_LOGGERS, "jax", ""):
        logger = logging.getLogger(name)
        state.append((name, logger.level, logger.propagate, list(logger.handlers), logger.disabled))
    return state, jax.config.jax_explain_cache_misses, jax.config.jax_log_compiles


def test_loggers_and_config_restored_also_when_the_code_raises(capsys):
    pxla = logging.getLogger("jax._src.interpreters.pxla")
    mine = logging.NullHandler()
    pxla.addHandler(mine)
    pxla.setLevel(logging.ERROR)
    try:
        before = logger_state()

        @jax.jit
        def raising(x):
            return x * 5

        with pytest.raises(ZeroDivisionError), watch_compiles() as watch:
            raising(jnp.ones(7))
            _ = 1 / 0
        assert logger_state() == before
        assert watch.report().function("raising").compiles == 1
        with watch_compiles():
            raising(jnp.ones(8))
        assert logger_state() == before
    finally:
        pxla.removeHandler(mine)
        pxla.setLevel(logging.NOTSET)
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""  # the watcher printed nothing


def test_records_the_user_asked_for_still_reach_them(caplog):
    """With the user's own explain flag on, JAX's explanations reach their handlers exactly once;
    with it off, the ones the watcher caused reach no one."""

    @jax.jit
    def explained(x):
        return x + 4

    caplog.set_level(logging.WARNING)
    with watch_compiles():
        explained(jnp.ones(2))
    assert not [r for r in caplog.records if "TRACING CACHE MISS" in r.getMessage()]
    with jax.explain_cache_misses(True), watch_compiles():
        explained(jnp.ones(3))
    misses = [r for r in caplog.records if "TRACING CACHE MISS" in r.getMessage()]
    assert len(misses) == 1 and "explained" in misses[0].getMessage()
    assert jax.config.jax_explain_cache_misses is False


def test_nested_watchers_both_see_every_compile():
    @jax.jit
    def nested(x):
        return x / 2

    with watch_compiles() as outer:
        nested(jnp.ones(2))
        with watch_compiles() as inner:
            nested(jnp.ones(3))
    assert outer.report().function("nested").compiles == 2
    assert inner.report().function("nested").compiles == 1
    assert nested._cache_size() == 2


def test_jax_imported_inside_the_block_is_watched():
    """A script imports jax after the watcher started: the watcher hooks in at the import."""
    import subprocess
    import sys
    import textwrap
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    probe = textwrap.dedent(
        """
        import sys
        from hloscope.drivers.compile_watch import watch_compiles
        assert "jax" not in sys.modules
        with watch_compiles() as w:
            import jax, jax.numpy as jnp
            f = jax.jit(lambda x: x + 1)
            f(jnp.ones(2)); f(jnp.ones(3))
        print(w.report().function("<lambda>").compiles, f._cache_size())
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["2", "2"]


def test_assert_max_compiles_passes_and_fails_with_the_ledger():
    @jax.jit
    def guarded(x):
        return x * 3

    with assert_max_compiles(1, function=guarded):
        for _ in range(3):
            guarded(jnp.ones(5))
    with pytest.raises(CompileLimitExceeded) as failure, assert_max_compiles(1):
        guarded(jnp.ones(6))
        guarded(jnp.ones(7))
    message = str(failure.value)
    assert message.startswith("2 compiles, at most 1 allowed")
    assert "guarded" in message and "shape" in message and "x: f32[6] -> f32[7]" in message
    assert failure.value.ledger.function("guarded").compiles == 2


def test_assert_max_compiles_as_a_decorator_and_with_errors():
    @jax.jit
    def decorated(x):
        return x - 3

    @assert_max_compiles(1, function="decorated")
    def two_shapes():
        decorated(jnp.ones(9))
        decorated(jnp.ones(10))

    with pytest.raises(AssertionError, match="2 compiles of decorated, at most 1 allowed"):
        two_shapes()

    @assert_max_compiles(5)
    def raises():
        decorated(jnp.ones(11))
        raise KeyError("mine")

    with pytest.raises(KeyError, match="mine"):
        raises()
    with pytest.raises(ValueError):
        assert_max_compiles(-1)
