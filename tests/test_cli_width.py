"""Tables at 80 columns and in pipes: nothing cut that then says nothing, COLUMNS honoured,
``--wide`` everywhere a table is printed, filters and sorting that show what they did."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from hloscope.cli import cli

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = str(ROOT / "samples" / "hlo" / "transformer_train.after_optimizations.txt")
KERAS = str(ROOT / "samples" / "hlo" / "keras_cnn.after_optimizations.txt")
ELLIPSIS = "\u2026"


def invoke(*args: str, columns: int | None = 80):
    env = {"COLUMNS": str(columns)} if columns else {}
    # CliRunner's output is not a terminal: this is the piped case too.
    return CliRunner().invoke(cli, list(args), env=env, terminal_width=columns)


def widest(text: str) -> int:
    return max((len(line) for line in text.splitlines()), default=0)


def kernel_json(*args: str) -> list[dict]:
    done = invoke("fusions", *args, "--json")
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout)["rows"]


# ---- ls ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def recompiled_dump(corpus: Path) -> str:
    return str(corpus / "generated" / "jax_recompiles")


def test_ls_fits_80_columns_with_every_value_whole(recompiled_dump):
    done = invoke("ls", recompiled_dump)
    assert done.exit_code == 0, done.output
    assert widest(done.stdout) <= 80
    listed = json.loads(invoke("ls", recompiled_dump, "--json").stdout)
    table_rows = [line for line in done.stdout.splitlines() if "\u2502" in line]
    assert len(table_rows) == len(listed["modules"])
    for line, module in zip(table_rows, listed["modules"]):
        cells = [c.strip() for c in line.split("\u2502")]
        assert str(module["id"]) in cells  # the id column is never empty
        assert not any(c.endswith(ELLIPSIS) for c in cells[2:]), line  # no cut numbers


@pytest.mark.parametrize("columns", [100, 132])
def test_ls_piped_honours_columns(recompiled_dump, columns):
    done = invoke("ls", recompiled_dump, columns=columns)
    assert 80 < widest(done.stdout) <= columns


def test_ls_wide_shows_every_column(recompiled_dump):
    narrow = invoke("ls", recompiled_dump).stdout.splitlines()[1]
    wide = invoke("ls", recompiled_dump, "--wide").stdout.splitlines()[1]
    for header in ("stages", "on disk", "fusions"):
        assert header in wide
    assert len(wide) > len(narrow)


# ---- fusions -------------------------------------------------------------------------------


def test_a_filter_compares_text_without_case():
    exact = kernel_json(SAMPLE, "--filter", "kind=kLoop")
    assert exact and kernel_json(SAMPLE, "--filter", "kind=kloop") == exact
    assert kernel_json(SAMPLE, "--filter", "KIND=KLOOP") == exact
    assert kernel_json(SAMPLE, "--filter", "opcode=DOT") == kernel_json(
        SAMPLE, "--filter", "opcode=dot"
    )
    assert kernel_json(SAMPLE, "--filter", "op=MULTIPLY") == kernel_json(
        SAMPLE, "--filter", "op=multiply"
    )


def test_a_filter_with_spaces_around_its_operator():
    spaced = kernel_json(SAMPLE, "--filter", "bytes > 10KiB")
    assert spaced == kernel_json(SAMPLE, "--filter", "bytes>10KiB")
    assert all(r["bytes"] > 10 * 1024 for r in spaced) and spaced


def test_the_table_says_how_many_kernels_a_filter_kept():
    every = len(kernel_json(SAMPLE))
    kept = len(kernel_json(SAMPLE, "--filter", "kind=kloop"))
    shown = invoke("fusions", SAMPLE, "--filter", "kind=kloop").stdout
    assert f"{kept} of {every} kernels match kind=kloop" in shown
    nothing = invoke("fusions", SAMPLE, "--filter", "kind=kNothing", "--filter", "flops>1")
    assert nothing.exit_code == 0
    assert f"0 of {every} kernels match kind=kNothing and flops>1" in nothing.stdout


@pytest.mark.parametrize(
    ("sort", "header"),
    [("bytes", "bytes"), ("bytes_in", "in"), ("-flops", "flops"), ("intensity", "flop/B")],
)
def test_the_sorted_column_is_shown_at_80_columns(sort, header):
    done = invoke("fusions", SAMPLE, "--sort", sort, "--top", "8")
    assert done.exit_code == 0, done.output
    assert widest(done.stdout) <= 80
    headers = next(line for line in done.stdout.splitlines() if "\u2503" in line)
    assert header in [h.strip() for h in headers.split("\u2503")]


def test_by_source_lists_every_kernel_whole_at_80_columns():
    done = invoke("fusions", SAMPLE, "--by-source")
    assert widest(done.stdout) <= 80
    rows = json.loads(invoke("fusions", SAMPLE, "--by-source", "--json").stdout)["rows"]
    # Folded cells: join the column's pieces back together and find every name in full.
    folded = re.sub(r"\s*\u2502\s*", " ", done.stdout)
    flat = re.sub(r"\s+", "", folded)
    for row in rows:
        for kernel in row["kernels"]:
            assert kernel in flat, kernel
    for line in done.stdout.splitlines():
        if "\u2502" in line:
            assert ELLIPSIS not in line.rsplit("\u2502", 1)[1], line


def test_summary_shows_shapes_without_xlas_index_comments():
    done = invoke("summary", KERAS)
    assert done.exit_code == 0
    assert "/*index=" not in done.stdout
    with open(KERAS) as text:
        assert "/*index=" in text.read()  # the text has them: the test proves something
    payload = json.loads(invoke("summary", KERAS, "--json").stdout)
    assert "/*index=" not in json.dumps(payload)


# ---- cache ls ------------------------------------------------------------------------------


@pytest.mark.slow
def test_cache_ls_wraps_a_long_script_path(tmp_path, monkeypatch):
    from hloscope.capture.target import Target

    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path / "cache"))
    deep = tmp_path.joinpath(*[f"level_{i}_of_a_deep_project_tree" for i in range(4)])
    deep.mkdir(parents=True)
    script = deep / "train_the_model_step.py"
    script.write_text(
        textwrap.dedent(
            """
            import jax.numpy as jnp

            def step(x):
                return jnp.sin(x) * 2

            step.example_args = (jnp.ones(4),)
            """
        )
    )
    Target.resolve(f"{script}:step")
    done = invoke("cache", "ls")
    assert done.exit_code == 0, done.output
    assert widest(done.stdout) <= 80
    assert ELLIPSIS not in done.stdout
    assert f"{script}:step" in re.sub(r"\s*\u2502.*\n\s*", "", done.stdout).replace(" ", "")
    wide = invoke("cache", "ls", "--wide")
    assert f"{script}:step" in wide.stdout


# ---- help ----------------------------------------------------------------------------------


def _every_command_path() -> list[list[str]]:
    paths: list[list[str]] = [[]]
    for name, command in cli.commands.items():
        paths.append([name])
        for sub in getattr(command, "commands", {}):
            paths.append([name, sub])
    return paths


@pytest.mark.parametrize("path", _every_command_path(), ids=lambda p: " ".join(p) or "hloscope")
def test_help_fits_80_columns(path):
    done = invoke(*path, "--help")
    assert done.exit_code == 0, done.output
    too_long = [line for line in done.stdout.splitlines() if len(line) > 80]
    assert not too_long, too_long


def test_summary_wide_prints_a_long_shape_on_one_line():
    payload = json.loads(invoke("summary", KERAS, "--json").stdout)[0]
    shape = payload["output_shape"]
    assert len(shape) > 80
    narrow = invoke("summary", KERAS).stdout
    assert widest(narrow) <= 80 and shape not in narrow
    wide = invoke("summary", KERAS, "--wide").stdout
    assert shape in wide


TABLE_COMMANDS = [
    ["fusions"],
    ["ls"],
    ["cache", "ls"],
    ["summary"],
    ["check"],
    ["bench"],
    ["explain"],
    ["passes"],
    ["recompiles"],
]


@pytest.mark.parametrize("path", TABLE_COMMANDS, ids=" ".join)
def test_every_table_command_has_wide(path):
    command = cli
    for name in path:
        command = command.commands[name]
    assert "wide" in {p.name for p in command.params}


def test_recompiles_wide_prints_each_fix_on_one_line(recompiled_dump):
    ledger = json.loads(invoke("recompiles", recompiled_dump, "--json").stdout)
    fixes = [a["text"] for f in ledger["functions"] for a in f["advice"]]
    long_fixes = [text for text in fixes if len(text) > 74]
    assert long_fixes, "no fix longer than a line: the test would prove nothing"
    narrow = invoke("recompiles", recompiled_dump).stdout
    assert widest(narrow) <= 80
    wide = invoke("recompiles", recompiled_dump, "--wide").stdout
    for text in long_fixes:
        assert text not in narrow  # wrapped at 80 columns
        assert any(line.strip() == f"fix {text}" for line in wide.splitlines())


# ---- piped for real: COLUMNS unset, stdout a pipe ------------------------------------------

TF_STRINGS = """
import tensorflow as tf

@tf.function(jit_compile=True)
def preprocess(text, x):
    words = tf.strings.split(text)
    n = tf.cast(tf.size(tf.strings.lower(words)), tf.float32)
    return tf.py_function(lambda v: v * 2.0, [x], tf.float32) * n

EXAMPLE_ARGS = {"preprocess": lambda: (tf.constant(["Hello World"]), tf.ones([4]))}
"""
TF_HASHING = """
import numpy as np
import tensorflow as tf

@tf.function(jit_compile=True)
def featurize(ids, names):
    cleaned = tf.strings.regex_replace(names, "[^a-z]", "")
    buckets = tf.strings.to_hash_bucket_fast(cleaned, 1000)
    return tf.numpy_function(np.sort, [ids], tf.int64) + buckets

EXAMPLE_ARGS = {
    "featurize": lambda: (tf.constant([3, 1, 2], tf.int64), tf.constant(["a", "b", "c"]))
}
"""


def piped(command: str, cwd: Path = ROOT):
    """Run ``command`` in bash (``pipefail`` on) with COLUMNS unset and stdout a pipe."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    line = command.format(hloscope=f"{sys.executable} -m hloscope")
    return subprocess.run(
        ["bash", "-c", f"set -o pipefail; {line}"],
        capture_output=True, text=True, cwd=cwd, env=env, timeout=300,
    )  # fmt: skip


@pytest.mark.parametrize(
    "command",
    [f"fusions {SAMPLE}", f"memory {KERAS}", f"summary {KERAS}", f"check {SAMPLE} --platform tpu"],
    ids=["fusions", "memory", "summary", "check"],
)
def test_piping_into_head_ends_quietly_with_status_0(command):
    done = piped(f"{{hloscope}} {command} | head -1")
    assert done.returncode == 0, done.stderr
    # Nothing but hloscope's own notes on stderr: no error, no traceback.
    assert all(line.startswith("hloscope: note: ") for line in done.stderr.splitlines())
    assert len(done.stdout.splitlines()) == 1


@pytest.mark.slow
@pytest.mark.parametrize(
    ("source", "function", "ops"),
    [
        (TF_STRINGS, "preprocess", ["StringSplitV2", "EagerPyFunc"]),
        (TF_HASHING, "featurize", ["StaticRegexReplace", "PyFunc"]),
    ],
    ids=["strings", "hashing"],
)
def test_check_of_a_tf_function_piped_fits_80_columns_without_startup_lines(
    tmp_path, source, function, ops
):
    pytest.importorskip("tensorflow")
    script = tmp_path / "prep.py"
    script.write_text(textwrap.dedent(source))
    done = piped(f"{{hloscope}} check {script}:{function} --platform tpu | cat")
    assert done.returncode == 3, done.stdout + done.stderr  # unsupported ops: the check fails
    assert widest(done.stdout) <= 80, done.stdout
    for op in ops:
        assert op in done.stdout
    # Neither absl's line before its logging starts nor oneDNN's reach the output.
    assert "absl::InitializeLog" not in done.stderr + done.stdout
    assert "oneDNN" not in done.stderr + done.stdout


# ---- memory, explain, fusions of two programs in a deep folder, piped ----------------------


@pytest.fixture(scope="module")
def deep_programs(tmp_path_factory) -> list[tuple[Path, str]]:
    """Two programs of our own (a bf16 transformer step, an MLP with Adam) in a folder whose
    path alone is wider than a table's source column."""
    from test_diff_refactor import _EXAMPLE, ADAM_A, TRANSFORMER_A

    folder = tmp_path_factory.mktemp("w") / "projects" / "a_rather_long_folder_name" / "models"
    folder.mkdir(parents=True)
    out = []
    for name, text in (("tstep_a.py", TRANSFORMER_A), ("adam_mlp.py", ADAM_A)):
        (folder / name).write_text(text + _EXAMPLE)
        out.append((folder / name, name))
    return out


def _piped_lines(command: str, tmp_path: Path) -> list[str]:
    done = piped(f"HLOSCOPE_CACHE={tmp_path}/cache {{hloscope}} {command} | cat")
    assert done.returncode == 0, done.stdout + done.stderr
    assert max(map(len, done.stdout.splitlines())) <= 80, done.stdout
    return done.stdout.splitlines()


@pytest.mark.slow
@pytest.mark.parametrize("which", [0, 1], ids=["transformer", "adam"])
def test_memory_piped_keeps_file_names_and_lines(deep_programs, tmp_path_factory, which):
    script, name = deep_programs[which]
    lines = _piped_lines(f"memory {script}:train_step", tmp_path_factory.getbasetemp())
    sources = [ln for ln in lines if f"{name[:-3]}" in ln or ".py:" in ln]
    assert sources
    for line in sources:
        # The folders go before the file name does: "tstep_a.py:22", never "/tmp/n…p_a.py:22".
        assert re.search(rf"\b{re.escape(name)}:\d+", line), line
        assert "a_rather_long_folder_name" not in line


@pytest.mark.slow
@pytest.mark.parametrize("which", [0, 1], ids=["transformer", "adam"])
def test_explain_piped_folds_code_and_kernel_names_at_their_boundaries(
    deep_programs, tmp_path_factory, which
):
    script, name = deep_programs[which]
    lines = _piped_lines(f"explain {script}:train_step", tmp_path_factory.getbasetemp())
    rows = [ln.split("│") for ln in lines if "│" in ln]
    code_cells = [cells[1].strip() for cells in rows]
    assert not any(cell.endswith(ELLIPSIS) for cell in code_cells)  # code is never cut
    # Every line's code reads whole once its folded pieces are joined.
    joined = "".join(code_cells).replace(" ", "")
    text = script.read_text()
    for number in {int(m) for m in re.findall(rf"{re.escape(name)}:(\d+)", "\n".join(lines))}:
        code = text.splitlines()[number - 1].strip().replace(" ", "")
        assert code in joined, code
    # Each row's kernel pieces joined read as the module's own kernel names: none broken.
    names = _kernel_names(script, tmp_path_factory.getbasetemp())
    listed: list[str] = []
    for cells in rows:
        if cells[0].strip() or not listed:
            listed.append("")
        listed[-1] += cells[-1].strip()
    for cell in listed:
        items = re.sub(r"^\d+:", "", cell).split(",")
        for item in (i for i in items if i.strip() and not re.fullmatch(r" ?\+\d+", i)):
            assert item.strip().rstrip("*") in names, (item, cell)


def _kernel_names(script: Path, base: Path) -> set[str]:
    done = piped(f"HLOSCOPE_CACHE={base}/cache {{hloscope}} fusions {script}:train_step --json")
    return {r["name"] for r in json.loads(done.stdout)["rows"]}


@pytest.mark.slow
@pytest.mark.parametrize("which", [0, 1], ids=["transformer", "adam"])
def test_fusions_piped_keeps_kernel_names_whole_while_the_source_has_room(
    deep_programs, tmp_path_factory, which
):
    script, _ = deep_programs[which]
    base = tmp_path_factory.getbasetemp()
    lines = _piped_lines(f"fusions {script}:train_step", base)
    rows = [[c.strip() for c in ln.split("│")] for ln in lines if "│" in ln]
    header = next(ln for ln in lines if "┃" in ln).split("┃")
    # The source column keeps only the room its cells need (file:line, the function dropped
    # first) before a kernel name is cut.
    source_width = len(header[-1]) - 1  # the cell between its leading space and the line end
    assert source_width <= max(len("source"), *(len(r[-1]) for r in rows)), header
    names = _kernel_names(script, base)
    kernel_width = len(header[0]) - 1  # the cell before its trailing space
    for row in rows:
        assert row[0] in names or (ELLIPSIS in row[0] and len(row[0]) == kernel_width), row


TF_LOOP = """
import tensorflow as tf


@tf.function(jit_compile=True)
def scaled_update(w, g, lr):
    return w - lr * g


w = tf.ones([4])
for lr in (0.1, 0.05, 0.025):
    w = scaled_update(w, tf.ones([4]), lr)
"""
JAX_LOOP = """
import jax
import jax.numpy as jnp


def main():
    for n in (4, 8, 16):
        f = jax.jit(lambda v: jnp.tanh(v) * 2.0)
        f(jnp.ones((n,)))


main()
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("source", "name", "call_line"),
    [(TF_LOOP, "tf_loop.py", 12), (JAX_LOOP, "jax_loop.py", 9)],
    ids=["tensorflow", "jax"],
)
def test_recompiles_piped_keeps_headers_and_call_sites_whole(tmp_path, source, name, call_line):
    if name.startswith("tf"):
        pytest.importorskip("tensorflow")
    folder = tmp_path / "projects" / "a_rather_long_folder_name" / "training"
    folder.mkdir(parents=True)
    script = folder / name
    script.write_text(textwrap.dedent(source))
    for columns in (80, 120):
        set_columns = f"COLUMNS={columns} " if columns != 80 else ""
        done = piped(f"{set_columns}{{hloscope}} recompiles {script} | cat", cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
        lines = done.stdout.splitlines()
        assert max(map(len, lines)) <= columns, done.stdout
        headers = [ln for ln in lines if ln.startswith(("function ", "#  "))]
        assert headers, done.stdout
        for header in headers:
            assert re.search(r"\bseconds\b", header), header  # never "secon"
        # Each compile's call site: the file name and line, whatever folder it is in.
        sites = [ln for ln in lines if re.match(r"\d+  ", ln)]
        assert len(sites) == 3, done.stdout
        for row in sites:
            assert re.search(rf"\b{re.escape(name)}:{call_line}\b", row), row
            assert ELLIPSIS not in row.split(name)[0][-3:], row


@pytest.mark.slow
@pytest.mark.parametrize(
    "hlo", ["transformer_train.after_optimizations.txt", "keras_cnn.after_optimizations.txt"]
)
def test_bench_wrapped_lines_keep_their_indent(hlo, tmp_path):
    env = f"HLOSCOPE_CACHE={tmp_path} JAX_PLATFORMS=cpu"
    done = piped(f"{env} {{hloscope}} bench samples/hlo/{hlo} --budget 0.3")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines and max(map(len, lines)) <= 80
    # A line that goes on past 80 columns goes on under its text, not at the left edge.
    for before, after in zip(lines, lines[1:]):
        if before.startswith(("peak ", "note: ")) and len(before) > 60:
            label = 10 if before.startswith("peak ") else 6
            assert after.startswith(" " * label), (before, after)
