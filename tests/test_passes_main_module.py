"""`passes` and `explain` read the module every other command reads (Target's main-module
choice) and say so with the same note as `fusions`.

The program compiles eager ops (jax's own small `jit__mean`, `jit_iota` modules) before its
jitted function; XLA runs more passes over some of those than over the function, so a rule of
"most snapshots" picks an eager op. `fusions` is the oracle: whatever it reads and notes,
`passes` and `explain` read and note too.
"""

from __future__ import annotations

import json
import textwrap

import pytest
from click.testing import CliRunner
from frameworks_needed import needs_framework

from hloscope.cli import cli
from hloscope.dump.index import load_dump

PROGRAM = textwrap.dedent(
    """
    import jax
    import jax.numpy as jnp

    grid = jnp.arange(64.0).reshape(8, 8)
    centre = jnp.mean(grid)


    @jax.jit
    def smooth(a):
        b = jnp.sin(a) * 0.5
        return b @ b.T + centre


    smooth(grid).block_until_ready()
    """
)


def run(*args):
    result = CliRunner().invoke(cli, [*map(str, args)], env={"COLUMNS": "80"})
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def captured(tmp_path_factory):
    needs_framework("jax")
    folder = tmp_path_factory.mktemp("passes-main")
    script = folder / "smooth.py"
    script.write_text(PROGRAM)
    code, _, err = run("capture", script, "--passes", ".*", "-o", folder / "out")
    assert code == 0, err
    return folder / "out"


def _note(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("hloscope: note: module")]


def test_passes_reads_the_main_module_and_says_so_like_fusions(captured):
    code, out, err = run("fusions", captured, "--json")
    assert code == 0, err
    main, note = json.loads(out)["module"], _note(err)
    assert main == "jit_smooth" and note
    code, out, err = run("passes", captured, "--json")
    assert code == 0, err
    assert json.loads(out)["module"] == main
    assert _note(err) == note
    code, out, err = run("passes", captured)
    assert code == 0 and _note(err) == note and f"module {main}" in out


def test_the_eager_module_with_more_snapshots_is_not_chosen(captured):
    """The case a snapshot count gets wrong: an eager op's module has more snapshots."""
    modules = {m.name: len(m.passes) for m in load_dump(captured / "dump").modules}
    busiest = max(modules, key=modules.get)
    code, out, _ = run("passes", captured, "--json")
    assert code == 0 and json.loads(out)["module"] == "jit_smooth"
    if busiest != "jit_smooth":  # on this XLA the old rule would have read `busiest`
        code, out, _ = run("passes", captured, "--module", busiest, "--json")
        assert code == 0 and json.loads(out)["module"] == busiest


def test_explain_reads_the_main_module_and_says_so_like_fusions(captured):
    _, _, err = run("fusions", captured)
    code, out, explain_err = run("explain", captured, "--json")
    assert code == 0, explain_err
    assert json.loads(out)["module"] == "jit_smooth"
    assert _note(explain_err) == _note(err)
