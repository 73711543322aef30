"""The parser agrees with XLA's own parser on every module of the corpus.

oracle.jsonl records what jaxlib's ``hlo_module_from_text`` saw in each module; we compare
module name, entry, computations (order, instruction counts, roots, parameter counts), the
opcode histogram and fusions by kind.
"""

from __future__ import annotations

import collections

import pytest
from conftest import oracle_lines
from corpus_files import module_files, oracle_path, parsed

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


def test_oracle_covers_the_corpus(corpus):
    """Guard against a silently empty or partial parametrization: every module file the corpus
    generated has its oracle line (whichever corpus this run reads), so none escapes the check."""
    checked = {(line["root"], line["file"]) for line in ORACLE}
    generated = corpus / "generated"
    files = [f for f in module_files() if f.is_relative_to(generated)]
    assert len(files) >= 100  # both corpora have hundreds; fewer means the walk broke
    assert [f for f in files if ("generated", str(f.relative_to(generated))) not in checked] == []
