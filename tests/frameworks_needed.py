"""Skip a test when a framework is absent, except where the run promised to have it.

The oldest-jax check of ``.ci/run`` installs no TensorFlow, so TensorFlow tests must skip
there; in the main CI run (``CI=true``, everything from ``.[test]`` installed) a missing
TensorFlow is a broken install and must fail instead of skipping quietly. A run that leaves a
framework out on purpose says so: ``HLOSCOPE_TESTS_WITHOUT=tensorflow,keras``.
"""

from __future__ import annotations

import os
from types import ModuleType

import pytest

WITHOUT_ENV = "HLOSCOPE_TESTS_WITHOUT"


def allowed_missing() -> set[str]:
    """The frameworks this run may lack (``HLOSCOPE_TESTS_WITHOUT``, comma-separated)."""
    return {name.strip() for name in os.environ.get(WITHOUT_ENV, "").split(",") if name.strip()}


def needs_framework(name: str) -> ModuleType:
    """``pytest.importorskip(name)``, but a failure under ``CI=true`` unless it may be absent."""
    if os.environ.get("CI") == "true" and name not in allowed_missing():
        try:
            return __import__(name)
        except ImportError as error:
            pytest.fail(f"CI=true but {name} cannot be imported ({error}); set {WITHOUT_ENV}")
    return pytest.importorskip(name)


def needs_libtpu() -> None:
    """Skip a test that compiles with XLA:TPU when libtpu (the ``tpu`` extra) is not installed,
    except under ``CI=true``, where ``.[test]`` installs it (unless ``HLOSCOPE_TESTS_WITHOUT``
    names ``libtpu``): there a missing libtpu fails. Nothing is loaded here."""
    from hloscope.backends import libtpu_installed

    if libtpu_installed():
        return
    if os.environ.get("CI") == "true" and "libtpu" not in allowed_missing():
        pytest.fail(f"CI=true but libtpu is not installed; set {WITHOUT_ENV}=libtpu")
    pytest.skip("libtpu is not installed (pip install 'hloscope[tpu]')")
