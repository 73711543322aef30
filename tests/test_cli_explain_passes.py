"""`hloscope explain` and `hloscope passes`: tables, --json, focus options, errors, escapes,
script targets, and no jax import for offline targets."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from frameworks_needed import needs_framework

import hloscope
from hloscope.cli import cli
from hloscope.drivers.explain import explain
from hloscope.drivers.passes import pass_timeline

ROOT = Path(__file__).resolve().parent.parent
HLO = ROOT / "samples" / "hlo"
AFTER = HLO / "transformer_train.after_optimizations.txt"
BEFORE = HLO / "transformer_train.before_optimizations.txt"


def run(*args, env=None):
    result = CliRunner().invoke(cli, [*map(str, args)], env={"COLUMNS": "120", **(env or {})})
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def dump(tmp_path_factory):
    """The sample's two stages as a dump folder."""
    folder = tmp_path_factory.mktemp("dump")
    shutil.copy(BEFORE, folder / "module_0001.jit_train_step.before_optimizations.txt")
    shutil.copy(AFTER, folder / "module_0001.jit_train_step.cpu_after_optimizations.txt")
    return folder


@pytest.fixture(scope="module")
def pass_dumps(corpus):
    return corpus / "generated" / "jax_pass_dumps"


# ---- explain -------------------------------------------------------------------------------------


def test_explain_json_is_the_explanation(dump):
    code, out, _ = run("explain", dump, "--json")
    assert code == 0
    data = json.loads(out)
    expected = explain(hloscope.Target.resolve(str(dump))).to_dict()
    assert data == json.loads(json.dumps(expected))
    pair = explain(hloscope.parse(AFTER), before=hloscope.parse(BEFORE)).to_dict()
    assert data["lines"] == json.loads(json.dumps(pair["lines"]))
    assert data["stages"] == ["hlo", "optimized_hlo"]


def test_explain_table_lists_lines_and_what_is_missing(dump):
    code, out, _ = run("explain", dump)
    assert code == 0
    assert "transformer_train.py:51" in out and "jax.nn.gelu" in out
    assert "missing jaxpr, stablehlo" in out
    assert all(len(line) <= 120 for line in out.splitlines() if "\u2502" in line)


def test_explain_a_file_alone_says_the_before_stage_is_missing(tmp_path):
    alone = tmp_path / "x.txt"
    shutil.copy(AFTER, alone)
    code, out, _ = run("explain", alone)
    assert code == 0 and "missing hlo" in out


def test_explain_an_after_file_reads_the_before_file_beside_it(dump):
    """As `report` does: X.after_optimizations.txt with X.before_optimizations.txt beside it
    gives both stages, the same explanation as the pair of modules (and as the dump)."""
    code, out, _ = run("explain", AFTER, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["stages"] == ["hlo", "optimized_hlo"] and "hlo" not in data["missing"]
    pair = explain(hloscope.parse(AFTER), before=hloscope.parse(BEFORE)).to_dict()
    assert data["lines"] == json.loads(json.dumps(pair["lines"]))
    code, out, _ = run("explain", dump, "--json")
    assert json.loads(out)["lines"] == data["lines"]


def test_explain_line_and_kernel_focus(dump):
    code, out, _ = run("explain", dump, "--line", "transformer_train.py:51")
    assert code == 0
    assert "jax.nn.gelu" in out and "HLO before" in out and "\u2192" in out
    e = explain(hloscope.parse(AFTER), before=hloscope.parse(BEFORE))
    name = e.focus_line("transformer_train.py:51").lines[0].kernels[0]
    code, out, _ = run("explain", dump, "--kernel", name, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["focus"] == f"kernel {name}" and [k["name"] for k in data["kernels"]] == [name]
    code, out, _ = run("explain", dump, "--kernel", name)
    assert code == 0 and f"kernel {name}" in out


def test_explain_errors_are_one_line(dump):
    # A kernel or line that matches nothing is a usage error (README: exit status 2).
    code, _, err = run("explain", dump, "--kernel", "no_such_kernel")
    assert code == 2 and "no kernel 'no_such_kernel'" in err and "Traceback" not in err
    code, _, err = run("explain", dump, "--line", "nowhere.py:3")
    assert code == 2 and "came from 'nowhere.py:3'" in err
    code, _, err = run("explain", dump, "--line", "a.py:1", "--kernel", "k")
    assert code == 2 and "exclude each other" in err  # a usage error (README: exit status)


def test_explain_shows_control_characters_escaped(tmp_path):
    text = AFTER.read_text().replace(
        'op_name="jit(train_step)/jvp()/dot_general"',
        'op_name="jit(train_step)/jvp()/dot_general\\033]0;pwned\\007"',
        1,
    )
    path = tmp_path / "evil.txt"
    path.write_text(text)
    poisoned = next(
        line.source
        for line in explain(hloscope.parse(path)).lines
        for op in line.stage_ops(hloscope.Stage.OPTIMIZED_HLO)
        if "pwned" in op.op_name
    )
    spec = poisoned.split(" ")[0]
    code, out, _ = run("explain", path, "--line", spec, env={"COLUMNS": "200"})
    assert code == 0
    assert "\x1b" not in out and "\x07" not in out
    assert "dot_general\\e]0" in out  # shown, escaped, in the op column


def test_offline_explain_and_passes_import_no_framework(dump, pass_dumps):
    probe = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('LOADED', sorted(m for m in sys.modules if "
        "m.split('.')[0] in ('jax', 'jaxlib', 'tensorflow'))))\n"
        "from hloscope.cli import main\n"
        "sys.argv = ['hloscope'] + sys.argv[1:]\n"
        "main()\n"
    )
    for args in (["explain", str(dump)], ["passes", str(pass_dumps), "--follow", "mul.1"]):
        out = subprocess.run(
            [sys.executable, "-c", probe, *args],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
        )
        assert out.returncode == 0, out.stderr
        assert "LOADED []" in out.stdout


# ---- passes --------------------------------------------------------------------------------------


def test_passes_json_and_table(pass_dumps):
    code, out, _ = run("passes", pass_dumps, "--json")
    assert code == 0
    data = json.loads(out)
    assert data == json.loads(json.dumps(pass_timeline(pass_dumps).to_dict()))
    assert data["module"] == "jit_small"
    code, out, _ = run("passes", pass_dumps)
    assert code == 0
    assert "fusion" in out and "ran and changed nothing" in out and "algsimp" in out


def test_passes_diff_and_follow(pass_dumps):
    code, out, _ = run("passes", pass_dumps, "--pass", "fusion")
    assert code == 0 and "+%fused_computation" in out and out.startswith("--- ")
    code, out, _ = run("passes", pass_dumps, "--follow", "mul.1")
    assert code == 0 and "fused" in out and "exponential_reduce_fusion" in out
    code, out, _ = run("passes", pass_dumps, "--follow", "%mul.1", "--pass", "fusion", "--json")
    assert code == 0
    data = json.loads(out)
    assert [e["kind"] for e in data["follow"]["events"]] == ["present", "fused"]
    assert data["diffs"][0]["label"].startswith("fusion")


def test_passes_other_module_and_errors(pass_dumps):
    code, out, _ = run("passes", pass_dumps, "--module", "jit_broadcast_in_dim", "--json")
    assert code == 0 and json.loads(out)["module"] == "jit_broadcast_in_dim"
    code, _, err = run("passes", AFTER)
    assert code == 1 and "one HLO file" in err
    code, _, err = run("passes", pass_dumps, "--pass", "no-such-pass")
    assert code == 1 and "no snapshot" in err and "passes:" in err


# ---- SCRIPT.py:FUNCTION targets (captured in a child process) ------------------------------------


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    needs_framework("jax")
    root = tmp_path_factory.mktemp("hloscope-cache")
    old = os.environ.get("HLOSCOPE_CACHE")
    os.environ["HLOSCOPE_CACHE"] = str(root)
    yield root
    if old is None:
        del os.environ["HLOSCOPE_CACHE"]
    else:
        os.environ["HLOSCOPE_CACHE"] = old


def test_explain_function_target_links_every_stage(cache):
    target = f"{ROOT / 'samples' / 'fusion_refactor.py'}:fused"
    code, out, err = run("explain", target, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["stages"] == ["jaxpr", "stablehlo", "hlo", "optimized_hlo"] and not data["missing"]
    for line in data["lines"]:
        assert line["kernels"], line["source"]
        for eqn in line["jaxpr"]:
            assert set(eqn["kernels"]) <= set(line["kernels"])
        assert any(eqn["kernels"] for eqn in line["jaxpr"]), line["source"]
    # The function's own capture kept the jaxpr's lines: explain started no second process
    # (no note, no capture of its own beside the target's), and a second run reads the same.
    assert "tracing" not in err
    entry = hloscope.Target.resolve(target).output_dir
    assert (entry / "capture" / "jaxpr_sources.json").is_file()
    assert not (entry / "explain").exists()
    code, again, err = run("explain", target, "--json")
    assert code == 0 and json.loads(again) == data and "tracing" not in err


def test_passes_function_target_captures_every_pass(cache):
    target = f"{ROOT / 'samples' / 'fusion_refactor.py'}:fused"
    code, out, err = run("passes", target, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["rows"] and any(row["ran"] == "fusion" for row in data["rows"])
    final = hloscope.Target.resolve(target).main_module("after")
    fusions = sum(1 for inst in final.instructions() if inst.opcode == "fusion")
    assert data["rows"][-1]["fusions"] == fusions
