"""The report's per-platform checks run in child processes: whatever they answer, each one ends
and its pipe is closed (an unread pipe left to the garbage collector is a ResourceWarning that
surfaces in whichever later code collects, far from its cause)."""

from __future__ import annotations

import gc
import sys

from hloscope.reporting._checks import PLATFORMS, framework_checks


def test_a_check_that_fails_leaves_no_child_and_no_pipe(tmp_path, monkeypatch):
    # A script that cannot be imported: the first platform's check fails (not 0 or 3) and the
    # others are never read.
    script = tmp_path / "broken.py"
    script.write_text("import nonexistent_module_for_this_test\n")
    unraisable = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    assert len(PLATFORMS) > 1
    assert framework_checks(f"{script}:f") is None
    gc.collect()
    assert not unraisable, [str(u.exc_value) for u in unraisable]
