"""A file that cannot be read as what it should be is said one way, whichever reader refused it:
:class:`~hloscope.errors.FileFormatError`, the base of the HLO parser's and the dump readers'
errors (``path:line:column: error: message``, exit status 2, picklable for worker processes)."""

from __future__ import annotations

import pickle

import pytest

from hloscope import parse
from hloscope.dump.errors import DumpFormatError
from hloscope.dump.report_text import read_dump_text
from hloscope.errors import ExitStatus, FileFormatError
from hloscope.hlo.errors import HloParseError


def test_the_parser_and_the_dump_readers_refuse_a_file_the_same_way(tmp_path):
    binary = tmp_path / "module_0001.jit_f.buffer-assignment.txt"
    binary.write_bytes(b"allocation 0: size 4\n\xff\xfe\n")
    with pytest.raises(DumpFormatError) as dump:
        read_dump_text(str(binary))
    with pytest.raises(HloParseError) as hlo:
        parse("HloModule m\n\nENTRY e {\n  p = f32[2] parameter(0\n}\n", path="m.hlo")
    for error in (dump.value, hlo.value):
        assert isinstance(error, FileFormatError) and isinstance(error, ValueError)
        assert error.exit_code == ExitStatus.BAD_INPUT
        assert error.one_line() == f"{error.location}: error: {' '.join(error.message.split())}"
    assert dump.value.location == f"{binary}:2"
    assert hlo.value.location == "m.hlo:5:1"


@pytest.mark.parametrize(
    "error",
    [
        HloParseError("bad\ntext", path="m.hlo", line=3, column=5, source_line="  a = f32[2 add("),
        DumpFormatError("not UTF-8 text", path="module_0001.jit_f.txt", line=2),
        FileFormatError("no such file", path="x.txt"),
    ],
    ids=["hlo", "dump", "base"],
)
def test_a_file_format_error_crosses_a_process_whole(error):
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is type(error)
    assert str(again) == str(error) and again.keywords() == error.keywords()


def test_the_line_and_a_caret_are_shown_where_the_reader_gave_the_line():
    hlo = HloParseError("expected ')'", path="m.hlo", line=1, column=4, source_line="a(b")
    assert str(hlo).splitlines() == ["m.hlo:1:4: error: expected ')'", "  a(b", "     ^"]
    dump = DumpFormatError("no such file", path="d/module_0001.txt")
    assert str(dump) == "d/module_0001.txt: error: no such file"
    long = DumpFormatError("bad value", path="r.txt", line=2, column=500, source_line="x" * 1000)
    shown, caret = str(long).splitlines()[1:]
    assert len(shown) == 2 + 200 and caret == "  " + " " * 99 + "^"
