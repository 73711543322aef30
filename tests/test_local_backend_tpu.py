"""The local JAX backend on a TPU host reads its compile the way XLA:TPU offline does.

On the chip, ``Compiled.as_text()`` names instructions differently from the module XLA dumped
after optimizations, and the dumped live range and buffer assignment name the dumped ones: a
capture that kept ``as_text()`` sent ``memory`` to its own simulation, which counted each
asynchronous slice's operand again (48 MiB "live range's peak" against XLA:TPU's 32 MiB, seen
on a v5e). And a program that does not fit in HBM is an answer there, as offline. CI has no
TPU: the device kind is the one thing a TPU host changes, so that is what these tests set.
"""

from __future__ import annotations

import pytest
from frameworks_needed import needs_framework

from hloscope.backends import LocalJax, jax_compile
from hloscope.backends import _local as local_backend
from hloscope.backends._base import does_not_fit


def _compile_with_kind(monkeypatch, kind: str):
    jax = needs_framework("jax")
    import jax.numpy as jnp

    calls = []
    real = jax_compile.compile_jax

    def recording(*args, **kwargs):
        calls.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(jax_compile, "compile_jax", recording)
    monkeypatch.setattr(local_backend, "local_device_kind", lambda: kind)
    f = jax.jit(lambda x: jnp.sin(x) @ x.T)
    compiled = LocalJax().lower(f, (jnp.ones((64, 64)),), {}).compile()
    (options,) = calls
    return compiled, options


def test_on_a_tpu_the_optimized_stage_is_the_dumped_module(monkeypatch):
    compiled, options = _compile_with_kind(monkeypatch, "TPU v5 lite")
    assert options["dumped_after"] is True and options["keep_refused"] is does_not_fit
    assert compiled.compiled_for == "TPU v5 lite"
    assert compiled.capture.reports  # the dumped reports the dumped module goes with
    _, plain = _compile_with_kind(monkeypatch, "cpu")
    assert plain["dumped_after"] is False and plain["keep_refused"] is None


@pytest.mark.parametrize(
    ("message", "answer"),
    [
        (
            "RESOURCE_EXHAUSTED: Ran out of memory in memory space hbm. ... exceeds available HBM",
            True,
        ),
        ("RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory", True),
        ("INVALID_ARGUMENT: Unsupported type f64 for dot", False),
    ],
)
def test_only_a_refusal_for_memory_is_kept_as_an_answer(message, answer):
    assert does_not_fit(RuntimeError(message)) is answer
