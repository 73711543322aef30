"""Offline recompile diagnosis of dump folders: modules grouped by function, signatures diffed.

The corpus dump ``generated/jax_recompiles`` holds what XLA wrote for one function compiled
four times (SOURCE.py: ``norm`` on ``(8, 32)``, ``(13, 32)``, ``(21, 32)`` float32, then
``(8, 32)`` bfloat16); the module texts themselves are the oracle.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hloscope.analysis.recompiles import (
    Cause,
    bucket_sizes,
    ledger_of_dump,
    ledger_of_modules,
)
from hloscope.capture import compile_watch
from hloscope.capture.compile_watch import CacheMissExplanation, parse_explanation
from hloscope.capture.target import Target
from hloscope.drivers.target_recompiles import ledger_of_target
from hloscope.dump.index import load_dump
from hloscope.hlo.parser import parse_modules

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def recompiles_dump(corpus) -> Path:
    return corpus / "generated" / "jax_recompiles"


def test_one_function_four_compiles_dim0_and_one_dtype_change(recompiles_dump):
    ledger = ledger_of_dump(load_dump(recompiles_dump))
    norm = ledger.function("norm")
    assert norm.compiles == 4
    [x] = norm.arguments
    assert x.path == "x"  # the parameter's name in the HLO (x.1)
    assert x.varying_dims == {0: [8, 13, 21]}
    assert x.dtypes == ["f32", "bf16"]
    assert [[str(c) for c in e.causes] for e in norm.events] == [
        ["first"],
        ["shape"],
        ["shape"],
        ["shape", "dtype"],
    ]
    assert sum(Cause.DTYPE in e.causes for e in norm.events) == 1
    # Each signature is the module's own entry layout, results included.
    texts = sorted(recompiles_dump.glob("module_*.jit_norm.before_optimizations.txt"))
    heads = [t.read_text().split("\n", 1)[0] for t in texts]
    for event, head in zip(norm.events, heads):
        shape = event.arguments[0].type_text()
        assert f"({shape}{{1,0}})->{shape}{{1,0}}" in head
        assert event.signature == f"(x: {shape}) -> {shape}"
        assert event.seconds is None and event.module.startswith("module_")
    pad = next(a for a in norm.advice if a.argument == "x" and a.dim == 0)
    assert pad.sizes == [8, 13, 21] and all(any(b >= s for b in pad.buckets) for s in pad.sizes)
    assert pad.compiles_saved == 2  # 4 compiles -> one per dtype
    assert norm.to_dict()["compile_seconds"] is None


def test_eager_helper_modules_differ_in_their_results(recompiles_dump):
    ledger = ledger_of_dump(load_dump(recompiles_dump))
    helper = ledger.function("broadcast_in_dim")
    assert helper.compiles == 4
    causes = [e.causes for e in helper.events]
    assert causes[1:3] == [[Cause.STATIC_VALUE], [Cause.STATIC_VALUE]]  # same params, new result
    assert helper.events[1].differences[0].before == "f32[8,32]"
    assert helper.events[1].differences[0].now == "f32[13,32]"


def test_tensorflow_modules_group_by_function(corpus):
    ledger = ledger_of_dump(load_dump(corpus / "generated" / "tf_keras_mobilenet_train"))
    step = ledger.function("train_step")
    assert step.compiles == 2
    # The same signature under another module name (the compiler-IR call's attributes).
    assert step.events[1].causes == [Cause.CONTEXT]
    assert step.events[0].signature.startswith("(")


def test_target_folder_and_hlo_file_give_the_same_ledger(recompiles_dump, tmp_path):
    from_target = ledger_of_target(Target.resolve(str(recompiles_dump)))
    assert from_target.function("norm").compiles == 4
    joined = tmp_path / "norms.hlo"
    texts = sorted(recompiles_dump.glob("module_*.jit_norm.before_optimizations.txt"))
    joined.write_text("\n// -----\n".join(t.read_text() for t in texts))
    from_file = ledger_of_modules(parse_modules(joined))
    assert (
        from_file.to_dict()["functions"][0]["arguments"]
        == (from_target.function("norm").to_dict()["arguments"])
    )


def test_offline_ledger_never_imports_a_framework(recompiles_dump):
    probe = textwrap.dedent(
        f"""
        import sys
        from hloscope.analysis.recompiles import ledger_of_dump
        from hloscope.dump.index import load_dump
        from hloscope.render.recompiles_text import ledger_text
        ledger = ledger_of_dump(load_dump({str(recompiles_dump)!r}))
        text = ledger_text(ledger)
        assert "norm" in text, text
        print(sorted(m for m in sys.modules if m.split(".")[0] in ("jax", "jaxlib", "tensorflow")))
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


def test_bucket_sizes_cover_every_size():
    sizes = list(range(1, 41))
    buckets = bucket_sizes(sizes)
    assert buckets == [1, 2, 4, 8, 16, 32, 64]
    assert all(min(b for b in buckets if b >= s) < 2 * s for s in sizes)  # at most 2x padding


def test_explanations_of_every_form_parse():
    """The exact texts jax 0.10.2 writes (../shared/docs/diagnostics-notes.md, B1.1)."""
    never = parse_explanation(
        "TRACING CACHE MISS at /p/s.py:17 (<module>):\n  never seen function:\n"
        "    f id=140427943003776 defined at /p/s.py:12"
    )
    # Its own name: hloscope.analysis.explain has the Explanation of source lines and kernels.
    assert isinstance(never, CacheMissExplanation)
    assert not hasattr(compile_watch, "Explanation")
    assert (never.call_site, never.name, never.defined_at) == (
        "/p/s.py:17 (<module>)",
        "f",
        "/p/s.py:12",
    )
    assert never.never_seen and not never.redefined and never.hints == []
    weak = parse_explanation(
        "TRACING CACHE MISS at /p/s.py:19 (<module>):\n  for f defined at /p/s.py:12\n"
        "  all previously seen cache keys differ. For the closest previous key:\n"
        "  different input types:\n"
        "  * at y, now f32[]{weak_type=False} and before f32[]{weak_type=True}"
        "https://docs.jax.dev/en/latest/type_promotion.html#weak-types"
    )
    assert [(h.cause, h.path) for h in weak.hints] == [("weak_type", "y")]
    static = parse_explanation(
        "TRACING CACHE MISS at /p/s.py:3 (<module>):\n  for g defined at /p/s.py:1\n"
        "  different input pytree:\n  * at input path [0][1], now <class "
        "'jax._src.tree_util.Static'> with pytree metadata Static(val=4) and before <class "
        "'jax._src.tree_util.Static'> with pytree metadata Static(val=3), so the pytree node "
        "metadata does not match"
    )
    assert [(h.cause, h.path, h.now, h.before) for h in static.hints] == [
        ("static_value", "[0][1]", "4", "3")
    ]
    context = parse_explanation(
        "TRACING CACHE MISS at /p/s.py:9 (<module>):\n  for f defined at /p/s.py:1\n"
        "  Tracing context doesn't match, e.g. due to config or context manager.\n"
        "  * jax_default_matmul_precision differs: now highest and before None"
    )
    assert [(h.cause, h.path, h.now) for h in context.hints] == [
        ("context", "jax_default_matmul_precision", "highest")
    ]
    both = parse_explanation("  * at x, now i32[4] and before f32[3]")
    assert {h.cause for h in both.hints} == {"shape", "dtype"}


# Two programs that make a jax.jit of a lambda anew on each turn of a loop, inside a function
# (the dump's frames then name it 'main.<locals>.<lambda>') and inside a method.
LAMBDA_IN_A_FUNCTION = """
import jax, jax.numpy as jnp

def main():
    x = jnp.ones((8, 32))
    for _ in range(3):
        softmax = jax.jit(lambda a: jnp.exp(a) / jnp.sum(jnp.exp(a)))
        x = softmax(x)
    return x

main().block_until_ready()
"""
LAMBDA_IN_A_METHOD = """
import jax, jax.numpy as jnp

class Trainer:
    def fit(self, w, steps):
        for _ in range(steps):
            w = jax.jit(lambda v: v - 0.1 * jnp.tanh(v))(w)
        return w

Trainer().fit(jnp.ones((4, 4)), 4).block_until_ready()
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("source", "compiles", "line"),
    [(LAMBDA_IN_A_FUNCTION, 3, 8), (LAMBDA_IN_A_METHOD, 4, 7)],
    ids=["function", "method"],
)
def test_a_jit_of_a_lambda_made_in_a_loop_reads_alike_from_its_dump(
    tmp_path, monkeypatch, source, compiles, line
):
    """A dump of ``jax.jit(lambda ...)`` made anew in a loop: the lambda is the user's
    function, compiled once per turn (``ls`` counts it so too), each time a function made
    anew, called from the loop's line; the fix is to hoist it, as the script's own run
    (JAX's hooks, the oracle) says."""
    from hloscope.drivers.script_recompiles import recompiles_of_script

    script = tmp_path / "loop.py"
    script.write_text(textwrap.dedent(source))
    dump = tmp_path / "dump"
    monkeypatch.setenv("XLA_FLAGS", f"--xla_dump_to={dump}")
    run = recompiles_of_script(script, out_dir=tmp_path / "run", timeout=300)
    assert run.ok, run.error_line()
    live = run.ledger.function("<lambda>")

    index = load_dump(dump)
    offline = ledger_of_dump(index)
    (lam,) = [f for f in offline.functions if f.name == "_lambda"]
    assert not lam.internal
    dumped = [m for m in index.modules if m.function == "_lambda"]
    assert lam.compiles == len(dumped) == live.compiles == compiles
    assert [e.causes for e in lam.events] == [e.causes for e in live.events]
    assert lam.events[-1].causes == [Cause.FUNCTION_RECREATED]
    assert {e.call_site for e in lam.events} == {e.call_site for e in live.events}
    assert f"loop.py:{line}:" in lam.events[0].call_site
    assert [a.kind for a in lam.advice] == [a.kind for a in live.advice] == ["hoist"]
    assert lam.advice[0].text == live.advice[0].text
