"""The jaxlib adapter: XLA's parser, printer and cost analysis behind one version-checked door."""

from __future__ import annotations

import warnings

import pytest

from hloscope.capture import jaxlib_adapter as adapter
from hloscope.hlo.opcodes import OPCODES

# A module with a fused computation, a tuple and a get-tuple-element: every kind of operand list.
SMALL = """\
HloModule small, entry_computation_layout={(f32[4]{0}, f32[4]{0})->f32[4]{0}}

%fused_computation (param_0: f32[4], param_1: f32[4]) -> f32[4] {
  %param_0 = f32[4]{0} parameter(0)
  %param_1 = f32[4]{0} parameter(1)
  %multiply.1 = f32[4]{0} multiply(%param_0, %param_1)
  ROOT %exponential.1 = f32[4]{0} exponential(%multiply.1)
}

ENTRY %main (x: f32[4], y: f32[4]) -> f32[4] {
  %x = f32[4]{0} parameter(0)
  %y = f32[4]{0} parameter(1)
  %pair = (f32[4]{0}, f32[4]{0}) tuple(%x, %y)
  %first = f32[4]{0} get-tuple-element(%pair), index=0
  ROOT %fusion = f32[4]{0} fusion(%first, %y), kind=kLoop, calls=%fused_computation
}
"""

BAD_OPCODE = "HloModule m\nENTRY e {\n  ROOT p = f32[] frobnicate(0)\n}\n"


def test_private_symbol_found_in_a_later_home():
    # jaxlib 0.10 keeps the parser in jaxlib._hlo, the second home probed: the probe must go on.
    assert callable(adapter.private_symbol("hlo_module_from_text"))
    assert callable(adapter.private_symbol("hlo_module_cost_analysis"))


def test_missing_symbol_names_it_and_the_jaxlib_version(monkeypatch):
    # Simulate a jaxlib where the parser moved somewhere hloscope does not look.
    monkeypatch.setattr(adapter, "SYMBOL_HOMES", ("jaxlib._jax", "jaxlib._no_such_module"))
    with pytest.raises(adapter.XlaApiUnavailable) as caught:
        adapter.xla_parse(SMALL)
    error = caught.value
    assert error.symbol == "hlo_module_from_text"
    assert error.jaxlib_version == adapter.jaxlib_version()
    assert error.searched == ("jaxlib._jax", "jaxlib._no_such_module")
    message = str(error)
    assert "'hlo_module_from_text'" in message
    assert f"jaxlib {adapter.jaxlib_version()}" in message
    assert "jaxlib._no_such_module" in message
    assert isinstance(error, RuntimeError)


def test_symbol_deleted_from_its_home_is_unavailable(monkeypatch):
    import jaxlib._hlo

    monkeypatch.delattr(jaxlib._hlo, "hlo_module_from_text")
    with pytest.raises(adapter.XlaApiUnavailable, match="hlo_module_from_text"):
        adapter.xla_accepts(SMALL)


def test_version_check_accepts_installed_jaxlib():
    import jaxlib.version

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert adapter.check_jaxlib_version(strict=True) == jaxlib.version.__version__


def test_unknown_version_warns_or_errors(monkeypatch):
    monkeypatch.setattr(adapter, "jaxlib_version", lambda: "0.4.30")
    with pytest.warns(adapter.JaxlibVersionWarning, match=r"jaxlib 0\.4\.30 is installed"):
        adapter.check_jaxlib_version(strict=False)
    with pytest.raises(adapter.UnsupportedJaxlib, match=r"0\.10\.x"):
        adapter.check_jaxlib_version(strict=True)
    monkeypatch.setenv("HLOSCOPE_STRICT_JAXLIB", "1")
    with pytest.raises(adapter.UnsupportedJaxlib):
        adapter.check_jaxlib_version()


def test_first_use_runs_the_version_check(monkeypatch):
    monkeypatch.setattr(adapter, "_checked", False)
    monkeypatch.setattr(adapter, "jaxlib_version", lambda: "0.11.0")
    with pytest.warns(adapter.JaxlibVersionWarning):
        adapter.private_symbol("hlo_module_from_text")
    assert adapter._checked  # once per process, not on every call


def test_missing_jaxlib_is_unavailable(monkeypatch):
    monkeypatch.setattr(adapter, "jaxlib_version", lambda: None)
    with pytest.raises(adapter.XlaApiUnavailable, match="jaxlib is not installed"):
        adapter.check_jaxlib_version()


def test_xla_parse_returns_xla_module():
    module = adapter.xla_parse(SMALL)
    assert module.name == "small"
    assert "%fused_computation" in module.to_string()
    assert adapter.xla_parse(SMALL.encode()).name == "small"


def test_bad_text_raises_parse_failed_with_xla_message():
    with pytest.raises(adapter.XlaParseFailed) as caught:
        adapter.xla_parse(BAD_OPCODE)
    error = caught.value
    assert "Unknown opcode: frobnicate" in error.xla_message
    assert str(error) == error.xla_message
    assert (error.line, error.column) == (3, 18)
    assert error.reason is not None and "frobnicate" in error.reason
    assert isinstance(error, RuntimeError)


def test_parse_failed_without_location():
    error = adapter.XlaParseFailed("INVALID_ARGUMENT: something else")
    assert (error.line, error.column, error.reason) == (None, None, None)


def test_xla_accepts():
    assert adapter.xla_accepts(SMALL) == (True, "")
    accepted, message = adapter.xla_accepts(BAD_OPCODE)
    assert not accepted
    assert "frobnicate" in message


def test_xla_to_text_is_a_fixed_point():
    printed = adapter.xla_to_text(SMALL)
    assert "exponential(" in printed
    assert adapter.xla_to_text(printed) == printed


def test_xla_structure():
    assert adapter.xla_structure(SMALL) == [
        {
            "name": "fused_computation",
            "instructions": [
                {"name": "param_0", "opcode": "parameter", "operands": []},
                {"name": "param_1", "opcode": "parameter", "operands": []},
                {"name": "multiply.1", "opcode": "multiply", "operands": ["param_0", "param_1"]},
                {"name": "exponential.1", "opcode": "exponential", "operands": ["multiply.1"]},
            ],
        },
        {
            "name": "main",
            "instructions": [
                {"name": "x", "opcode": "parameter", "operands": []},
                {"name": "y", "opcode": "parameter", "operands": []},
                {"name": "pair", "opcode": "tuple", "operands": ["x", "y"]},
                {"name": "first", "opcode": "get-tuple-element", "operands": ["pair"]},
                {"name": "fusion", "opcode": "fusion", "operands": ["first", "y"]},
            ],
        },
    ]


def test_every_xla_opcode_enum_has_a_text_name():
    # XLA's own enum is the oracle for hloscope's opcode table.
    enum = adapter.private_symbol("HloOpcode")
    names = {adapter.opcode_text_name(member) for member in enum.__members__.values()}
    assert names <= set(OPCODES), names - set(OPCODES)
    assert adapter.opcode_text_name(enum.kGetTupleElement) == "get-tuple-element"
    assert adapter.opcode_text_name(enum.kOptimizationBarrier) == "opt-barrier"


def test_unknown_enum_name_is_spelled_like_xla():
    class NewOpcode:
        name = "kFancyNewThing"

    assert adapter.opcode_text_name(NewOpcode()) == "fancy-new-thing"
    assert adapter.opcode_text_name("HloOpcode.kAllReduce") == "all-reduce"


def test_cost_analysis_of_compiled_text_agrees_with_compiled_cost_analysis():
    import jax
    import jax.numpy as jnp

    def layer(x, w):
        return jnp.tanh(x @ w).sum()

    x, w = jnp.ones((8, 16)), jnp.ones((16, 4))
    compiled_text = jax.jit(layer).lower(x, w).compile().as_text()
    from_text = adapter.xla_cost_analysis(compiled_text)
    from_jit = adapter.jit_cost_analysis(layer, x, w)
    assert from_text == from_jit
    assert from_text["flops"] == 8 * 4 * 16 * 2 + 8 * 4 - 1  # dot, then the sum's adds
    assert from_text["transcendentals"] == 8 * 4  # one tanh per element


def test_cost_analysis_of_bad_text_is_parse_failure():
    with pytest.raises(adapter.XlaParseFailed):
        adapter.xla_cost_analysis(BAD_OPCODE)


def test_normalise_costs_accepts_every_shape_jax_returned():
    assert adapter._normalise_costs(None) == {}
    assert adapter._normalise_costs([]) == {}
    assert adapter._normalise_costs([{"flops": 3}]) == {"flops": 3.0}
    assert adapter._normalise_costs({"flops": 2, "bytes accessed": 8}) == {"flops": 2.0, "bytes accessed": 8.0}
    with pytest.raises(ValueError):
        adapter._normalise_costs([{"flops": 1}, {"flops": 2}])
