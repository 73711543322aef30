"""The jaxlib adapter: XLA's parser, printer and cost analysis behind one version-checked door."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from hloscope.backends import _jaxlib as adapter
from hloscope.backends import frameworks
from hloscope.hlo.opcodes import OPCODES

pytest.importorskip("jaxlib")

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


def _home_of(symbol: str) -> str:
    """The first :data:`SYMBOL_HOMES` entry holding ``symbol`` in the installed jaxlib."""
    for home in adapter.SYMBOL_HOMES:
        if getattr(adapter._home_module(home), symbol, None) is not None:
            return home
    pytest.fail(f"no home holds {symbol}")


def test_private_symbols_found_in_some_home():
    # jaxlib 0.10 keeps the parser in jaxlib._hlo, the second home probed: the probe must go on.
    assert callable(adapter.private_symbol("hlo_module_from_text"))
    assert callable(adapter.private_symbol("hlo_module_cost_analysis"))


@pytest.mark.parametrize(
    "version, home",
    [
        ("0.5.0", "jaxlib.xla_extension"),
        ("0.5.3", "jaxlib.xla_extension"),
        ("0.6.2", "jaxlib._jax"),
        ("0.10.2", "jaxlib._hlo"),
    ],
)
def test_symbol_homes_cover_every_supported_series(version, home):
    # Where hlo_module_from_text lives in each series (checked by installing each): the probe
    # order must reach it, and the installed jaxlib must agree with the table for its series.
    assert home in adapter.SYMBOL_HOMES
    installed = adapter.jaxlib_version()
    if installed.split(".")[:2] == version.split(".")[:2]:
        assert _home_of("hlo_module_from_text") == home


def test_attribute_home_resolves_to_the_extension_module():
    # "jaxlib.xla_client._xla" is not importable as a module: it is xla_client's attribute.
    from jaxlib import xla_client

    assert adapter._home_module("jaxlib.xla_client._xla") is xla_client._xla
    assert adapter._home_module("jaxlib._no_such_module") is None
    assert adapter._home_module("no_such_package.thing") is None


def test_missing_symbol_names_it_and_the_jaxlib_version(monkeypatch):
    # Simulate a jaxlib where the parser moved somewhere hloscope does not look.
    homes = ("jaxlib.version", "jaxlib._no_such_module")
    monkeypatch.setattr(adapter, "SYMBOL_HOMES", homes)
    with pytest.raises(adapter.XlaApiUnavailable) as caught:
        adapter.xla_parse(SMALL)
    error = caught.value
    assert error.symbol == "hlo_module_from_text"
    assert error.jaxlib_version == adapter.jaxlib_version()
    assert error.searched == homes
    message = str(error)
    assert "'hlo_module_from_text'" in message
    assert f"jaxlib {adapter.jaxlib_version()}" in message
    assert "jaxlib._no_such_module" in message
    assert "0.5.0 to 0.10.x" in message
    assert isinstance(error, RuntimeError)


def test_symbol_deleted_from_its_home_is_unavailable(monkeypatch):
    import importlib

    for home in adapter.SYMBOL_HOMES:  # every home that has it, so no later home answers
        module = adapter._home_module(home)
        if getattr(module, "hlo_module_from_text", None) is not None:
            monkeypatch.delattr(module, "hlo_module_from_text")
    assert importlib.import_module("jaxlib")  # jaxlib itself is still there
    with pytest.raises(adapter.XlaApiUnavailable, match="hlo_module_from_text"):
        adapter.xla_accepts(SMALL)


def test_version_check_accepts_installed_jaxlib():
    import jaxlib.version

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert adapter.check_jaxlib_version(strict=True) == jaxlib.version.__version__


def test_supported_range_is_the_frameworks_range():
    assert adapter.SUPPORTED_JAXLIB == (frameworks.JAX_MINIMUM, frameworks.JAX_NEWEST_TESTED)
    assert adapter.SUPPORTED_JAXLIB == ((0, 5, 0), (0, 10))


@pytest.mark.parametrize(
    "version, support",
    [
        ("0.4.38", "old"),
        ("0.5.0", "ok"),
        ("0.5.3", "ok"),
        ("0.6.2", "ok"),
        ("0.10.2", "ok"),
        ("0.10.9.dev20260101", "ok"),
        ("0.11.0", "new"),
        ("1.0.0", "new"),
        ("0.3.25", "old"),
        ("unknown", "new"),
    ],
)
def test_jaxlib_support_classifies_versions(version, support):
    assert adapter.jaxlib_support(version) == support


def test_newer_than_tested_version_warns_or_errors(monkeypatch):
    monkeypatch.setattr(adapter, "jaxlib_version", lambda: "0.11.0")
    with pytest.warns(adapter.JaxlibVersionWarning, match=r"jaxlib 0\.11\.0 is installed"):
        adapter.check_jaxlib_version(strict=False)
    with pytest.raises(adapter.UnsupportedJaxlib, match=r"0\.10\.x"):
        adapter.check_jaxlib_version(strict=True)
    monkeypatch.setenv("HLOSCOPE_STRICT_JAXLIB", "1")
    with pytest.raises(adapter.UnsupportedJaxlib):
        adapter.check_jaxlib_version()


def test_older_than_supported_version_is_an_error_even_lenient(monkeypatch):
    monkeypatch.setattr(adapter, "jaxlib_version", lambda: "0.4.26")
    with pytest.raises(adapter.UnsupportedJaxlib) as caught:
        adapter.check_jaxlib_version(strict=False)
    assert str(caught.value) == (
        "jaxlib 0.4.26 is older than hloscope supports (0.5.0 to 0.10.x): "
        "pip install 'hloscope[jax]' upgrades it"
    )


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
    # XLA's own enum is the oracle for hloscope's opcode table (bound by newer jaxlib only;
    # older ones give opcodes only as text, through the HloModuleProto).
    try:
        enum = adapter.private_symbol("HloOpcode")
    except adapter.XlaApiUnavailable:
        pytest.skip(f"jaxlib {adapter.jaxlib_version()} does not bind HloOpcode")
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
    assert adapter._normalise_costs({"flops": 2, "bytes accessed": 8}) == {
        "flops": 2.0,
        "bytes accessed": 8.0,
    }
    with pytest.raises(ValueError):
        adapter._normalise_costs([{"flops": 1}, {"flops": 2}])


# ---- fallbacks for older jaxlib, checked here against the newest one's answers -----------------

SAMPLES = sorted((Path(__file__).resolve().parent.parent / "samples" / "hlo").glob("*.txt"))


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_proto_structure_equals_the_bound_structure(path):
    # Older jaxlib binds no HloComputation.instructions: the structure then comes from the
    # serialized proto, reordered by HloModule.computations() and the schedule. Where both
    # exist they must agree exactly (order included).
    text = path.read_text()
    module = adapter.xla_parse(text)
    order = [str(adapter._call_or_get(c.name)) for c in adapter._call_or_get(module.computations)]
    from_proto = adapter._proto_structure(bytes(module.as_serialized_hlo_module_proto()), order)
    assert from_proto == adapter.xla_structure(text)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_stack_frame_tables_are_dropped_for_old_xla_without_moving_lines(path):
    text = path.read_text()
    stripped = adapter.without_stack_frame_tables(text)
    assert "\nFileNames\n" not in stripped and "stack_frame_id=" not in stripped
    assert stripped.count("\n") == text.count("\n")  # XLA's error lines still match the input
    assert adapter.xla_structure(stripped) == adapter.xla_structure(text)
    assert adapter.without_stack_frame_tables(SMALL) == SMALL


def test_old_xla_gets_the_text_without_tables(monkeypatch):
    seen: list[str] = []
    monkeypatch.setattr(adapter, "_checked", True)  # the fake version below must not warn
    monkeypatch.setattr(adapter, "private_symbol", lambda name: seen.append)
    text = SAMPLES[0].read_text()
    monkeypatch.setattr(adapter, "jaxlib_version", lambda: "0.7.2")
    adapter.xla_parse(text)
    monkeypatch.setattr(adapter, "jaxlib_version", lambda: "0.8.3")
    adapter.xla_parse(text)
    assert seen == [adapter.without_stack_frame_tables(text), text]
    assert seen[0] != text
