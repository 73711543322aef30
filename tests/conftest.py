"""Shared fixtures.

The tests read HLO from a corpus laid out as ``generated/<case>/`` (XLA dumps of small programs,
each with its ``SOURCE.py``) and ``oracle.jsonl`` (what XLA's own parser saw in each module).
Two corpora follow that layout:

* ``../shared/corpus`` beside the project: the larger one (full Keras models, and
  ``xla-tests/``, XLA's own HLO test files). CI always has it; a user's clone does not.
* ``tests/data``: the project's own, small, committed, made by ``tests/data/regenerate.py``.

``corpus`` is the shared one where it exists, else ``tests/data``, so a plain clone runs the
corpus tests too. ``HLOSCOPE_TEST_CORPUS=data`` (or ``shared``) picks one explicitly. Tests of
XLA's own test files, and the test of a detail only the shared programs show (flax frames in a
kernel's stack), use ``shared_corpus`` and skip without it. Under
``CI=true`` a missing ``../shared/corpus`` fails them instead, so CI always runs them.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from slow_tests import is_listed, read_list

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
SHARED_CORPUS = ROOT.parent / "shared" / "corpus"
DATA = ROOT / "tests" / "data"
CORPUS_CHOICE_ENV = "HLOSCOPE_TEST_CORPUS"
# One seed for hypothesis, random and numpy, printed in the header (tests/seeding.py).
pytest_plugins = ["seeding"]


def chosen_corpus() -> Path:
    """The corpus this run reads: ``HLOSCOPE_TEST_CORPUS`` if set, else the shared one if
    present, else the project's own ``tests/data``."""
    choice = os.environ.get(CORPUS_CHOICE_ENV, "")
    if choice == "data":
        return DATA
    if choice not in ("", "shared"):
        raise pytest.UsageError(f"{CORPUS_CHOICE_ENV} must be 'shared' or 'data', not {choice!r}")
    if choice == "shared" or SHARED_CORPUS.is_dir():
        return SHARED_CORPUS
    return DATA


CORPUS = chosen_corpus()


SHARED_ONLY_DEFAULT = "XLA's test files or its programs' details"


def _require_shared_in_ci() -> None:
    if os.environ.get("CI") == "true" and not SHARED_CORPUS.is_dir():
        pytest.fail(f"CI=true but the HLO corpus is missing at {SHARED_CORPUS}")


def corpus_path() -> Path:
    """The corpus of this run (``tests/data`` in a plain clone)."""
    _require_shared_in_ci()
    if not CORPUS.is_dir():
        pytest.skip(f"{CORPUS_CHOICE_ENV}=shared but ../shared/corpus is not present")
    return CORPUS


def shared_corpus_path(why: str = SHARED_ONLY_DEFAULT) -> Path:
    """``../shared/corpus`` itself, for tests that need what only it holds."""
    _require_shared_in_ci()
    if CORPUS != SHARED_CORPUS or not CORPUS.is_dir():
        pytest.skip(f"needs ../shared/corpus itself: {why}")
    return CORPUS


SHARED_MARKER = "shared_corpus"
# Why a test marked ``@pytest.mark.shared_corpus(KIND)`` needs ../shared/corpus itself.
SHARED_ONLY = {
    "xla-tests": "XLA's own HLO test files (xla-tests/)",
    # What a program of its own shows that the project's small one does not (flax frames).
    "programs": "a detail of its own programs that tests/data's do not show",
}


DOT_MARKER = "needs_dot"
DOT_INSTALL = "apt install graphviz / brew install graphviz"


def require_program(name: str, install: str) -> None:
    """Skip the test when the program ``name`` is not on PATH, in a user's clone; under
    ``CI=true`` (``.ci/run`` installs it) a missing program fails the test instead."""
    if shutil.which(name) is not None:
        return
    why = f"{name!r} is not installed ({install})"
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true but {why}")
    pytest.skip(why)


def have_dot() -> bool:
    """Whether Graphviz's ``dot`` is here; under ``CI=true`` it must be (the test fails)."""
    if shutil.which("dot") is None and os.environ.get("CI") == "true":
        pytest.fail(f"CI=true but Graphviz's 'dot' is not installed ({DOT_INSTALL})")
    return shutil.which("dot") is not None


#: The cache every test and every hloscope it starts uses, one per test process (an xdist
#: worker each): a test run never reads or fills the developer's own ~/.cache/hloscope (or
#: their $HLOSCOPE_CACHE). Tests that need a cache of their own set HLOSCOPE_CACHE themselves.
_TEST_CACHE: str | None = None


def pytest_configure(config: pytest.Config) -> None:
    global _TEST_CACHE
    _TEST_CACHE = tempfile.mkdtemp(prefix="hloscope-test-cache-")
    os.environ["HLOSCOPE_CACHE"] = _TEST_CACHE
    config.addinivalue_line(
        "markers",
        f"{DOT_MARKER}: the test runs Graphviz's dot; it skips without it, and fails under "
        "CI=true without it",
    )
    config.addinivalue_line(
        "markers",
        f"{SHARED_MARKER}(kind): the test needs what only ../shared/corpus has, one of "
        f"{', '.join(SHARED_ONLY)}; it skips on tests/data, and fails under CI=true without "
        "../shared/corpus",
    )


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # The tests a full run measured slow (tests/slow_tests.txt) are marked so, beside those
    # marked by hand: `-m "not slow"` is then a quick check (see tests/slow_tests.py).
    entries = read_list()
    for item in items:
        if is_listed(item.nodeid, entries):
            item.add_marker(pytest.mark.slow)
    items[:] = slowest_modules_first(items, entries)


def slowest_modules_first(items: list[pytest.Item], entries: frozenset[str]) -> list[pytest.Item]:
    """``items`` with the modules measured slow as a whole first, then those with slow tests,
    then the rest; each module's tests together and in their own order. .ci/run hands whole
    modules to its two workers (``--dist loadfile``, in this order): the long ones start
    first, and the last minutes are the short ones, shared by both workers."""

    with_slow_tests = {entry.split("::")[0] for entry in entries}

    def rank(item: pytest.Item) -> int:
        module = item.nodeid.split("::")[0]
        return 0 if module in entries else 1 if module in with_slow_tests else 2

    return sorted(items, key=rank)


def pytest_unconfigure(config: pytest.Config) -> None:
    if _TEST_CACHE is not None:
        shutil.rmtree(_TEST_CACHE, ignore_errors=True)


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker(DOT_MARKER) is not None:
        require_program("dot", DOT_INSTALL)
    marker = item.get_closest_marker(SHARED_MARKER)
    if marker is not None:
        (kind,) = marker.args
        shared_corpus_path(SHARED_ONLY[kind])


@pytest.fixture(scope="session")
def corpus() -> Path:
    return corpus_path()


@pytest.fixture(scope="session")
def shared_corpus() -> Path:
    return shared_corpus_path()


@pytest.fixture(scope="session")
def xla_tests(shared_corpus: Path) -> Path:
    """XLA's own HLO test files (``../shared/corpus/xla-tests``), which only it has."""
    return shared_corpus / "xla-tests"


def oracle_lines() -> list[dict]:
    path = CORPUS / "oracle.jsonl"
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="session")
def oracle(corpus: Path) -> list[dict]:
    return oracle_lines()
