"""A new user's third hour at 80 columns: ``fusions --top`` ranks, and nothing is cut.

* ``fusions --top N`` without ``--sort`` shows the N heaviest rows (by bytes; per source line,
  by FLOPs), never the first N of the schedule, and says what it ranked by. The oracle is the
  command's own ``--json`` rows, every one, ranked here.
* At 80 columns in a pipe (``COLUMNS=80``): every line of ``recompiles``, ``explain --line`` and
  ``report``'s printed summary fits, and the content (the seconds, the jaxpr text, the summary
  figures) is all there.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from hloscope.cli import cli

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = [
    str(ROOT / "samples" / "hlo" / "transformer_train.after_optimizations.txt"),
    str(ROOT / "tests" / "data" / "tpu" / "conv_net"),
]


def invoke(*args: str, columns: int = 80) -> tuple[int, str]:
    # CliRunner's output is not a terminal: the piped case, COLUMNS set as a pipe has it.
    done = CliRunner().invoke(cli, list(args), env={"COLUMNS": str(columns)})
    return done.exit_code, done.output


def _all_rows(*args: str) -> list[dict]:
    code, out = invoke("fusions", *args, "--json")
    assert code == 0, out
    return json.loads(out)["rows"]


@pytest.mark.parametrize("program", PROGRAMS)
def test_top_without_sort_shows_the_heaviest_kernels(program: str) -> None:
    every = _all_rows(program)
    heaviest = sorted(every, key=lambda r: r["bytes"], reverse=True)[:5]
    assert [r["name"] for r in every[:5]] != [r["name"] for r in heaviest]  # not schedule order
    top = _all_rows(program, "--top", "5")
    assert [r["bytes"] for r in top] == [r["bytes"] for r in heaviest]
    assert {r["name"] for r in top} <= {r["name"] for r in every if r["bytes"] >= top[-1]["bytes"]}
    code, out = invoke("fusions", program, "--top", "5")
    assert code == 0, out
    assert "(--top 5 ranked by bytes, heaviest first" in out
    assert "bytes" in out.split("━")[0].splitlines()[-1]  # the ranked column is shown
    assert max(len(line) for line in out.splitlines()) <= 80


def test_top_by_source_ranks_lines_by_flops() -> None:
    program = PROGRAMS[0]
    every = _all_rows(program, "--by-source")
    top = _all_rows(program, "--by-source", "--top", "3")
    assert [r["flops"] for r in top] == sorted((r["flops"] for r in every), reverse=True)[:3]
    code, out = invoke("fusions", program, "--by-source", "--top", "3")
    assert code == 0 and "(--top 3 ranked by flops" in out


def test_an_explicit_sort_is_kept_and_not_announced() -> None:
    program = PROGRAMS[0]
    top = _all_rows(program, "--sort", "-bytes", "--top", "3")
    assert [r["bytes"] for r in top] == sorted(r["bytes"] for r in _all_rows(program))[:3]
    code, out = invoke("fusions", program, "--sort", "flops", "--top", "3")
    assert code == 0 and "ranked by" not in out


# ---- recompiles at 80 columns ----------------------------------------------------------------

LONG_NAMES = """
import jax, jax.numpy as jnp

@jax.jit
def transformer_block_forward_with_attention_and_mlp(x, scale):
    return jnp.tanh(x * scale).sum()

@jax.jit
def evaluate_validation_loss_over_batches(x):
    return (x ** 2).mean()

for n in (8, 16, 24, 32, 40):
    x = jnp.ones((n, 64))
    transformer_block_forward_with_attention_and_mlp(x, 2.0 if n % 2 else 3)
    evaluate_validation_loss_over_batches(x.astype(jnp.bfloat16) if n % 2 else x)
"""

MANY_CAUSES = """
import jax, jax.numpy as jnp
from functools import partial

@partial(jax.jit, static_argnames=("mode",))
def preprocess_and_normalise_images_for_the_convolutional_tower(x, mode):
    return (x - x.mean()) / (x.std() + 1) if mode == "train" else x

for n, mode, dtype in [(8, "train", jnp.float32), (8, "eval", jnp.float32),
                       (16, "train", jnp.bfloat16), (24, "eval", jnp.float32)]:
    preprocess_and_normalise_images_for_the_convolutional_tower(jnp.ones((n, 32), dtype), mode)
"""


@pytest.mark.parametrize("source", [LONG_NAMES, MANY_CAUSES], ids=["long_names", "causes"])
def test_recompiles_table_keeps_its_seconds_at_80_columns(tmp_path: Path, source: str) -> None:
    from frameworks_needed import needs_framework

    needs_framework("jax")
    folder = tmp_path / "a_rather_long_folder_name_for_the_models_of_this_project"
    folder.mkdir()
    script = folder / "transformer_language_model_training_script.py"
    script.write_text(source)
    code, out = invoke("recompiles", str(script))
    assert code == 0, out
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 80, out
    data = json.loads(invoke("recompiles", str(script), "--json")[1])
    header = next(i for i, line in enumerate(lines) if line.startswith("function"))
    assert "compiles" in lines[header] and "seconds" in lines[header] and "causes" in lines[header]
    table = "\n".join(lines[header + 1 : header + 1 + 2 * len(data["functions"])])
    assert len([f for f in data["functions"] if f["defined_at"]]) in (1, 2)
    said = " ".join(out.split())
    rows = lines[header + 1 :]
    # The table's functions: the script's own (JAX's eager ops are summed up under it).
    for function in [f for f in data["functions"] if f["defined_at"]]:
        # Its compile count and seconds whole on its row (two runs differ in seconds, not in
        # compiles), its causes whole in the table.
        whole = re.compile(rf"\s{function['compiles']}\s+\d+\.\d{{1,3}} s(\s|$)")
        assert sum(bool(whole.search(row)) for row in rows[: len(data["functions"]) * 2]), out
        causes = {c for e in function["events"] for c in e["cause"]}
        assert all(cause in table for cause in causes)
    # The totals line: a figure never split from its unit.
    assert " s)" in said and not any(line.strip() == "s)" for line in lines)


# ---- explain --line at 80 columns ------------------------------------------------------------

EXPLAINED = [
    ("samples/flax_mlp.py:train_step", "flax_mlp.py:45"),
    ("samples/blocks.py:train_step", "blocks.py:53"),
]


@pytest.mark.parametrize(("target", "line"), EXPLAINED, ids=["flax_gelu", "matmul"])
def test_explain_line_prints_code_whole_at_80_columns(target: str, line: str) -> None:
    from frameworks_needed import needs_framework

    needs_framework("jax")
    code, out = invoke("explain", str(ROOT / target), "--line", line)
    assert code == 0, out
    assert max(len(text) for text in out.splitlines()) <= 80, out
    said = " ".join(out.split())
    code, raw = invoke("explain", str(ROOT / target), "--line", line, "--json")
    focused = json.loads(raw)["lines"][0]
    firsts: dict[str, str] = {}
    for op in focused["jaxpr"]:
        firsts.setdefault(op["op"], op["text"])
    for text in firsts.values():  # each primitive's first equation, whole
        assert " ".join(text.split()) in said, text


# ---- report's summary at 80 columns ----------------------------------------------------------


@pytest.mark.parametrize("program", PROGRAMS)
def test_report_summary_fits_80_columns(tmp_path: Path, program: str) -> None:
    from hloscope.capture.target import Target
    from hloscope.reporting import build_report

    page = tmp_path / "report.html"
    code, out = invoke("report", program, "-o", str(page), "--graphs", "0")
    assert code == 0, out
    lines = out.splitlines()
    # Between the path written and the link to it (paths are not wrapped): the summary.
    assert lines[0].startswith("wrote ") and lines[-1].startswith("open it: file://")
    assert all(len(line) <= 80 for line in lines[1:-1]), out
    said = " ".join(out.split())
    for summary in build_report(Target.resolve(program), graphs=0).summary_lines():
        assert " ".join(summary.split()) in said  # every word there, in order
