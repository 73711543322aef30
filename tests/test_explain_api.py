"""hloscope.explain("SCRIPT.py:FUNCTION", line=...) gives every stage on a cold cache, the
jaxpr included, as `hloscope explain` does (the Python API and the command agree)."""

from __future__ import annotations

import inspect
import json
import textwrap
from pathlib import Path

from click.testing import CliRunner
from frameworks_needed import needs_framework

import hloscope
from hloscope.cli import cli
from hloscope.stages import Stage

SCRIPT = textwrap.dedent(
    """
    import jax.numpy as jnp


    def damp(x):
        y = jnp.cos(x) * 0.75
        return y.sum()


    damp.example_args = (jnp.ones((5, 3)),)
    """
)


def test_the_api_gives_the_jaxpr_on_a_cold_cache_as_the_command_does(tmp_path, monkeypatch):
    needs_framework("jax")
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path / "cache"))
    script = tmp_path / "damp.py"
    script.write_text(SCRIPT)
    number = 1 + next(i for i, text in enumerate(SCRIPT.splitlines()) if "jnp.cos" in text)
    spec, line = f"{script}:damp", f"damp.py:{number}"
    assert not (tmp_path / "cache").exists()  # cold
    e = hloscope.explain(spec, line=line)
    assert Stage.JAXPR in e.stages and "jaxpr" not in e.missing
    (focused,) = e.lines
    assert {op.op for op in focused.stage_ops(Stage.JAXPR)} >= {"cos", "mul"}
    assert focused.code == "y = jnp.cos(x) * 0.75"
    result = CliRunner().invoke(cli, ["explain", spec, "--line", line, "--json"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == json.loads(json.dumps(e.to_dict()))


def test_the_api_explain_is_the_analysis_for_what_it_already_has():
    from hloscope.drivers import explain as analysis

    assert inspect.signature(hloscope.explain).parameters.keys() == (
        inspect.signature(analysis.explain).parameters.keys()
    )
    root = Path(__file__).resolve().parent.parent
    after = hloscope.parse(root / "samples" / "hlo" / "transformer_train.after_optimizations.txt")
    assert hloscope.explain(after).to_dict() == analysis.explain(after).to_dict()
