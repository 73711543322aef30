"""Bad text gives HloParseError with path, line, column and a caret; nothing else escapes."""

from __future__ import annotations

import pytest

import hloscope


def error_for(text: str) -> hloscope.HloParseError:
    with pytest.raises(hloscope.HloParseError) as info:
        hloscope.parse(text)
    return info.value


def test_undefined_operand_points_at_it():
    e = error_for(
        "HloModule m\nENTRY e {\n  a = f32[] parameter(0)\n  ROOT b = f32[] add(a, zz)\n}\n"
    )
    assert (e.line, e.column) == (4, 25)
    assert "'zz'" in e.message and "not defined" in e.message
    rendered = str(e).splitlines()
    assert rendered[1].strip() == "ROOT b = f32[] add(a, zz)"
    assert rendered[2].index("^") - 2 == e.column - 1


def test_duplicate_instruction_and_computation_names():
    assert (
        "duplicate instruction name 'a'"
        in error_for(
            "HloModule m\nENTRY e {\n  a = f32[] parameter(0)\n  a = f32[] parameter(1)\n}\n"
        ).message
    )
    assert (
        "duplicate computation name"
        in error_for(
            "HloModule m\n"
            "c {\n"
            "  ROOT a = f32[] parameter(0)\n"
            "}\n"
            "c {\n"
            "  ROOT a = f32[] parameter(0)\n"
            "}\n"
        ).message
    )


def test_two_roots_and_two_entries():
    assert (
        "second ROOT"
        in error_for(
            "HloModule m\nENTRY e {\n  ROOT a = f32[] parameter(0)\n  ROOT b = f32[] negate(a)\n}\n"
        ).message
    )
    assert (
        "second ENTRY"
        in error_for(
            "HloModule m\n"
            "ENTRY e {\n"
            "  ROOT a = f32[] parameter(0)\n"
            "}\n"
            "ENTRY f {\n"
            "  ROOT a = f32[] parameter(0)\n"
            "}\n"
        ).message
    )


def test_truncated_module():
    e = error_for("HloModule m\nENTRY e {\n  a = f32[] parameter(0)\n  ROOT b = f32[] negate(a)\n")
    assert "not closed" in e.message and e.line is not None


def test_unknown_called_computation():
    e = error_for(
        "HloModule m\n"
        "ENTRY e {\n"
        "  p = f32[2] parameter(0)\n"
        "  ROOT f = f32[2] fusion(p), kind=kLoop, calls=%missing\n"
        "}\n"
    )
    assert (e.line, "unknown computation 'missing'" in e.message) == (4, True)


def test_bad_shape_is_reported_lazily_with_position():
    module = hloscope.parse("HloModule m\nENTRY e {\n  ROOT a = f32[2,x] parameter(0)\n}\n")
    with pytest.raises(hloscope.HloParseError) as info:
        _ = module.entry.root.shape
    assert info.value.line == 3 and "bad dimension" in info.value.message


def test_bad_attribute_value_points_into_the_line():
    module = hloscope.parse(
        "HloModule m\n"
        "ENTRY e {\n"
        "  p = f32[2] parameter(0)\n"
        "  ROOT t = f32[2] transpose(p), dimensions={0,x}\n"
        "}\n"
    )
    with pytest.raises(hloscope.HloParseError) as info:
        module.entry.root.attrs["dimensions"]
    assert info.value.line == 4
    assert info.value.column > len("  ROOT t = f32[2] transpose(p), dimensions=")


def test_file_errors(tmp_path):
    with pytest.raises(hloscope.HloParseError, match="no such file"):
        hloscope.parse(str(tmp_path / "missing.hlo"))
    binary = tmp_path / "model.txt"
    binary.write_bytes(b"HloModule m\n\x00\x01\x02")
    e = pytest.raises(hloscope.HloParseError, hloscope.parse, binary).value
    assert e.path == str(binary) and "binary" in e.message and e.line == 2
    latin = tmp_path / "latin.txt"
    latin.write_bytes("HloModule caf\xe9".encode("latin-1"))
    assert "UTF-8" in pytest.raises(hloscope.HloParseError, hloscope.parse, latin).value.message


def test_empty_and_comment_only_text():
    assert "no HLO module" in error_for("").message
    assert "no HLO module" in error_for("// nothing here\n/* nor here */\n").message


def test_one_line_message_has_no_newline():
    e = error_for("HloModule m\nENTRY e {\n  ROOT b = f32[] add(a\n}\n")
    assert "\n" not in e.one_line() and e.one_line().startswith("<string>:")
