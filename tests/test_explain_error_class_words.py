"""explain-error reads the family an exception class's own name says (:mod:`.class_words`):
shape, tracing, sharding, memory, whoever raised it and whatever its message's words.

Flax's error is real (the installed Flax, run in a child process on the CPU); the others are
classes shaped as libraries name theirs, with messages no recogniser knows.
"""

from __future__ import annotations

import pytest
from raised_errors import failing_run

from hloscope.analysis.explain_error import Family, explain_error
from hloscope.analysis.explain_error.class_words import family_of_class


@pytest.mark.parametrize(
    ("cls", "family"),
    [
        ("flax.errors.ScopeParamShapeError", Family.JAX_SHAPE),
        ("InconsistentShapeError", Family.JAX_SHAPE),
        ("TraceContextError", Family.JAX_TRACING),
        ("jax.errors.TracerBoolConversionError", Family.JAX_TRACING),
        ("ShardingTypeError", Family.SHARDING),
        ("PartitionSpecError", Family.SHARDING),
        (
            "tensorflow.python.framework.errors_impl.ResourceExhaustedError",
            Family.DEVICE_ALLOCATION,
        ),
        ("torch.cuda.OutOfMemoryError", Family.DEVICE_ALLOCATION),
        ("ValueError", None),
        ("TypeError", None),
        ("XlaRuntimeError", None),
        ("MeshtasticError", None),  # "Mesh" only as a word of its own
    ],
)
def test_a_class_names_family_by_its_words(cls, family):
    assert family_of_class(cls) == family


def _traceback(cls: str, message: str) -> str:
    return (
        "Traceback (most recent call last):\n"
        '  File "/home/me/run.py", line 40, in <module>\n'
        "    state = trainer.step(state, batch)\n"
        '  File "/opt/venv/lib/python3.11/site-packages/quuxlib/core.py", line 212, in step\n'
        "    raise errors.Bad(message)\n"
        f"quuxlib.errors.{cls}: {message}\n"
    )


@pytest.mark.parametrize(
    ("cls", "family"),
    [
        ("KernelShapeError", "jax_shape"),
        ("TraceLevelError", "jax_tracing"),
        ("MeshAxisError", "sharding"),
    ],
)
def test_an_unknown_libraries_class_is_read_by_its_name(cls, family):
    failures = explain_error(
        _traceback(cls, "the frobnicator got a widget it cannot take")
    ).failures
    assert [(str(f.family), f.finding.op) for f in failures] == [(family, cls)]
    assert failures[0].finding.source == "/home/me/run.py:40"
    # Without the name's words, the same log says no family.
    assert explain_error(_traceback("BadError", "the frobnicator got a widget")).failures == []


def test_flaxs_shape_error_is_a_shape_error_in_the_installed_flax_and_an_older_wording(tmp_path):
    pytest.importorskip("flax")
    program = (
        "import jax, jax.numpy as jnp\n"
        "import flax.linen as nn\n"
        "model = nn.Dense(4)\n"
        "params = model.init(jax.random.key(0), jnp.ones((1, 3)))\n"
        "model.apply(params, jnp.ones((1, 5)))\n"
    )
    script = tmp_path / "apply.py"
    script.write_text(program)
    stderr = failing_run(script)
    assert "ScopeParamShapeError" in stderr, stderr[-2000:]
    # Flax of 2024 worded it otherwise (a notebook's paste, the class only in its link).
    older = (
        "Initializer expected to generate shape (96, 256) but got shape (504, 256) instead for "
        'parameter "kernel" in "/NerfMLP_0/Dense_0". (https://flax.readthedocs.io/en/latest/'
        "api_reference/flax.errors.html#flax.errors.ScopeParamShapeError)\n"
    )
    for text in (stderr, older):
        (failure,) = explain_error(text).failures
        assert (str(failure.family), failure.finding.op) == ("jax_shape", "ScopeParamShapeError")
        # Flax's own words, a shape's kind of fix: make the shapes agree.
        assert "flax.readthedocs.io" in failure.finding.suggestion
        assert failure.advice_kind == "fix_shapes"


def test_flaxs_other_errors_stay_a_call_refused():
    text = (
        'flax.errors.ScopeCollectionNotFound: Tried to access "batch_stats" from collection '
        '"batch_stats" but the collection is empty. (https://flax.readthedocs.io/en/latest/'
        "api_reference/flax.errors.html#flax.errors.ScopeCollectionNotFound)\n"
    )
    (failure,) = explain_error(text).failures
    assert str(failure.family) == "jax_call"
