"""tests/data, the project's own corpus: in step with the script that makes it, small, free of
this machine's paths, and with an oracle that is what XLA's own parser says of every module.

A plain clone's corpus tests read tests/data (tests/conftest.py); CI reads ../shared/corpus
there, so these tests are what keeps tests/data honest in CI.
"""

from __future__ import annotations

import collections
import importlib.util
import json
import site
import sys
from pathlib import Path
from types import ModuleType

import pytest
from conftest import DATA

import hloscope

GENERATED = DATA / "generated"
# A plain clone carries this folder: keep it to a few MB (HLO text packs about 10x in git).
SIZE_LIMIT = 10 * 2**20


def load_regenerate() -> ModuleType:
    spec = importlib.util.spec_from_file_location("regenerate", DATA / "regenerate.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("regenerate", module)
    spec.loader.exec_module(module)
    return module


regenerate = load_regenerate()


def data_oracle() -> list[dict]:
    return [json.loads(line) for line in (DATA / "oracle.jsonl").read_text().splitlines()]


def data_files() -> list[Path]:
    return sorted(p for p in GENERATED.rglob("*") if p.is_file())


def test_every_case_has_its_folder_with_the_program_that_made_it():
    assert sorted(p.name for p in GENERATED.iterdir()) == sorted(regenerate.CASES)
    for name, case in regenerate.CASES.items():
        header = f"# XLA_FLAGS extra: {case.xla_flags!r}; env: {case.env!r}\n"
        source = (GENERATED / name / "SOURCE.py").read_text()
        assert source == header + case.source, f"{name}: run tests/data/regenerate.py {name}"
        dumped = [p for p in (GENERATED / name).iterdir() if regenerate.is_module_file(p)]
        assert dumped, f"{name} has no module text"


def test_the_data_is_small():
    total = sum(p.stat().st_size for p in data_files())
    assert total < SIZE_LIMIT, f"tests/data/generated is {total / 2**20:.1f} MiB"


def test_no_path_of_the_machine_that_made_it():
    # Where the programs ran and where their packages were; neutral names replace both.
    machine = [*site.getsitepackages(), site.getusersitepackages(), "tmp/tmp", "/root/"]
    for path in data_files():
        text = path.read_text(errors="surrogateescape")
        leaked = [m for m in machine if m in text]
        assert not leaked, f"{path.relative_to(DATA)} names {leaked}"
    callbacks = (GENERATED / "jax_callbacks").glob("*before_optimizations.txt")
    assert any(regenerate.NEUTRAL_SOURCE + "/jax_callbacks.py" in p.read_text() for p in callbacks)


def test_the_oracle_lists_every_module_file_once():
    listed = [line["file"] for line in data_oracle()]
    assert len(listed) == len(set(listed))
    modules = [p for p in data_files() if regenerate.is_module_file(p)]
    assert sorted(listed) == sorted(p.relative_to(GENERATED).as_posix() for p in modules)


def test_the_oracle_is_what_xla_parses():
    from frameworks_needed import needs_framework

    needs_framework("jax")
    needs_framework("tensorflow")  # its hlo_pb2 reads the module proto
    for line in data_oracle():
        text = (GENERATED / line["file"]).read_text(errors="surrogateescape")
        assert {**line, **regenerate.xla_view(text)} == line, line["file"]


def test_hloscope_agrees_with_the_oracle_on_every_module():
    # tests/test_parser_oracle.py does this for the run's corpus; here for tests/data always.
    for line in data_oracle():
        (module,) = hloscope.parse_modules(GENERATED / line["file"])
        computations = [
            {
                "name": c.name,
                "instructions": len(c.instructions),
                "root": c.root.name,
                "root_opcode": c.root.opcode,
                "parameters": len(c.parameters),
            }
            for c in module.computations
        ]
        fusions = [i for i in module.instructions() if i.opcode == "fusion"]
        ours = {
            "module": module.name,
            "entry": module.entry.name,
            "computations": computations,
            "n_instructions": sum(c["instructions"] for c in computations),
            "opcodes": dict(collections.Counter(i.opcode for i in module.instructions())),
            "fusions": len(fusions),
            "fusion_kinds": dict(collections.Counter(i.fusion_kind for i in fusions)),
        }
        assert {**line, **ours} == line, line["file"]


def test_unknown_cases_are_refused():
    with pytest.raises(SystemExit, match="unknown cases: no_such_case"):
        regenerate.main(["no_such_case"])
