"""A static check's findings confirmed (or dropped) by XLA:TPU itself: the check's plan of what
to compile (:func:`hloscope.analysis.unsupported.confirm.plan_confirmation`) compiled for the
chip in one child process (:func:`hloscope.capture.tpu_confirm.confirm_on_tpu`), and the
verdicts read back into the report (see :mod:`hloscope.analysis.unsupported.confirm`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..analysis.unsupported.confirm import apply_confirmation, label_static, plan_confirmation
from ..analysis.unsupported.findings import CheckReport, Platform

if TYPE_CHECKING:  # pragma: no cover
    from ..devices import DeviceSpec

__all__ = ["WholeProgram", "NO_PROGRAM", "confirm_with_xla_tpu"]


@dataclass(frozen=True, slots=True)
class WholeProgram:
    """The program a check's findings are confirmed in, when there is one: ``script``'s
    ``function``, or the HLO module ``module_text`` (none: each finding's op alone)."""

    script: str | None = None
    function: str | None = None
    module_text: str | None = None


#: No whole program: each finding's op is compiled alone.
NO_PROGRAM = WholeProgram()


def confirm_with_xla_tpu(
    report: CheckReport, device: DeviceSpec, program: WholeProgram = NO_PROGRAM
) -> CheckReport:
    """Confirm ``report``'s problems with XLA:TPU for ``device``, in place, compiled in the
    whole ``program`` too. Without libtpu (or for a chip libtpu cannot compile for) the report
    is labelled static instead."""
    from ..backends import BackendName, backend_row, not_compiled_for
    from ..backends.confirm_records import ConfirmJob
    from ..capture.tpu_confirm import confirm_on_tpu

    if report.platform is not Platform.TPU:
        return report
    report.device = str(device)
    # The registry says who compiles for the chip: XLA:TPU when libtpu can, else the local
    # JAX stands in and the findings stay the static scan's, with the reason.
    row = backend_row(device)
    if row.label != BackendName.XLA_TPU:
        why = not_compiled_for(device) or f"{device} compiles by {row.words} here, not XLA:TPU"
        return label_static(report, why)
    plan = plan_confirmation(report, with_function=program.script is not None)
    job = ConfirmJob(
        device=str(device),
        candidates=plan.candidates,
        script=program.script,
        function=program.function,
        hlo=program.module_text,
        stand_ins=plan.stand_ins,
    )
    apply_confirmation(report, plan, confirm_on_tpu(job))
    return report
