"""A big file's forked checks start before the file is read (hloscope/hlo/parser/_early.py):
each child reads a stretch of the file itself, and the module is the one the module parser
makes of the same text, whatever the stretches' bounds; answers that do not fit are not used
(the usual forked checks then run), so errors keep their file:line:column.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_parser_whole import BASE, SAMPLE_FILES, VARIANTS, _read, _snapshot

import hloscope
from hloscope.hlo.model import SourceText
from hloscope.hlo.parser import _driver, _early, _forked, _names, _whole
from hloscope.hlo.parser._bulk import TextBody

pytestmark = pytest.mark.filterwarnings("ignore:os.fork\\(\\) was called:RuntimeWarning")


class _Early:
    """What the early children did in a test: forks before the file was read, answers
    used and answers not used."""

    def __init__(self) -> None:
        self.forks_before_read = 0
        self.read = False
        self.used = 0
        self.missed: list[str] = []


@pytest.fixture
def early(monkeypatch: pytest.MonkeyPatch) -> _Early:
    """Early children for files of any size (``HLOSCOPE_PARSE_WORKERS`` children, 3 unless a
    test sets another number), one row counted per byte."""
    monkeypatch.setenv(_forked.WORKERS_ENV, "3")
    monkeypatch.setattr(_forked, "MIN_ROWS", 0)
    monkeypatch.setattr(_forked, "ROWS_PER_CHILD", 1)
    monkeypatch.setattr(_forked, "_quiet_process", lambda: True)
    monkeypatch.setattr(_early, "EARLY_MIN_BYTES", 0)
    monkeypatch.setattr(_early, "BYTES_PER_ROW", 1)
    seen = _Early()
    fork = os.fork

    def counted() -> int:
        pid = fork()
        if pid and not seen.read:
            seen.forks_before_read += 1
        return pid

    monkeypatch.setattr(_forked.os, "fork", counted)
    read = _early.EarlyChildren.read

    def reading(self: _early.EarlyChildren) -> bytes | None:
        seen.read = True
        return read(self)

    monkeypatch.setattr(_early.EarlyChildren, "read", reading)
    wait = _early._Waiting.wait

    def waiting(self: _early._Waiting):
        answer = wait(self)
        if answer is None:
            seen.missed.append(self.miss)
        else:
            seen.used += 1
        return answer

    monkeypatch.setattr(_early._Waiting, "wait", waiting)
    return seen


def _from_file(tmp_path: Path, text: str, name: str = "m.txt") -> list | str:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    try:
        return _snapshot(hloscope.parse_modules(path))
    except hloscope.HloParseError as error:
        return f"{error} (line {error.line}, column {error.column})"


def _module_parser(tmp_path: Path, text: str, monkeypatch: pytest.MonkeyPatch) -> list | str:
    """The module the module parser makes of the same file (errors name it)."""
    with monkeypatch.context() as patch:
        patch.setattr(_driver, "read_whole_module", lambda source, early=None: None)
        return _from_file(tmp_path, text, "m.txt")


def test_the_children_fork_before_the_file_is_read_and_read_every_body(early, tmp_path):
    path = tmp_path / "base.txt"
    path.write_text(BASE)
    module = hloscope.parse(path)
    # Three children for stretches of the file, one merging their names' fingerprints.
    assert early.forks_before_read == 4 and early.used == 1 and not early.missed
    # No body read here: each is read from its text on first use.
    assert all(isinstance(c._body, TextBody) for c in module.computations)
    assert _snapshot([module]) == _read(BASE)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_variants_read_from_a_file_as_the_module_parser_reads_them(
    early, monkeypatch, tmp_path, name
):
    text, whole_path = VARIANTS[name]
    assert _from_file(tmp_path, text) == _module_parser(tmp_path, text, monkeypatch)
    if whole_path:  # the children's answers fit every module the whole-module path reads
        assert early.used == 1 and not early.missed, early.missed


@pytest.mark.parametrize("children", [1, 2, 3, 5, 8, 13])
def test_stretches_cut_anywhere_give_the_same_module(early, monkeypatch, tmp_path, children):
    # Stretches of equal bytes end anywhere: in a header, a body, a '}' line, between bodies,
    # the stack frame tables; several may hold no body at all.
    monkeypatch.setenv(_forked.WORKERS_ENV, str(children))
    for path in [*SAMPLE_FILES, None]:
        text = BASE if path is None else path.read_text()
        whole = _whole.read_whole_module(SourceText(text)) is not None
        before = early.used
        assert _from_file(tmp_path, text) == _read(text), path
        assert early.used == before + whole and not early.missed, (path, early.missed)


def test_a_file_not_plain_ascii_or_with_crlf_is_read_without_their_answers(
    early, monkeypatch, tmp_path
):
    # Offsets in the text are not the file's (its length is not the file's): the usual checks.
    crlf = BASE.replace("\n", "\r\n")
    assert _from_file(tmp_path, crlf) == _module_parser(tmp_path, crlf, monkeypatch)
    accented = BASE.replace('op_name="m"', 'op_name="mé"')
    assert _from_file(tmp_path, accented) == _module_parser(tmp_path, accented, monkeypatch)
    assert early.used == 0


def test_an_error_keeps_its_place(early, monkeypatch, tmp_path):
    for text in (
        BASE.replace("negate(%mul)", "negate(%nothing)"),
        BASE.replace("to_apply=%add.1", "to_apply=%nowhere"),
        BASE.replace("  %zero", "  %\x01zero"),
        BASE.replace("  %zero", "}\n  %zero"),
    ):
        found = _from_file(tmp_path, text)
        assert isinstance(found, str) and "line" in found
        assert found == _module_parser(tmp_path, text, monkeypatch)
    # The '}' line is met when this process finds the bodies: the children are not asked.
    assert early.used == 0
    assert early.missed == [
        "a child said no",
        "a callee not among the computations",
        "a child said no",
    ]


@pytest.mark.parametrize("blank_lines", [3, 70_000])
def test_a_nul_byte_is_binary_data_as_in_a_serial_read(early, monkeypatch, tmp_path, blank_lines):
    # Near the start (its line named) and past the first 64 KiB (the file named): the same
    # error whether or not children read the file first.
    text = BASE + "\n" * blank_lines + "\0\n"
    found = _from_file(tmp_path, text)
    monkeypatch.setenv(_forked.WORKERS_ENV, "0")
    serial = _from_file(tmp_path, text)
    assert isinstance(found, str) and "error: binary data, not HLO text" in found
    assert found == serial


@pytest.mark.parametrize(
    "text",
    [
        BASE.replace('op_name="m"', 'op_name="m\x01"'),  # in a string: XLA reads it
        BASE.replace('op_name="m"', 'op_name="m" \x7f'),  # outside: refused
        BASE.replace("kind=kLoop", "kind=kLoop\x0b"),
    ],
)
def test_control_characters_are_looked_for_by_the_children(early, monkeypatch, tmp_path, text):
    # This process does not look for them where the children vouch for every stretch.
    assert _from_file(tmp_path, text) == _module_parser(tmp_path, text, monkeypatch)
    assert _from_file(tmp_path, BASE) == _read(BASE)
    plain = []
    checked = _driver.check_characters
    monkeypatch.setattr(_driver, "check_characters", lambda source: plain.append(checked(source)))
    _from_file(tmp_path, BASE)
    assert plain == [] and early.used >= 1


def test_a_callee_no_child_holds_is_looked_up_here(early, monkeypatch, tmp_path):
    # Each body a stretch of its own: every callee is another child's, named to this process.
    monkeypatch.setenv(_forked.WORKERS_ENV, "13")
    assert _from_file(tmp_path, BASE) == _read(BASE)
    assert early.used == 1
    missing = BASE.replace("to_apply=%add.1", "to_apply=%nowhere")
    assert _from_file(tmp_path, missing) == _module_parser(tmp_path, missing, monkeypatch)
    assert early.missed == ["a callee not among the computations"]


def test_a_file_that_changes_size_meanwhile_is_read_as_it_is_then(early, monkeypatch, tmp_path):
    path = tmp_path / "growing.txt"
    path.write_text(BASE)
    start = _early.start_early

    def then_grown(source: object) -> _early.EarlyChildren | None:
        children = start(source)
        with open(path, "a") as f:
            f.write("\n")
        return children

    monkeypatch.setattr(_driver, "start_early", then_grown)
    assert _snapshot(hloscope.parse_modules(path)) == _read(BASE + "\n")
    assert early.used == 0


def test_no_early_children_for_text_small_files_or_a_serial_parse(monkeypatch, tmp_path):
    path = tmp_path / "base.txt"
    path.write_text(BASE)
    monkeypatch.setenv(_forked.WORKERS_ENV, "3")
    monkeypatch.setattr(_forked, "MIN_ROWS", 0)
    monkeypatch.setattr(_forked, "_quiet_process", lambda: True)
    assert _early.start_early(BASE) is None  # text, not a file
    assert _early.start_early(path) is None  # under EARLY_MIN_BYTES
    monkeypatch.setattr(_early, "EARLY_MIN_BYTES", 0)
    monkeypatch.setenv(_forked.WORKERS_ENV, "0")
    assert _early.start_early(path) is None
    assert _early.start_early(tmp_path / "missing.txt") is None


def test_callee_names_are_the_names_the_callee_test_reads():
    module = hloscope.parse(BASE)
    for comp in module.computations:
        opcodes = comp.opcodes()
        texts = [inst._attr_text for inst in comp.instructions]
        names = _names.callee_names(opcodes, texts)
        for known in ({}, dict.fromkeys(names), dict.fromkeys(list(names)[1:])):
            assert _names.calls_unknown(opcodes, texts, known) == (not known.keys() >= names)
    entry = module.entry
    assert _names.callee_names(entry.opcodes(), [i._attr_text for i in entry.instructions]) == {
        "add.1",
        "fused_computation",
    }
