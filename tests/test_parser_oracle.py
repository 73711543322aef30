"""The parser agrees with XLA's own parser on every module of the corpus.

oracle.jsonl records what jaxlib's ``hlo_module_from_text`` saw in each module; we compare
module name, entry, computations (order, instruction counts, roots, parameter counts), the
opcode histogram and fusions by kind.
"""

from __future__ import annotations

import collections

import pytest
from conftest import oracle_lines
from corpus_files import oracle_path, parsed

ORACLE = oracle_lines()


def _id(line: dict) -> str:
    return f"{line['root']}/{line['file']}#{line['part']}"


@pytest.mark.parametrize("line", ORACLE, ids=[_id(line) for line in ORACLE])
def test_module_agrees_with_xla(corpus, line):
    modules = parsed(oracle_path(line))
    # The oracle numbers modules by their '// -----' part; each part holds one module.
    module = modules[line["part"]]
    assert module.name == line["module"]
    assert module.entry.name == line["entry"]
    ours = [
        {
            "name": c.name,
            "instructions": len(c.instructions),
            "root": c.root.name,
            "root_opcode": c.root.opcode,
            "parameters": len(c.parameters),
        }
        for c in module.computations
    ]
    assert ours == line["computations"]
    assert sum(len(c.instructions) for c in module.computations) == line["n_instructions"]
    assert dict(collections.Counter(i.opcode for i in module.instructions())) == line["opcodes"]
    fusions = [i for i in module.instructions() if i.opcode == "fusion"]
    assert len(fusions) == line["fusions"]
    assert dict(collections.Counter(i.fusion_kind for i in fusions)) == line["fusion_kinds"]


@pytest.mark.shared_corpus("sizes")
def test_oracle_covers_the_corpus(corpus):
    """Guard against a silently empty parametrization."""
    assert len(ORACLE) > 400
