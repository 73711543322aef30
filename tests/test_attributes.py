"""Attribute splitting and decoding (hloscope/hlo/attributes.py).

Examples come from the HLO text-format notes (§4) and real dumps; XLA's own parser
(``jaxlib._hlo``) is the oracle for shardings and replica groups.
"""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import pytest

import hloscope
from hloscope.hlo import attributes as A
from hloscope.hlo.attributes import (
    KNOWN_ATTRIBUTE_NAMES,
    Attributes,
    ComputationLayout,
    ConvDimLabels,
    InlineComputation,
    PaddingConfig,
    ReplicaGroups,
    Sharding,
    SliceRange,
    UnknownAttributeWarning,
    Window,
    decode_attribute,
    format_metadata,
    split_attributes,
)
from hloscope.hlo.errors import DecodeError, HloParseError
from hloscope.hlo.model import Metadata
from hloscope.hlo.shape import parse_shape


def d(name: str, raw: str, opcode: str | None = None):
    return decode_attribute(name, raw, opcode)


# ==========================================================================================
# split_attributes
# ==========================================================================================


def test_split_brief_example():
    text = (
        'kind=kLoop, calls=%fused_computation, metadata={op_name="a" source_line=3}, '
        'backend_config={"x":{"y":"}"}}'
    )
    got = split_attributes(text)
    assert [(n, r) for n, r, _ in got] == [
        ("kind", "kLoop"),
        ("calls", "%fused_computation"),
        ("metadata", '{op_name="a" source_line=3}'),
        ("backend_config", '{"x":{"y":"}"}}'),
    ]
    for _, raw, offset in got:
        assert text[offset : offset + len(raw)] == raw


def test_split_empty():
    assert split_attributes("") == []
    assert split_attributes("  ") == []


def test_split_generic_calls_list_and_dashed_names():
    got = split_attributes(
        'calls=%a, %b, control-predecessors={%c, %d}, frontend_attributes={composite.name="x"}'
    )
    assert [(n, r) for n, r, _ in got] == [
        ("calls", "%a, %b"),
        ("control-predecessors", "{%c, %d}"),
        ("frontend_attributes", '{composite.name="x"}'),
    ]


def test_split_ignores_commas_in_brackets_strings_and_comments():
    text = (
        "slice={[0:2], [1:5:2]}, replica_groups=[4,2]<=[2,4]T(1,0), "
        'custom_call_target="a,b\\",c", sharding={{replicated}, /*index=1, x*/{manual}}, '
        "entry_computation_layout={(f32[2]{0}, s32[])->f32[2]{0}}"
    )
    names = [n for n, _, _ in split_attributes(text)]
    assert names == [
        "slice",
        "replica_groups",
        "custom_call_target",
        "sharding",
        "entry_computation_layout",
    ]


def test_split_multiline_text():
    text = "indices_are_sorted=true,\n    unique_indices=true, to_apply=%r"
    assert [(n, r) for n, r, _ in split_attributes(text)] == [
        ("indices_are_sorted", "true"),
        ("unique_indices", "true"),
        ("to_apply", "%r"),
    ]


def test_split_json_dicts_count_only_braces_and_strings():
    # LexJsonDict (§1): inside backend_config and frontend attribute values only braces and
    # double-quoted strings count, so a stray '(' or '[' does not unbalance anything.
    text = 'backend_config={a = ( "}" [}, frontend_attributes={k={x = [},j="v"}, index=1'
    got = split_attributes(text)
    assert [(n, r) for n, r, _ in got] == [
        ("backend_config", '{a = ( "}" [}'),
        ("frontend_attributes", '{k={x = [},j="v"}'),
        ("index", "1"),
    ]
    assert d("frontend_attributes", got[1][1]) == {"k": "{x = [}", "j": "v"}


def test_split_mesh_replica_groups_keep_device_ids():
    text = (
        "channel_id=1, replica_groups=mesh['x'=4,'y'=2], device_ids=(7,6,5,4,3,2,1,0) {'x'}, "
        "to_apply=%add"
    )
    got = split_attributes(text)
    assert [n for n, _, _ in got] == ["channel_id", "replica_groups", "to_apply"]
    assert got[1][1] == "mesh['x'=4,'y'=2], device_ids=(7,6,5,4,3,2,1,0) {'x'}"


@pytest.mark.parametrize(
    "text, offset, message",
    [
        ("dimensions={0,1, index=2", 11, "unclosed '{'"),
        ("dimensions={0,1}}, index=2", 16, "unbalanced '}'"),
        ("slice={[0:2)}", 11, "unbalanced ')'"),
        ('custom_call_target="abc, index=2', 19, "unterminated string"),
        ("index=2 /* no end", 8, "unterminated comment"),
        ("%a, index=1", 0, "expected an attribute"),
        ("index=1, ", 7, "expected an attribute after ','"),
        ('backend_config={"a": "}"', 15, "unterminated '{'"),
        ('backend_config={"a": "}', 21, "unterminated string"),
    ],
)
def test_split_errors_point_at_the_problem(text, offset, message):
    with pytest.raises(DecodeError) as info:
        split_attributes(text)
    assert message in info.value.message
    assert info.value.offset == offset


def test_split_handles_long_values():
    # A 200 kB backend_config among 2,000 short attributes; how fast it splits is measured in
    # benchmarks/bench_small_speeds.py.
    big = '{"data":"' + "x" * 200_000 + '"}'
    text = f"kind=kLoop, calls=%f, backend_config={big}, " + ", ".join(
        f'metadata{i}={{op_name="n{i}"}}' for i in range(2000)
    )
    got = split_attributes(text)
    assert len(got) == 2003
    assert got[2][1] == big


# ==========================================================================================
# The Attributes mapping
# ==========================================================================================


def test_mapping_is_lazy_and_caches():
    attrs = Attributes("dimensions={1,0}, index=oops", "transpose")
    assert list(attrs) == ["dimensions", "index"]
    assert len(attrs) == 2
    assert "index" in attrs  # membership does not decode
    assert "missing" not in attrs
    first = attrs["dimensions"]
    assert first == (1, 0)
    assert attrs["dimensions"] is first
    assert attrs.raw("index") == "oops"
    assert attrs.get("missing", 7) == 7
    with pytest.raises(HloParseError):
        attrs["index"]
    with pytest.raises(KeyError):
        attrs["missing"]


def test_mapping_offsets_and_errors():
    text = "kind=kLoop, dimensions={0,x}"
    seen = []

    def error(message: str, offset: int) -> Exception:
        seen.append((message, offset))
        return HloParseError(message)

    attrs = Attributes(text, "fusion", error)
    assert attrs.offset("dimensions") == text.index("{0,x}")
    with pytest.raises(HloParseError):
        attrs["dimensions"]
    message, offset = seen[0]
    assert text[offset] == "x"
    assert message.startswith("bad dimensions:")


def test_mapping_split_error_uses_callback():
    attrs = Attributes(
        'index=1, custom_call_target="abc', None, lambda m, o: HloParseError(f"{m}@{o}")
    )
    with pytest.raises(HloParseError, match="unterminated string@28"):
        len(attrs)


def test_mapping_duplicate_name_is_an_error():
    attrs = Attributes("index=1, index=2", "get-tuple-element")
    with pytest.raises(HloParseError, match="duplicate attribute 'index'"):
        attrs["index"]


def test_default_error_has_a_caret():
    attrs = Attributes("dimensions={0,x}")
    with pytest.raises(HloParseError) as info:
        attrs["dimensions"]
    assert info.value.column == 15
    assert "^" in str(info.value)


def test_unknown_attribute_is_raw_and_warns_once():
    A._warned.discard("zz_future_attr")
    attrs = Attributes("zz_future_attr={a b}, index=1, zz_future_attr2=3")
    assert attrs.unknown() == ["zz_future_attr", "zz_future_attr2"]
    with pytest.warns(UnknownAttributeWarning, match="zz_future_attr"):
        assert attrs["zz_future_attr"] == "{a b}"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert Attributes("zz_future_attr=5")["zz_future_attr"] == "5"


def test_instruction_attrs_errors_point_into_the_file():
    text = (
        "HloModule m, entry_computation_layout={(f32[2]{0})->f32[2]{0}}\n\n"
        "ENTRY %e (p: f32[2]) -> f32[2] {\n"
        "  %p = f32[2]{0} parameter(0)\n"
        '  ROOT %r = f32[2]{0} reverse(%p), dimensions={0,x}, metadata={op_name="a"}\n'
        "}\n"
    )
    module = hloscope.parse(text)
    root = module.entry.root
    assert root.attrs["metadata"].op_name == "a"
    with pytest.raises(HloParseError) as info:
        root.attrs["dimensions"]
    line = text.splitlines()[4]
    assert info.value.line == 5
    assert line[info.value.column - 1] == "x"


def test_module_header_attrs():
    text = (
        "HloModule m, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias) }, "
        "entry_computation_layout={(f32[2]{0})->f32[2]{0}}, num_partitions=zz\n\n"
        "ENTRY %e (p: f32[2]) -> f32[2] {\n"
        "  ROOT %p = f32[2]{0} parameter(0)\n"
        "}\n"
    )
    module = hloscope.parse(text)
    attrs = Attributes.for_module(module)
    assert attrs["is_scheduled"] is True
    assert attrs["input_output_alias"] == [A.ParameterAlias((0,), 0, (), "may-alias")]
    assert attrs["entry_computation_layout"].result == parse_shape("f32[2]{0}")
    with pytest.raises(HloParseError) as info:
        attrs["num_partitions"]
    assert info.value.line == 1
    assert text.splitlines()[0][info.value.column - 1 :].startswith("zz")


# ==========================================================================================
# Scalars, enums, strings, lists, computations
# ==========================================================================================


def test_scalars():
    assert d("index", "3") == 3
    assert d("channel_id", "18446744073709551615") == 2**64 - 1
    assert d("epsilon", "1e-05") == pytest.approx(1e-5)
    assert d("epsilon", "0.001") == pytest.approx(0.001)
    assert d("is_stable", "true") is True
    assert d("largest", "false") is False
    assert d("kind", "kLoop") == "kLoop"
    assert d("direction", "LT") == "LT"
    assert d("api_version", "API_VERSION_TYPED_FFI") == "API_VERSION_TYPED_FFI"
    for name, raw in [("index", "1.5"), ("epsilon", "x"), ("is_stable", "yes"), ("kind", "{a}")]:
        with pytest.raises(DecodeError):
            d(name, raw)


def test_strings_are_unescaped_utf8():
    assert d("custom_call_target", '"lapack_sgeqrf_ffi"') == "lapack_sgeqrf_ffi"
    # XLA escapes every byte >= 0x80 as octal: 'é' is \303\251.
    assert d("custom_call_target", '"caf\\303\\251 \\"q\\""') == 'café "q"'
    assert d("async_execution_thread", '"parallel_thread"') == "parallel_thread"
    with pytest.raises(DecodeError):
        d("custom_call_target", '"a" b')


def test_int_lists():
    assert d("dimensions", "{1,0}") == (1, 0)
    assert d("dimensions", "{}") == ()
    assert d("lhs_contracting_dims", "{ 1 , 2 }") == (1, 2)
    assert d("slice_sizes", "{2,1,1}") == (2, 1, 1)
    # collective-permute's combined form nests the lists.
    assert d("slice_sizes", "{{1,2},{3,4}}", "collective-permute") == ((1, 2), (3, 4))
    with pytest.raises(DecodeError) as info:
        d("dimensions", "{0,x}")
    assert info.value.offset == 3


def test_computations():
    assert d("to_apply", "%region_0.4") == "region_0.4"
    assert d("calls", "fused_computation") == "fused_computation"
    assert d("calls", "%a, %b") == ["a", "b"]
    assert d("branch_computations", "{%region_6.11, %region_7.12}") == [
        "region_6.11",
        "region_7.12",
    ]
    assert d("called_computations", "{%a}") == ["a"]
    assert d("control-predecessors", "{%copy.12}") == ["copy.12"]
    assert d("control-predecessors", "{}") == []
    body = "{\n  tmp_0 = f32[] parameter(0)\n  ROOT tmp_1 = f32[] negate(tmp_0)\n}"
    assert d("condition", body) == InlineComputation(body)
    assert d("branch_computations", "{" + body + ", %b}") == [InlineComputation(body), "b"]


def test_bool_lists():
    assert d("parameter_replication", "{true,false}") == (True, False)
    assert d("allow_spmd_sharding_propagation_to_output", "{true}") == (True,)
    assert d("allow_spmd_sharding_propagation_to_parameters", "false") is False
    assert d("operand_precision", "{high,highest}") == ("high", "highest")


# ==========================================================================================
# Structured values
# ==========================================================================================


def test_metadata():
    raw = (
        '{op_type="sin" op_name="jit(f)/jit(main)/sin" source_file="/src/x.py" source_line=3 '
        'profile_type={1} deduplicated_name="d" scheduling_name="foo"}'
    )
    md = d("metadata", raw)
    assert md == Metadata(
        op_type="sin",
        op_name="jit(f)/jit(main)/sin",
        source_file="/src/x.py",
        source_line=3,
        profile_type=(1,),
        deduplicated_name="d",
        scheduling_name="foo",
    )
    assert format_metadata(md) == raw


def test_metadata_new_keys_commas_escapes_and_unknown_keys():
    md = d(
        "metadata",
        '{op_name="a}b\\303\\251", source_line=3, source_end_line=4 source_column=5 '
        "source_end_column=9 stack_frame_id=7 future_key={x {y}} other=word}",
    )
    assert md.op_name == "a}bé"
    assert (md.source_line, md.source_end_line, md.source_column, md.source_end_column) == (
        3,
        4,
        5,
        9,
    )
    assert md.stack_frame_id == 7
    with pytest.raises(DecodeError, match="source_line"):
        d("metadata", '{source_line="x"}')
    with pytest.raises(DecodeError):
        d("metadata", '{op_name="a"} extra')


def test_window():
    w = d("window", "{size=3x3 stride=2x2 pad=0_1x0_1}")
    assert isinstance(w, Window)
    assert w.size == (3, 3) and w.stride == (2, 2) and w.padding == ((0, 1), (0, 1))
    assert w.lhs_dilate == (1, 1) and w.rhs_dilate == (1, 1) and w.rhs_reversal == (False, False)
    assert str(w) == "{size=3x3 stride=2x2 pad=0_1x0_1}"
    one = d("window", "{size=3}")
    assert one.size == (3,) and str(one) == "{size=3}"
    full = d("window", "{size=2x2 pad=-1_0x1_1 lhs_dilate=2x1 rhs_dilate=1x3 rhs_reversal=1x0}")
    assert full.dimensions[0].padding_low == -1
    assert full.dimensions[0].base_dilation == 2 and full.dimensions[1].window_dilation == 3
    assert full.rhs_reversal == (True, False)
    assert str(full) == "{size=2x2 pad=-1_0x1_1 lhs_dilate=2x1 rhs_dilate=1x3 rhs_reversal=1x0}"
    assert d("window", "{}") == Window(())
    with pytest.raises(DecodeError, match="stride has 1 dimensions, expected 2"):
        d("window", "{size=3x3 stride=2}")
    with pytest.raises(DecodeError, match="unknown window field"):
        d("window", "{size=3 bogus=1}")


def test_dim_labels():
    labels = d("dim_labels", "b01f_01io->b01f")
    assert labels == ConvDimLabels("b01f", "01io", "b01f")
    assert labels.input_batch_dimension == 0 and labels.input_feature_dimension == 3
    assert labels.input_spatial_dimensions == (1, 2)
    assert (
        labels.kernel_input_feature_dimension == 2 and labels.kernel_output_feature_dimension == 3
    )
    assert labels.kernel_spatial_dimensions == (0, 1)
    assert labels.output_spatial_dimensions == (1, 2)
    assert str(labels) == "b01f_01io->b01f"
    swapped = d("dim_labels", "bf10_oi01->f01b")
    assert swapped.input_spatial_dimensions == (3, 2)
    assert swapped.output_batch_dimension == 3
    assert str(d("dim_labels", "b0f?_0io?->b0f?")) == "b0f?_0io?->b0f?"
    with pytest.raises(DecodeError):
        d("dim_labels", "b01f->b01f")


def test_padding():
    assert d("padding", "0_0x1_1") == PaddingConfig(
        (A.PaddingDimension(0, 0), A.PaddingDimension(1, 1))
    )
    interior = d("padding", "1_2_1")
    assert interior.dimensions[0] == A.PaddingDimension(1, 2, 1)
    negative = d("padding", "-1_0x0_-2")
    assert [(p.lo, p.hi) for p in negative.dimensions] == [(-1, 0), (0, -2)]
    assert str(negative) == "-1_0x0_-2"
    assert str(d("padding", "0_0x0_2_1")) == "0_0_0x0_2_1"
    with pytest.raises(DecodeError):
        d("padding", "1x2")


def test_slice():
    assert d("slice", "{[0:2], [1:5:2]}") == (SliceRange(0, 2), SliceRange(1, 5, 2))
    assert str(SliceRange(1, 5, 2)) == "[1:5:2]"
    assert d("slice", "{}") == ()
    with pytest.raises(DecodeError):
        d("slice", "{[0:2] [1:3]}")


def test_sharding_forms():
    assert d("sharding", "{replicated}").is_replicated
    maximal = d("sharding", "{maximal device=3}")
    assert maximal.kind == "maximal" and maximal.device == 3
    tiled = d("sharding", "{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}")
    assert tiled.tile_dims == (2, 1, 2) and tiled.devices == (0, 1, 2, 3)
    assert tiled.last_tile_dim_replicate and tiled.num_tiles == 2
    assert tiled.tile_assignment().tolist() == [[[0, 1]], [[2, 3]]]
    iota = d("sharding", "{devices=[2,4]<=[2,4]T(1,0)}")
    assert iota.devices == (0, 4, 1, 5, 2, 6, 3, 7)
    sub = d("sharding", "{devices=[2,2,2,2]<=[16] last_tile_dims={manual, replicated}}")
    assert sub.last_tile_dims == ("manual", "replicated") and sub.num_tiles == 4
    meta = d("sharding", '{replicated metadata={op_name="a"}}')
    assert meta.metadata == (Metadata(op_name="a"),)
    metas = d("sharding", '{replicated metadata={{op_name="a"}, {op_name="b"}}}')
    assert [m.op_name for m in metas.metadata] == ["a", "b"]
    assert str(metas) == '{replicated metadata={{op_name="a"}, {op_name="b"}}}'
    assert d("sharding", "{manual shard_as 1}").shard_as == 1
    assert d("sharding", "{devices=[2,2]<=[4] shard_like 2}").shard_like == 2
    assert d("sharding", "{maximul device=0}").device == 0  # XLA's printer typo


def test_sharding_tuples_with_index_comments():
    text = (
        "{{maximal device=1}, {replicated}, {replicated}, {manual}, {unknown}, "
        "/*index=5*/{replicated}}"
    )
    sharding = d("sharding", text)
    assert sharding.is_tuple and len(sharding.elements) == 6
    assert sharding.elements[0].device == 1 and sharding.elements[5].is_replicated
    assert str(sharding) == text
    assert d("sharding", "{}") == Sharding("tuple")
    assert d("sharding", "{{maximal device=0}}").elements[0].device == 0


def test_sharding_named_form_is_kept_as_text():
    text = "{mesh[x=2,y=4], [{x}, {y, ?}], replicated={z}}"
    sharding = d("sharding", text)
    assert sharding.kind == "named" and sharding.raw == text and str(sharding) == text


@pytest.mark.parametrize(
    "text, message",
    [
        ("{devices=[2,2]0,1,2}", "needs 4 device ids"),
        ("{devices=[4,2]<=[4]}", "has 4 devices"),
        ("{devices=[2,2]<=[2,2]T(0,0)}", "not a permutation"),
        ("{replicated bogus}", "unknown sharding keyword"),
        ("{last_tile_dim_replicate}", "has no type"),
        ("{replicated", "expected"),
    ],
)
def test_sharding_errors(text, message):
    with pytest.raises(DecodeError, match=message):
        d("sharding", text)


def test_replica_groups():
    explicit = d("replica_groups", "{{0,1},{2,3}}")
    assert explicit.groups == ((0, 1), (2, 3)) and str(explicit) == "{{0,1},{2,3}}"
    assert list(explicit) == [(0, 1), (2, 3)] and explicit.group_size == 2
    empty = d("replica_groups", "{}")
    assert empty.groups == () and len(empty) == 0 and str(empty) == "{}"
    iota = d("replica_groups", "[2,4]<=[8]")
    assert iota.groups == ((0, 1, 2, 3), (4, 5, 6, 7)) and str(iota) == "[2,4]<=[8]"
    transposed = d("replica_groups", "[4,2]<=[2,4]T(1,0)")
    assert transposed.groups == ((0, 4), (1, 5), (2, 6), (3, 7))
    mesh = d("replica_groups", "mesh['axis_0'=4,'axis_1'=2] {'axis_0'}")
    assert mesh.groups == ((0, 2, 4, 6), (1, 3, 5, 7))
    assert str(mesh) == "mesh['axis_0'=4,'axis_1'=2] {'axis_0'}"
    assert d("replica_groups", "maximal_mesh[device_id=3] {}") == ReplicaGroups(
        None, mesh="maximal_mesh[device_id=3] {}"
    )
    with pytest.raises(DecodeError, match="num_groups"):
        d("replica_groups", "[8]<=[8]")
    with pytest.raises(DecodeError, match="unknown mesh axis"):
        d("replica_groups", "mesh['x'=2] {'y'}")


def test_source_target_pairs():
    assert d("source_target_pairs", "{{0,1},{1,0}}") == ((0, 1), (1, 0))
    with pytest.raises(DecodeError, match="not a pair"):
        d("source_target_pairs", "{{0,1,2}}")


def test_frontend_attributes():
    raw = (
        '{_xla_buffer_placement="pinned_host",composite.attributes={n = 1 : i32, s = "}"},'
        'composite.name="foo.bar",k="caf\\303\\251",xla.sdy.meshes={mesh = #sdy.mesh<["data"=4]>}}'
    )
    assert d("frontend_attributes", raw) == {
        "_xla_buffer_placement": "pinned_host",
        "composite.attributes": '{n = 1 : i32, s = "}"}',
        "composite.name": "foo.bar",
        "k": "café",
        "xla.sdy.meshes": '{mesh = #sdy.mesh<["data"=4]>}',
    }
    assert d("frontend_attributes", "{}") == {}


def test_backend_config():
    assert d("backend_config", '{"known_trip_count":{"n":"8"}}') == {"known_trip_count": {"n": "8"}}
    assert d("backend_config", '{"x":{"y":"}"}}') == {"x": {"y": "}"}}
    # Older dumps quote it; the unescaped text is JSON.
    assert d("backend_config", '"{\\"a\\":1}"') == {"a": 1}
    assert d("backend_config", '"plain text"') == "plain text"
    # MLIR-style dictionaries are not JSON: kept as text.
    assert d("backend_config", "{mode = 78 : ui32}") == "{mode = 78 : ui32}"


def test_statistics():
    assert d("statistics", "{visualizing_index=1,stat-1=33,stat-2=44.5}") == {
        "visualizing_index": 1,
        "stat-1": 33,
        "stat-2": 44.5,
    }


def test_aliasing():
    assert d("output_to_operand_aliasing", "{{0}: (1, {}), {1}: (0, {0})}") == [
        A.OperandAlias((0,), 1, ()),
        A.OperandAlias((1,), 0, (0,)),
    ]
    assert d("output_to_operand_aliasing", "{{}: (0, {})}") == [((), 0, ())]
    assert d("input_output_alias", "{ {0}: (0, {}, may-alias), {1}: (1, {}, must-alias) }") == [
        A.ParameterAlias((0,), 0, (), "may-alias"),
        A.ParameterAlias((1,), 1, (), "must-alias"),
    ]
    assert d("input_output_alias", "{ {0}: (0, {}) }")[0].kind == "may-alias"
    assert d("buffer_donor", "{ (0, {}), (1, {0}) }") == [
        A.BufferDonor(0, ()),
        A.BufferDonor(1, (0,)),
    ]
    with pytest.raises(DecodeError, match="may-alias or must-alias"):
        d("input_output_alias", "{ {0}: (0, {}, maybe) }")


def test_entry_computation_layout():
    layout = d("entry_computation_layout", "{(f32[2,3]{1,0}, s32[]{:T(128)})->(f32[2]{0}, pred[])}")
    assert isinstance(layout, ComputationLayout)
    params, result = layout
    assert params == (parse_shape("f32[2,3]{1,0}"), parse_shape("s32[]{:T(128)}"))
    assert result == parse_shape("(f32[2]{0}, pred[])")
    many = ", ".join(["f32[]"] * 5) + ", /*index=5*/f32[]"
    text = "{(" + many + ")->(" + many + ")}"
    six = d("entry_computation_layout", text)
    assert len(six.parameters) == 6 and len(six.result.tuple_shapes) == 6
    assert str(six) == text
    assert d("entry_computation_layout", "{()->s32[8]{0}}").parameters == ()


def test_shapes_and_literals():
    assert d("operand_layout_constraints", "{f32[2]{0}, s32[]}") == (
        parse_shape("f32[2]{0}"),
        parse_shape("s32[]"),
    )
    assert d("outfeed_shape", "(u32[3]{0}, pred[])") == parse_shape("(u32[3]{0}, pred[])")
    shape, value = d("literal", "s32[2]{0} {1, 2}")
    assert shape == parse_shape("s32[2]{0}") and value.tolist() == [1, 2]
    scalar = d("literal", "f32[] 0.1")
    assert float(scalar.value) == pytest.approx(0.1)
    pair = d("literal", "( s32[2]{0} {1, 2}, pred[] true )")
    assert pair.shape.is_tuple and pair.value[0].tolist() == [1, 2] and bool(pair.value[1])
    with pytest.raises(DecodeError) as info:
        d("literal", "s32[2]{0} {1, x}")
    assert info.value.offset == len("s32[2]{0} {1, ")


def test_domain_result_accuracy_and_raw_ones():
    domain = d("domain", '{kind="sharding", entry={maximal device=0}, exit={maximal device=1}}')
    assert domain.kind == "sharding" and domain.entry.device == 0 and domain.exit.device == 1
    assert str(domain) == '{kind="sharding", entry={maximal device=0}, exit={maximal device=1}}'
    other = d("domain", '{kind="other", entry={x}, exit={y}}')
    assert other.entry == "{x}"
    assert d("result_accuracy", "{mode=highest}") == A.ResultAccuracy(mode="highest")
    tol = d("result_accuracy", "{tolerance={rtol=0.5, atol=1.0, ulps=2}}")
    assert (tol.rtol, tol.atol, tol.ulps) == (0.5, 1.0, 2)
    assert d("origin", '{({"v1"}, {"v2"})}') == '{({"v1"}, {"v2"})}'
    assert d("sparsity", "L.1@2:4") == "L.1@2:4"


def test_known_names_cover_the_doc():
    doc_names = {
        "sharding",
        "frontend_attributes",
        "statistics",
        "parameter_replication",
        "control-predecessors",
        "origin",
        "metadata",
        "backend_config",
        "result_accuracy",
        "iota_dimension",
        "index",
        "dimensions",
        "to_apply",
        "window",
        "select",
        "scatter",
        "is_stable",
        "k",
        "largest",
        "slice",
        "dynamic_slice_sizes",
        "padding",
        "inferred_dimension",
        "lhs_batch_dims",
        "lhs_contracting_dims",
        "rhs_batch_dims",
        "rhs_contracting_dims",
        "operand_precision",
        "algorithm",
        "sparsity",
        "lhs_ragged_dims",
        "rhs_group_dims",
        "dim_labels",
        "feature_group_count",
        "batch_group_count",
        "conv_kind",
        "fft_type",
        "fft_length",
        "direction",
        "type",
        "left_side",
        "lower",
        "unit_diagonal",
        "transpose_a",
        "epsilon",
        "feature_index",
        "exponent_bits",
        "mantissa_bits",
        "distribution",
        "delta",
        "offset_dims",
        "collapsed_slice_dims",
        "start_index_map",
        "operand_batching_dims",
        "start_indices_batching_dims",
        "index_vector_dim",
        "slice_sizes",
        "indices_are_sorted",
        "update_window_dims",
        "inserted_window_dims",
        "scatter_dims_to_operand_dims",
        "input_batching_dims",
        "scatter_indices_batching_dims",
        "unique_indices",
        "kind",
        "calls",
        "output_to_operand_aliasing",
        "is_composite",
        "condition",
        "body",
        "true_computation",
        "false_computation",
        "branch_computations",
        "custom_call_target",
        "padding_type",
        "operand_layout_constraints",
        "custom_call_has_side_effect",
        "literal",
        "schedule",
        "api_version",
        "called_computations",
        "channel_id",
        "replica_groups",
        "constrain_layout",
        "use_global_device_ids",
        "mode",
        "source_target_pairs",
        "is_host_transfer",
        "infeed_config",
        "outfeed_shape",
        "outfeed_config",
        "cross_program_prefetch_index",
        "async_execution_thread",
        "num_carries",
        "is_reverse",
        "is_associative",
        "domain",
        # module attributes
        "is_scheduled",
        "input_output_alias",
        "buffer_donor",
        "alias_passthrough_params",
        "entry_computation_layout",
        "allow_spmd_sharding_propagation_to_parameters",
        "allow_spmd_sharding_propagation_to_output",
        "replica_count",
        "num_partitions",
        "origin_recovery_table",
    }
    assert doc_names <= KNOWN_ATTRIBUTE_NAMES


# ==========================================================================================
# XLA as the oracle
# ==========================================================================================


@pytest.fixture(scope="module")
def xla_hlo():
    import jaxlib._hlo as H

    return H


SHARDINGS = [
    "{replicated}",
    "{maximal device=3}",
    "{manual}",
    "{unknown}",
    "{unreduced}",
    "{devices=[4,2]<=[8]}",
    "{devices=[2,4]<=[2,4]T(1,0)}",
    "{devices=[2,2,2]<=[2,2,2]T(2,0,1)}",
    "{devices=[1,2,4]<=[4,2]T(1,0) last_tile_dim_replicate}",
    "{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}",
    "{devices=[2,2]3,1,0,2}",
    "{devices=[2,2,2,2]<=[16] last_tile_dims={manual, replicated}}",
    "{manual shard_as 1}",
    "{devices=[2,2]<=[2,2]T(1,0) shard_like 2}",
    "{{maximal device=1}, {replicated}, {devices=[2]0,1}, {manual}, {unknown}, "
    "/*index=5*/{replicated}}",
    "{}",
]


@pytest.mark.parametrize("text", SHARDINGS)
def test_sharding_matches_xla(xla_hlo, text):
    ours = d("sharding", text)
    theirs = xla_hlo.HloSharding.from_string(text)
    assert str(ours) == text  # as written (XLA itself may print an equivalent iota)
    # Only query the per-kind accessors XLA allows (others abort the process).
    pairs = [(ours, theirs)]
    if ours.is_tuple:
        assert len(ours.elements) == len(theirs.tuple_elements())
        pairs = list(zip(ours.elements, theirs.tuple_elements()))
    for mine, xla in pairs:
        if mine.kind == "tiled":
            assert xla.is_tiled()
            assert mine.devices == tuple(xla.tile_assignment_devices())
            assert mine.tile_dims == tuple(xla.tile_assignment_dimensions())
            assert mine.last_tile_dim_replicate == xla.replicate_on_last_tile_dim()
            assert len(mine.last_tile_dims) == len(xla.subgroup_types())
        else:
            assert mine.is_replicated == xla.is_replicated()
            assert (mine.kind == "manual") == xla.is_manual()
            assert not xla.is_tiled()


_ALL_REDUCE_MODULE = """HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[8] parameter(0)
  ROOT r = f32[8] all-reduce(p), channel_id=1, replica_groups=GROUPS, use_global_device_ids=true, \
to_apply=add
}
"""


@pytest.mark.parametrize(
    "groups",
    [
        "{{0,1},{2,3},{4,5},{6,7}}",
        "[2,4]<=[8]",
        "[4,2]<=[2,4]T(1,0)",
        "[2,4]<=[2,2,2]T(2,1,0)",
        "mesh['axis_0'=4,'axis_1'=2] {'axis_0'}",
        "mesh['x'=2,'y'=4] {'y','x'}",
        "mesh['a'=8] {'a':(1)2,'a':(4)2}",
        "mesh['a'=8] {'a':(4)2,'a':(1)2}",
        "mesh['x'=2,'y'=4] {'y':(2)2}",
        "mesh['x'=4,'y'=2], device_ids=(7,6,5,4,3,2,1,0) {'x'}",
        "mesh['x'=4,'y'=2], device_ids=([4,2]T(1,0)) {'x'}",
    ],
)
def test_replica_groups_match_xla(xla_hlo, groups):
    # XLA's fingerprint printer writes every replica-group form as the explicit list.
    module = xla_hlo.hlo_module_from_text(_ALL_REDUCE_MODULE.replace("GROUPS", groups))
    line = next(
        s
        for s in module.to_string(xla_hlo.HloPrintOptions.fingerprint()).splitlines()
        if "all-reduce(" in s
    )
    explicit = line.split("replica_groups=")[1].split(", use_global")[0]
    attrs = Attributes(f"channel_id=1, replica_groups={groups}, to_apply=%add")
    assert list(attrs) == ["channel_id", "replica_groups", "to_apply"]
    assert attrs["replica_groups"].groups == d("replica_groups", explicit).groups
    # ...and the text XLA prints back is ours.
    printed = next(s for s in module.to_string().splitlines() if "all-reduce(" in s)
    assert f"replica_groups={attrs['replica_groups']}," in printed


# ==========================================================================================
# Corpus sweep: every attribute of every module decodes
# ==========================================================================================

# Names whose decoded value is legitimately a str.
_STR_VALUED = (
    set(A._ENUMS) | set(A._STRINGS) | set(A._RAW) | set(A._SINGLE_COMPUTATION) | {"backend_config"}
)


def _corpus_modules(corpus: Path):
    files = sorted(
        {
            (row["root"], row["file"])
            for row in map(json.loads, (corpus / "oracle.jsonl").read_text().splitlines())
        }
    )
    assert files, "oracle.jsonl lists no modules"
    for root, name in files:
        path = corpus / root / name
        for module in hloscope.parse_modules(path):
            yield root, path, module


def test_corpus_every_attribute_decodes(corpus, oracle):
    decoded = 0
    names: set[str] = set()
    mismatches: list[str] = []
    for root, path, module in _corpus_modules(corpus):
        mappings = [module.header_attrs] + [inst.attrs for inst in module.instructions()]
        for attrs in mappings:
            # The one-regex fast path and the general tokenizer agree.
            assert (
                split_attributes(attrs.text) == A._split_general(attrs.text)
                if attrs.text.strip()
                else True
            )
            assert attrs.unknown() == [], f"{path}: unknown attributes {attrs.unknown()}"
            for name in attrs:
                value = attrs[name]
                decoded += 1
                names.add(name)
                if name not in _STR_VALUED:
                    assert not isinstance(value, str), f"{path}: {name} fell back to raw text"
                if root != "generated":
                    continue
                # What XLA printed, we print back the same way.
                raw = attrs.raw(name)
                if name == "metadata":
                    printed = format_metadata(value)
                elif type(value).__module__.startswith(A.__name__ + ".") and hasattr(
                    type(value), "__str__"
                ):
                    printed = str(value)
                else:
                    continue
                if printed != raw:
                    mismatches.append(f"{path}: {name}: {raw[:80]!r} != {printed[:80]!r}")
    assert not mismatches, "\n".join(mismatches[:10])
    # About one attribute per instruction XLA's parser saw (metadata, dims, layouts...): half
    # that is the floor, so a sweep that stopped early or skipped a kind of module fails,
    # whichever corpus this run reads.
    xla_instructions = sum(line["n_instructions"] for line in oracle)
    assert xla_instructions > 10_000 and decoded >= xla_instructions // 2
    # The corpus exercises the common grammars; make sure the sweep really reached them.
    assert {
        "metadata",
        "window",
        "dim_labels",
        "sharding",
        "replica_groups",
        "slice",
        "padding",
        "backend_config",
        "frontend_attributes",
        "entry_computation_layout",
        "output_to_operand_aliasing",
        "input_output_alias",
    } <= names


def test_float_spellings():
    # Valid float spellings XLA prints (RoundTripFpToString).
    assert math.isinf(d("epsilon", "inf"))
    assert math.isnan(d("epsilon", "nan"))


def test_fast_path_falls_back_for_everything_else():
    cases = [
        "a=1,b=2",
        "calls=%a, %b",
        "dimensions={0,1},\n  to_apply=%add",
        "index=1 ",
        'sharding={devices=[4,2]<=[8]}, metadata={op_name="x"}',
        'x=/*c*/1, y="s, t"',
    ]
    for text in cases:
        assert split_attributes(text) == A._split_general(text)
    with pytest.raises(DecodeError):
        split_attributes("index=1, ")
    # An empty value splits (like XLA's lexer would read it) but does not decode.
    assert split_attributes("index=, b=2") == [("index", "", 6), ("b", "2", 10)]
    with pytest.raises(DecodeError, match="has no value"):
        decode_attribute("index", "")


def test_mutated_values_raise_only_decode_errors():
    """Garbled text must give a DecodeError (a clean file:line:col message), never a crash."""
    import random

    samples = [
        ("window", "{size=3x3 stride=2x2 pad=0_1x0_1 lhs_dilate=1x2}"),
        ("sharding", '{devices=[2,1,2]<=[4] last_tile_dim_replicate metadata={op_name="a"}}'),
        ("sharding", "{{maximal device=1}, /*index=1*/{devices=[2]0,1}}"),
        ("replica_groups", "[4,2]<=[2,4]T(1,0)"),
        ("replica_groups", "mesh['a'=8] {'a':(1)2,'a':(4)2}"),
        ("metadata", '{op_type="sin" op_name="a" source_line=3 profile_type={1}}'),
        ("frontend_attributes", '{a="b",c={d = 1}}'),
        ("entry_computation_layout", "{(f32[2,3]{1,0}, s32[])->(f32[2]{0:T(2)}, pred[])}"),
        ("slice", "{[0:2], [1:5:2]}"),
        ("padding", "0_0x1_1_2"),
        ("dim_labels", "b01f_01io->b01f"),
        ("output_to_operand_aliasing", "{{0}: (1, {}), {1}: (0, {0})}"),
        ("input_output_alias", "{ {0}: (0, {}, may-alias) }"),
        ("statistics", "{visualizing_index=1,stat-1=33}"),
        ("domain", '{kind="sharding", entry={maximal device=0}, exit={replicated}}'),
        ("result_accuracy", "{tolerance={rtol=0.5, atol=1.0, ulps=2}}"),
        ("source_target_pairs", "{{0,1},{1,0}}"),
        ("branch_computations", "{%a, %b}"),
        ("literal", "s32[2]{0} {1, 2}"),
    ]
    alphabet = "{}[]()<>,:=_x-0123456789\"' /*Tabc%?"
    rng = random.Random(1234)
    for name, text in samples:
        for _ in range(300):
            chars = list(text)
            for _ in range(rng.randint(1, 3)):
                op = rng.random()
                at = rng.randrange(len(chars) + 1)
                if op < 0.4 and chars:
                    del chars[min(at, len(chars) - 1)]
                elif op < 0.8:
                    chars.insert(at, rng.choice(alphabet))
                elif chars:
                    chars[min(at, len(chars) - 1)] = rng.choice(alphabet)
            mutated = "".join(chars)
            try:
                for attr, raw, _ in split_attributes(f"{name}={mutated}"):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        decode_attribute(attr, raw)
            except DecodeError:
                pass
