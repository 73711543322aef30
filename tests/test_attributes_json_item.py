"""A JSON backend_config among simple attributes is split without the general path, and the
split is the general path's own on every form around it (issue 36: a fusion's config after its
metadata sent every such line there)."""

from __future__ import annotations

import itertools

import pytest

from hloscope.hlo.attributes import _split
from hloscope.hlo.errors import DecodeError

FUSION = (
    'kind=kCustom, calls=%fused_computation.1533, metadata={op_name="jit(f)/reduce_sum"'
    ' stack_frame_id=6}, backend_config={"outer_dimension_partitions":[],'
    '"fusion_config":{"kind":"__ynn_fusion"}}'
)
# Items around the JSON value: simple ones, ones only the general path reads, and bad ones.
PIECES = [
    "kind=kLoop",
    'metadata={op_name="a, b"}',
    'backend_config={"a":{"b":[1,2]},"c":"}{"}',
    'backend_config={"x":[]}',
    "sharding={devices=[2,1]0,1}",
    "calls=%a, %b",
    'backend_config={"a":{"b',
    'backend_config={"a":{}} tail',
    "",
    " ",
]


def _either(text: str) -> object:
    try:
        return _split.split_attributes(text)
    except DecodeError as e:
        return ("error", e.message, e.offset)


def _general(text: str) -> object:
    try:
        return _split._split_general(text)
    except DecodeError as e:
        return ("error", e.message, e.offset)


def test_fusion_config_after_metadata_skips_the_general_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    expected = _split._split_general(FUSION)

    def refuse(text: str) -> list[tuple[str, str, int]]:
        raise AssertionError(f"general path taken for {text!r}")

    monkeypatch.setattr(_split, "_split_general", refuse)
    got = _split.split_attributes(FUSION)
    assert got == expected
    assert got[-1] == (
        "backend_config",
        '{"outer_dimension_partitions":[],"fusion_config":{"kind":"__ynn_fusion"}}',
        FUSION.index("backend_config=") + len("backend_config="),
    )


@pytest.mark.parametrize("count", [1, 2, 3])
@pytest.mark.parametrize("separator", [", ", ",", ",  "])
def test_every_mix_splits_as_the_general_path(count: int, separator: str) -> None:
    for items in itertools.product(PIECES, repeat=count):
        text = separator.join(items)
        if not text or text.isspace():
            continue
        assert _either(text) == _general(text), text
