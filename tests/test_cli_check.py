"""``hloscope check``: exit statuses for CI, the --json contract, text grouped by function, and
one-line errors.

HLO targets (the corpus dumps) need no framework; SCRIPT.py:FUNCTION targets are checked in
this process with the framework the function is written in (jax, or TensorFlow for a
tf.function), so those tests ask for it.
"""

from __future__ import annotations

import json
import shutil
import textwrap

import pytest
from click.testing import CliRunner

from hloscope.cli import cli

CONTRACT = {"op", "node", "function", "reason", "dtype", "source", "suggestion"}


def run(*args):
    result = CliRunner().invoke(cli, ["check", *map(str, args)])
    return result.exit_code, result.stdout, result.stderr


def linalg(corpus):
    return corpus / "generated" / "jax_linalg_custom_calls"


def callbacks(corpus):
    return corpus / "generated" / "jax_callbacks"


# ---- exit statuses ------------------------------------------------------------------------------


def test_unsupported_exits_3_and_clean_exits_0(corpus):
    code, out, _ = run(linalg(corpus), "--platform", "tpu")
    assert code == 3
    assert out.splitlines()[-1].startswith("NOT SUPPORTED on tpu")
    code, out, _ = run(linalg(corpus), "--platform", "cpu")
    assert code == 0
    assert out.splitlines()[-1].startswith("OK for cpu")


def test_warnings_alone_exit_0_and_help_says_so(corpus):
    code, out, _ = run(callbacks(corpus), "--platform", "cpu")
    assert code == 0
    assert "2 warnings" in out.splitlines()[-1]
    code, out, _ = run("--help")
    assert code == 0
    text = " ".join(out.split())
    assert "3 when anything unsupported is found" in text
    assert "warnings alone" in text and "still exit 0" in text


# ---- --json -------------------------------------------------------------------------------------


def test_json_contract(corpus):
    code, out, _ = run(linalg(corpus), "--platform", "tpu", "--json")
    assert code == 3
    data = json.loads(out)
    assert {"platform", "proxy", "findings"} <= set(data)
    assert data["platform"] == "tpu" and data["proxy"] is False and data["clean"] is False
    assert data["findings"]
    for finding in data["findings"]:
        assert set(finding) >= CONTRACT
        assert finding["reason"] == "custom_call" and finding["op"].startswith("lapack_")
        assert finding["source"].endswith(tuple(f".py:{n}" for n in range(1, 20)))


def test_json_of_a_clean_check(corpus):
    code, out, _ = run(linalg(corpus), "--platform", "cpu", "--json")
    assert code == 0
    assert json.loads(out)["findings"] == []


def test_stage_after_is_noted(corpus):
    code, out, _ = run(linalg(corpus), "--platform", "tpu", "--stage", "after", "--json")
    assert code == 3
    assert any("optimized HLO" in note for note in json.loads(out)["notes"])


# ---- text ---------------------------------------------------------------------------------------


def test_text_is_grouped_by_function_one_line_per_finding(corpus):
    code, out, _ = run(linalg(corpus), "--platform", "tpu", "--json")
    findings = json.loads(out)["findings"]
    code, out, _ = run(linalg(corpus), "--platform", "tpu")
    lines = out.splitlines()
    functions = list(dict.fromkeys(f["function"] for f in findings))
    headings = [line for line in lines if line in functions]
    assert headings == functions  # one heading per function, in the report's order
    finding_lines = [line for line in lines if line.startswith("  ✗ ")]
    assert len(finding_lines) == len(findings)
    for function in functions:  # each finding sits under its function's heading
        start = lines.index(function) + 1
        group = [f for f in findings if f["function"] == function]
        for line, finding in zip(lines[start : start + len(group)], group):
            assert finding["node"][:6] in line or finding["op"][:6] in line
    assert "fixes" in lines and any(line.startswith("  [1] ") for line in lines)


@pytest.mark.parametrize("depth", [0, 6])
def test_text_fits_the_terminal(corpus, tmp_path, depth):
    # The headline names the target: a dump deep in a long path must lose the path's middle,
    # not overflow the terminal (CI checks out the corpus under a longer path than a laptop).
    target = callbacks(corpus)
    if depth:
        deep = tmp_path.joinpath(*[f"a-rather-long-folder-name-{i}" for i in range(depth)])
        shutil.copytree(target, deep / target.name)
        target = deep / target.name
    result = CliRunner().invoke(
        cli, ["check", str(target), "--platform", "tpu"], env={"COLUMNS": "72"}
    )
    assert result.exit_code == 3
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 72
    assert lines[0].startswith("hloscope check: ") and lines[0].endswith("jax_callbacks for tpu")


def test_control_characters_in_the_hlo_are_escaped(tmp_path):
    path = tmp_path / "evil.txt"
    path.write_text(
        "HloModule evil, entry_computation_layout={(f32[2]{0})->f32[2]{0}}\n\n"
        "ENTRY %main (x: f32[2]) -> f32[2] {\n  %x = f32[2]{0} parameter(0)\n"
        '  ROOT %c = f32[2]{0} custom-call(%x), custom_call_target="lapack_\\033]0;pwned\\007",'
        ' metadata={source_file="/home/user/m\\033[2J.py" source_line=3}\n}\n'
    )
    code, out, _ = run(path, "--platform", "tpu")
    assert code == 3
    assert "\x1b" not in out and "\x07" not in out
    # click drops ANSI sequences from what it echoes to a pipe: look at the lines themselves.
    import hloscope
    from hloscope.render.check_text import check_lines

    lines = check_lines(hloscope.check(path, platform="tpu"), width=200)
    assert not any(c in line for line in lines for c in "\x1b\x07")
    assert any("lapack_\\e]0;pwned\\x07" in line and "m\\e[2J.py:3" in line for line in lines)


# ---- errors -------------------------------------------------------------------------------------


def test_a_bad_file_is_one_line_and_no_traceback(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("HloModule broken\n\nENTRY %main {\n  %x = f32[2 parameter(0)\n}\n")
    code, out, err = run(bad, "--platform", "tpu")
    assert code == 2
    assert out == ""
    (line,) = err.splitlines()
    assert "bad.txt" in line and "Traceback" not in err

    code, _, err = run(tmp_path / "missing.txt", "--platform", "tpu")
    assert code == 1
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_an_unknown_platform_is_a_usage_error(corpus):
    code, _, err = run(linalg(corpus), "--platform", "ipu")
    assert code == 2
    assert err.startswith("hloscope: error: ") and len(err.splitlines()) == 1


# ---- SCRIPT.py:FUNCTION -------------------------------------------------------------------------

JAX_SCRIPT = """
import jax, jax.numpy as jnp, numpy as np

def decompose(a):
    return jnp.linalg.eig(a)[0]

def printing(a):
    def body(i, total):
        jax.debug.print("i {}", i)
        return total + 1.0
    return jax.lax.fori_loop(0, 2, body, 0.0) + jnp.sum(a)

def masked(x):
    return x[x > 0]

EXAMPLE_ARGS = {
    "decompose": lambda: (jnp.eye(3) + 0.1,),
    "printing": lambda: (jnp.ones(3),),
    "masked": lambda: (jnp.ones(3),),
}
"""


@pytest.fixture
def jax_script(tmp_path):
    from frameworks_needed import needs_framework

    needs_framework("jax")
    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent(JAX_SCRIPT))
    return path


def test_jax_function_eig_for_tpu_exits_3_and_cpu_exits_0(jax_script):
    code, out, _ = run(f"{jax_script}:decompose", "--platform", "tpu", "--json")
    assert code == 3
    (finding,) = json.loads(out)["findings"]
    assert (finding["reason"], finding["op"]) == ("no_lowering", "eig")
    assert finding["source"] == f"{jax_script}:5"
    assert "jnp.linalg.eigh" in finding["suggestion"]
    code, _, _ = run(f"{jax_script}:decompose", "--platform", "cpu")
    assert code == 0


def test_jax_function_text_groups_a_nested_function(jax_script):
    code, out, _ = run(f"{jax_script}:printing", "--platform", "cpu")
    assert code == 0  # callbacks only warn
    lines = out.splitlines()
    assert "printing.body" in lines
    below = lines[lines.index("printing.body") + 1]
    assert below.startswith("  ! host_callback") and "model.py:9" in below


def test_jax_tracing_error_is_a_finding_not_an_error(jax_script):
    code, out, _ = run(f"{jax_script}:masked", "--platform", "tpu", "--json")
    assert code == 3
    (finding,) = json.loads(out)["findings"]
    assert finding["op"] == "NonConcreteBooleanIndexError"
    assert finding["source"] == f"{jax_script}:14"


def test_a_script_that_fails_to_import_is_one_line(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("x = 1\nraise RuntimeError('no data here')\n")
    code, out, err = run(f"{path}:f", "--platform", "cpu")
    assert code == 1 and out == ""
    (line,) = err.splitlines()
    assert "broken.py" in line and "line 2" in line and "no data here" in line


def test_a_missing_function_is_one_line(jax_script):
    code, _, err = run(f"{jax_script}:nowhere", "--platform", "cpu")
    assert code == 1
    (line,) = err.splitlines()
    assert "nowhere" in line


TF_SCRIPT = """
import tensorflow as tf

@tf.function(jit_compile=True)
def strings(x):
    return tf.strings.length(tf.strings.as_string(x))

@tf.function(jit_compile=True)
def doubled(x):
    return x * 2.0

EXAMPLE_ARGS = {"strings": lambda: (tf.ones([3]),), "doubled": lambda: (tf.ones([3]),)}
"""


def test_a_tf_function_goes_to_the_tensorflow_check(tmp_path):
    from frameworks_needed import needs_framework

    needs_framework("tensorflow")
    path = tmp_path / "tf_model.py"
    path.write_text(textwrap.dedent(TF_SCRIPT))
    code, out, _ = run(f"{path}:strings", "--platform", "cpu", "--json")
    assert code == 3
    ops = {f["op"] for f in json.loads(out)["findings"]}
    assert {"AsString", "StringLength"} <= ops
    code, _, _ = run(f"{path}:doubled", "--platform", "cpu")
    assert code == 0
