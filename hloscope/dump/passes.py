"""Where in XLA's pass pipeline a snapshot of a module was taken: :class:`PassStep`.

With ``--xla_dump_hlo_pass_re``, XLA writes the module after every matching pass. The file
name says where the snapshot sits: between two passes of a pipeline
(``0007.simplification.after_algsimp.before_dce``), or inside one pass that dumps while it
runs (``0015.copy-insertion.after_removing_unnecessary_copies``). A dump folder
(:class:`~hloscope.dump.index.PassDump`) and an in-process capture
(:class:`~hloscope.capture.inprocess.PassSnapshot`) both describe their snapshots with these
same fields, so a pass timeline reads the same whichever produced it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .filenames import DumpFileName

__all__ = ["PassStep"]


@dataclass(slots=True)
class PassStep:
    """One point of the pass pipeline.

    ``step`` orders snapshots within one module. Between passes, ``pipeline`` is the pass
    pipeline, ``pass_name`` the pass that just ran (``pipeline-start`` for the first snapshot of
    a pipeline) and ``next_pass`` the one about to run. During a pass, ``pipeline`` is that
    pass, ``pass_name`` the step inside it and ``next_pass`` is ``None``.
    """

    step: int
    pipeline: str
    pass_name: str
    next_pass: str | None

    @property
    def between_passes(self) -> bool:
        """Whether the snapshot was taken between two passes (not while one ran)."""
        return self.next_pass is not None

    @property
    def label(self) -> str:
        """``simplification: algsimp -> dce`` (or ``copy-insertion: <step>``)."""
        if self.next_pass is None:
            return f"{self.pipeline}: {self.pass_name}"
        return f"{self.pipeline}: {self.pass_name} -> {self.next_pass}"

    @staticmethod
    def fields_of(name: DumpFileName) -> tuple[int, str, str, str | None]:
        """``(step, pipeline, pass_name, next_pass)`` of a per-pass dump file's name."""
        if name.pipeline is not None:
            return (name.step or 0, name.pipeline, name.after_pass or "", name.before_pass)
        return (name.step or 0, name.pass_name or "", name.step_name or "", None)
