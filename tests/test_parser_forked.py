"""The whole-module path's checks run in forked children (hloscope/hlo/parser/_forked.py): the
module is the one the serial checks and the module parser make, a "no" or a failure in any
child declines the module (the module parser then reads it and reports errors), and forking
is used only where it is asked for or pays.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import pytest
from test_parser_whole import BASE, SAMPLE_FILES, VARIANTS, _both_ways, _takes_whole_path

import hloscope
from hloscope.analysis.summary import summarize
from hloscope.hlo.parser import _forked, _whole
from hloscope.hlo.parser._bulk import TextBody
from hloscope.hlo.parser._names import (
    NameSet,
    fingerprints_distinct,
    name_fingerprint,
    names_distinct,
)

# These tests force the forked checks on, also in a test process where other tests imported jax:
# JAX then warns at every fork (its threads), which the parse avoids unless forced. The children
# only read text and answer one byte, so the warning is expected here, not a fault.
pytestmark = pytest.mark.filterwarnings("ignore:os.fork\\(\\) was called:RuntimeWarning")


@pytest.fixture
def forking(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Checks forked for modules of any size, each body a chunk of its own; the list counts
    the forks made in this process."""
    monkeypatch.setenv(_forked.WORKERS_ENV, "3")
    monkeypatch.setattr(_forked, "MIN_ROWS", 0)
    monkeypatch.setattr(_forked, "ROWS_PER_CHILD", 1)
    monkeypatch.setattr(_forked, "_quiet_process", lambda: True)  # whatever other tests left
    monkeypatch.setattr(_whole, "_CHUNK_ROWS", 2)
    forks: list[int] = []
    fork = os.fork

    def counted() -> int:
        pid = fork()
        if pid:
            forks.append(pid)
        return pid

    monkeypatch.setattr(_forked.os, "fork", counted)
    return forks


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variants_read_as_the_module_parser_reads_them_with_forked_checks(
    forking, monkeypatch, name
):
    text, whole_path = VARIANTS[name]
    assert _takes_whole_path(text) is whole_path
    whole, module_parser = _both_ways(text, monkeypatch)
    assert whole == module_parser


def test_the_checks_of_all_but_the_first_chunk_are_forked(forking, monkeypatch):
    assert _takes_whole_path(BASE)
    # Three bodies, the first checked here: two children.
    assert len(forking) == 2
    whole, module_parser = _both_ways(BASE, monkeypatch)
    assert whole == module_parser


@pytest.mark.parametrize(
    "name",
    [
        "names repeated across bodies (XLA renames them)",
        "instruction names that XLA's uniquer renames (x and x.0)",
    ],
)
def test_names_a_child_finds_repeated_are_renamed_here(forking, monkeypatch, name):
    renamed: list[int] = []
    uniquify = _whole.uniquify_names

    def counted(module, names=None):
        renamed.append(1)
        uniquify(module, names)

    monkeypatch.setattr(_whole, "uniquify_names", counted)
    text = VARIANTS[name][0]
    assert _takes_whole_path(text) and renamed and forking
    renamed.clear()
    assert _takes_whole_path(BASE) and not renamed  # the child found nothing to rename
    whole, module_parser = _both_ways(text, monkeypatch)
    assert whole == module_parser


def test_a_child_that_finds_a_fault_declines_the_module(forking):
    # The fault is in the last body, which a child checks: the parent alone made its columns.
    text = BASE.replace("tuple(%fusion, /*index=1*/%r)", "tuple(%fusion, /*index=1*/%nothing)")
    assert not _takes_whole_path(text)
    assert forking  # the children ran, and one of them said no
    with pytest.raises(hloscope.HloParseError) as error:
        hloscope.parse(text)
    assert "nothing" in str(error.value) and error.value.line == text.count("\n") - 1


def test_a_child_that_fails_declines_the_module_which_reads_the_same(forking, monkeypatch):
    def broken(self, bounds):
        raise MemoryError("a child out of memory")

    monkeypatch.setattr(_whole._Chunks, "check_and_count", broken)
    assert not _takes_whole_path(BASE)
    assert forking
    whole, module_parser = _both_ways(BASE, monkeypatch)
    assert isinstance(whole, list) and whole == module_parser


@pytest.mark.parametrize(
    "text",
    [VARIANTS["names repeated across bodies (XLA renames them)"][0], BASE],
    ids=["names repeated", "none repeated"],
)
def test_a_false_alarm_of_the_names_fingerprints_leaves_the_test_to_the_names(
    forking, monkeypatch, text
):
    # Two names of one hash (a collision) look repeated: the names themselves are tested.
    monkeypatch.setattr(NameSet, "distinct", lambda self, count: False)
    assert _takes_whole_path(text) and forking
    whole, module_parser = _both_ways(text, monkeypatch)
    assert whole == module_parser


def test_names_fingerprints_tell_what_names_distinct_tells():
    cases = [
        ["a", "b", "c.1"],
        ["a", "b", "a"],  # repeated
        ["x", "x.0"],  # x.0 is (x, 0), as x is
        ["x.5", "x.05"],  # both (x, 5)
        ["x.0", "y.00"],  # canonical forms x and y, neither taken
        ["x.-0", "x"],
        ["x.1", "x.01", "y"],
    ]
    for names in cases:
        halves = [names[: len(names) // 2], names[len(names) // 2 :]]
        parts = [name_fingerprint(half) for half in halves]
        assert fingerprints_distinct(parts, len(names)) is names_distinct(names), names


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.name)
def test_samples_read_the_same_with_forked_checks(forking, monkeypatch, path: Path):
    text = path.read_text()
    whole, module_parser = _both_ways(text, monkeypatch)
    assert whole == module_parser


def test_no_fork_for_a_small_module_or_a_busy_process(monkeypatch):
    monkeypatch.setenv(_forked.WORKERS_ENV, "3")
    monkeypatch.setattr(_forked, "_quiet_process", lambda: True)
    assert _forked.fork_checks(bool, [1, 2], [10, 10]) is None  # under MIN_ROWS
    monkeypatch.setattr(_forked, "MIN_ROWS", 0)
    forked = _forked.fork_checks(bool, [1, 2], [10, 10])
    assert forked is not None and forked.passed()
    forked = _forked.fork_checks(bool, [1, 0], [10, 10])
    assert forked is not None and not forked.passed()
    monkeypatch.setattr(_forked, "_quiet_process", lambda: False)
    assert _forked.fork_checks(bool, [1, 2], [10, 10]) is None


def test_a_process_is_quiet_without_other_threads_and_frameworks(monkeypatch):
    # What other tests of the same process left (threads, jax) is set aside: only the rule.
    monkeypatch.setattr(_forked, "_FRAMEWORKS", ("jax",))
    monkeypatch.delitem(sys.modules, "jax", raising=False)
    monkeypatch.setattr(_forked.threading, "active_count", lambda: 1)
    assert _forked._quiet_process()
    monkeypatch.setitem(sys.modules, "jax", sys)  # JAX would warn at the fork
    assert not _forked._quiet_process()
    monkeypatch.delitem(sys.modules, "jax")
    monkeypatch.setattr(_forked.threading, "active_count", lambda: 2)
    assert not _forked._quiet_process()


def test_workers_from_the_environment_or_the_cpus(monkeypatch):
    for setting, expected in (("0", 0), ("5", 5), ("-2", 0), ("many", 0)):
        monkeypatch.setenv(_forked.WORKERS_ENV, setting)
        assert _forked.workers() == expected
    monkeypatch.delenv(_forked.WORKERS_ENV)
    monkeypatch.setattr(_forked.sys, "platform", "linux")
    monkeypatch.setattr(_forked.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    for cpus, expected in ((1, 0), (3, 0), (4, 3), (20, 12), (13, 12)):
        monkeypatch.setattr(_forked.os, "sched_getaffinity", lambda _, n=cpus: set(range(n)))
        assert _forked.workers() == expected
    # Busy CPUs are none to spare: 13 CPUs under a load of 9.5 leave 3 idle, 2 children.
    for load, expected in ((9.5, 2), (12.0, 0), (20.0, 0)):
        monkeypatch.setattr(_forked.os, "getloadavg", lambda n=load: (n, n, n))
        assert _forked.workers() == expected
    monkeypatch.setattr(_forked.sys, "platform", "darwin")
    assert _forked.workers() == 0


def test_close_stops_children_not_waited_for(monkeypatch):
    monkeypatch.setenv(_forked.WORKERS_ENV, "2")
    monkeypatch.setattr(_forked, "MIN_ROWS", 0)
    monkeypatch.setattr(_forked, "_quiet_process", lambda: True)
    forked = _forked.fork_checks(lambda _: threading.Event().wait(60) or True, [1, 2], [1, 1])
    assert forked is not None
    pids = [pid for pid, _ in forked._children]
    forked.close()
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # reaped already


def test_shares_are_runs_in_order_of_about_equal_weight():
    items = list(range(10))
    shares = _forked._shares(items, [1] * 10, 3)
    assert [x for share in shares for x in share] == items
    assert [len(share) for share in shares] == [3, 3, 4]
    heavy = _forked._shares(items[:4], [100, 1, 1, 1], 3)
    assert heavy[0] == [0] and [x for share in heavy for x in share] == [0, 1, 2, 3]
    assert len(_forked._shares([7], [5], 4)) == 1


def test_fork_checks_bring_back_what_each_check_returned_in_order(monkeypatch):
    monkeypatch.setenv(_forked.WORKERS_ENV, "3")
    monkeypatch.setattr(_forked, "MIN_ROWS", 0)
    monkeypatch.setattr(_forked, "ROWS_PER_CHILD", 1)
    monkeypatch.setattr(_forked, "_quiet_process", lambda: True)
    items = list(range(1, 8))
    forked = _forked.fork_checks(lambda n: {"n": n, "at": (n, "x" * n)}, items, [1] * 7)
    assert forked is not None and len(forked._children) == 3
    assert forked.results() == [{"n": n, "at": (n, "x" * n)} for n in items]
    # What marshal cannot carry is a failed child: a "no", as any other failure.
    forked = _forked.fork_checks(lambda n: object(), items, [1] * 7)
    assert forked is not None and forked.results() is None


def _text_bodies(module: hloscope.Module) -> list:
    return [c._body for c in module.computations if isinstance(c._body, TextBody)]


@pytest.mark.parametrize("path", [SAMPLE_FILES[0], SAMPLE_FILES[-1]], ids=lambda p: p.name)
def test_a_summary_reads_no_body_a_child_checked(forking, monkeypatch, path: Path):
    text = path.read_text()
    module = hloscope.parse(text)
    assert _text_bodies(module) and forking  # the children's bodies: their text, not columns
    summary = summarize(module)
    # Those it did not build (it builds the ones with fusions and custom calls, for their
    # attributes) were counted by the children and read by none.
    unbuilt = _text_bodies(module)
    assert unbuilt and not any(body.table for body in unbuilt)
    monkeypatch.setenv(_forked.WORKERS_ENV, "0")
    serial = hloscope.parse(text)
    assert not _text_bodies(serial)
    assert summary == summarize(serial)
    # Read on first use: the same instructions as the serial parse's.
    for forked_comp, serial_comp in zip(module.computations, serial.computations):
        assert len(forked_comp) == len(serial_comp)
        assert forked_comp.opcodes() == serial_comp.opcodes()
        assert [i.to_text() for i in forked_comp] == [i.to_text() for i in serial_comp]


def test_children_get_a_share_of_some_size(monkeypatch):
    monkeypatch.setenv(_forked.WORKERS_ENV, "8")
    monkeypatch.setattr(_forked, "_quiet_process", lambda: True)
    assert _forked.planned_children(_forked.MIN_ROWS - 1) == 0
    monkeypatch.setattr(_forked, "MIN_ROWS", 0)
    assert _forked.planned_children(5 * _forked.ROWS_PER_CHILD) == 5
    assert _forked.planned_children(100 * _forked.ROWS_PER_CHILD) == 8
    monkeypatch.setattr(_forked, "_quiet_process", lambda: False)
    assert _forked.planned_children(100 * _forked.ROWS_PER_CHILD) == 0


def test_chunks_are_smaller_where_children_will_read_them(monkeypatch):
    rows = list(range(0, 12_001, 3))  # 4,000 bodies of 3 rows
    serial = list(_whole._chunks(rows))
    forked = list(_whole._chunks(rows, 500))
    for bounds in (serial, forked):
        assert bounds[0] == (0, 1) and bounds[-1][1] == len(rows) - 1
        assert all(a[1] == b[0] for a, b in zip(bounds, bounds[1:]))
    assert (
        max(rows[b] - rows[a] for a, b in forked) <= 501 < max(rows[b] - rows[a] for a, b in serial)
    )
