"""Make the corpus of errors JAX raises on a real TPU (issue 35): run on a TPU host only.

The TPU's half of ``../made_errors``: each case a small program built to raise one family of
error that only a TPU raises in these words (XLA:TPU's memory reports, the runtime's
allocator, Mosaic and Pallas on TPU, a chip held by another process, TPU-only refusals). The
machinery is ``../made_errors/make.py``'s (a fresh child ``python <case>.py`` from a neutral
folder, its stdout+stderr saved verbatim with neutral paths, the truth by construction); the
cases run with ``JAX_PLATFORMS=tpu``.

The truth's ``device`` is ``"tpu"`` where the log itself names the TPU (a TPU device, libtpu,
Mosaic, a TPU memory space: :data:`TPU_SIGN`), else ``null``, as explain-error is scored
(it is not to guess a device the text does not show); it is decided from the log when the case
is made. A case whose program ran without the error it was built for is reported and left out.

Run on the chip: ``python tests/data/made_errors_tpu/make.py`` (jax/jaxlib 0.10.2 and libtpu on a
TPU v5e made the committed logs); the tests read the files, never run this.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

HERE = Path(__file__).parent
#: What in a log names the TPU: its devices, its runtime library, Mosaic, its memory spaces.
TPU_SIGN = re.compile(r"\bTPU|\btpu\b|TpuDevice|libtpu|[Mm]osaic|\b(?:vmem|smem|VMEM|SMEM)\b")


def _machinery() -> ModuleType:
    path = HERE.parent / "made_errors" / "make.py"
    spec = importlib.util.spec_from_file_location("made_errors_make", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


MADE = _machinery()
Case = MADE.Case
ON_TPU = {"JAX_PLATFORMS": "tpu"}
J = "import jax\nimport jax.numpy as jnp\n"
P = J + (
    "from jax.experimental import pallas as pl\nfrom jax.experimental.pallas import tpu as pltpu\n"
)

# The programs keep the layout they are written in (their line numbers are the truths').
# fmt: off
CASES: list = [
    # ---- out_of_memory: XLA:TPU refuses at compile time -------------------------------------
    Case("tpu_compile_hbm_temporaries", "out_of_memory", None, "smaller_batch", J + """
@jax.jit
def top_scores(x):
    scores = x @ x.T
    return jnp.sort(scores, axis=1)[:, -4:]

x = jnp.ones((72000, 128), jnp.float32)
print(top_scores(x))  #!
""", env=ON_TPU),
    Case("tpu_compile_output_too_big", "out_of_memory", None, "smaller_batch", J + """
@jax.jit
def outer(a, b):
    return a[:, None] * b[None, :]

a = jnp.ones((70000,), jnp.float32)
print(outer(a, a).shape)  #!
""", env=ON_TPU),
    # ---- device_allocation: the runtime's allocator, while the program runs ------------------
    Case("tpu_runtime_buffer_full", "device_allocation", None, "free_memory", J + """
kept = [jnp.ones((1024, 1024, 256), jnp.float32) for _ in range(13)]
jax.block_until_ready(kept)
big = jnp.ones((1024, 1024, 1024), jnp.float32); big.block_until_ready()  #!
""", env=ON_TPU),
    # ---- missing_lowering / xla_status: what a TPU does not do -------------------------------
    Case("tpu_eig", "missing_lowering", "eig", "replace_op", J + """
m = jnp.arange(16.0).reshape(4, 4)
print(jnp.linalg.eig(m))  #!
""", env=ON_TPU),
    Case("tpu_fft_complex128", "xla_status", "fft", "cast_dtype", J + """
jax.config.update("jax_enable_x64", True)
x = jnp.ones(256, jnp.complex128)
print(jnp.fft.fft(x))  #!
""", env=ON_TPU),
    # ---- pallas: kernels Pallas or Mosaic refuse on a TPU ------------------------------------
    Case("tpu_pallas_block_in_vmem_too_big", "pallas", None, "smaller_blocks", P + """
def double(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2

x = jnp.ones((8192, 8192), jnp.float32)
y = pl.pallas_call(double, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)  #!
print(y.sum())
""", env=ON_TPU),
    Case("tpu_pallas_block_off_tiles", "pallas", None, "fix_shapes", P + """
def double(x_ref, o_ref):
    o_ref[...] = x_ref[...] * 2

x = jnp.ones((28, 100), jnp.float32)
spec = pl.BlockSpec((7, 100), lambda i: (i, 0))
y = pl.pallas_call(double, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(4,),  #!
                   in_specs=[spec], out_specs=spec)(x)
print(y.sum())
""", env=ON_TPU),
    Case("tpu_pallas_sort_in_kernel", "pallas", "sort", "replace_op", P + """
def sort_rows(x_ref, o_ref):
    o_ref[...] = jnp.sort(x_ref[...], axis=1)

x = jnp.ones((8, 128), jnp.float32)
y = pl.pallas_call(sort_rows, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)  #!
print(y)
""", env=ON_TPU),
    # ---- jax_call: how a call or an array was used -------------------------------------------
    Case("tpu_donation_unused", "jax_call", None, "unused_donation", J + """
total = jax.jit(lambda x: x.sum(), donate_argnums=0)
print(total(jnp.ones((1024,), jnp.float32)))
""", env=ON_TPU, no_line=True),
    Case("tpu_debug_nans", "jax_call", "log", "find_nan", J + """
jax.config.update("jax_debug_nans", True)

@jax.jit
def log_prob(x):
    return jnp.log(x)  #!

print(log_prob(jnp.array([1.0, -1.0])))
""", env=ON_TPU),
    # ---- sharding: a mesh the one chip cannot hold --------------------------------------------
    Case("tpu_mesh_more_than_devices", "sharding", None, "bigger_device", J + """
mesh = jax.make_mesh((4,), ("data",))  #!
print(mesh)
""", env=ON_TPU),
    # ---- backend_startup: the chip held by another process -----------------------------------
    Case("tpu_held_by_another_process", "backend_startup", None, "release_device", J + """
import subprocess
import sys

print(jax.devices())
other = subprocess.run(
    [sys.executable, "-c", "import jax; print(jax.devices())"],
    capture_output=True, text=True, timeout=60,
)
print(other.stdout, other.stderr, sep="", end="")
""", env=ON_TPU, no_line=True),
]
# fmt: on


def _keep_python_path() -> None:
    """The machinery runs each case without ``PYTHONPATH`` (a CPU machine's jax is installed);
    a TPU host's jax may be found through it, so the child keeps this process's."""
    run = MADE.subprocess.run
    python_path = os.environ.get("PYTHONPATH")

    def run_keeping_path(*args: Any, **kwargs: Any) -> Any:
        if python_path:
            kwargs["env"] = {**kwargs["env"], "PYTHONPATH": python_path}
        return run(*args, **kwargs)

    MADE.subprocess = SimpleNamespace(
        run=run_keeping_path, PIPE=subprocess.PIPE, STDOUT=subprocess.STDOUT
    )


def neutral_python_path(name: str) -> None:
    """The log with the host's ``PYTHONPATH`` folders (where its jax is) as site-packages."""
    path = HERE / f"{name}.log"
    log = path.read_text()
    for folder in filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep)):
        log = log.replace(folder.rstrip("/"), MADE.NEUTRAL_SITE)
    path.write_text(log)


def decide_device(name: str) -> None:
    """Set the truth's device from what the log shows (:data:`TPU_SIGN`)."""
    meta_path = HERE / f"{name}.json"
    meta = json.loads(meta_path.read_text())
    log = (HERE / f"{name}.log").read_text()
    meta["truth"]["device"] = "tpu" if TPU_SIGN.search(log) else None
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--only", nargs="*", default=None, help="remake only these cases")
    parser.add_argument(
        "--truths", action="store_true", help="rewrite the truths only (the logs as they are)"
    )
    args = parser.parse_args(argv)
    MADE.HERE = HERE  # the machinery writes beside this file
    chosen = [c for c in CASES if args.only is None or c.name in args.only]
    if args.truths:
        for case in chosen:
            exit_code = json.loads((HERE / f"{case.name}.json").read_text())["exit_code"]
            MADE.write_truth(case, exit_code)
            decide_device(case.name)
        return 0
    _keep_python_path()
    for case in chosen:
        workdir = Path(tempfile.mkdtemp(prefix="made_errors_"))
        try:
            MADE.make(case, workdir)
            neutral_python_path(case.name)
            decide_device(case.name)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
