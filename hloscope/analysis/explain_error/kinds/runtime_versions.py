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
from ..catalogue import words_of
from ..device import platform_of
from ..functions import paragraph_end
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)


def _cloud_tpu(log: Log, m: re.Match[str]) -> tuple[str, str] | None:
    before = log.before_on_line(m.start())
    if not before.endswith("cloud"):
        return None
    if m["ctpu_failed"]:
        why = m["ctpu_msg"].strip()[:160] or "no reason"
        return "cloud_tpu_init", _TEXT.cloud_tpu.format(why=why)
    window = log.text[m.end() : m.end() + 8192]
    raised = _RE.raised.search(window)
    if raised is None or "_tpu_init.py" in window[: raised.start()]:
        return None  # no exception follows, or a deeper cloud_tpu_init frame reads it
    why = f"{raised['cls'].rsplit('.', 1)[-1]}: {raised['msg'][:140]}"
    return "cloud_tpu_init", _TEXT.cloud_tpu.format(why=why)


def _stablehlo(log: Log, m: re.Match[str]) -> tuple[str, str] | None:
    start = log.line_start(m.start())
    line = log.text[start : log.line_end(m.start())]
    if not _RE.message.search(line):
        return None
    if _earlier_vhlo(log, max(0, start - 1024), start):
        return None  # the same message, read from its first line
    region = log.text[max(0, start - 1024) : min(len(log.text), paragraph_end(log, m.start()))]
    writer = _RE.produced.search(region)
    reader = _RE.reader.search(region)
    text = _TEXT.vhlo.format(
        writer=f"StableHLO {writer['v']}" if writer else "a newer StableHLO",
        reader=f"StableHLO {reader['v']}" if reader else "an older one",
    )
    return "StableHLO", text


def _earlier_vhlo(log: Log, begin: int, end: int) -> bool:
    """Whether a StableHLO message (on a message's line) starts between ``begin`` and
    ``end``."""
    for found in _RE.opening.finditer(log.text, begin, end):
        if found["shlo"] or found["shlo_fail"] or found["vhlo_op"]:
            first = log.line_start(found.start())
            if _RE.message.search(log.text, first, log.line_end(found.start())):
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


def _hugepages(log: Log, m: re.Match[str]) -> Failure:
    failure = _WARNING_KIND.failure(
        log,
        m.start(),
        op="transparent hugepages",
        advice=(_TEXT.hugepages, AdviceKind.HARMLESS),
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
        advice=(_TEXT.metadata.format(var=var), AdviceKind.OTHER),
        device="tpu",
        platform=Platform.TPU,
        more_advice=[(str(AdviceKind.HARMLESS), _TEXT.metadata_off_tpu)],
    )


def _unknown_backend(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    name = m["unknown_name"]
    present = _RE.present.search(log.text, m.end(), min(len(log.text), m.end() + 300))
    said = f" (it has: {present['present'].strip()})" if present else ""
    platform = platform_of(name)
    yield _OWN_LINE_KIND.failure(
        log,
        m.start(),
        op=f"backend {name}",
        advice=(_TEXT.no_platform.format(name=name, present=said), AdviceKind.INSTALL),
        device=name,
        platform=platform,
    )


_KIND = Kind(Family.BACKEND_STARTUP, Reason.RUNTIME, log_line)
_OWN_LINE_KIND = Kind(Family.BACKEND_STARTUP, Reason.RUNTIME, own_line)
# A warning: its headline the whole line, no traceback (nothing was raised).
_WARNING_KIND = Kind(Family.BACKEND_STARTUP, Reason.RUNTIME)
RECOGNISER = Recogniser(Family.BACKEND_STARTUP, _RE.opening, _runtime_versions)
