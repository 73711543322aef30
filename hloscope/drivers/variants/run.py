"""Compiling the variants: each in a child process of its own, as many at once as there are
cores, each result cached like a capture (the Python face of ``hloscope try``).

The compiler is the registry's for the device
(:func:`~hloscope.backends.variant_compile.slice_row`: XLA:TPU for a TPU chip or slice, unless
a registered backend that lays out slices claims it first). A child (:mod:`._child`) gets that
backend's environment for the slice (libtpu's: :meth:`~hloscope.backends.XlaTpu.child_environment`),
the row's label, and the variant's flags in
``LIBTPU_INIT_ARGS`` (read once, when libtpu loads: one process per flag set). Its result is
kept under the cache's ``try`` folder, keyed as a ``SCRIPT.py:FUNCTION`` capture is
(:func:`~hloscope.capture.target.target_cache_key`: the script's content, the function, the
versions, the environment) plus the device, the variant's changes and flags, the backend's
label and libtpu's version; it is reused while the script's own imported modules hash as they did.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...analysis.flag_audit import flag_audit
from ...analysis.variants import Goal, TryResult, VariantOutcome, judge
from ...capture.cache import TRY_FOLDER
from ...errors import UsageProblem
from .plan import BASELINE, Variant, VariantOptions, audit_variants, plan_variants

if TYPE_CHECKING:  # pragma: no cover
    from ...backends import BackendRow

__all__ = ["try_variants", "compile_variants", "TRY_CACHE", "flags_to_audit", "function_target"]

#: The folder of the cache root the results live in (``cache ls`` lists it, ``clear`` empties it).
TRY_CACHE = TRY_FOLDER
#: Lines of a compile's log that ``try`` keeps: libtpu's word for a flag it does not know, the
#: SPMD partitioner's warnings and sharding propagation's (GSPMD's deprecation, Shardy turned
#: off for a module with GSPMD's shardings).
_LOG_WORTH = re.compile(
    r"Unknown command line flag|Unknown flags? in XLA_FLAGS|Involuntary full rematerialization|"
    r"ERROR: Illegal value|[Ss]harding propagation|Module has GSPMD attrs"
)
#: How long one compile may take.
TIMEOUT_S = 900.0


@dataclass(frozen=True, slots=True)
class _Job:
    variant: Variant
    folder: Path  # the cache entry
    key: str


def cores() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def function_target(target: str) -> tuple[Path, str]:
    """The script and function of ``SCRIPT.py:FUNCTION`` (a usage error for anything else)."""
    from ...capture.target import check_target_exists, is_function_spec

    check_target_exists(target)
    if not is_function_spec(target):
        raise UsageProblem(f"{target}: try compiles a function: give SCRIPT.py:FUNCTION")
    script, _, function = target.rpartition(":")
    return Path(script), function


def _device(device: Any) -> Any:
    """The device spec of ``device``, checked: the registry gives it a backend that compiles
    for a slice here (:func:`~hloscope.backends.variant_compile.slice_row`)."""
    from ...backends.variant_compile import slice_row
    from ...devices import parse_device

    if device is None:
        raise UsageProblem("try compiles for a TPU chip or slice: give --device (tpu-v5e:2x2)")
    spec = parse_device(str(device))
    slice_row(spec)
    return spec


def _key(
    script: Path,
    function: str,
    device: str,
    variant: Variant,
    base_flags: Sequence[str],
    row: BackendRow,
) -> str:
    from ...backends.record import package_versions
    from ...capture.target import target_cache_key

    compile_for = {
        "try": {
            "device": device,
            "changes": variant.changes,
            "flags": [*(f for f in base_flags if f not in variant.without), *variant.flags],
        },
        "compiler": package_versions("libtpu", "jax", "jaxlib"),
        # Another backend's compile of the same variant is another entry.
        "backend": str(row.label),
    }
    return target_cache_key(script, (), function, compile_for)


def _cached(folder: Path) -> dict[str, Any] | None:
    from ...capture.cache import is_fresh

    try:
        result = json.loads((folder / "result.json").read_text())
    except (OSError, ValueError):
        return None
    return result if is_fresh(result) else None


def _environment(spec: Any, row: BackendRow, flags: Sequence[str]) -> dict[str, str]:
    from ...capture.prestart import child_env

    # hloscope importable as this process has it, and JAX's full source locations.
    env = row.make(spec, None).child_environment(child_env(None))
    tpu = [f for f in flags if _is_libtpu_flag(f)]
    xla = [f for f in flags if not _is_libtpu_flag(f)]
    env["LIBTPU_INIT_ARGS"] = " ".join(tpu)
    env["XLA_FLAGS"] = " ".join([env.get("XLA_FLAGS", ""), *xla]).strip()
    # libtpu's warnings (the SPMD partitioner's) on stderr rather than in /tmp/tpu_logs.
    env.setdefault("TPU_STDERR_LOG_LEVEL", "1")
    env.setdefault("TPU_MIN_LOG_LEVEL", "1")
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
    return env


#: Flags libtpu reads itself (``LIBTPU_INIT_ARGS``); XLA's own (``xla_dump_*``,
#: ``xla_disable_hlo_passes``...) are read by jaxlib from ``XLA_FLAGS`` and handed to the
#: compile in its options.
_LIBTPU_PREFIXES = (
    "xla_tpu_",
    "xla_jf_",
    "xla_sc_",
    "xla_mosaic_",
    "xla_enable_async_",
    "megascale_",
)


def _is_libtpu_flag(flag: str) -> bool:
    return flag.lstrip("-").startswith(_LIBTPU_PREFIXES)


def _run_child(
    job: _Job, script: Path, function: str, spec: Any, row: BackendRow, flags: Sequence[str]
) -> dict[str, Any]:
    job.folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{job.folder.name}.", dir=job.folder.parent))
    try:
        orders = {
            "script": str(script.resolve()),
            "function": function,
            "device": str(spec),
            "backend": str(row.label),
            "changes": job.variant.changes,
            "out": str(work),
        }
        (work / "orders.json").write_text(json.dumps(orders))
        # A compile past the timeout is said as no result (the log's last line).
        with (
            open(work / "log.txt", "wb") as log,
            contextlib.suppress(subprocess.TimeoutExpired),
        ):
            subprocess.run(
                [sys.executable, "-m", "hloscope.drivers.variants._child", "orders.json"],
                cwd=work,
                env=_environment(spec, row, flags),
                stdout=log,
                stderr=subprocess.STDOUT,
                timeout=TIMEOUT_S,
                check=False,
            )
        try:
            result = json.loads((work / "result.json").read_text())
        except (OSError, ValueError):
            # The child died before its result (libtpu stops at load on a flag it does not
            # know): its log's words say why.
            log_text = (work / "log.txt").read_text(errors="replace")
            said = _worth_saying(log_text) or log_text.strip().splitlines()[-1:]
            error = said[0] if said else "the compile child died without a word"
            return {"compiled": False, "error": error, "log": _worth_saying(log_text)}
        log_text = (work / "log.txt").read_text(errors="replace")
        result["log"] = _worth_saying(log_text)
        (work / "result.json").write_text(json.dumps(result, default=str))
        if job.folder.exists():
            shutil.rmtree(job.folder, ignore_errors=True)
        # Another run may have written the same entry first: it holds the same compile.
        with contextlib.suppress(OSError):
            os.replace(work, job.folder)
        return result
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _worth_saying(log: str) -> list[str]:
    lines = []
    for line in log.splitlines():
        if _LOG_WORTH.search(line):
            text = " ".join(line.split())
            if text not in lines:
                lines.append(text)
    return lines


def _outcome(variant: Variant, result: dict[str, Any], cached: bool) -> VariantOutcome:
    fields = {k: v for k, v in result.items() if k not in ("name", "settings", "cached")}
    outcome = VariantOutcome.from_dict(fields)
    outcome.name, outcome.settings, outcome.cached = variant.name, variant.settings, cached
    return outcome


def compile_variants(
    target: str,
    device: Any,
    variants: Sequence[Variant],
    *,
    flags: Sequence[str] = (),
    jobs: int | None = None,
    refresh: bool = False,
    on_done: Callable[[VariantOutcome], object] | None = None,
) -> list[VariantOutcome]:
    """Compile each of ``variants`` of ``target`` for ``device`` (a TPU chip or slice) in
    child processes, ``jobs`` at a time (default: the cores, at most one per variant), each
    with ``flags`` (less its ``without``, plus its own) in ``LIBTPU_INIT_ARGS``."""
    from ...backends.variant_compile import slice_row
    from ...capture.cache import cache_root

    script, function = function_target(target)
    spec = _device(device)
    row = slice_row(spec)

    root = cache_root() / TRY_CACHE
    stem = re.sub(r"[^A-Za-z0-9_-]", "_", script.stem)
    todo: list[_Job] = []
    for variant in variants:
        key = _key(script, function, str(spec), variant, flags, row)
        todo.append(_Job(variant, root / f"{stem}.{function}-{key[:24]}", key))
    outcomes: dict[int, VariantOutcome] = {}

    def one(index: int) -> VariantOutcome:
        job = todo[index]
        result = None if refresh else _cached(job.folder)
        cached = result is not None
        if result is not None:
            # The log's lines worth saying as this version of try reads them.
            with contextlib.suppress(OSError):
                log_text = (job.folder / "log.txt").read_text(errors="replace")
                result["log"] = _worth_saying(log_text)
        if result is None:
            own = [*(f for f in flags if f not in job.variant.without), *job.variant.flags]
            result = _run_child(job, script, function, spec, row, own)
        outcome = _outcome(job.variant, result, cached)
        kept = job.folder / "optimized.hlo.txt"
        outcome.module_file = str(kept) if kept.is_file() else None
        if on_done is not None:
            on_done(outcome)
        return outcome

    width = max(1, min(jobs or cores(), len(todo)))
    with ThreadPoolExecutor(max_workers=width) as pool:
        for index, outcome in zip(range(len(todo)), pool.map(one, range(len(todo)))):
            outcomes[index] = outcome
    return [outcomes[i] for i in range(len(todo))]


def flags_to_audit(source: str | None) -> list[str]:
    """The flags ``--audit-flags`` takes out one at a time: those of a file (one or more a
    line, ``#`` comments), else those of ``XLA_FLAGS`` and ``LIBTPU_INIT_ARGS``."""
    if source:
        try:
            text = Path(source).read_text()
        except OSError as error:
            raise UsageProblem(f"--audit-flags {source}: {error.strerror or error}") from None
        text = "\n".join(line.partition("#")[0] for line in text.splitlines())
    else:
        text = " ".join(os.environ.get(v, "") for v in ("XLA_FLAGS", "LIBTPU_INIT_ARGS"))
    flags = [f for f in text.split() if f.startswith("--")]
    flags = [f for f in flags if "device_count" not in f]  # hloscope's own, for the CPU
    if not flags:
        where = source or "XLA_FLAGS and LIBTPU_INIT_ARGS"
        raise UsageProblem(f"--audit-flags: no flags in {where}")
    return list(dict.fromkeys(flags))


def try_variants(
    target: str,
    device: Any,
    options: VariantOptions | None = None,
    *,
    goal: Goal | str = Goal.FIT,
    audit: list[str] | None = None,
    jobs: int | None = None,
    refresh: bool = False,
    on_done: Callable[[VariantOutcome], object] | None = None,
) -> TryResult:
    """Compile ``target`` (``SCRIPT.py:FUNCTION``) for ``device`` as the script gives it and
    as each variant of ``options`` changes it, with XLA:TPU; judge and rank them by ``goal``
    (the Python face of ``hloscope try``); ``compiled_by`` names the registry's backend that
    compiled them (:func:`~hloscope.backends.variant_compile.slice_row`)::

        result = hloscope.try_variants(
            "train.py:step", "tpu-v5e:2x2",
            VariantOptions(shard=("dp", "fsdp"), remat=("nothing_saveable@block",)),
        )
        result.winner.name, result.change()

    ``audit``: flags compiled with (the baseline) and, one variant each, without.
    """
    options = options or VariantOptions()
    spec = _device(device)
    function_target(target)
    unknown: dict[str, str] = {}
    if audit:
        audit, unknown = _known_flags(target, spec, audit, jobs, refresh)
        variants = audit_variants(audit)
    else:
        variants = _planned(target, spec, options, jobs, refresh)
    if not variants and not unknown:
        raise UsageProblem(
            "try: name variants (--mesh, --meshes all, --shard, --remat, --donate, --cast, "
            "--flags, --audit-flags)"
        )
    base = Variant(BASELINE, {})
    started = time.perf_counter()
    everything = compile_variants(
        target,
        spec,
        [base, *variants],
        flags=audit or (),
        jobs=jobs,
        refresh=refresh,
        on_done=on_done,
    )
    took = time.perf_counter() - started
    result = judge(target, spec, everything[0], everything[1:], goal)
    result.compiled_by = _compiler_words(spec)
    if audit is not None:
        result.audit = flag_audit(result.baseline, result.variants, unknown)
        result.notes += [verdict.line() for verdict in result.audit]
    result.notes.append(f"{len(everything)} compiles in {took:.1f} s")
    return result


def _compiler_words(spec: Any) -> str:
    from ...backends.variant_compile import slice_row

    return slice_row(spec).words


def _known_flags(
    target: str, spec: Any, flags: Sequence[str], jobs: int | None, refresh: bool
) -> tuple[list[str], dict[str, str]]:
    """The flags libtpu knows, and each one it does not with its words: libtpu stops at
    load on a flag it does not know, so the baseline is compiled with all of them and again
    without those it named, until it loads."""
    known, unknown = list(flags), {}
    while known:
        (base,) = compile_variants(
            target, spec, [Variant(BASELINE, {})], flags=known, jobs=jobs, refresh=refresh
        )
        named = {
            flag: line
            for flag in known
            for line in [*base.log, base.error or ""]
            if _names_unknown(line, flag)
        }
        if not named:
            break
        unknown.update(named)
        known = [f for f in known if f not in named]
    return known, unknown


def _names_unknown(line: str, flag: str) -> bool:
    """Whether ``line`` is libtpu's or jaxlib's word that ``flag`` is unknown."""
    name = flag.lstrip("-").partition("=")[0]
    if "Unknown command line flag" in line:
        return f"'{name}'" in line
    if re.search(r"Unknown flags? in XLA_FLAGS", line):
        return re.search(rf"--{re.escape(name)}\b", line) is not None
    return False


def _planned(
    target: str, spec: Any, options: VariantOptions, jobs: int | None, refresh: bool
) -> list[Variant]:
    axes: list[str] = []
    if options.meshes_all and not options.shard:
        # The axes of the arguments' own mesh: the baseline's compile reads them (cached).
        (base,) = compile_variants(
            target, spec, [Variant(BASELINE, {})], jobs=jobs, refresh=refresh
        )
        axes = list(base.argument_axes)
    return plan_variants(options, spec.chips, axes)
