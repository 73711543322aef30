"""hloscope memory: XLA is the oracle (the dump's live-range peak, jax's memory_analysis)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from hloscope.analysis.memory import memory_of, simulate
from hloscope.cli import cli
from hloscope.dump.index import load_dump

ROOT = Path(__file__).parent
FOLDERS = sorted(
    {p.parent for p in (ROOT / "data" / "generated").rglob("*-live-range.txt")}
    | {
        p.parent
        for p in (ROOT.parent.parent / "shared" / "corpus" / "generated").rglob("*-live-range.txt")
    }
)
KEYS = [
    "module",
    "source",
    "peak_bytes",
    "breakdown",
    "peak_at",
    "live_at_peak",
    "timeline",
    "savings",
    "device",
    "notes",
    "fills",
]


def _modules_with_live_range():
    for folder in FOLDERS:
        for m in load_dump(folder).modules:
            ba = m.buffer_assignment()
            if ba is not None and ba.live_range is not None and ba.live_range.peak_bytes:
                yield folder, m, ba


def test_there_are_modules_to_check():
    assert len(list(_modules_with_live_range())) >= 100


def test_simulation_agrees_with_xla_live_range_on_every_dumped_module():
    off = []
    for folder, m, ba in _modules_with_live_range():
        sim = simulate(m.after())
        xla = ba.live_range.peak_bytes
        if abs(sim.peak_bytes - xla) > 0.10 * xla:
            off.append((str(folder), m.name, sim.peak_bytes, xla))
    assert not off


def test_dump_source_is_xla_buffer_assignment_and_matches_its_peak():
    folder = ROOT / "data" / "generated" / "jax_mlp_train"
    out = CliRunner().invoke(cli, ["memory", str(folder), "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert list(data) == KEYS
    assert data["source"] == "buffer_assignment"
    assert data["peak_bytes"] == 82212  # XLA's "Live ranges at 18 (peak)"
    assert data["peak_at"]["index"] == 18
    assert data["live_at_peak"][0]["bytes"] == 24576
    assert max(b for _, b in data["timeline"]) >= data["peak_bytes"]
    assert data["device"] is None
    assert {s["kind"] for s in data["savings"]} == {"donate"}


def test_truncated_side_file_warns_once_and_falls_back_to_the_simulation(tmp_path):
    src = ROOT / "data" / "generated" / "jax_mlp_train"
    for f in src.glob("module_0018.*"):
        shutil.copy(f, tmp_path / f.name)
    live = next(tmp_path.glob("*-live-range.txt"))
    live.write_text("\n".join(live.read_text().splitlines()[:30]) + "\n")
    out = CliRunner().invoke(cli, ["memory", str(tmp_path), "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["source"] == "simulated"
    assert data["peak_bytes"] == 82212
    warnings = [line for line in out.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "falling back" in warnings[0]


def test_text_output_names_the_source_and_marks_the_peak():
    out = CliRunner().invoke(cli, ["memory", str(ROOT / "data" / "generated" / "jax_mlp_train")])
    assert out.exit_code == 0, out.output
    assert "source: buffer_assignment" in out.stdout
    assert "^ peak" in out.stdout
    assert "by scope:" in out.stdout


def _train_step(donate: bool):
    jax = pytest.importorskip("jax")
    jnp = jax.numpy

    def step(w, x):
        g = jax.grad(lambda w: jnp.sum(jnp.tanh(x @ w) ** 2))(w)
        return w - 0.1 * g

    w = jnp.ones((256, 256), jnp.float32)
    x = jnp.ones((64, 256), jnp.float32)
    jitted = jax.jit(step, donate_argnums=(0,) if donate else ())
    return jitted.lower(w, x).compile()


def test_donation_advice_shows_without_donate_argnums_and_is_gone_with_it():
    from hloscope.hlo import parse

    for donate in (False, True):
        compiled = _train_step(donate)
        module = parse(compiled.as_text())
        result = memory_of(module)
        analysis = compiled.memory_analysis()
        donations = [s for s in result.savings if s.kind == "donate"]
        assert result.source == "simulated"
        assert result.breakdown["aliased"] == analysis.alias_size_in_bytes
        if donate:
            assert not donations and result.breakdown["aliased"] == 256 * 256 * 4
        else:
            assert donations and donations[0].bytes == 256 * 256 * 4


def test_dataframe_has_one_row_per_live_buffer():
    pytest.importorskip("pandas")
    import hloscope

    result = hloscope.memory(str(ROOT / "data" / "generated" / "jax_mlp_train"))
    frame = result.to_dataframe()
    assert len(frame) == len(result.live_at_peak)
    assert list(frame.columns) == ["name", "shape", "bytes", "kind", "producer", "source", "scope"]


def test_dump_result_equals_the_one_from_xlas_whole_joined_assignment():
    # The command leaves the -buffer-assignment-values companion unread: nothing may change.
    from hloscope.capture.target import Target
    from hloscope.drivers.memory import memory_results

    folder = ROOT / "data" / "generated" / "jax_transformer_train"
    dumped = next(m for m in load_dump(folder).modules if m.name == "jit_train_step")
    whole = memory_of(dumped.after(), dumped.buffer_assignment()).to_dict()
    fast = memory_results(Target.resolve(str(folder)), module="jit_train_step")[0].to_dict()
    assert fast == whole
