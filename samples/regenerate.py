"""Regenerate ``samples/hlo/``: the HLO text XLA produces for the sample programs.

Each sample script runs in its own interpreter with ``XLA_FLAGS=--xla_dump_to=<tmp>
--xla_dump_hlo_as_text``, exactly as a user would dump it, and the dump's before- and
after-optimization HLO text of the sample's module is copied here:

    samples/hlo/transformer_train.before_optimizations.txt  /  .after_optimizations.txt
    samples/hlo/keras_cnn.{before,after}_optimizations.txt
    samples/hlo/fusion_refactor_fused.{before,after}_optimizations.txt
    samples/hlo/fusion_refactor_split.{before,after}_optimizations.txt
    samples/hlo/MANIFEST.json   (jax/jaxlib/TensorFlow versions, module names, sizes)

The text is XLA's, byte for byte, except that file paths in metadata are made machine-neutral:
the repository root is dropped (``samples/transformer_train.py``) and the site-packages folder
becomes ``/usr/lib/python3/site-packages/``. Usage::

    python samples/regenerate.py                   # rewrite samples/hlo/
    python samples/regenerate.py --only keras_cnn  # just some samples
    python samples/regenerate.py --out /tmp/hlo    # somewhere else
    python samples/regenerate.py --big /tmp/big.txt  # a deep transformer (not committed)

``--big`` writes the optimized HLO of an 11-layer, width-256 transformer training step (about
3.6 MB, 27k instructions), the input of the parser benchmark; ``--big-layers 48`` gives a 54 MB,
400k-instruction stress test that takes minutes to compile.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

SAMPLES_DIR = Path(__file__).resolve().parent
ROOT = SAMPLES_DIR.parent
HLO_DIR = SAMPLES_DIR / "hlo"

#: Committed files must stay small enough to read and diff.
MAX_COMMITTED_BYTES = 300_000

NEUTRAL_SITE_PACKAGES = "/usr/lib/python3/site-packages/"

STAGES = {
    "before_optimizations": "before_optimizations",
    "after_optimizations": "cpu_after_optimizations",
}


@dataclass(frozen=True, slots=True)
class Sample:
    """One committed module: which script produces it and how to find it in the dump."""

    stem: str  # output name in samples/hlo/
    script: str  # file in samples/
    module: str  # regular expression for the module name in the dump
    args: tuple[str, ...] = ()

    @property
    def source(self) -> str:
        return f"samples/{self.script}"


SAMPLES: tuple[Sample, ...] = (
    Sample("transformer_train", "transformer_train.py", r"jit_train_step"),
    Sample("keras_cnn", "keras_cnn.py", r"a_inference_train_step_\d+__.*"),
    Sample("fusion_refactor_fused", "fusion_refactor.py", r"jit_fused"),
    Sample("fusion_refactor_split", "fusion_refactor.py", r"jit_split"),
)

#: ``--big``: depth and width of the benchmark transformer. XLA:CPU's optimized HLO of this step
#: grows faster than linearly with depth (fusion duplicates the cheap elementwise backward chain
#: into many kernels): 11 layers give about 3.6 MB and 27k instructions; 48 layers give 54 MB and
#: 400k instructions and take minutes to compile.
BIG_LAYERS = 11
BIG_WIDTH = 256

_DUMP_FILE = re.compile(r"module_(\d+)\.(.+)\.(before_optimizations|cpu_after_optimizations)\.txt")


class RegenerateError(RuntimeError):
    """A sample failed to run or its module is missing from the dump."""


def run_with_dump(script: str, args: tuple[str, ...], dump_dir: Path, module_re: str) -> None:
    """Run ``samples/<script>`` in a fresh interpreter with XLA dumping HLO text to ``dump_dir``."""
    env = dict(os.environ)
    env["XLA_FLAGS"] = " ".join(
        [
            env.get("XLA_FLAGS", ""),
            f"--xla_dump_to={dump_dir}",
            "--xla_dump_hlo_as_text",
            f"--xla_dump_hlo_module_re={module_re}",
        ]  # only our modules: a dump also holds LLVM IR
    ).strip()
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    env.setdefault("JAX_PLATFORMS", "cpu")
    command = [sys.executable, str(SAMPLES_DIR / script), *args]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-20:])
        raise RegenerateError(f"{' '.join(command)} failed (exit {done.returncode}):\n{tail}")


def find_module(dump_dir: Path, module_re: str) -> dict[str, Path]:
    """The before/after files of the last module in ``dump_dir`` matching ``module_re``."""
    found: dict[int, dict[str, Path]] = {}
    for path in dump_dir.iterdir():
        match = _DUMP_FILE.fullmatch(path.name)
        if match and re.fullmatch(module_re, match.group(2)):
            found.setdefault(int(match.group(1)), {})[match.group(3)] = path
    complete = [files for _, files in sorted(found.items()) if len(files) == 2]
    if not complete:
        names = sorted(
            p.name for p in dump_dir.iterdir() if p.name.endswith("before_optimizations.txt")
        )
        raise RegenerateError(f"no module matching {module_re!r} in the dump; it has: {names}")
    return complete[-1]


def site_packages_dirs() -> list[str]:
    paths = {sysconfig.get_paths()[key] for key in ("purelib", "platlib")}
    return sorted((p.rstrip("/") + "/" for p in paths), key=len, reverse=True)


def neutralise_paths(text: str) -> str:
    """Make file paths in metadata machine-neutral (see the module docstring)."""
    for prefix in site_packages_dirs():
        text = text.replace(prefix, NEUTRAL_SITE_PACKAGES)
    return text.replace(str(ROOT) + "/", "")


def module_name(text: str) -> str:
    match = re.match(r"HloModule\s+([^\s,]+)", text)
    return match.group(1) if match else ""


def versions() -> dict[str, str]:
    found = {}
    for package in ("jax", "jaxlib", "tensorflow", "tensorflow-cpu", "keras"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            found[package] = metadata.version(package)
    return found


def regenerate(
    samples: tuple[Sample, ...], out_dir: Path, *, size_limit: int | None = MAX_COMMITTED_BYTES
) -> dict:
    """Run each sample once, copy its modules' HLO text to ``out_dir``, return the manifest."""
    out_dir.mkdir(parents=True, exist_ok=True)
    manifest: dict = {"versions": versions(), "samples": {}}
    by_run: dict[tuple[str, tuple[str, ...]], list[Sample]] = {}
    for sample in samples:
        by_run.setdefault((sample.script, sample.args), []).append(sample)
    for (script, args), group in by_run.items():
        with tempfile.TemporaryDirectory(prefix="hloscope-samples-") as tmp:
            dump_dir = Path(tmp)
            print(f"running {script} {' '.join(args)}".rstrip(), file=sys.stderr)
            run_with_dump(script, args, dump_dir, "|".join(f"(?:{s.module})" for s in group))
            for sample in group:
                manifest["samples"][sample.stem] = write_sample(
                    sample, find_module(dump_dir, sample.module), out_dir, size_limit
                )
    return manifest


def write_sample(
    sample: Sample, files: dict[str, Path], out_dir: Path, size_limit: int | None
) -> dict:
    entry: dict = {"source": sample.source, "args": list(sample.args)}
    for stage, dump_stage in STAGES.items():
        text = neutralise_paths(files[dump_stage].read_text())
        size = len(text.encode())
        if size_limit is not None and size > size_limit:
            raise RegenerateError(
                f"{sample.stem}.{stage}.txt is {size} bytes, over the {size_limit}-byte limit"
            )
        (out_dir / f"{sample.stem}.{stage}.txt").write_text(text)
        entry["module"] = module_name(text)
        entry[f"{stage}_bytes"] = size
    return entry


def write_manifest(manifest: dict, out_dir: Path) -> None:
    path = out_dir / "MANIFEST.json"
    if path.exists():  # --only: keep the other samples' entries
        old = json.loads(path.read_text())
        manifest["samples"] = {**old.get("samples", {}), **manifest["samples"]}
    manifest["samples"] = dict(sorted(manifest["samples"].items()))
    path.write_text(json.dumps(manifest, indent=2) + "\n")


def big_sample(layers: int = BIG_LAYERS, width: int = BIG_WIDTH) -> Sample:
    args = ("--layers", str(layers), "--width", str(width))
    return Sample("transformer_train_big", "transformer_train.py", r"jit_train_step", args)


def write_big(path: Path, layers: int = BIG_LAYERS, width: int = BIG_WIDTH) -> None:
    """A deep transformer's optimized HLO, for the parser benchmark (not committed)."""
    big = big_sample(layers, width)
    with tempfile.TemporaryDirectory(prefix="hloscope-big-") as tmp:
        run_with_dump(big.script, big.args, Path(tmp), big.module)
        files = find_module(Path(tmp), big.module)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(neutralise_paths(files["cpu_after_optimizations"].read_text()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--out", type=Path, default=HLO_DIR, help="folder to write (default: samples/hlo)"
    )
    parser.add_argument(
        "--only", action="append", choices=[s.stem for s in SAMPLES], help="regenerate just these"
    )
    parser.add_argument(
        "--big", type=Path, metavar="PATH", help="write a deep transformer's optimized HLO to PATH"
    )
    parser.add_argument(
        "--big-layers",
        type=int,
        default=BIG_LAYERS,
        metavar="N",
        help=f"--big depth (default {BIG_LAYERS})",
    )
    parser.add_argument(
        "--big-width",
        type=int,
        default=BIG_WIDTH,
        metavar="W",
        help=f"--big width (default {BIG_WIDTH})",
    )
    options = parser.parse_args(argv)
    try:
        if options.big is not None:
            write_big(options.big, options.big_layers, options.big_width)
            print(f"wrote {options.big} ({options.big.stat().st_size} bytes)")
            return 0
        chosen = tuple(s for s in SAMPLES if not options.only or s.stem in options.only)
        manifest = regenerate(chosen, options.out)
        write_manifest(manifest, options.out)
    except RegenerateError as error:
        print(f"regenerate: error: {error}", file=sys.stderr)
        return 1
    for stem, entry in manifest["samples"].items():
        print(
            f"{stem}: {entry['module'][:60]} ({entry['after_optimizations_bytes']} bytes after "
            "optimizations)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
