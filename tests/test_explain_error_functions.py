"""explain_error: the JAX function a lowering, export or Pallas error is about, and messages as
the exception said them (not as the ``raise`` line of a traceback spells them).

jax is the oracle: each error below is raised for real by a named function of this file (the
name the explanation must give), lowered or exported the way users do; one is run under a real
pytest in a child process, whose report shows jax's ``raise`` lines beside the messages.
"""

from __future__ import annotations

import os
import subprocess
import sys
import traceback

import pytest
from frameworks_needed import needs_framework

from hloscope.analysis.explain_error import (
    RECOGNISERS,
    Failure,
    Family,
    clean_message,
    explain_error,
)


def only(text: str) -> Failure:
    explanation = explain_error(text)
    assert len(explanation.failures) == 1, [f.to_dict() for f in explanation.failures]
    return explanation.failures[0]


def raised(call) -> str:
    try:
        call()
    except Exception:  # noqa: BLE001 - the traceback is the oracle's output
        return traceback.format_exc()
    pytest.fail("jax accepted a program it should refuse")


@pytest.fixture(scope="module")
def jax_texts() -> dict[str, str]:
    jax = needs_framework("jax")
    import jax.numpy as jnp
    import numpy as np
    from jax import export

    def orthonormal_basis(a):
        return jax.scipy.linalg.schur(a)[1]

    def spectral_abscissa(a):
        return jnp.linalg.eigvals(a).real.max()

    def log_and_scale(x):
        shape = jax.ShapeDtypeStruct(x.shape, x.dtype)
        return jax.pure_callback(np.log1p, shape, x) * 3

    def envelope(x):
        return jnp.abs(jnp.fft.ifft(x))

    def add_one(x):
        from jax.experimental import pallas as pl

        def kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...] + 1

        return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)

    m = jnp.eye(3) + 0.25
    x = jnp.arange(8.0)
    exported = export.export(jax.jit(envelope), platforms=("tpu",))(x)
    return {
        "lowering": raised(
            lambda: jax.jit(orthonormal_basis).trace(m).lower(lowering_platforms=("tpu",))
        ),
        "export_callback": raised(lambda: export.export(jax.jit(log_and_scale))(x)),
        "export_target": raised(
            lambda: export.export(jax.jit(spectral_abscissa), platforms=("cuda",))(m)
        ),
        "export_platform": raised(lambda: exported.call(x)),
        "pallas": raised(lambda: jax.jit(add_one)(x)),
    }


@pytest.mark.parametrize(
    ("case", "family", "function"),
    [
        ("lowering", Family.MISSING_LOWERING, "orthonormal_basis"),  # the frame of the op
        ("export_callback", Family.JAX_EXPORT, "log_and_scale"),  # jax.jit(NAME) in the call
        ("export_target", Family.JAX_EXPORT, "spectral_abscissa"),  # loc("jit(NAME)/...")
        ("export_platform", Family.JAX_EXPORT, "envelope"),  # Function 'NAME' was exported
        ("pallas", Family.PALLAS, "add_one"),
    ],
)
def test_the_function_the_text_names_is_filled(jax_texts, case, family, function):
    failure = only(jax_texts[case])
    assert failure.family == family
    assert failure.finding.function == function
    data = explain_error(jax_texts[case]).to_dict()["failures"][0]
    assert data["function"] == function and data["function_chain"] == [function]


def test_every_message_is_the_exceptions_own_text(jax_texts):
    for case, text in jax_texts.items():
        for failure in explain_error(text).failures:
            assert clean_message(failure.message) == failure.message, (case, failure.message)
            assert not failure.message.endswith(('")', "')", '"', ")"))


def test_a_raise_line_in_a_traceback_is_not_another_occurrence(jax_texts):
    text = jax_texts["export_callback"]
    # The traceback shows jax's `raise NotImplementedError("serialization of host_callbacks
    # ...")` and then the exception: one message, said once.
    assert 'NotImplementedError("serialization of host_callbacks' in text
    failure = only(text)
    assert failure.occurrences == 1
    assert failure.message == "serialization of host_callbacks is not yet implemented"


PYTEST_CASE = """\
import jax, jax.numpy as jnp, numpy as np


def sinh_via_host(x):
    return jax.pure_callback(np.sinh, jax.ShapeDtypeStruct(x.shape, x.dtype), x) + 1


def test_exports():
    jax.export.export(jax.jit(sinh_via_host))(jnp.ones(3))  # CALL
"""


@pytest.mark.parametrize("ci", ["", "true"], ids=["terminal", "ci"])
def test_a_pytest_report_gives_the_function_the_line_and_a_clean_message(tmp_path, ci):
    # Under CI=true pytest prints the short summary line whole, repeating the message: it is
    # still one occurrence.
    needs_framework("jax")
    (tmp_path / "test_exporting.py").write_text(PYTEST_CASE)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_exporting.py"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
        env={**os.environ, "CI": ci},
    )
    report = done.stdout
    assert done.returncode == 1 and "E       NotImplementedError" in report, report[-2000:]
    assert '>       raise NotImplementedError("serialization of host_callbacks' in report
    failure = only(report)
    assert failure.finding.function == "sinh_via_host"
    line = PYTEST_CASE.splitlines().index(
        next(t for t in PYTEST_CASE.splitlines() if "# CALL" in t)
    )
    assert failure.finding.source == f"test_exporting.py:{line + 1}"
    assert failure.message == "serialization of host_callbacks is not yet implemented"
    assert failure.occurrences == 1


@pytest.mark.parametrize(
    ("text", "clean"),
    [
        ('serialization of host_callbacks is not yet implemented")', "serialization of "
         "host_callbacks is not yet implemented"),
        ("Only interpret mode is supported on CPU backend.')", "Only interpret mode is "
         "supported on CPU backend."),
        ("psend is currently only implemented on GPU\"),", "psend is currently only "
         "implemented on GPU"),
        ("Failed to decode all FFI handler operands (bad operands at: 1, 3)", None),
        ("primitive 'eig' not found for platform tpu", None),
        ("Function 'wave' was exported for platforms '('tpu',)' but it is used on '('cpu',)'.",
         None),
        ("XLA can't lower 'eig'", None),
        ("[Op:__inference_f_12]", None),
    ],
)  # fmt: skip
def test_clean_message_removes_only_what_the_message_does_not_open(text, clean):
    assert clean_message(text) == (clean if clean is not None else text)


def test_every_recogniser_skips_the_raise_line_of_a_traceback():
    # One message per family whose words a `raise` line can spell; each placed both in the
    # source line of a traceback frame and as the exception, and read once, cleanly.
    messages = {
        Family.TF_KNOWN_ISSUE: "XLA compilation requires a fixed tensor list size",
        Family.JAX_TRACING: "Array boolean indices must be concrete",
        Family.MISSING_LOWERING: "QR algorithm is not supported on TPU",
        Family.XLA_STATUS: "64-bit data types are not yet supported on the TPU driver API",
        Family.JAX_EXPORT: "serialization of host_callbacks is not yet implemented",
        Family.PALLAS: "Only interpret mode is supported on CPU backend",
    }
    assert set(messages) <= {r.family for r in RECOGNISERS}
    for family, message in messages.items():
        text = (
            "Traceback (most recent call last):\n"
            '  File "/home/u/train.py", line 9, in step\n'
            "    y = model(x)\n"
            '  File "/usr/lib/python3/site-packages/lib/ops.py", line 40, in model\n'
            f'    raise ValueError("{message}")\n'
            f"ValueError: {message}\n"
        )
        failure = only(text)
        assert failure.family == family
        assert failure.occurrences == 1 and failure.message == message
        assert failure.finding.source == "/home/u/train.py:9"
