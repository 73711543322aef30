"""``hloscope ls DUMP``: the table, --json, bad input, and no jax/tensorflow import."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from hloscope.cli import cli

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str):
    # --wide: these tests read the cells; tests/test_cli_width.py checks the fitted table.
    return CliRunner().invoke(cli, ["ls", "--wide", *args], catch_exceptions=False)


@pytest.fixture(scope="module")
def generated(corpus) -> Path:
    return corpus / "generated"


def test_table_groups_recompiles(generated):
    result = run(str(generated / "jax_recompiles"))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    norm_rows = [line for line in lines if re.search(r"│\s+(4|8|12|18) │ jit_norm", line)]
    assert len(norm_rows) == 4
    assert "norm" in norm_rows[0] and "4×" in norm_rows[0]
    assert all(
        not row.lstrip().startswith("norm") for row in norm_rows[1:]
    )  # name only on the first row
    assert "8 modules, 2 functions (2 compiled more than once), 1 other file" in result.stdout
    assert result.stderr == ""


def test_table_shows_passes_and_tf_functions(generated, oracle):
    result = run(str(generated / "jax_pass_dumps"))
    assert result.exit_code == 0
    # Each module's pass count is the number of pass files XLA wrote for it.
    pass_files = Counter(
        m.group(1)
        for p in (generated / "jax_pass_dumps").iterdir()
        if (m := re.match(r"(module_\d+)\.[\w.]+\.\d{4}\.", p.name))
    )
    assert len(pass_files) == 2
    for count in pass_files.values():
        assert f"before, after, {count} passes" in result.stdout
    folder = generated / "tf_keras_mobilenet_train"
    result = run(str(folder))
    assert result.exit_code == 0
    # The first compile's id and module name, as its file names them.
    first = min(folder.glob("module_*.before_optimizations.txt"))
    module_id, name = first.name.split(".", 1)
    tf_prefix = name.split("__")[0] + "__"  # a_inference_train_step_<n>__
    assert re.search(
        rf"train_step\s+│\s+2×\s+│\s+{int(module_id[7:])} │ {re.escape(tf_prefix)}",
        result.stdout,
    )
    # Instructions and fusions after optimization, as XLA's parser counted them.
    after = first.name.replace(".before_optimizations.", ".cpu_after_optimizations.")
    (xla,) = (o for o in oracle if o["file"] == f"tf_keras_mobilenet_train/{after}")
    assert f"{xla['n_instructions']:,}" in result.stdout and f"{xla['fusions']}" in result.stdout


def test_json_matches_oracle_and_reports(generated, oracle):
    by_file = {o["file"]: o for o in oracle if o["root"] == "generated"}
    for case in ("jax_mlp_train", "tf_keras_resnet50", "jax_recompiles"):
        result = run(str(generated / case), "--json")
        assert result.exit_code == 0, result.stderr
        data = json.loads(result.stdout)
        assert data["errors"] == [] and data["warnings"] == []
        for m in data["modules"]:
            after = next(
                Path(f)
                for s in m["stages"]
                if s["stage"] == "after_optimizations"
                for f in s["files"]
                if f.endswith("_after_optimizations.txt")
            )
            o = by_file[f"{case}/{after.name}"]
            assert (m["instructions"], m["fusions"], m["counted_stage"]) == (
                o["n_instructions"],
                o["fusions"],
                "after",
            )
            assert m["size_on_disk"] == sum(
                Path(f).stat().st_size for s in m["stages"] for f in s["files"]
            )
            assert m["peak_source"] == "live-range" and m["peak_bytes"] > 0
            assert m["allocated_bytes"] >= m["argument_bytes"] + m["temp_bytes"]
        assert sum(f["compiles"] for f in data["functions"]) == len(data["modules"])
    data = json.loads(run(str(generated / "tf_keras_resnet50"), "--json").stdout)
    (fwd,) = data["modules"]
    # The id, peak and total as XLA wrote them: the file's name, and its buffer assignment's
    # "Stack trace breakdown for peak usage: 113 485 228 bytes" and "Total bytes used: N" lines.
    (assignment,) = (generated / "tf_keras_resnet50").glob("module_*-buffer-assignment.txt")
    text = assignment.read_text()
    peak = re.search(r"breakdown for peak usage: ([\d ]+) bytes", text).group(1)
    total = re.search(r"(?m)^Total bytes used: (\d+)", text).group(1)
    assert (fwd["function"], fwd["id"], fwd["peak_bytes"], fwd["allocated_bytes"]) == (
        "fwd",
        int(assignment.name.split(".")[0].removeprefix("module_")),
        int(peak.replace(" ", "")),
        int(total),
    )
    assert sorted(Path(p).name for p in data["unknown_files"]) == [
        "SOURCE.py",
        "resnet50_forward.hlo.txt",
        "resnet50_forward.optimized_hlo.txt",
    ]


# ---------------------------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------------------------


@pytest.fixture
def damaged(generated, tmp_path) -> Path:
    """A copy of jax_recompiles with one module truncated, a binary `.txt` and a half report."""
    folder = tmp_path / "dump"
    folder.mkdir()
    for f in (generated / "jax_recompiles").iterdir():
        if f.name.startswith(("module_0004.", "module_0008.")):
            shutil.copyfile(f, folder / f.name)
    after = folder / "module_0008.jit_norm.cpu_after_optimizations.txt"
    text = after.read_text()
    after.write_text(text[: len(text) // 2])
    (folder / "module_0010.jit_g.before_optimizations.txt").write_bytes(bytes(range(256)) * 4)
    report = folder / "module_0004.jit_norm.cpu_after_optimizations-buffer-assignment.txt"
    lines = report.read_text().splitlines(keepends=True)
    report.write_text("".join(lines[:3]) + lines[3][:10])
    return folder


def test_damaged_folder_lists_what_it_can(damaged):
    result = run(str(damaged))
    assert result.exit_code == 1
    # Every module still has a row; unreadable counts show as "error".
    assert re.search(r"│\s+4 │ jit_norm .*│\s+15 │", result.stdout)
    assert re.search(r"│\s+8 │ jit_norm .*│\s+error │\s+error │", result.stdout)
    assert re.search(r"│\s+10 │ jit_g .*│\s+error │", result.stdout)
    assert "2 unreadable" in result.stdout
    errors = result.stderr.splitlines()
    assert len(errors) == 3
    assert re.fullmatch(
        rf"{re.escape(str(damaged))}/module_0004\.jit_norm\.cpu_after_optimizations-buffer-assignment"
        rf"\.txt:4: warning: unexpected line: .*",
        errors[0],
    )
    assert re.fullmatch(
        rf"{re.escape(str(damaged))}/module_0008\.jit_norm\.cpu_after_optimizations\.txt:\d+:\d+: "
        rf"error: .*",
        errors[1],
    )
    assert re.fullmatch(
        rf"{re.escape(str(damaged))}/module_0010\.jit_g\.before_optimizations\.txt:1: error: "
        r"binary data.*",
        errors[2],
    )
    data = json.loads(run(str(damaged), "--json").stdout)
    assert len(data["errors"]) == 2 and len(data["warnings"]) == 1
    by_id = {m["id"]: m for m in data["modules"]}
    assert (
        by_id[8]["instructions"] is None and by_id[8]["counted_stage"] is None
    )  # its after file is damaged
    assert by_id[4]["counted_stage"] == "after" and by_id[4]["warnings"] == data["warnings"]
    assert by_id[10]["instructions"] is None and by_id[10]["errors"] == [data["errors"][1]]


def test_no_parse_reads_nothing(damaged):
    result = run(str(damaged), "--no-parse")
    assert result.exit_code == 0 and result.stderr == ""
    assert "unreadable" not in result.stdout and "3 modules, 2 functions" in result.stdout


def _missing(p: Path) -> Path:
    return p / "missing"


def _empty(p: Path) -> Path:
    (p / "empty").mkdir()
    return p / "empty"


def _only_other_files(p: Path) -> Path:
    (p / "SOURCE.py").write_text("print(1)")
    return p


def _a_file(p: Path) -> Path:
    (p / "f.txt").write_text("x")
    return p / "f.txt"


@pytest.mark.parametrize(
    "make, code, message",
    [
        (_missing, 2, "error: no such folder"),
        (_empty, 1, "error: no XLA dump files found"),
        (_only_other_files, 1, "error: no XLA dump files found (1 other file)"),
        (_a_file, 2, "error: not a folder (give the --xla_dump_to folder)"),
    ],
    ids=["missing", "empty", "only-other-files", "a-file"],
)
def test_bad_paths(tmp_path, make, code, message):
    path = make(tmp_path)
    result = run(str(path))
    assert result.exit_code == code
    assert result.stderr == f"{path}: {message}\n"
    assert result.stdout == ""


def test_real_command_no_traceback_no_jax_or_tensorflow(damaged, generated):
    """The installed entry point: one-line errors, and `ls` never imports jax or tensorflow."""
    wrapper = textwrap.dedent(
        """
        import atexit, sys
        def report():
            heavy = sorted({m.split(".")[0] for m in sys.modules} & {"jax", "jaxlib", \
"tensorflow", "flax"})
            sys.stderr.write("HEAVY=" + ",".join(heavy) + "\\n")
        atexit.register(report)
        from hloscope.cli import main
        sys.argv = ["hloscope", "ls", *sys.argv[1:]]
        main()
        """
    )
    for target, code in ((damaged, 1), (generated / "tf_keras_resnet50", 0)):
        done = subprocess.run(
            [sys.executable, "-c", wrapper, str(target)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
        )
        assert done.returncode == code, done.stderr
        assert "Traceback" not in done.stderr
        assert done.stderr.splitlines()[-1] == "HEAVY="
        assert "fwd" in done.stdout or "norm" in done.stdout
