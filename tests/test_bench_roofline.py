"""The CPU roofline (issue 18, point 13): a peak calibrated as the best of several runs, a
memory roof measured beyond the last-level cache, the roof a program is judged against picked
by its working set, and a peak raised (and said so) when a measured program beats it."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from hloscope.analysis.peaks import DevicePeak, MemoryLevel, PeakChoice
from hloscope.analysis.roofline import roofline
from hloscope.bench.peaks import LLC_MULTIPLE, _llc_from_sysfs, cpu_cache_path, last_level_cache
from tests.frameworks_needed import needs_framework

MIB = 1 << 20


def _write_cache(root, cpu, index, *, level, kind, size, shared):
    folder = root / f"cpu{cpu}" / "cache" / f"index{index}"
    folder.mkdir(parents=True)
    for name, value in (("level", level), ("type", kind), ("size", size)):
        (folder / name).write_text(f"{value}\n")
    (folder / "shared_cpu_list").write_text(f"{shared}\n")


def test_the_last_level_cache_sums_its_distinct_instances(tmp_path):
    # Two sockets of two cores: each pair shares a 16 MiB L3; L1 and L2 are per core.
    for cpu in range(4):
        socket = "0-1" if cpu < 2 else "2-3"
        _write_cache(tmp_path, cpu, 0, level=1, kind="Data", size="48K", shared=str(cpu))
        _write_cache(tmp_path, cpu, 1, level=1, kind="Instruction", size="32K", shared=str(cpu))
        _write_cache(tmp_path, cpu, 2, level=2, kind="Unified", size="1024K", shared=str(cpu))
        _write_cache(tmp_path, cpu, 3, level=3, kind="Unified", size="16384K", shared=socket)
    found = _llc_from_sysfs(list(range(4)), tmp_path)
    assert found is not None and found.bytes == 32 * MIB and found.source.startswith("L3")
    # A process pinned to the first socket has only that socket's cache.
    assert _llc_from_sysfs([0, 1], tmp_path).bytes == 16 * MIB
    # Only instruction caches, or nothing readable: no answer (the caller falls back).
    assert _llc_from_sysfs([9], tmp_path) is None


def test_this_machines_last_level_cache_is_what_lscpu_says():
    lscpu = shutil.which("lscpu")
    if lscpu is None:
        pytest.skip("no lscpu to compare with")
    text = subprocess.run(
        [lscpu, "-B", "-C=LEVEL,TYPE,ALL-SIZE"], capture_output=True, text=True, check=True
    ).stdout
    caches = [line.split() for line in text.splitlines()[1:]]
    top = max(int(level) for level, kind, _ in caches if kind != "Instruction")
    expected = sum(int(size) for level, kind, size in caches if int(level) == top)
    assert last_level_cache().bytes == expected


def _toy_cpu(cache_rate=40e9, memory_rate=5e9, llc=32 * MIB) -> PeakChoice:
    device = DevicePeak(
        "toy cpu", {"f32": 100e9}, memory_rate, "measured", measured=True,
        cache_bytes_per_s=cache_rate, cache_bytes=llc,
    )  # fmt: skip
    return device.choose("f32")


def test_the_working_set_picks_the_memory_roof():
    peak = _toy_cpu()
    small = roofline(flops=0, nbytes=8 * MIB, seconds=1e-3, peak=peak)
    assert small.memory_level is MemoryLevel.CACHE and small.peak_bytes_per_s == 40e9
    big = roofline(flops=0, nbytes=128 * MIB, seconds=0.1, peak=peak)
    assert big.memory_level is MemoryLevel.MEMORY and big.peak_bytes_per_s == 5e9
    # A program's many kernels move more than the cache in all, but each fits in it.
    chain = roofline(flops=0, nbytes=128 * MIB, seconds=0.1, peak=peak, working_set=8 * MIB)
    assert chain.memory_level is MemoryLevel.CACHE
    # Beating a roof is named; staying under it is not.
    assert roofline(0, 128 * MIB, 0.001, peak).beaten == ("memory",)
    assert roofline(1e9, 1, 0.001, peak).beaten == ("compute",)
    assert big.beaten == () and big.fraction == pytest.approx(128 * MIB / 5e9 / 0.1)


@pytest.fixture(scope="module")
def calibration_folder(tmp_path_factory):
    """One fresh calibration of this machine, in a cache folder of its own."""
    needs_framework("jax")
    folder = tmp_path_factory.mktemp("calibrated")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HLOSCOPE_CACHE", str(folder))
        from hloscope.bench.peaks import calibrate_cpu

        calibrate_cpu()
    return folder


@pytest.fixture
def calibrated(calibration_folder, tmp_path, monkeypatch):
    """A private copy of that calibrated cache (a test may rewrite or raise it)."""
    from hloscope.bench.peaks import cpu_peak

    shutil.copytree(calibration_folder, tmp_path / "cache")
    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path / "cache"))
    return cpu_peak()


def test_the_calibration_records_best_of_spread_and_the_cache_size(calibrated):
    from hloscope.bench.peaks import cpu_cache_path

    record = json.loads(cpu_cache_path().read_text())
    llc = last_level_cache()
    assert record["llc_bytes"] == llc.bytes and record["llc_source"] == llc.source
    # The memory roof streamed an array well beyond the cache; the cache roof one inside it.
    assert record["memory"]["array_bytes"] == LLC_MULTIPLE * llc.bytes
    assert 2 * record["cache"]["array_bytes"] <= llc.bytes
    for part, unit in (("compute", "flops_per_s"), ("memory", "bytes_per_s")):
        assert record[part]["best_of"] >= 3 and record[part]["spread"] >= 0
        assert record[part][unit] > 0
    # Each roof is the best of its kernels: every matmul size, both streams.
    for part in ("memory", "cache"):
        assert record[part]["bytes_per_s"] == max(record[part]["bytes_per_s_by_kernel"].values())
        assert set(record[part]["bytes_per_s_by_kernel"]) == {"scale-and-copy", "sum"}
    assert record["flops_per_s"]["f32"] == max(record["compute"]["flops_per_s_by_size"].values())
    assert calibrated.cache_bytes == llc.bytes
    assert calibrated.cache_bytes_per_s >= calibrated.bytes_per_s
    summary = calibrated.to_dict()["calibration"]
    assert summary["llc_bytes"] == llc.bytes and summary["compute"]["best_of"] >= 3
    assert "best of" in calibrated.source and "last-level cache" in calibrated.source


def _underrate(**roofs):
    """Rewrite the cached calibration as if it had run on a far busier machine."""
    from hloscope.bench.peaks import cpu_cache_path

    path = cpu_cache_path()
    record = json.loads(path.read_text())
    record.update(roofs)
    path.write_text(json.dumps(record))
    return record


def test_a_matmul_that_beats_the_peak_raises_it_and_says_so(calibrated):
    jax = needs_framework("jax")
    import jax.numpy as jnp

    from hloscope.bench.api import bench
    from hloscope.bench.peaks import cpu_cache_path

    _underrate(flops_per_s={"f32": 1e6})  # 1 MFLOP/s: any matmul beats it
    x = jnp.ones((384, 384), jnp.float32)
    # One measurement above the roof raises nothing: it is recorded, and said.
    first = bench(jax.jit(lambda a, b: a @ b), x, x, budget=0.3)
    assert first.recalibrated == [] and first.roofline.fraction > 1
    assert any("above the calibrated compute roof" in note for note in first.notes)
    assert set(first.to_dict()["roofline"]["pending"]) == {"compute f32"}
    assert json.loads(cpu_cache_path().read_text())["flops_per_s"]["f32"] == 1e6
    # A second confirms it: the roof is raised to the lower of the two rates.
    result = bench(jax.jit(lambda a, b: a @ b), x, x, budget=0.5)
    assert result.roofline.bound.value == "compute"
    _at_most_the_roof_or_said(result)
    [raised] = result.recalibrated
    assert raised["roof"] == "compute f32" and raised["from"] == 1e6
    assert raised["to"] == pytest.approx(
        min(result.roofline.flops_per_s, first.roofline.flops_per_s)
    )
    assert any(note.startswith("recalibrated:") for note in result.notes)
    data = result.to_dict()["roofline"]
    assert data["recalibrated"] == [raised] and data["calibration"]["raised"] == [raised]
    cached = json.loads(cpu_cache_path().read_text())
    assert cached["flops_per_s"]["f32"] == raised["to"] and cached["raised"] == [raised]
    # The raised peak is the one the next program is judged against.
    again = bench(jax.jit(lambda a, b: a @ b), x, x, budget=0.3)
    assert again.roofline.peak_flops_per_s >= raised["to"]
    _at_most_the_roof_or_said(again)


def _at_most_the_roof_or_said(result):
    """A position above 100% of a roof always comes with the note naming the figure in doubt
    (raised to the lower of two confirming rates, a faster run stays above it until confirmed)."""
    if result.roofline.fraction > 1 + 1e-9:
        assert any("above the calibrated" in note for note in result.notes), result.notes


def test_a_stream_beyond_the_cache_is_judged_against_the_memory_roof(calibrated):
    jax = needs_framework("jax")
    import jax.numpy as jnp

    from hloscope.bench.api import bench

    scale = jax.jit(lambda v: v * 2.0 + 1.0)
    llc = last_level_cache().bytes
    big = bench(scale, jnp.ones(2 * llc // 4, jnp.float32), budget=0.5)
    assert big.roofline.memory_level is MemoryLevel.MEMORY
    raised = [r["to"] for r in big.recalibrated if r["roof"] == "memory"]
    assert big.roofline.peak_bytes_per_s == max([calibrated.bytes_per_s, *raised])
    small = bench(scale, jnp.ones(llc // 16 // 4, jnp.float32), budget=0.3)
    assert small.roofline.memory_level is MemoryLevel.CACHE
    for result in (big, small):  # above a roof only with a note saying which figure is in doubt
        if result.roofline.fraction > 1 + 1e-9:
            assert any("above the calibrated" in note for note in result.notes)


def test_a_stream_that_beats_the_memory_roof_raises_only_that_roof(calibrated):
    jax = needs_framework("jax")
    import jax.numpy as jnp

    from hloscope.bench.api import bench

    record = _underrate(bytes_per_s=1e3)  # 1 kB/s: any stream beats it
    llc = last_level_cache().bytes
    stream = jnp.ones(2 * llc // 4, jnp.float32)
    first = bench(jax.jit(lambda v: v * 2.0), stream, budget=0.3)
    assert first.recalibrated == [] and set(first.to_dict()["roofline"]["pending"]) == {"memory"}
    result = bench(jax.jit(lambda v: v * 2.0), stream, budget=0.3)
    assert [r["roof"] for r in result.recalibrated] == ["memory"]
    _at_most_the_roof_or_said(result)
    assert result.peak.cache_bytes_per_s == record["cache_bytes_per_s"]
    assert result.peak.flops_per_s == record["flops_per_s"]


def test_the_cache_keeps_the_latest_raises(calibrated):
    from hloscope.bench.peaks import RAISES_KEPT, cpu_cache_path, raise_cpu_peak

    peak = calibrated
    start = peak.flops_per_s["f32"]
    for step in range(RAISES_KEPT + 5):
        rate = start * (1.01 + step / 100)
        peak, made = raise_cpu_peak(peak, flops=("f32", rate * 1.001), by=f"seen{step}")
        assert made == []  # recorded, pending
        peak, made = raise_cpu_peak(peak, flops=("f32", rate), by=f"p{step}")
        assert [r["by"] for r in made] == [f"p{step}"] and made[0]["to"] == rate
    kept = json.loads(cpu_cache_path().read_text())["raised"]
    assert len(kept) == RAISES_KEPT and kept[-1]["by"] == f"p{RAISES_KEPT + 4}"
    # A rate below the roof raises nothing.
    same, made = raise_cpu_peak(peak, flops=("f32", start), by="slow")
    assert made == [] and same.flops_per_s == peak.flops_per_s


def test_a_big_fresh_output_far_below_the_memory_roof_is_explained(calibrated):
    jax = needs_framework("jax")
    import jax.numpy as jnp

    from hloscope.bench.api import bench

    n = 2 * last_level_cache().bytes // 4
    fresh = bench(jax.jit(lambda v: v * 2.0), jnp.ones(n, jnp.float32), budget=0.5)
    noted = [note for note in fresh.notes if "fresh buffer" in note]
    assert bool(noted) == (fresh.roofline.fraction < 0.25), (fresh.roofline, fresh.notes)
    # The advice holds: with the input donated, XLA writes the output into it (XLA's own
    # compiled module says so), so no fresh buffer is paged in.
    donated = jax.jit(lambda v: v * 2.0, donate_argnums=0).lower(jnp.ones(n, jnp.float32))
    assert "input_output_alias" in donated.compile().as_text()
    # A small output is never blamed.
    small = bench(jax.jit(lambda v: jnp.sum(v * 2.0)), jnp.ones(n, jnp.float32), budget=0.3)
    assert not any("fresh buffer" in note for note in small.notes)


def test_kernels_timed_alone_never_raise_the_peak(calibrated):
    needs_framework("jax")
    from hloscope.bench.api import bench
    from tests.conftest import SAMPLES

    _underrate(flops_per_s={"f32": 1e3}, bytes_per_s=1e3, cache_bytes_per_s=1e3)
    fused = SAMPLES / "hlo" / "fusion_refactor_fused.after_optimizations.txt"
    result = bench(
        str(fused), budget=0.3, per_kernel=True, isolated=True, kernel_budget=0.05, profile=False
    )
    # Nothing runs as slowly as that calibration says, yet nothing raised it: the program's
    # beat waits for a second one, and kernels timed alone never raise it.
    assert result.recalibrated == []
    assert json.loads(cpu_cache_path().read_text())["flops_per_s"] == {"f32": 1e3}
    pending = result.to_dict()["roofline"]["pending"]
    assert pending and all(entry["by"] == result.module for entry in pending.values())
    # No kernel is shown above its roof: its share is left out, with a note.
    assert all(k.roofline.fraction is None for k in result.kernels)
    assert any("share of the roof is left out" in n for n in result.notes)


def test_a_cache_is_never_judged_slower_than_the_memory_behind_it():
    from hloscope.analysis.peaks import MemoryLevel, MemoryRoof
    from hloscope.analysis.roofline import memory_roof

    memory = MemoryRoof(MemoryLevel.MEMORY, 30e9, None)  # raised by a fast program
    cache = MemoryRoof(MemoryLevel.CACHE, 20e9, 32 << 20)
    small = memory_roof((memory, cache), 4 << 20)
    assert (small.level, small.bytes_per_s) == (MemoryLevel.CACHE, 30e9)
    assert memory_roof((memory, cache), 64 << 20) == memory
    faster_cache = MemoryRoof(MemoryLevel.CACHE, 50e9, 32 << 20)
    assert memory_roof((memory, faster_cache), 4 << 20) == faster_cache
