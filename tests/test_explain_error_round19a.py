"""Round 19a of explain-error: the recognisers, read on the fourteenth blind part's misses and
the thirteenth's left after round 18, each fix on two wordings: a corpus log and a second real
text (another thread's, or the error JAX 0.10.2 raises itself)."""

from __future__ import annotations

import pytest
from round_logs import first, log

from hloscope.analysis.explain_error.record import Family

# ---- sizes that do not divide, both shapes plain integers: a reshape's shapes, not export's ---


# dalle-mini's VQGAN decoding 7 codes into a 4x4 grid, as its user quoted it (a Hugging Face
# thread, not GitHub's: huggingface.co/dalle-mini/vqgan_imagenet_f16_16384/discussions/6).
_VQGAN = (
    "i tried it but it is returning InconclusiveDimensionOperation: Cannot divide evenly the "
    "sizes of shapes (1, 7, 256) and (1, 4, 4, -1).\n"
)


@pytest.mark.parametrize(
    "text",
    [
        # diffusers' Flax pipeline reshaping 8 values to (8, 2): "(8,) and (8, 2)".
        log("fresh14_c_diffusers_2016"),
        _VQGAN,
    ],
)
def test_integer_shapes_that_do_not_divide_are_a_reshape(text: str) -> None:
    failure = first(text)
    assert failure.family == Family.JAX_SHAPE
    assert failure.finding.op == "reshape"


def test_a_symbolic_shape_that_does_not_divide_stays_export() -> None:
    # JAX's shape polymorphism README's own example: b is a symbolic dimension.
    text = (
        "jax.core.InconclusiveDimensionOperation: Cannot divide evenly the sizes of shapes "
        "(b, 5, 7) and (2, -1)"
    )
    assert first(text).family == Family.JAX_EXPORT


# ---- TPU's rewriting of 64-bit types, in newer XLA's words (X{64|128}) and older (X64) -------


@pytest.mark.parametrize(
    ("text", "op"),
    [
        # Enzyme-JAX's f64 custom call on TPU, newer XLA naming the 128-bit types too.
        (log("fresh14_a_enzymejax_2126"), "custom-call"),
        # openxla/xla#26995's c64 all-reduce, in the older words (the same form, widened).
        (
            "jaxlib._jax.XlaRuntimeError: UNIMPLEMENTED: While rewriting computation to not "
            "contain X64 element types, XLA encountered an HLO for which this rewriting is not "
            "implemented: %all-reduce.0 = c64[16,...]{0,...} all-reduce(%transpose.18), "
            "channel_id=1\n",
            "all-reduce",
        ),
    ],
)
def test_the_x64_rewrite_refusing_an_hlo_is_a_status_of_that_op(text: str, op: str) -> None:
    failure = first(text)
    assert failure.family == Family.XLA_STATUS
    assert failure.finding.op == op


# ---- tt-metal's fatal assert (TT_FATAL @ file:line: condition) is a crash of its runtime -----


@pytest.mark.parametrize(
    ("name", "site"),
    [
        # tt-xla#6004: a rank-0 argument distributed over a 1x2 mesh.
        ("fresh14_a_ttxla_6004", "tensor_apis.cpp:1327"),
        # tt-xla#3085: YOLOv9's view of a buffer whose size its new page size does not divide.
        ("r19a_ttxla_3085", "buffer.cpp:497"),
    ],
)
def test_tt_metals_fatal_assert_is_a_crash_to_report(name: str, site: str) -> None:
    failure = first(log(name))
    assert failure.family == Family.XLA_CRASH
    assert failure.finding.op == "TT_FATAL"
    assert failure.finding.node.endswith(site)
    assert failure.advice_kind == "report_bug"
