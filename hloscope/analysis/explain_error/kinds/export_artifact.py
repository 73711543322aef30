"""Bytes ``jax.export.deserialize`` cannot read: not an artifact ``Exported.serialize()``
wrote (another file, a truncated or text-decoded download, a pickle). The failure is raised
deep in the flatbuffers reader with words of its own (``struct.error: unpack_from requires a
buffer of at least ...``, ``IndexError``, ``UnicodeDecodeError``), so it is read by the
message's structure: a traceback that passes through jax.export's ``deserialize`` (the module
was ``jax/experimental/export/serialization.py`` before it moved to ``jax/_src/export``), then
the exception it ends with.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...unsupported.findings import Reason
from ..advice import AdviceKind
from ..build import Kind
from ..catalogue import words_of
from ..log import Log
from ..recogniser import Recogniser
from ..record import Failure, Family

__all__ = ["RECOGNISER"]

_RE, _TEXT = words_of(__name__)

_KIND = Kind(Family.JAX_EXPORT, Reason.EXPORT)
# How far after the deserialize frame the exception line may be (the reader's frames).
_WINDOW = 6000


def _export_artifact(log: Log, m: re.Match[str]) -> Iterator[Failure]:
    end = min(len(log.text), m.end() + _WINDOW)
    raised = _RE.raised.search(log.text, m.end(), end)
    if raised is None:
        return
    more = _RE.deserialize_frame.search(log.text, m.end(), raised.start())
    if more is not None:
        return  # the innermost deserialize frame reads it (one failure per traceback)
    text = _TEXT.advice.format(error=raised["cls"])
    yield _KIND.failure(
        log,
        raised.start(),
        op="deserialize",
        advice=(text, AdviceKind.OTHER),
        error_class=raised["cls"],
    )


RECOGNISER = Recogniser(Family.JAX_EXPORT, _RE.deserialize_frame, _export_artifact)
