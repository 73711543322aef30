"""Ask XLA:TPU itself which ops it refuses: candidate ops compiled alone, in one child process.

A static check guesses (a float64 matmul "unsupported on TPU"; the v5e compiles it). This
module asks the compiler instead: :func:`confirm_on_tpu` hands a :class:`ConfirmJob` to one
child process (``python -m hloscope.capture.tpu_confirm JOB OUT``) with libtpu's
environment set there alone (:meth:`XlaTpu.child_environment`; libtpu never loads in the
caller's process), and the child compiles, for the job's chip, with XLA:TPU:

* each :class:`OpCandidate` **alone**: an HLO module holding just the op (``hlo``), or one
  equation of the function's jaxpr (``primitive``, its ``use``-th equation, counted as
  :mod:`hloscope.backends.jax_lowering` counts them) applied to arguments of its own shapes and
  dtypes;
* the **whole program** (a ``SCRIPT.py:FUNCTION``, imported in the child with its example
  arguments placed on the chip, or an HLO module text), with the primitives named in
  ``stand_ins`` lowered to zeros so that an op already known to be refused does not hide the
  next one. Its refusal names an op a static scan may have missed.

The answer, a :class:`ConfirmResult`, holds each compile's :class:`CompileVerdict`: compiled,
or refused with XLA:TPU's own first line. Verdicts of single ops are cached per (op, device,
jax and libtpu versions) under the hloscope cache (``tpu-ops/``): a second check of the same
program compiles only the whole program again. The job and its answers are records of
:mod:`hloscope.backends.confirm_records`, where the check that plans and reads them finds them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..backends import XlaTpu, not_compiled_for
from ..backends.confirm_records import CompileVerdict, ConfirmJob, ConfirmResult, OpCandidate
from ..backends.errors import CaptureError
from ..backends.placement import place_arguments
from ..backends.traceable import traceable
from ..devices import DeviceSpec, parse_device

__all__ = ["OpCandidate", "ConfirmJob", "CompileVerdict", "ConfirmResult", "confirm_on_tpu"]

# Part of each cache key: a new way of wording verdicts must not read the old ones.
_VERDICT_FORMAT = 4
# Lines of a JAX or XLA message that say where, not what.
_NOISE = ("Suspected Python Code Location", "<no source information>", "See https://")
# Exception classes whose message already starts with XLA's status (INVALID_ARGUMENT: ...).
_STATUS_ERRORS = ("JaxRuntimeError", "XlaRuntimeError")
# A refusal longer than this is cut (XLA quotes the whole instruction, attributes and all);
# XLA:TPU's VMEM refusal says what the window is near its 500th character.
_LONGEST = 640
# Where a C++ stack trace starts inside a message line (``...; got f64[8,8]:     @  0x7f...``).
_STACK = re.compile(r":?\s+@\s+0x[0-9a-f]+")


# ---- the parent's side --------------------------------------------------------------------------


def confirm_on_tpu(job: ConfirmJob, *, timeout: float = 900.0) -> ConfirmResult:
    """Run ``job`` in a child process with XLA:TPU (libtpu must be installed: see
    :meth:`XlaTpu.unavailable`); one line of :class:`CaptureError` when the child fails for a
    reason of its own (a script that does not import there, libtpu that does not load)."""
    from ..backends import BackendName, backend_for

    spec = parse_device(job.device)
    tpu = backend_for(spec)  # the registry's compiler for the chip: XLA:TPU, or none here
    if tpu.name != BackendName.XLA_TPU:
        raise CaptureError(not_compiled_for(spec) or f"{spec} compiles by {tpu.words} here")
    problem = tpu.unavailable()
    if problem is not None:
        raise CaptureError(problem)
    env = tpu.child_environment(os.environ)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    with tempfile.TemporaryDirectory(prefix="hloscope-confirm-") as folder:
        orders, answer = Path(folder, "job.json"), Path(folder, "result.json")
        orders.write_text(json.dumps(job.to_dict()))
        command = [sys.executable, "-m", __name__, str(orders), str(answer)]
        try:
            done = subprocess.run(
                command, env=env, capture_output=True, text=True, timeout=timeout, check=False
            )
        except subprocess.TimeoutExpired:
            raise CaptureError(f"XLA:TPU ({spec}) did not answer within {timeout:g} s") from None
        if done.returncode != 0 or not answer.is_file():
            raise CaptureError(f"XLA:TPU ({spec}) could not check the program: {_last(done)}")
        return ConfirmResult.from_dict(json.loads(answer.read_text()))


def _last(done: subprocess.CompletedProcess[str]) -> str:
    lines = [line.strip() for line in (done.stderr or "").splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith(("W0", "I0", "E0"))] or lines
    return lines[-1][:500] if lines else f"exit status {done.returncode}"


# ---- the child's side ---------------------------------------------------------------------------


def compiler_words(error: BaseException) -> str:
    """XLA:TPU's (or JAX's) refusal in one line: ``INVALID_ARGUMENT: ... Unexpected operand
    type for FFT: c128[256]{0}``, ``NotImplementedError: MLIR translation rule for primitive
    'eig' not found for platform tpu``."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    lines = [line for line in lines if not line.startswith(_NOISE)] or lines
    first = _STACK.split(lines[0])[0].split(" [xla::")[0].strip() if lines else ""
    if len(first) > _LONGEST:  # a message that quotes a whole HLO instruction
        first = first[: _LONGEST - 1].rstrip() + "\u2026"
    kind = type(error).__name__
    if kind in _STATUS_ERRORS and first:
        return first
    return f"{kind}: {first}" if first else kind


class _Child:
    """The child's state: the topology's device, the versions, the loaded function."""

    def __init__(self, job: ConfirmJob) -> None:
        from ..backends.record import package_versions

        self.job = job
        self.spec: DeviceSpec = parse_device(job.device)
        self.tpu = XlaTpu(self.spec)
        self.devices = self.tpu.topology_devices()
        self.device = self.devices[0]
        self.versions = package_versions("jax", "jaxlib", "libtpu")
        self.traced: Any = None
        self.error: BaseException | None = None

    # -- the function ---------------------------------------------------------------------------

    def load(self) -> None:
        """Import the script, place the example arguments on the slice, trace the function
        (an error is kept: the whole compile reports it)."""

        from .script_loader import load_function

        assert self.job.script is not None and self.job.function is not None
        sys.path.insert(0, os.path.dirname(os.path.abspath(self.job.script)))
        loaded = load_function(self.job.script, self.job.function)
        args, kwargs = place_arguments(loaded.args, loaded.kwargs, self.devices, self.spec, None)
        fn = loaded.function
        try:
            jitted, args, kwargs = traceable(fn, args, kwargs)
            self.traced = jitted.trace(*args, **kwargs)
        except Exception as error:  # noqa: BLE001 - the program's own error is an answer
            self.error = error

    def whole(self) -> CompileVerdict | None:
        if self.job.hlo is not None:
            return self._verdict(lambda: _compile_hlo(self.job.hlo or "", self.device))
        if self.job.script is None:
            return None
        if self.error is not None:
            return CompileVerdict(False, compiler_words(self.error))
        return self._verdict(self._compile_whole)

    def _compile_whole(self) -> None:
        from ..backends import lower_for_platform
        from ..backends.jax_lowering import equations_with_callers

        named = set(self.job.stand_ins)
        primitives = {
            str(e.primitive.name): e.primitive
            for e, _ in equations_with_callers(self.traced.jaxpr)
            if str(e.primitive.name) in named
        }
        if primitives:
            lowered = lower_for_platform(self.traced, "tpu", list(primitives.values()))
        else:
            lowered = self.traced.lower()
        lowered.compile()

    # -- single ops -----------------------------------------------------------------------------

    def op(self, candidate: OpCandidate) -> CompileVerdict:
        if candidate.hlo is not None:
            text = candidate.hlo
            return self._cached(text, lambda: _compile_hlo(text, self.device))
        equation = self._equation(candidate)
        if equation is None:
            return CompileVerdict(True, None) if self.traced is not None else self._traceless()
        signature = _equation_signature(equation)
        return self._cached(signature, lambda: _compile_equation(equation, self.device))

    def _traceless(self) -> CompileVerdict:
        words = compiler_words(self.error) if self.error is not None else "nothing to compile"
        return CompileVerdict(False, words)

    def _equation(self, candidate: OpCandidate) -> Any:
        from ..backends.jax_lowering import equations_with_callers

        if self.traced is None:
            return None
        uses = [
            e
            for e, _ in equations_with_callers(self.traced.jaxpr)
            if str(e.primitive.name) == candidate.primitive
        ]
        return uses[candidate.use - 1] if 0 < candidate.use <= len(uses) else None

    def _cached(self, signature: str | None, compile_: Any) -> CompileVerdict:
        path = self._cache_path(signature)
        if path is not None:
            with contextlib.suppress(OSError, ValueError, TypeError):
                return CompileVerdict(**json.loads(path.read_text()))
        verdict = self._verdict(compile_)
        if path is not None:
            with contextlib.suppress(OSError):
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(f".{os.getpid()}.tmp")
                tmp.write_text(json.dumps(asdict(verdict)))
                os.replace(tmp, path)
        return verdict

    def _cache_path(self, signature: str | None) -> Path | None:
        if signature is None:
            return None
        from .cache import TPU_OPS_FOLDER, cache_root

        key = json.dumps([_VERDICT_FORMAT, signature, str(self.spec), self.versions])
        return cache_root() / TPU_OPS_FOLDER / f"{hashlib.sha256(key.encode()).hexdigest()}.json"

    @staticmethod
    def _verdict(compile_: Any) -> CompileVerdict:
        try:
            compile_()
        except Exception as error:  # noqa: BLE001 - XLA's refusal is the answer
            return CompileVerdict(False, compiler_words(error))
        return CompileVerdict(True, None)


def _compile_hlo(text: str, device: Any) -> None:
    from ..backends import compile_only

    compile_only(text, device)


def _compile_equation(equation: Any, device: Any) -> None:
    """The equation's primitive alone, jitted, on arguments of its operands' shapes and
    dtypes placed on ``device``."""
    import jax

    sharding = jax.sharding.SingleDeviceSharding(device)
    specs = [
        jax.ShapeDtypeStruct(v.aval.shape, v.aval.dtype, sharding=sharding) for v in equation.invars
    ]

    def alone(*operands: Any) -> Any:
        return equation.primitive.bind(*operands, **equation.params)

    jax.jit(alone).lower(*specs).compile()


def _equation_signature(equation: Any) -> str | None:
    """What decides whether the equation compiles: primitive, operand types, parameters;
    ``None`` (not cached) when a parameter prints as an object's address."""
    operands = [str(v.aval) for v in equation.invars]
    params = repr(sorted((k, repr(v)) for k, v in equation.params.items()))
    if " at 0x" in params:
        return None
    return f"{equation.primitive.name}|{operands}|{params}"


def run_job(job: ConfirmJob) -> ConfirmResult:
    """Compile what ``job`` names, in this process (which must be allowed to load libtpu)."""
    child = _Child(job)
    if job.script is not None:
        child.load()
    ops = {candidate.key: child.op(candidate) for candidate in job.candidates}
    return ConfirmResult(
        compiled_for=str(child.device.device_kind),
        versions=child.versions,
        whole=child.whole(),
        ops=ops,
    )


def main(argv: Sequence[str] | None = None) -> int:
    orders, answer = list(sys.argv[1:] if argv is None else argv)
    job = ConfirmJob.from_dict(json.loads(Path(orders).read_text()))
    result = run_job(job)
    data = {
        "compiled_for": result.compiled_for,
        "versions": result.versions,
        "whole": asdict(result.whole) if result.whole is not None else None,
        "ops": {key: asdict(value) for key, value in result.ops.items()},
    }
    Path(answer).write_text(json.dumps(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
