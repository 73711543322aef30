"""A check's findings asked of the compiler the backends' registry picks for ``--device``.

The registry's table (:func:`hloscope.backends.backend_row`) decides: for a chip one of
hloscope's own rows compiles (XLA:TPU, or the local JAX standing in), the check is confirmed
as :func:`~hloscope.drivers.tpu_confirm.confirm_with_xla_tpu` does (op by op, for a TPU);
for a device a registered backend claims (one row registered in a test, or declared by a
package in the ``hloscope.backends`` entry-point group), that backend compiles the whole
``SCRIPT.py:FUNCTION`` as every ``--device`` command does (the capture, cached), and the
report says which compiler answered (``compiled_by``, ``compiled_for``) and its refusal, if any.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .tpu_confirm import NO_PROGRAM, WholeProgram, confirm_with_xla_tpu

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.unsupported.findings import CheckReport
    from ..backends import BackendRow
    from ..devices import DeviceSpec

__all__ = ["confirm_for_device"]


def confirm_for_device(
    report: CheckReport, device: DeviceSpec, program: WholeProgram = NO_PROGRAM
) -> CheckReport:
    """``report`` confirmed, in place, by the compiler the registry picks for ``device`` (in
    the whole ``program`` too, when there is one), or
    labelled static (one note: the :class:`~hloscope.capture.errors.CaptureError`'s line) when
    that compiler cannot be asked or could not answer."""
    from ..analysis.unsupported.confirm import label_static
    from ..backends import backend_row, built_in
    from ..capture.errors import CaptureError

    try:
        row = backend_row(device)
        if built_in(row):
            return confirm_with_xla_tpu(report, device, program)
        return _by_registered(report, device, row, program.script, program.function)
    except CaptureError as error:
        return label_static(report, error.one_line())


def _by_registered(
    report: CheckReport,
    device: DeviceSpec,
    row: BackendRow,
    script: str | None,
    function: str | None,
) -> CheckReport:
    """The whole program compiled by the registered backend ``row`` (a function target), or
    the static scan named as such (HLO text: the seam compiles functions)."""
    report.device, report.confirming, report.compiled_by = str(device), True, row.words
    if script is None or function is None:
        report.notes.insert(
            0, f"static scan; {row.words} compiles for {device} here, and only functions"
        )
        return report
    from ..capture.target import Target

    info = Target.resolve(f"{script}:{function}", device=device).compile_info()
    report.compiled_by = info.get("compiled_by") or row.words
    report.compiled_for = info.get("compiled_for")
    words = info.get("estimate_note") or (
        f"compiled whole for {report.compiled_for} ({device}) by {report.compiled_by}"
    )
    refused = info.get("compile_error")
    report.notes.insert(0, f"{words}, which refused it: {refused}" if refused else words)
    return report
