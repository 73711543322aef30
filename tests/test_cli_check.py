"""``hloscope check``: exit statuses for CI, the --json contract, text grouped by function, and
one-line errors.

HLO targets (the corpus dumps) need no framework; SCRIPT.py:FUNCTION targets are checked in
this process with the framework the function is written in (jax, or TensorFlow for a
tf.function), so those tests ask for it.
"""

from __future__ import annotations

import json
import os
import shutil
import textwrap

import pytest
from click.testing import CliRunner

from hloscope.cli import cli
from hloscope.errors import ExitStatus

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
    code, out, _ = run(linalg(corpus), "--device", "tpu")
    assert code == 3
    assert out.splitlines()[-1].startswith("NOT SUPPORTED on tpu")
    code, out, _ = run(linalg(corpus), "--device", "cpu")
    assert code == 0
    assert out.splitlines()[-1].startswith("OK for cpu")


def test_warnings_alone_exit_0_and_help_says_so(corpus):
    code, out, _ = run(callbacks(corpus), "--device", "cpu")
    assert code == 0
    assert "2 warnings" in out.splitlines()[-1]
    code, out, _ = run("--help")
    assert code == 0
    text = " ".join(out.split())
    assert "3 when anything unsupported is found" in text
    assert "warnings alone" in text and "still exit 0" in text


# ---- --json -------------------------------------------------------------------------------------


def test_json_contract(corpus):
    code, out, _ = run(linalg(corpus), "--device", "tpu", "--json")
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
    code, out, _ = run(linalg(corpus), "--device", "cpu", "--json")
    assert code == 0
    assert json.loads(out)["findings"] == []


def test_stage_after_is_noted(corpus):
    code, out, _ = run(linalg(corpus), "--device", "tpu", "--stage", "after", "--json")
    assert code == 3
    assert any("optimized HLO" in note for note in json.loads(out)["notes"])


# ---- text ---------------------------------------------------------------------------------------


def test_text_is_grouped_by_function_one_line_per_finding(corpus):
    code, out, _ = run(linalg(corpus), "--device", "tpu", "--json")
    findings = json.loads(out)["findings"]
    code, out, _ = run(linalg(corpus), "--device", "tpu")
    lines = out.splitlines()
    functions = list(dict.fromkeys(f["function"] for f in findings))
    headings = [line for line in lines if line in functions]
    assert headings == functions  # one heading per function, in the report's order
    finding_lines = [line for line in lines if line.startswith("  ✗ ")]
    assert len(finding_lines) == len(findings)
    for function in functions:  # each finding sits under its function's heading
        start = lines.index(function) + 1
        group = [f for f in findings if f["function"] == function]
        # A long name wraps onto continuation lines; each finding starts with its own mark.
        under = [line for line in lines[start:] if line.startswith("  ✗ ")][: len(group)]
        for line, finding in zip(under, group, strict=True):
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
        cli, ["check", str(target), "--device", "tpu"], env={"COLUMNS": "72"}
    )
    assert result.exit_code == 0  # callbacks only warn, on TPU too
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
    code, out, _ = run(path, "--device", "tpu")
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
    code, out, err = run(bad, "--device", "tpu")
    assert code == 2
    assert out == ""
    (line,) = err.splitlines()
    assert "bad.txt" in line and "Traceback" not in err

    code, _, err = run(tmp_path / "missing.txt", "--device", "tpu")
    assert code == ExitStatus.USAGE  # a path that does not exist (hloscope/errors.py's rule)
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_an_unknown_platform_is_a_usage_error(corpus):
    code, _, err = run(linalg(corpus), "--device", "ipu")
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
    code, out, _ = run(f"{jax_script}:decompose", "--device", "tpu", "--json")
    assert code == 3
    (finding,) = json.loads(out)["findings"]
    assert (finding["reason"], finding["op"]) == ("no_lowering", "eig")
    assert finding["source"] == f"{jax_script}:5"
    assert "jnp.linalg.eigh" in finding["suggestion"]
    code, _, _ = run(f"{jax_script}:decompose", "--device", "cpu")
    assert code == 0


def test_jax_function_text_groups_a_nested_function(jax_script):
    code, out, _ = run(f"{jax_script}:printing", "--device", "cpu")
    assert code == 0  # callbacks only warn
    lines = out.splitlines()
    assert "printing.body" in lines
    below = lines[lines.index("printing.body") + 1]
    assert below.startswith("  ! host_callback") and "model.py:9" in below


def test_jax_tracing_error_is_a_finding_not_an_error(jax_script):
    code, out, _ = run(f"{jax_script}:masked", "--device", "tpu", "--json")
    assert code == 3
    (finding,) = json.loads(out)["findings"]
    assert finding["op"] == "NonConcreteBooleanIndexError"
    assert finding["source"] == f"{jax_script}:14"


def test_a_script_that_fails_to_import_is_one_line(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("x = 1\nraise RuntimeError('no data here')\n")
    code, out, err = run(f"{path}:f", "--device", "cpu")
    assert code == 1 and out == ""
    (line,) = err.splitlines()
    assert "broken.py" in line and "line 2" in line and "no data here" in line


def test_a_missing_function_is_one_line(jax_script):
    code, _, err = run(f"{jax_script}:nowhere", "--device", "cpu")
    assert code == 2  # a usage error, as in every command (README: exit status)
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
    code, out, _ = run(f"{path}:strings", "--device", "cpu", "--json")
    assert code == 3
    ops = {f["op"] for f in json.loads(out)["findings"]}
    assert {"AsString", "StringLength"} <= ops
    code, _, _ = run(f"{path}:doubled", "--device", "cpu")
    assert code == 0


# ---- --stage for an HLO file (issue 18) ---------------------------------------------------------


def test_stage_before_of_an_optimized_file_reads_the_file_beside_it(tmp_path):
    from conftest import SAMPLES

    after = SAMPLES / "hlo" / "fusion_refactor_split.after_optimizations.txt"
    for stage in ("before", None):  # the default is before, as for dump folders
        args = ["--stage", stage] if stage else []
        code, out, _ = run(after, "--device", "tpu", "--json", *args)
        assert code == 0
        notes = json.loads(out)["notes"]
        assert any("fusion_refactor_split.before_optimizations.txt" in n for n in notes)
        assert any(
            n.startswith("checked the HLO before optimizations of module jit_split") for n in notes
        )
    code, out, _ = run(after, "--device", "tpu", "--json", "--stage", "after")
    assert any("checked the optimized HLO" in n for n in json.loads(out)["notes"])
    before = after.with_name("fusion_refactor_split.before_optimizations.txt")
    code, out, _ = run(before, "--device", "tpu", "--json", "--stage", "after")
    assert any("checked the optimized HLO" in n for n in json.loads(out)["notes"])


def test_stage_that_cannot_be_honoured_is_an_error(tmp_path):
    from conftest import SAMPLES

    alone = tmp_path / "model.txt"
    shutil.copy(SAMPLES / "hlo" / "fusion_refactor_split.after_optimizations.txt", alone)
    code, out, err = run(alone, "--device", "tpu", "--stage", "before")
    assert code == ExitStatus.USAGE and out == ""  # an option value that cannot be used
    (line,) = err.splitlines()
    assert "--stage before" in line and "optimized HLO" in line and "leave out --stage" in line
    code, out, _ = run(alone, "--device", "tpu", "--json")  # no --stage: the file as it is
    assert code == 0
    assert any("checked the optimized HLO" in n for n in json.loads(out)["notes"])


def test_the_python_api_reads_the_stage_as_the_command_does(tmp_path):
    from conftest import SAMPLES

    import hloscope
    from hloscope.analysis.unsupported.hlo_check import StageNotInFile

    after = SAMPLES / "hlo" / "fusion_refactor_split.after_optimizations.txt"
    for stage in ("before", "after", None):
        args = ["--stage", stage] if stage else []
        _, out, _ = run(after, "--device", "tpu", "--json", *args)
        from_cli = json.loads(out)
        report = hloscope.check(str(after), platform="tpu", stage=stage)
        assert report.notes == from_cli["notes"]
        assert [f.op for f in report.findings] == [f["op"] for f in from_cli["findings"]]
    alone = tmp_path / "model.txt"
    shutil.copy(after, alone)
    with pytest.raises(StageNotInFile, match="leave out --stage"):
        hloscope.check(str(alone), platform="tpu", stage="before")


# ---- 80 columns, pipes and --wide (issue 19) ----------------------------------------------------

LONG_NAMES = (
    "HloModule jit_long_names, entry_computation_layout={(f32[4,4]{1,0})->f32[4,4]{1,0}}\n\n"
    "ENTRY %main (x: f32[4,4]) -> f32[4,4] {\n"
    "  %x = f32[4,4]{1,0} parameter(0)\n"
    "  %eigenvectors_of_the_covariance_matrix.17 = f32[4,4]{1,0} custom-call(%x), "
    'custom_call_target="lapack_ssyevd_ffi", metadata={op_name="jit(f)/eigh" '
    'source_file="/home/user/experiments/covariance_estimation_v2.py" source_line=123}\n'
    "  ROOT %qr_of_the_projection_for_whitening.3 = f32[4,4]{1,0} "
    "custom-call(%eigenvectors_of_the_covariance_matrix.17), "
    'custom_call_target="lapack_sgeqrf_ffi_with_a_longer_vendor_suffix", '
    'metadata={op_name="jit(f)/qr" '
    'source_file="/home/user/experiments/covariance_estimation_v2.py" source_line=124}\n'
    "}\n"
)


def column_text(lines: list[str], first: int, start: str) -> str:
    """The text of one column of a finding's row: the cell starting with ``start`` on line
    ``first`` and the same columns of the continuation lines under it (those that begin with
    blanks where the mark is), joined."""
    at = lines[first].index(start)
    pieces = [lines[first][at:].split("  ")[0]]
    for line in lines[first + 1 :]:
        if not line.startswith("    ") or line.startswith("  ["):
            break
        pieces.append(line[at:].split("  ")[0])
    return "".join(p.strip() for p in pieces)


@pytest.mark.parametrize("columns", ["80", None])
def test_long_names_wrap_and_are_never_cut(tmp_path, columns):
    import subprocess
    import sys

    path = tmp_path / "long.txt"
    path.write_text(LONG_NAMES)
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if columns:
        env["COLUMNS"] = columns
    piped = subprocess.run(
        [sys.executable, "-m", "hloscope", "check", str(path), "--device", "tpu"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert piped.returncode == 3
    lines = piped.stdout.splitlines()
    limit = int(columns or 100)  # piped without COLUMNS: the 100 columns of the fallback
    assert max(map(len, lines)) <= limit
    findings = json.loads(run(path, "--device", "tpu", "--json")[1])["findings"]
    for finding in findings:
        first = next(i for i, line in enumerate(lines) if finding["op"][:10] in line)
        assert column_text(lines, first, finding["op"][:10]) == finding["op"]
        assert column_text(lines, first, finding["node"][:6]) == finding["node"]
        assert (
            column_text(lines, first, "covariance"[:6])
            == "covariance_estimation_v2.py:" + (finding["source"].rpartition(":")[2])
        )
    rows = [line for line in lines if line.startswith("  ✗") or line.startswith("    ")]
    assert not any("…" in line for line in rows[:6])  # names lose nothing; only details cut
    assert any("--wide shows them whole" in line for line in lines)


def test_wide_gives_one_line_per_finding_in_full(tmp_path):
    path = tmp_path / "long.txt"
    path.write_text(LONG_NAMES)
    result = CliRunner().invoke(
        cli, ["check", str(path), "--device", "tpu", "--wide"], env={"COLUMNS": "80"}
    )
    assert result.exit_code == 3
    findings = json.loads(run(path, "--device", "tpu", "--json")[1])["findings"]
    lines = result.stdout.splitlines()
    for finding in findings:
        (line,) = [line for line in lines if finding["node"] in line]
        assert finding["op"] in line and finding["detail"] in line
    assert not any("--wide" in line for line in lines)


def test_verdict_names_the_reasons_of_warnings_too(corpus):
    code, out, _ = run(callbacks(corpus), "--device", "tpu")
    assert code == 0
    assert out.splitlines()[-1] == "OK for tpu: no problems found, 2 warnings (host_callback)"
    code, out, _ = run(callbacks(corpus), "--device", "tpu", "--json")
    assert json.loads(out)["verdict"] == "OK for tpu: no problems found, 2 warnings (host_callback)"
