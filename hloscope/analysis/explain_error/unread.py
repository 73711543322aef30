"""What a log shows where no family was read: the error it ends with, read by its structure.

Where no recogniser knows a message and its words make no family likely enough
(:mod:`.family_words`), "not recognised" alone would throw away what the log still says
plainly: the exception class or XLA status code it ends with, the message, the installed
module that raised it, the user's line the traceback passes through, the device and the
framework it names. The same readers every failure's fields come from (:func:`~.complete.
complete`: status, platform, device, user's line, framework) read them here from the last
line that looks like an error (:func:`~.family_words.message_lines`), so what an unknown
message shows is what a known one at the same place would show. The family its words come
closest to is given with its probability and the threshold it falls short of: a lead, said
to be one, never a family. (Below the threshold the probabilities are about as often right as
they say: leave-one-part-out over the blind parts' logs no recogniser read at first sight,
28 of 76 leads under it were the truth's family.)
"""

from __future__ import annotations

from ..unsupported.findings import Reason
from .advice import AdviceKind
from .build import Kind, own_line
from .complete import complete
from .family_words import closest_family, message_lines, table
from .log import Log
from .record import Family, UnreadError

__all__ = ["unread_error"]

# The failure the fields are read into: ``complete`` reads nothing of a family or a reason,
# so these only fill the record's required fields and never reach the user.
_PROBE = Kind(Family.XLA_STATUS, Reason.RUNTIME, own_line)
_NO_ADVICE = ("", AdviceKind.OTHER)


def unread_error(log: Log) -> UnreadError | None:
    """What the last error line of ``log`` shows (see the module docstring); ``None`` where
    no line looks like an error and nothing shows that something failed (a run that went
    well, prose)."""
    lines = message_lines(log.text)
    if not lines:
        return None
    line = lines[-1]
    probe = _PROBE.failure(
        log,
        line.offset,
        op=line.cls or line.code,
        advice=_NO_ADVICE,
        error_class=line.cls or None,
    )
    complete(probe, log)
    closest = closest_family(log.text)
    op = probe.finding.op
    return UnreadError(
        message=probe.message,
        error_class=probe.error_class,
        status=probe.status,
        op=op if op and op not in (line.cls, line.code, probe.status) else None,
        device=probe.device,
        platform=probe.platform,
        stack=probe.stack,
        source=probe.finding.source,
        framework=probe.framework,
        libraries=probe.libraries,
        closest=closest[0] if closest else None,
        closest_probability=round(closest[1], 2) if closest else None,
        threshold=table().threshold,
        offset=line.offset,
    )
