"""hloscope's parser sees the same program XLA's own parser sees, on every committed sample.

For each text in samples/hlo/ (what samples/regenerate.py gets from XLA dumps of the sample
programs), compare ``hloscope.parse_modules`` with ``jaxlib_adapter.xla_structure`` (jaxlib's
``hlo_module_from_text``): the same computations in the same order, and in each computation the
same instructions in the same order, with the same opcodes and operand lists. Names are compared
after XLA's parser has uniquified them, so hloscope must uniquify them the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import hloscope
from hloscope.backends import _jaxlib as adapter

HLO_DIR = Path(__file__).resolve().parent.parent / "samples" / "hlo"
TEXTS = sorted(HLO_DIR.glob("*.txt"))


def hloscope_structure(module: hloscope.Module) -> list[dict[str, Any]]:
    """The same shape of summary ``xla_structure`` gives, from hloscope's model."""
    return [
        {
            "name": computation.name,
            "instructions": [
                {
                    "name": instruction.name,
                    "opcode": instruction.opcode,
                    "operands": [operand.name for operand in instruction.operands],
                }
                for instruction in computation.instructions
            ],
        }
        for computation in module.computations
    ]


def first_difference(ours: list[dict[str, Any]], xla: list[dict[str, Any]]) -> str | None:
    """A one-line description of the first disagreement, or None; keeps failures readable."""
    our_names = [c["name"] for c in ours]
    xla_names = [c["name"] for c in xla]
    if our_names != xla_names:
        # XLA keeps computations in file order for parsed text (checked on the whole corpus), so
        # a different order is a real disagreement, not an artefact to compare around.
        return f"computations differ: hloscope {our_names[:8]}... vs XLA {xla_names[:8]}..."
    for our_comp, xla_comp in zip(ours, xla):
        name = our_comp["name"]
        if len(our_comp["instructions"]) != len(xla_comp["instructions"]):
            return (
                f"computation {name}: {len(our_comp['instructions'])} instructions in hloscope, "
                f"{len(xla_comp['instructions'])} in XLA"
            )
        for index, (mine, theirs) in enumerate(
            zip(our_comp["instructions"], xla_comp["instructions"])
        ):
            if mine != theirs:
                return f"computation {name}, instruction #{index}: hloscope {mine} vs XLA {theirs}"
    return None


def test_there_are_samples_to_compare():
    assert len(TEXTS) >= 8, f"samples/hlo/ holds {len(TEXTS)} texts; run samples/regenerate.py"


@pytest.mark.parametrize("path", TEXTS, ids=lambda p: p.name)
def test_parser_agrees_with_xla(path: Path):
    text = path.read_text()
    modules = hloscope.parse_modules(text)
    assert len(modules) == 1
    xla = adapter.xla_structure(text)
    ours = hloscope_structure(modules[0])
    difference = first_difference(ours, xla)
    assert difference is None, f"{path.name}: {difference}"
    assert ours == xla  # belt and braces: the whole structure, not only the first difference
    assert modules[0].name == adapter.xla_parse(text).name


def test_first_difference_points_at_the_disagreement():
    xla = [
        {
            "name": "e",
            "instructions": [
                {"name": "p", "opcode": "parameter", "operands": []},
                {"name": "n", "opcode": "negate", "operands": ["p"]},
            ],
        }
    ]
    ours = [
        {
            "name": "e",
            "instructions": [
                {"name": "p", "opcode": "parameter", "operands": []},
                {"name": "n", "opcode": "negate", "operands": []},
            ],
        }
    ]
    assert first_difference(xla, xla) is None
    assert "instruction #1" in first_difference(ours, xla)
    assert "computations differ" in first_difference([{"name": "f", "instructions": []}], xla)
    assert "1 instructions in hloscope" in first_difference(
        [{"name": "e", "instructions": xla[0]["instructions"][:1]}], xla
    )
