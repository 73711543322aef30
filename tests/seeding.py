"""One seed for everything random in a test run, printed in the header so a failure replays.

``HLOSCOPE_TEST_SEED`` (an integer; 0 when unset, so a user's clone runs the same examples every
time and never fails at random) seeds hypothesis (as ``--hypothesis-seed`` does, which still
wins when given), and before every test Python's ``random`` and numpy's global generator.
``.ci/run`` sets it from the date, so CI explores new examples every day, and the header line
says how to replay a run: ``HLOSCOPE_TEST_SEED=N python -m pytest ...``. The variable travels to
pytest-xdist's workers with the environment, so every worker uses the same seed.

Loaded by tests/conftest.py (``pytest_plugins``); ``-p seeding`` loads it alone.
"""

from __future__ import annotations

import os
import random

import pytest

SEED_ENV = "HLOSCOPE_TEST_SEED"


def run_seed() -> int:
    """This run's seed: ``HLOSCOPE_TEST_SEED``, else 0."""
    text = os.environ.get(SEED_ENV, "").strip() or "0"
    try:
        return int(text)
    except ValueError:
        raise pytest.UsageError(f"{SEED_ENV} must be an integer, not {text!r}") from None


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("hypothesis_seed", None) is not None:
        return  # --hypothesis-seed given: hypothesis's own plugin uses it
    from hypothesis import core

    core.global_force_seed = run_seed()  # what --hypothesis-seed sets


def pytest_report_header(config: pytest.Config) -> str:
    given = config.getoption("hypothesis_seed", None)
    if given is not None:
        return f"hypothesis seed: {given} (--hypothesis-seed); random, numpy: {run_seed()}"
    seed = run_seed()
    return f"test seed: {seed} (replay with {SEED_ENV}={seed} python -m pytest ...)"


@pytest.fixture(autouse=True)
def _seeded_generators() -> None:
    """Python's ``random`` and numpy's global generator start each test from the run's seed."""
    seed = run_seed()
    random.seed(seed)
    try:
        import numpy as np
    except ImportError:
        return
    np.random.seed(seed % 2**32)
