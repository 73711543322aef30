"""bench of a program XLA refuses says XLA's own words in its one error line.

On a TPU host the local compile keeps a refusal for memory as an answer (a capture of the
refusal, for ``memory``); bench must run what it compiles, so XLA's refusal is its error,
worded by XLA. CI has no TPU: the device kind is what a TPU host changes, so the tests set it,
and the refusal is XLA's real one for a custom call nothing implements here.
"""

from __future__ import annotations

import pytest
from frameworks_needed import needs_framework

from hloscope.backends import _base, _local, jax_compile
from hloscope.backends.errors import TpuCompileError, XlaCompileFailed

TARGET = "hloscope_no_such_ffi_target"


def _unimplemented(x):
    import jax

    return jax.ffi.ffi_call(TARGET, jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


@pytest.fixture
def tpu_host(monkeypatch):
    """This machine as a TPU host whose every refusal counts as one for memory (the case the
    local compile keeps as an answer instead of raising)."""
    monkeypatch.setattr(_local, "local_device_kind", lambda: "TPU v5 lite")
    monkeypatch.setattr(_local, "does_not_fit", lambda error: True)
    assert _base.does_not_fit is not _local.does_not_fit


def _xla_words() -> str:
    """XLA's own first line for the program, compiled by JAX directly (the oracle)."""
    jax = needs_framework("jax")
    with pytest.raises(Exception) as raised:
        jax.jit(_unimplemented).lower(jax.numpy.ones(8)).compile()
    return str(raised.value).strip().splitlines()[0]


def test_bench_of_a_refused_program_says_xlas_words(tpu_host):
    jax = needs_framework("jax")
    from hloscope.bench.program import program_from_callable

    words = _xla_words()
    assert TARGET in words
    with pytest.raises(XlaCompileFailed) as raised:
        program_from_callable(_unimplemented, (jax.numpy.ones(8),), {})
    assert not isinstance(raised.value, TpuCompileError)
    assert raised.value.one_line() == words


def test_the_local_compile_still_keeps_a_refusal_as_an_answer(tpu_host, monkeypatch):
    """What ``memory`` reads on a TPU host is unchanged: the refusal is kept (the compile is
    asked to keep it); bench alone asks for XLA's error."""
    jax = needs_framework("jax")
    seen = []
    real = jax_compile.compile_jax

    def recording(*args, **kwargs):
        seen.append(kwargs["keep_refused"])
        return real(*args, **kwargs)

    monkeypatch.setattr(jax_compile, "compile_jax", recording)
    f = jax.jit(lambda x: x * 2)
    _local.LocalJax().lower(f, (jax.numpy.ones(4),), {}).compile()
    _local.LocalJax(keep_refused=False).lower(f, (jax.numpy.ones(4),), {}).compile()
    assert seen[0] is _local.does_not_fit and seen[1] is None


def test_the_cli_prints_xlas_line(tmp_path):
    """The command line's one error line, for a second program of another shape."""
    import os
    import subprocess
    import sys
    import textwrap

    needs_framework("jax")
    script = tmp_path / "prog.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import jax
            import jax.numpy as jnp

            def step(x):
                y = jnp.tanh(x @ x.T)
                out = jax.ShapeDtypeStruct(y.shape, y.dtype)
                return jax.ffi.ffi_call("{TARGET}_2", out)(y)

            EXAMPLE_ARGS = {{"step": (jnp.ones((16, 16)),)}}
            """
        )
    )
    env = {**os.environ, "HLOSCOPE_CACHE": str(tmp_path / "cache")}
    env.pop("HLOSCOPE_DEBUG", None)
    run = subprocess.run(
        [sys.executable, "-m", "hloscope", "bench", f"{script}:step"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert run.returncode != 0
    lines = [line for line in run.stderr.splitlines() if line.startswith("hloscope: error")]
    assert len(lines) == 1 and f"{TARGET}_2" in lines[0], run.stderr
    assert "Traceback" not in run.stderr
