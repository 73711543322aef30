"""The backends' registry is a table: a backend added in a few lines is the one every
``--device`` compile goes through, in this process and in the capture children.

The test backend is the local JAX under another label (its own words for its compiler); it
claims every GPU device of the registry, which this machine (a CPU in CI) compiles for as an
estimate. A row registered here reaches :func:`hloscope.capture`; a row a package declares
in the ``hloscope.backends`` entry-point group (a ``*.dist-info`` on ``PYTHONPATH``, as pip
installs one) reaches the command line, whose capture runs in a child process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from frameworks_needed import needs_framework, needs_libtpu

from hloscope.backends import (
    BackendName,
    BackendRow,
    LocalJax,
    backend_for,
    backend_row,
    backend_rows,
    built_in,
    cache_key_for,
    register_backend,
    unregister_backend,
)
from hloscope.devices import Platform

ROOT = Path(__file__).resolve().parent.parent

#: The whole backend: a module and one row.
BACKEND = """
from hloscope.backends import BackendRow, LocalJax
from hloscope.devices import Platform


class TestXla(LocalJax):
    name = "test-xla-gpu"
    words = "Test XLA"


ROW = BackendRow(
    "test-xla-gpu",
    claims=lambda spec, fn: spec is not None and spec.device.platform is Platform.GPU,
    make=lambda spec, mesh: TestXla(),
    words=TestXla.words,
)
"""


class _Relabelled(LocalJax):
    name = "relabelled-jax"
    words = "Relabelled XLA"


def _gpu(spec, fn) -> bool:
    return spec is not None and spec.device.platform is Platform.GPU


ROW = BackendRow("relabelled-jax", _gpu, lambda spec, mesh: _Relabelled(), words="Relabelled XLA")


@pytest.fixture
def registered():
    register_backend(ROW)
    yield ROW
    unregister_backend(ROW.label)


def test_a_registered_row_comes_first_for_what_it_claims(registered):
    assert [row.label for row in backend_rows()][0] == "relabelled-jax"
    assert backend_for("h100").name == "relabelled-jax"
    assert backend_for("a100").name == "relabelled-jax"
    # What it does not claim goes down the table as before.
    assert backend_for(None).name == BackendName.LOCAL_JAX
    assert cache_key_for("h100")["backend"] == "relabelled-jax"
    assert cache_key_for(None)["backend"] == BackendName.LOCAL_JAX
    # Commands may ask more of hloscope's own rows than of one they do not know (check).
    assert not built_in(backend_row("h100")) and built_in(backend_row(None))


def test_unregistered_the_built_in_rows_answer_again(registered):
    unregister_backend(ROW.label)
    assert backend_for("h100").name == BackendName.LOCAL_JAX
    assert [row.label for row in backend_rows()] == [
        BackendName.TENSORFLOW,
        BackendName.XLA_TPU,
        BackendName.LOCAL_JAX,
    ]


def test_capture_with_device_goes_through_the_registered_backend(registered):
    jax = needs_framework("jax")
    import hloscope

    x = jax.numpy.ones((16, 32))
    cap = hloscope.capture(lambda a: jax.numpy.tanh(a @ a.T), x, device="h100")
    assert cap.backend == "relabelled-jax" and cap.compiled_by == "Relabelled XLA"
    assert cap.estimate_note is not None and "by Relabelled XLA" in cap.estimate_note
    assert cap.module("after").name.startswith("jit_")
    # The built-in table for the same call: the local JAX, worded as before.
    unregister_backend(ROW.label)
    plain = hloscope.capture(lambda a: jax.numpy.tanh(a @ a.T), x, device="h100")
    assert plain.backend == "jax" and plain.estimate_note is not None
    assert "by " not in plain.estimate_note


def test_local_jax_compiles_something_runnable_and_xla_tpu_nothing():
    """``Compiled.executable`` runs what the local compile made, called as the function is
    (static arguments included); the answer is JAX's own."""
    jax = needs_framework("jax")
    jnp = jax.numpy

    f = jax.jit(lambda n, x, *, scale: jnp.sin(x) * n * scale, static_argnums=0)
    x = jnp.arange(6.0)
    compiled = LocalJax().lower(f, (3, x), {"scale": jnp.float32(2)}).compile()
    assert compiled.runnable
    out = compiled.executable(3, x, scale=jnp.float32(2))
    assert jnp.allclose(out, f(3, x, scale=jnp.float32(2)))


def _plugin_site(root: Path) -> Path:
    """A folder holding the backend module and the dist-info declaring its entry point."""
    site = root / "site"
    info = site / "hloscope_test_backend-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hloscope-test-backend\n")
    (info / "entry_points.txt").write_text(
        "[hloscope.backends]\ntest-xla-gpu = test_xla_backend:ROW\n"
    )
    (site / "test_xla_backend.py").write_text(BACKEND)
    return site


def _hloscope(*args: str, cwd: Path, site: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "HLOSCOPE_CACHE": str(cwd / "cache")}
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(ROOT), env.get("PYTHONPATH", "")])
    env.pop("HLOSCOPE_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "hloscope", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.slow
def test_commands_with_device_compile_through_a_backend_a_package_declares(tmp_path):
    needs_framework("jax")
    site = _plugin_site(tmp_path)
    script = tmp_path / "model.py"
    script.write_text(
        textwrap.dedent(
            """
            import jax.numpy as jnp

            def step(w, x):
                return jnp.tanh(x @ w).sum()

            EXAMPLE_ARGS = {"step": (jnp.ones((64, 32)), jnp.ones((8, 64)))}
            """
        )
    )
    target = f"{script}:step"
    for command, device in (("memory", "h100"), ("fusions", "a100")):
        run = _hloscope(command, target, "--device", device, cwd=tmp_path, site=site)
        assert run.returncode == 0, run.stderr
        note = " ".join(run.stderr.split())  # the note of what compiled it, wrapped at 80
        assert f"an estimate for {device}" in note and "compile by Test XLA" in note, note
    # The captures the children saved (one per device) say which backend compiled them.
    saved = [json.loads(p.read_text()) for p in (tmp_path / "cache").rglob("capture.json")]
    assert len(saved) == 2 and {index["backend"] for index in saved} == {"test-xla-gpu"}
    assert {index["compiled_by"] for index in saved} == {"Test XLA"}


#: Every command that takes ``--device`` and compiles a ``SCRIPT.py:FUNCTION`` for it, with
#: the arguments it needs besides (``{out}``: a file it writes). Each opens its target through
#: the capture every ``--device`` command shares, which the registry's backend compiles, and
#: says so in its note (``memory --scale`` compiles each size so too); ``check`` asks the
#: registry too (a registered backend compiles the whole program; XLA:TPU confirms a TPU's
#: findings op by op). Not here: ``bench --device`` names the local JAX device to run on
#: (cpu|gpu|tpu|N), not a registry row, and runs on it;
#: ``profile --device`` reads a trace and prices it on the row (a SCRIPT.py:FUNCTION module
#: is opened as these are); ``try`` asks the registry too, but compiles its variants over a
#: slice's devices, which this test backend (the local JAX) cannot lay out: it refuses it in one
#: line naming it, and compiles with a registered backend that can (the tests after this one).
#: The three whose JSON the test reads further ask for it here: each is run once, not again.
DEVICE_COMMANDS = (
    ("memory",),
    ("memory", "--scale", "x:0", "--json"),  # each of the three sizes a capture of its own
    ("fusions", "--json"),
    ("summary",),
    ("collectives",),
    ("graph", "-o", "{out}.svg"),
    ("passes",),
    ("explain",),
    ("compile-time",),
    ("report", "-o", "{out}.html"),
    ("diff", "{target}"),
    ("check", "--json"),
)


@pytest.mark.slow
def test_every_device_command_compiles_through_the_registered_backend(tmp_path):
    needs_framework("jax")
    site = _plugin_site(tmp_path)
    script = tmp_path / "model.py"
    script.write_text(
        textwrap.dedent(
            """
            import jax.numpy as jnp

            def layer(w, b, x):
                return jnp.maximum(x @ w + b, 0.0) * 2.0

            EXAMPLE_ARGS = {"layer": (jnp.ones((32, 16)), jnp.ones(16), jnp.ones((4, 32)))}
            """
        )
    )
    target = f"{script}:layer"
    said = "compile by Test XLA"
    answers = {}
    for command, *rest in DEVICE_COMMANDS:
        extra = [a.format(out=tmp_path / command, target=target) for a in rest]
        run = _hloscope(command, target, *extra, "--device", "h100", cwd=tmp_path, site=site)
        assert run.returncode == 0, (command, run.stderr)
        # The note of what compiled it: on stderr, or among check's notes on stdout.
        assert said in " ".join((run.stderr + run.stdout).split()), (command, run.stderr)
        if "--json" in rest:
            answers[" ".join([command, *rest[:-1]])] = json.loads(run.stdout)
    answer = answers["check"]
    assert answer["compiled_by"] == "Test XLA" and answer["device"] == "h100"
    # memory --scale compiled every size with it, and says so.
    scale = answers["memory --scale x:0"]["scale"]
    assert scale["backend"] == "test-xla-gpu" and scale["compiled_by"] == "Test XLA"
    assert "by Test XLA" in scale["estimate_note"]
    assert [p["size"] for p in scale["points"]] == [4, 8] and scale["check"]["size"] == 12
    # extract names a kernel of the module the backend compiled.
    kernel = answers["fusions"]["rows"][0]["name"]
    out = tmp_path / "kernel.hlo"
    run = _hloscope(
        "extract", target, kernel, "--device", "h100", "-o", str(out), cwd=tmp_path, site=site
    )
    assert run.returncode == 0 and said in " ".join(run.stderr.split()), run.stderr
    # capture writes the folder the others read: its index names the backend.
    folder = tmp_path / "captured"
    run = _hloscope(
        "capture", target, "--device", "h100", "-o", str(folder), cwd=tmp_path, site=site
    )
    assert run.returncode == 0, run.stderr
    (index,) = [json.loads(p.read_text()) for p in folder.rglob("capture.json")]
    assert index["backend"] == "test-xla-gpu" and index["compiled_by"] == "Test XLA"


def test_check_without_the_registered_backend_is_unchanged(tmp_path):
    """The same check with only the built-in table: nothing compiled for a GPU, as before."""
    needs_framework("jax")
    script = tmp_path / "model.py"
    script.write_text(
        "import jax.numpy as jnp\n\ndef f(x):\n    return jnp.sin(x)\n\n"
        "EXAMPLE_ARGS = {'f': (jnp.ones(8),)}\n"
    )
    run = _hloscope(
        "check", f"{script}:f", "--device", "h100", "--json", cwd=tmp_path, site=tmp_path
    )
    answer = json.loads(run.stdout)
    assert "compiled_by" not in answer and "device" not in answer, answer


def test_local_jax_compiles_hlo_text_into_something_runnable():
    """The HLO path bench times through: XLA compiles the text for a device here, the result
    runs on device arrays and says its optimized module; XLA's answer is numpy's."""
    jax = needs_framework("jax")
    import numpy as np

    text = (
        "HloModule add_mul\n\nENTRY main {\n  a = f32[4] parameter(0)\n"
        "  b = f32[4] parameter(1)\n  s = f32[4] add(a, b)\n  ROOT m = f32[4] multiply(s, b)\n}\n"
    )
    device = jax.devices("cpu")[0]
    compiled = LocalJax().compile_hlo(text, device)
    a, b = np.arange(4, dtype=np.float32), np.full(4, 3, dtype=np.float32)
    (out,) = compiled(jax.device_put(a, device), jax.device_put(b, device))
    assert np.allclose(np.asarray(out), (a + b) * b)
    assert "HloModule add_mul" in compiled.as_text()


def test_an_entry_point_that_cannot_load_is_one_line(tmp_path, monkeypatch):
    """A broken plug-in says which entry point and why, as one error line, not a traceback."""
    import importlib

    from hloscope.backends import _registry
    from hloscope.backends.errors import CaptureError

    info = tmp_path / "hloscope_broken_backend-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: hloscope-broken-backend\n")
    (info / "entry_points.txt").write_text("[hloscope.backends]\nbroken = no_such_module:ROW\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    monkeypatch.setattr(_registry, "_plugins_loaded", False)
    with pytest.raises(CaptureError) as raised:
        backend_for("h100")
    line = raised.value.one_line()
    assert "backend entry point broken (no_such_module:ROW)" in line and "\n" not in line
    assert "ModuleNotFoundError" in line


def test_the_compiled_line_names_the_backends_own_words():
    """A capture's ``compiled_by`` is what the line says compiled it; older captures without
    it are worded from the backend's name, as before."""
    from hloscope.render.compiled_by import COMPILE_FIELDS, compiled_line

    assert "compiled_by" in COMPILE_FIELDS
    info = {"device": "h100", "compiled_for": "NVIDIA H100", "backend": "test-xla-gpu"}
    assert compiled_line({**info, "compiled_by": "Test XLA"}) == (
        "compiled for NVIDIA H100 (h100) by Test XLA"
    )
    assert compiled_line(info).endswith("by this machine's XLA")
    assert compiled_line({**info, "backend": "xla-tpu"}).endswith("by XLA:TPU")


def test_a_registered_backend_that_compiles_for_the_device_is_named_by_its_words(registered):
    """A device row this machine is (its CPU) and a backend claiming it: the compile is for the
    device itself, not an estimate, and the line every view says first names the backend."""
    jax = needs_framework("jax")
    import hloscope
    from hloscope.devices import Device, register, unregister
    from hloscope.render.compiled_by import COMPILE_FIELDS, compiled_line

    register(Device("test-host-cpu", Platform.CPU, "cpu", r"^cpu$"))
    row = BackendRow(
        "relabelled-cpu",
        lambda spec, fn: spec is not None and spec.device.name == "test-host-cpu",
        lambda spec, mesh: _Relabelled(),
        words="Relabelled XLA",
    )
    register_backend(row)
    try:
        cap = hloscope.capture(lambda a: a * 2 + 1, jax.numpy.ones(8), device="test-host-cpu")
    finally:
        unregister_backend(row.label)
        unregister("test-host-cpu")
    assert cap.estimate_note is None and cap.compiled_by == "Relabelled XLA"
    line = compiled_line({key: getattr(cap, key) for key in COMPILE_FIELDS})
    assert line == f"compiled for {cap.compiled_for} (test-host-cpu) by Relabelled XLA"


@pytest.fixture
def tpu_claimed():
    """A registered backend claiming every TPU chip, ahead of XLA:TPU."""
    row = BackendRow(
        "relabelled-tpu",
        lambda spec, fn: spec is not None and spec.device.platform is Platform.TPU,
        lambda spec, mesh: _Relabelled(),
        words="Relabelled XLA",
    )
    register_backend(row)
    yield row
    unregister_backend(row.label)


def test_the_tpu_confirm_asks_the_registry_for_its_compiler(tpu_claimed):
    """XLA:TPU confirms a TPU's findings only when the registry gives it the chip: a backend
    registered for TPUs takes the check instead (XLA:TPU's child is never started)."""
    from hloscope.analysis.unsupported.findings import CheckReport
    from hloscope.analysis.unsupported.findings import Platform as CheckPlatform
    from hloscope.backends.confirm_records import ConfirmJob
    from hloscope.backends.errors import CaptureError
    from hloscope.capture.tpu_confirm import confirm_on_tpu
    from hloscope.devices import parse_device
    from hloscope.drivers.tpu_confirm import confirm_with_xla_tpu

    with pytest.raises(CaptureError, match="tpu-v5e compiles by Relabelled XLA here"):
        confirm_on_tpu(ConfirmJob(device="tpu-v5e", candidates=[]))
    report = confirm_with_xla_tpu(CheckReport(CheckPlatform.TPU, "p"), parse_device("tpu-v5e"))
    assert report.notes[0] == "static scan; tpu-v5e compiles by Relabelled XLA here, not XLA:TPU"


def test_check_of_hlo_for_a_registered_tpu_backend_names_it(tpu_claimed):
    """``hloscope.check(module, device=...)`` goes to the registry's compiler too: one that
    compiles functions only leaves HLO text to the static scan, and the report names it."""
    import hloscope

    module = hloscope.parse(
        "HloModule m\n\nENTRY e {\n  a = f32[4] parameter(0)\n  ROOT s = f32[4] sine(a)\n}\n"
    )
    report = hloscope.check(module, device="tpu-v5e")
    assert report.compiled_by == "Relabelled XLA" and report.to_dict()["compiled_by"] == (
        "Relabelled XLA"
    )
    assert report.notes[0].startswith("static scan; Relabelled XLA compiles for tpu-v5e")


# ---- try: the registry's backend, when it can lay out a slice ---------------------------------

#: A backend that compiles for a TPU slice: XLA:TPU under another label, which writes each
#: compile it lowers to the file ``TEST_BACKEND_LOG`` names (a compile child's work is seen).
SLICE_BACKEND = """
import os

from hloscope.backends import BackendRow, XlaTpu
from hloscope.devices import Platform


class TestTpu(XlaTpu):
    name = "test-xla-tpu"
    words = "Test XLA:TPU"

    def lower(self, fn, args, kwargs):
        with open(os.environ["TEST_BACKEND_LOG"], "a") as log:
            log.write(f"{self.spec} {self.mesh}\\n")
        return super().lower(fn, args, kwargs)


ROW = BackendRow(
    "test-xla-tpu",
    claims=lambda spec, fn: spec is not None and spec.device.platform is Platform.TPU,
    make=lambda spec, mesh: TestTpu(spec, mesh),
    words=TestTpu.words,
)
"""

TRY_SCRIPT = """
import jax.numpy as jnp

def step(w, x):
    return jnp.tanh(x @ w).sum()

EXAMPLE_ARGS = {"step": (jnp.ones((64, 32)), jnp.ones((8, 64)))}
"""


def test_try_refuses_a_registered_backend_that_cannot_lay_out_a_slice(tmp_path):
    """The GPU test backend (the local JAX) claims h100: try names it and why, in one line,
    before any compile; without it, h100 is refused as a device XLA:TPU does not compile."""
    needs_framework("jax")
    site = _plugin_site(tmp_path)
    script = tmp_path / "model.py"
    script.write_text(TRY_SCRIPT)
    args = ("try", f"{script}:step", "--device", "h100", "--shard", "dp")
    run = _hloscope(*args, cwd=tmp_path, site=site)
    assert run.returncode == 2, run.stderr
    (line,) = run.stderr.strip().splitlines()
    assert "h100 compiles by Test XLA here (backend test-xla-gpu)" in line, line
    assert "cannot lay out a slice's devices" in line and "Traceback" not in run.stderr
    plain = _hloscope(*args, cwd=tmp_path, site=tmp_path)
    assert plain.returncode == 2 and "try compiles with XLA:TPU" in plain.stderr, plain.stderr
    assert not (tmp_path / "cache" / "try").exists()  # nothing was compiled


def test_try_asks_the_registry_for_a_tpus_compiler(tpu_claimed, tmp_path, monkeypatch):
    """A backend registered for TPUs takes try's compiles from XLA:TPU: the local JAX under
    another label cannot lay out the slice, so try says so instead of compiling with it."""
    from hloscope.backends.errors import CaptureUsageError
    from hloscope.drivers.variants import VariantOptions, try_variants

    monkeypatch.setenv("HLOSCOPE_CACHE", str(tmp_path / "cache"))
    script = tmp_path / "model.py"
    script.write_text(TRY_SCRIPT)
    options = VariantOptions(shard=("dp",))
    with pytest.raises(CaptureUsageError, match=r"compiles by Relabelled XLA here \(backend "):
        try_variants(f"{script}:step", "tpu-v5e:2x2", options)


@pytest.mark.slow
def test_try_compiles_with_a_registered_backend_that_lays_out_the_slice(tmp_path):
    """A package's backend claiming TPUs that lays out slices (XLA:TPU's subclass) compiles
    every variant in try's children, and try names it; its compiles are XLA:TPU's, so the
    figures equal the built-in table's, which compiles them again (another cache entry)."""
    needs_framework("jax")
    needs_libtpu()
    site = _plugin_site(tmp_path)
    (site / "hloscope_test_tpu_backend-0.1.dist-info").mkdir()
    (site / "hloscope_test_tpu_backend-0.1.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: hloscope-test-tpu-backend\n"
    )
    (site / "hloscope_test_tpu_backend-0.1.dist-info" / "entry_points.txt").write_text(
        "[hloscope.backends]\ntest-xla-tpu = test_tpu_backend:ROW\n"
    )
    (site / "test_tpu_backend.py").write_text(SLICE_BACKEND)
    script = tmp_path / "model.py"
    script.write_text(TRY_SCRIPT)
    log = tmp_path / "lowered.txt"
    os.environ["TEST_BACKEND_LOG"] = str(log)  # the children inherit it
    try:
        args = ("try", f"{script}:step", "--device", "tpu-v5e:2x2", "--shard", "dp", "--json")
        run = _hloscope(*args, cwd=tmp_path, site=site)
        plain = _hloscope(*args, cwd=tmp_path, site=tmp_path)
    finally:
        del os.environ["TEST_BACKEND_LOG"]
    assert run.returncode == 0, run.stderr
    assert "compiled for tpu-v5e:2x2 by Test XLA:TPU" in " ".join(run.stderr.split())
    ours = json.loads(run.stdout)
    assert ours["compiled_by"] == "Test XLA:TPU"
    # Both compiles (the script as given, and dp) were lowered by the registered backend.
    assert sorted(log.read_text().splitlines()) == ["tpu-v5e:2x2 None"] * 2
    assert plain.returncode == 0, plain.stderr
    theirs = json.loads(plain.stdout)
    assert theirs["compiled_by"] == "XLA:TPU"
    assert "compiled for tpu-v5e:2x2 by XLA:TPU" in " ".join(plain.stderr.split())
    for mine, built_in_ in zip(
        [ours["baseline"], *ours["variants"]],
        [theirs["baseline"], *theirs["variants"]],
        strict=True,
    ):
        assert mine["compiled"] and not built_in_["cached"]  # another backend, another entry
        for key in ("name", "peak_bytes", "flops", "collective_bytes"):
            assert mine[key] == built_in_[key], key
