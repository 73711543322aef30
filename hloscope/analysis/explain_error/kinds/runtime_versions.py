"""The runtime did not start or could not read the program, because what is installed is not
of one release: JAX's Cloud TPU set-up, and StableHLO's versioned (VHLO) artifacts.

* ``UserWarning: cloud_tpu_init failed: KeyError('')`` (older JAX) and any exception raised
  from a frame of ``cloud_tpu_init.py``: JAX's set-up of a Cloud TPU VM (its metadata, its
  libtpu) failed before the TPU backend could start;
* ``failed to deserialize portable artifact using StableHLO_v1.7.5`` after ``in bytecode
  version 6 produced by: StableHLO_v2.0.0``, ``Failed to serialize StableHLO``, an op
  ``vhlo.X_vN`` that the reader does not know: a program written by a newer StableHLO than the
  compiler (jaxlib, a PJRT plugin, libtpu) that reads it.

Keyed on the file's and the dialect's names (``_tpu_init``, ``StableHLO``, ``vhlo.``), whatever
sentence carries them; the versions named go into the advice.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Platform, Reason
from ..advice import AdviceKind
from ..build import Kind, log_line, own_line
from ..device import platform_of
from ..functions import paragraph_end
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_OPENING = re.compile(
    r"_(?P<ctpu_failed>tpu_init failed: ?(?P<ctpu_msg>[^\n]{0,300}))"
    r'|_(?P<ctpu_frame>tpu_init\.py"?, line \d+)'
    r"|S(?P<shlo>tableHLO_v(?P<shlo_v>\d[\d.]*\d))"
    r"|F(?P<shlo_fail>ailed to (?:de)?serialize (?:StableHLO|portable artifact))"
    r"|v(?P<vhlo_op>hlo\.\w+_v\d+)"
    # No platform of that kind in this jaxlib: "Unknown backend: 'gpu' requested, but no
    # platforms that are instances of gpu are present. Platforms present are: cpu".
    r"|U(?P<unknown>nknown backend:? '?(?P<unknown_name>\w+)'?(?: requested)?)"
    # JAX's Cloud TPU set-up warning of a VM without transparent hugepages (v5e on).
    r"|T(?P<thp>ransparent hugepages are not enabled)"
    # libtpu asking the VM's metadata server for the TPU's topology and not getting it.
    r"|F(?P<tpu_metadata>ailed to get TPU metadata)(?:[^\n]{0,60}?variable (?P<md_var>\w+))?"
)
# The exception a traceback ends with: its last "SomeError: message" line.
_RAISED = re.compile(r"^(?P<cls>[A-Za-z_][\w.]*(?:Error|Exception)): ?(?P<msg>[^\n]*)$", re.M)
_PRODUCED = re.compile(r"produced by:? StableHLO_v(?P<v>\d[\d.]*\d)")
_READER = re.compile(r"using StableHLO_v(?P<v>\d[\d.]*\d)")
# A line that is a message (an exception, a log record, MLIR's "error:"/"note:").
_MESSAGE = re.compile(
    r"Error\b|error:|note:|Exception|^[EWF]\d{4} |: [EWF] \S+\]|failed|unregistered|unknown"
    r"|not supported|newer",
    re.I,
)

_CLOUD_TPU = (
    "JAX's Cloud TPU set-up failed ({why}), so the TPU backend did not start: on a TPU VM, "
    'install jax with the libtpu of its release (pip install -U "jax[tpu]") and check the VM '
    "reaches its metadata server; an old Colab/Kaggle TPU (a TPU Node, not a TPU VM) needs the "
    "jax release it supports; JAX_PLATFORMS=cpu skips the TPU meanwhile"
)
_VHLO = (
    "the program was serialized by {writer}, which the compiler reading it ({reader}) does "
    "not know: jaxlib, its PJRT plugin (jax-cuda12-plugin, libtpu) and jax are of different "
    'releases -- install them together (pip install -U "jax[cuda12]" or "jax[tpu]"); for a '
    "saved jax.export artifact, read it with a jax at least as new as the one that wrote it"
)


def _cloud_tpu(log: Log, m: re.Match[str]) -> tuple[str, str] | None:
    before = log.before_on_line(m.start())
    if not before.endswith("cloud"):
        return None
    if m["ctpu_failed"]:
        return "cloud_tpu_init", _CLOUD_TPU.format(why=m["ctpu_msg"].strip()[:160] or "no reason")
    window = log.text[m.end() : m.end() + 8192]
    raised = _RAISED.search(window)
    if raised is None or "_tpu_init.py" in window[: raised.start()]:
        return None  # no exception follows, or a deeper cloud_tpu_init frame reads it
    why = f"{raised['cls'].rsplit('.', 1)[-1]}: {raised['msg'][:140]}"
    return "cloud_tpu_init", _CLOUD_TPU.format(why=why)


def _stablehlo(log: Log, m: re.Match[str]) -> tuple[str, str] | None:
    start = log.line_start(m.start())
    line = log.text[start : log.line_end(m.start())]
    if not _MESSAGE.search(line):
        return None
    if _earlier_vhlo(log, max(0, start - 1024), start):
        return None  # the same message, read from its first line
    region = log.text[max(0, start - 1024) : min(len(log.text), paragraph_end(log, m.start()))]
    writer = _PRODUCED.search(region)
    reader = _READER.search(region)
    text = _VHLO.format(
        writer=f"StableHLO {writer['v']}" if writer else "a newer StableHLO",
        reader=f"StableHLO {reader['v']}" if reader else "an older one",
    )
    return "StableHLO", text


def _earlier_vhlo(log: Log, begin: int, end: int) -> bool:
    """Whether a StableHLO message (on a message's line) starts between ``begin`` and
    ``end``."""
    for found in _OPENING.finditer(log.text, begin, end):
        if found["shlo"] or found["shlo_fail"] or found["vhlo_op"]:
            first = log.line_start(found.start())
            if _MESSAGE.search(log.text, first, log.line_end(found.start())):
                return True
    return False


def _runtime_versions(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    if m["unknown"]:
        yield from _unknown_backend(log, m)
        return
    if m["thp"]:
        yield _hugepages(log, m)
        return
    if m["tpu_metadata"]:
        yield _tpu_metadata(log, m)
        return
    tpu = bool(m["ctpu_failed"] or m["ctpu_frame"])
    read = _cloud_tpu(log, m) if tpu else _stablehlo(log, m)
    if read is None:
        return
    op, text = read
    yield _KIND.failure(
        log,
        m.start(),
        op=op,
        advice=(text, AdviceKind.INSTALL),
        device="tpu" if tpu else None,
        platform=Platform.TPU if tpu else None,
    )


_PRESENT = re.compile(r"Platforms present are: (?P<present>[\w, ]+)")
_NO_PLATFORM = (
    "this jaxlib has no {name} platform{present}: install the build with it "
    '(pip install -U "jax[cuda12]" for NVIDIA GPUs, "jax[tpu]" on a TPU VM) and check '
    "jax.devices(); or ask for a platform it has"
)


_METADATA = (
    "libtpu could not read the TPU's topology{var} from the VM's metadata server: inside a "
    "container or on GKE without access to it, give the topology in the environment "
    "(TPU_SKIP_MDS_QUERY=1 with TPU_ACCELERATOR_TYPE, TPU_WORKER_ID and TPU_WORKER_HOSTNAMES) "
    "or let the container reach metadata.google.internal"
)
_METADATA_OFF_TPU = (
    "on a machine that is no TPU VM, libtpu (installed with jax[tpu]) probes for one: "
    "harmless; JAX_PLATFORMS=cpu (or uninstalling libtpu) stops it"
)


_HUGEPAGES = (
    "a warning: the TPU VM runs without transparent hugepages, so the TPU runtime starts and "
    'stops slower (v5e and newer); nothing failed. To enable them: sudo sh -c "echo always > '
    '/sys/kernel/mm/transparent_hugepage/enabled"'
)


def _hugepages(log: Log, m: re.Match[str]) -> Failure:
    failure = _WARNING_KIND.failure(
        log,
        m.start(),
        op="transparent hugepages",
        advice=(_HUGEPAGES, AdviceKind.HARMLESS),
        device="tpu",
        platform=Platform.TPU,
        headline_at=log.line_start(m.start()),
    )
    failure.finding.warning = True
    return failure


def _tpu_metadata(log: Log, m: re.Match[str]) -> Failure:
    var = f" ({m['md_var']})" if m["md_var"] else ""
    return _OWN_LINE_KIND.failure(
        log,
        m.start(),
        op="TPU metadata",
        advice=(_METADATA.format(var=var), AdviceKind.OTHER),
        device="tpu",
        platform=Platform.TPU,
        more_advice=[(str(AdviceKind.HARMLESS), _METADATA_OFF_TPU)],
    )


def _unknown_backend(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    name = m["unknown_name"]
    present = _PRESENT.search(log.text, m.end(), min(len(log.text), m.end() + 300))
    said = f" (it has: {present['present'].strip()})" if present else ""
    platform = platform_of(name)
    yield _OWN_LINE_KIND.failure(
        log,
        m.start(),
        op=f"backend {name}",
        advice=(_NO_PLATFORM.format(name=name, present=said), AdviceKind.INSTALL),
        device=name,
        platform=platform,
    )


_KIND = Kind(Family.BACKEND_STARTUP, Reason.RUNTIME, log_line)
_OWN_LINE_KIND = Kind(Family.BACKEND_STARTUP, Reason.RUNTIME, own_line)
# A warning: its headline the whole line, no traceback (nothing was raised).
_WARNING_KIND = Kind(Family.BACKEND_STARTUP, Reason.RUNTIME)
RECOGNISER = Recogniser(Family.BACKEND_STARTUP, _OPENING, _runtime_versions)
