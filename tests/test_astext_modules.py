"""``bench`` and ``fusions`` of a TPU module as ``compiled.as_text()`` prints it.

XLA's printer (``HloModule::Print``, syntax sugar for async ops on: the default) leaves out
every async computation that wraps a single instruction and prints its ``async-start`` /
``async-done`` as ``slice-start(...), slice={...}`` / ``slice-done(...)``: the wrapped op's
name and attributes (``HloInstruction::PrintWithCanonicalNameMap``). The texts here are real
XLA:TPU dumps (tests/data/tpu) printed by XLA's own printer. A text that keeps ``calls=%...``
but lost the computations it names cannot be rebuilt (the wrapped op is unknown): it is
refused with one line that names the dump flag.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from hloscope.bench.extract import runnable_text
from hloscope.cli import cli
from hloscope.hlo.parser import parse

TPU = Path(__file__).resolve().parent / "data" / "tpu"
CASES = ("transformer_train", "pallas_kernels")
_ASYNC_COMPUTATION = re.compile(r"\n%(async_computation[.\d]*) \([^\n]*\{\n((?:  [^\n]*\n)*)\}\n")


def dumped(case: str) -> Path:
    return next((TPU / case).glob("*.after_optimizations.txt"))


def without_async_computations(text: str) -> tuple[str, dict[str, str]]:
    """``text`` less its async computations, and each one's root line by name."""
    roots = {
        m.group(1): next(line for line in m.group(2).splitlines() if "ROOT " in line)
        for m in _ASYNC_COMPUTATION.finditer(text)
    }
    assert roots, "the module has async computations"
    return _ASYNC_COMPUTATION.sub("\n", text), roots


def as_text(case: str) -> str:
    """The dump as ``compiled.as_text()`` prints it: XLA's own default printer
    (``HloModule.to_string()``), which leaves out the async computations and sugars their
    calls (see the module docstring)."""
    adapter = pytest.importorskip("hloscope.capture.jaxlib_adapter")
    pytest.importorskip("jax")
    text = adapter.xla_to_text(dumped(case).read_text())
    assert "%async_computation" not in text and "-start(" in text
    return text


def invoke(*args: str):
    return CliRunner().invoke(cli, list(args), env={"COLUMNS": "100"})


@pytest.mark.parametrize("case", CASES)
def test_fusions_reads_as_text_like_the_dump(case: str, tmp_path: Path) -> None:
    path = tmp_path / "as_text.txt"
    path.write_text(as_text(case))
    mine = json.loads(invoke("fusions", str(path), "--json").stdout)["rows"]
    dump = json.loads(invoke("fusions", str(dumped(case)), "--json").stdout)["rows"]
    keys = ("kind", "flops", "bytes", "hbm_bytes", "where")
    # The op an async computation wraps is named anew (its name was in the computation).
    assert [[r[k] for k in keys] for r in mine] == [[r[k] for k in keys] for r in dump]
    named = [r["name"] for r in dump if "async" not in r["where"]]
    assert [r["name"] for r in mine if "async" not in r["where"]] == named


@pytest.mark.parametrize("case", CASES)
def test_bench_hands_xla_a_module_it_parses(case: str) -> None:
    """bench compiles the module's runnable text: the async computations the parser made
    from the sugar are printed with it, so XLA's parser finds what ``calls=`` names (it
    answered 'computation does not exist: async_wrapped')."""
    adapter = pytest.importorskip("hloscope.capture.jaxlib_adapter")
    pytest.importorskip("jax")
    text = runnable_text(parse(as_text(case)))
    assert "calls=%async_wrapped" in text
    ok, message = adapter.xla_accepts(text)
    assert ok, message
    ok, message = adapter.xla_accepts(runnable_text(parse(dumped(case).read_text())))
    assert ok, message


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("command", ["fusions", "bench"])
def test_text_without_its_async_computations_says_how_to_get_the_module(
    case: str, command: str, tmp_path: Path
) -> None:
    path = tmp_path / "lost.txt"
    path.write_text(without_async_computations(dumped(case).read_text())[0])
    done = invoke(command, str(path))
    assert done.exit_code == 2
    lines = done.output.strip().splitlines()
    assert len(lines) == 1 and "XLA_FLAGS=--xla_dump_to" in lines[0], done.output
    assert "async computations" in lines[0] and "Traceback" not in done.output
