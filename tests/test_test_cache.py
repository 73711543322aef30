"""The test run keeps its captures to itself (tests/conftest.py): never in the developer's
own cache."""

from __future__ import annotations

import os
from pathlib import Path

from hloscope.capture.cache import cache_root


def test_the_run_caches_in_a_folder_of_its_own():
    root = cache_root()
    assert os.environ["HLOSCOPE_CACHE"] == str(root)
    assert root.name.startswith("hloscope-test-cache-")
    assert Path.home() / ".cache" / "hloscope" != root
