"""`hloscope summary`: tables, --json, bad files, and no jax/tensorflow import."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from click.testing import CliRunner

import hloscope
from hloscope.cli import cli

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "hlo" / "transformer_train.after_optimizations.txt"


def run(*args):
    result = CliRunner().invoke(cli, ["summary", *map(str, args)])
    return result.exit_code, result.output, result.stderr if hasattr(result, "stderr") else ""


def test_json_matches_the_parsed_module():
    code, out, _ = run("--json", SAMPLE)
    assert code == 0
    (info,) = json.loads(out)
    module = hloscope.parse(SAMPLE)
    assert info["name"] == module.name and info["entry"] == module.entry.name
    assert info["instructions"] == sum(len(c.instructions) for c in module.computations)
    assert info["by_opcode"] == dict(Counter(i.opcode for i in module.instructions()))
    fusions = Counter(i.fusion_kind for i in module.instructions() if i.opcode == "fusion")
    assert info["fusions_by_kind"] == dict(fusions)
    assert info["parameter_bytes"] == sum(p.shape.byte_size for p in module.entry.parameters)
    assert [p["shape"] for p in info["parameters"]] == [
        p.shape_text for p in module.entry.parameters
    ]
    assert any(f.endswith("transformer_train.py") for f in info["source_files"])


def test_table_output_names_what_matters():
    code, out, _ = run(SAMPLE)
    assert code == 0
    for word in (
        "instructions by category",
        "fusions by kind",
        "entry parameters",
        "transformer_train.py",
    ):
        assert word in out


def test_custom_call_targets_in_corpus(corpus):
    path = next(
        (corpus / "generated" / "jax_linalg_custom_calls").glob("*jit_*after_optimizations.txt")
    )
    paths = sorted(
        (corpus / "generated" / "jax_linalg_custom_calls").glob("*after_optimizations.txt")
    )
    code, out, _ = run("--json", *paths)
    assert code == 0
    targets = Counter()
    for info in json.loads(out):
        targets.update(info["custom_call_targets"])
    expected = Counter()
    for p in paths:
        for m in hloscope.parse_modules(p):
            for i in m.instructions():
                if i.opcode == "custom-call":
                    expected[i.attrs["custom_call_target"]] += 1
    assert targets == expected and any("lapack" in t for t in targets)
    assert path.exists()


def test_bad_file_is_one_line_and_others_still_run(tmp_path):
    bad = tmp_path / "broken.hlo"
    bad.write_text("HloModule broken\nENTRY e {\n  ROOT a = f32[] add(x, y)\n}\n")
    code, out, _ = run("--json", bad, SAMPLE, tmp_path / "missing.hlo")
    assert code == 2  # the worst of the errors: unreadable HLO (2) over a missing file (1)
    lines = [line for line in out.splitlines() if "error:" in line]
    assert any(line.startswith(f"{bad}:3:") for line in lines)
    assert any("missing.hlo" in line and "no such file" in line for line in lines)
    assert "Traceback" not in out


def test_summary_never_imports_jax_or_tensorflow():
    probe = (
        "import sys, atexit\n"
        "atexit.register(lambda: print('LOADED', sorted(m for m in sys.modules if "
        "m.split('.')[0] in ('jax', 'jaxlib', 'tensorflow'))))\n"
        "from hloscope.cli import main\n"
        f"sys.argv = ['hloscope', 'summary', {str(SAMPLE)!r}]\n"
        "main()\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    ).stdout
    assert "LOADED []" in out


def test_summary_of_a_dump_folder_lists_every_compile(corpus):
    """A dump folder is a TARGET too: jax_recompiles holds one function compiled four times."""
    code, out, _ = run("--json", "--all-modules", corpus / "generated" / "jax_recompiles")
    assert code == 0
    norms = [info for info in json.loads(out) if info["name"] == "jit_norm"]
    assert len(norms) == 4
    assert len({info["parameters"][0]["shape"] for info in norms}) == 4  # three shapes, one dtype


def test_summary_of_a_dump_folder_defaults_to_its_main_module(corpus):
    folder = corpus / "generated" / "jax_recompiles"
    result = CliRunner().invoke(cli, ["summary", "--json", str(folder)])
    assert result.exit_code == 0, result.output
    (info,) = json.loads(result.stdout)
    main = hloscope.Target.resolve(folder).main_module()
    assert info["module"] == main.name and info["instructions"] == sum(
        len(c.instructions) for c in main.computations
    )
    assert "hloscope: note: module" in result.stderr and "--module" in result.stderr
