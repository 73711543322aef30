"""tests/slow_tests.py: the slow list made from a JUnit report, and what it marks."""

from __future__ import annotations

from pathlib import Path

from slow_tests import is_listed, read_list, slow_entries

JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest">
<testcase classname="tests.test_slow_tests" name="test_a[1]" time="0.4"/>
<testcase classname="tests.test_slow_tests" name="test_a[2]" time="0.3"/>
<testcase classname="tests.test_slow_tests" name="test_b" time="0.1"/>
<testcase classname="tests.test_layers" name="test_x" time="31.0"/>
<testcase classname="tests.test_layers" name="test_y" time="0.0"/>
<testcase classname="tests.test_nowhere_else" name="test_z" time="99.0"/>
</testsuite></testsuites>
"""


def test_functions_summed_over_parameters_and_modules_whole(tmp_path: Path):
    junit = tmp_path / "junit.xml"
    junit.write_text(JUNIT)
    # test_a: 0.4 + 0.3 s over its two parameters; test_layers: 31 s in all, listed whole (its
    # quick test too); a file that is not here is left out.
    assert slow_entries(junit) == ["tests/test_layers.py", "tests/test_slow_tests.py::test_a"]


def test_listed_tests_are_marked_by_function_or_module(tmp_path: Path):
    listing = tmp_path / "slow.txt"
    listing.write_text("# comment\ntests/test_layers.py\ntests/test_slow_tests.py::test_a\n")
    entries = read_list(listing)
    assert is_listed("tests/test_slow_tests.py::test_a[2]", entries)
    assert is_listed("tests/test_layers.py::test_y", entries)
    assert not is_listed("tests/test_slow_tests.py::test_b", entries)
    assert read_list(tmp_path / "missing.txt") == frozenset()
