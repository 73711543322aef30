"""Fuzzing the parser with damaged corpus files.

Whatever the input (truncated, bytes flipped, lines deleted or duplicated, garbage spliced in),
parsing, and then reading every lazy part of the result (shapes, attributes, metadata, called
computations, literals), ends either in success or in HloParseError. How long a damaged file
takes against the intact one is a benchmark, not a test (a busy machine would fail a time
bound for no fault of the code): ``python benchmarks/bench_small_speeds.py`` prints it.
"""

from __future__ import annotations

import pytest
from corpus_files import module_files
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import hloscope

# A spread of files: small snippets, multi-module test files, real dumps, one big training step.
_ALL = module_files()
_PICK = sorted({f for f in _ALL if f.stat().st_size < 60_000}, key=lambda f: f.name)[::9]
_BIG = [
    f
    for f in _ALL
    if f.parent.name in ("tf_keras_mobilenet_train", "tf_keras_resnet50")
    and f.name.endswith("cpu_after_optimizations.txt")
][:2]
FILES = _PICK + _BIG

# Damage can turn a known attribute name into an unknown one ('dimensions' -> 'aimensions'):
# hloscope then warns, on purpose (tests/test_attributes.py checks that with pytest.warns).
pytestmark = pytest.mark.filterwarnings("ignore::hloscope.hlo.attributes.UnknownAttributeWarning")


def touch_everything(modules) -> None:
    """Read every lazily decoded part, as analyses and the CLI would."""
    for module in modules:
        for key in module.header_attrs:
            _ = module.header_attrs[key]
        for inst in module.instructions():
            _ = inst.shape.byte_size
            for key in inst.attrs:
                _ = inst.attrs[key]
            _ = inst.metadata
            _ = inst.called_computations
            _ = inst.stack
            if inst.opcode == "constant":
                _ = inst.literal


def parse_damaged(data: bytes) -> None:
    try:
        touch_everything(hloscope.parse_modules(data))
    except hloscope.HloParseError as e:
        assert e.line is None or e.line >= 1
        assert "\n" not in e.one_line()


@st.composite
def damaged(draw):
    path = draw(st.sampled_from(FILES))
    data = bytearray(path.read_bytes())
    kind = draw(
        st.sampled_from(["truncate", "flip", "delete_lines", "duplicate_lines", "garbage", "mixed"])
    )
    if kind in ("truncate", "mixed"):
        data = data[: draw(st.integers(0, len(data)))]
    if kind in ("flip", "mixed") and data:
        for _ in range(draw(st.integers(1, 8))):
            pos = draw(st.integers(0, len(data) - 1))
            data[pos] = draw(st.sampled_from(b'(){}[],=%"/*\\ \n:0aZ.-\xff\x00'))
    lines = bytes(data).split(b"\n")
    if kind in ("delete_lines", "mixed") and lines:
        for _ in range(draw(st.integers(1, 4))):
            if lines:
                del lines[draw(st.integers(0, len(lines) - 1))]
    if kind in ("duplicate_lines", "mixed") and lines:
        for _ in range(draw(st.integers(1, 4))):
            k = draw(st.integers(0, len(lines) - 1))
            lines.insert(k, lines[k])
    data = bytearray(b"\n".join(lines))
    if kind == "garbage":
        pos = draw(st.integers(0, len(data)))
        data[pos:pos] = draw(st.binary(min_size=1, max_size=64))
    return bytes(data)


@settings(
    max_examples=300,
    deadline=None,
    phases=[Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(damaged())
def test_damaged_corpus_files(corpus, data):
    parse_damaged(data)


@settings(max_examples=200, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list('HloModule ENTRY ROOT%=(){}[],:f32s1u8pred->/* \n"\\')),
        max_size=300,
    )
)
def test_random_token_soup(data):
    parse_damaged(data.encode())


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\x00\x01binary",
        b"\xff\xfe\xfd",
        "é".encode("latin-1"),
        b"HloModule",
        b"}",
        b"ENTRY e {",
    ],
)
def test_tiny_inputs(data):
    parse_damaged(data)
