"""A jaxpr's equations with the Python line each was traced at, as data
(:class:`JaxprSources`, :class:`JaxprEquation`): what :mod:`hloscope.capture.jaxpr_lines`
gathers from a live jaxpr (only a live one has each equation's traceback) and
:mod:`hloscope.analysis.explain` links to the later stages. Saved beside a capture as
:data:`JAXPR_SOURCES_FILE`."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..hlo.metadata import StackFrame
from ..json_fields import json_fields
from .errors import CaptureError

__all__ = ["JAXPR_SOURCES_FILE", "JaxprEquation", "JaxprSources"]

#: The file a capture's jaxpr sources are written to, beside ``capture.json``.
JAXPR_SOURCES_FILE = "jaxpr_sources.json"
_FORMAT = 1


@dataclass(slots=True)
class JaxprEquation:
    """One equation of a jaxpr and where in the Python source it was traced.

    ``index`` is its place in the walk (program order, sub-jaxprs right after their holder),
    ``parent`` the index of the equation whose sub-jaxpr holds it (``None`` at the top), and
    ``depth`` how deep it sits. ``text`` is the equation as the jaxpr prints it
    (``c:f32[4,4] = mul a b``; a holder's sub-jaxpr left out). ``name_stack`` is JAX's
    transformation scope (``jvp(loss_fn)``, ``transpose(jvp())``), which with the primitive
    makes up the ``op_name`` of the HLO it lowers to.
    """

    index: int
    text: str
    primitive: str
    depth: int = 0
    parent: int | None = None
    name_stack: str = ""
    stack: list[StackFrame] = field(default_factory=list)

    @property
    def holds_jaxprs(self) -> bool:
        """Whether later equations are its sub-jaxpr's (a nested jit, scan, cond...)."""
        return self.text.endswith("{...}")

    def to_dict(self) -> dict[str, Any]:
        return {
            **json_fields(self, "index text primitive depth parent name_stack"),
            "stack": [[f.file, f.line, f.function, f.column] for f in self.stack],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> JaxprEquation:
        return cls(
            index=int(data["index"]),
            text=str(data["text"]),
            primitive=str(data["primitive"]),
            depth=int(data.get("depth", 0)),
            parent=data.get("parent"),
            name_stack=str(data.get("name_stack", "")),
            stack=[_frame(item) for item in data.get("stack", [])],
        )


def _frame(item: Sequence[Any]) -> StackFrame:
    """``[file, line, function, column]`` (the column may be absent) as a StackFrame."""
    column = int(item[3]) if len(item) > 3 else 0
    return StackFrame(str(item[0]), int(item[1]), str(item[2]), column)


@dataclass(slots=True)
class JaxprSources:
    """Every equation of one function's jaxpr with its source (see the module docstring)."""

    function: str
    equations: list[JaxprEquation]

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": _FORMAT,
            "function": self.function,
            "equations": [e.to_dict() for e in self.equations],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> JaxprSources:
        return cls(
            function=str(data.get("function", "")),
            equations=[JaxprEquation.from_dict(e) for e in data.get("equations", [])],
        )

    def save(self, folder: str | os.PathLike[str]) -> Path:
        """Write :data:`JAXPR_SOURCES_FILE` into ``folder`` and return its path."""
        path = Path(folder) / JAXPR_SOURCES_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict()) + "\n")
        return path

    @classmethod
    def load(cls, folder: str | os.PathLike[str]) -> JaxprSources | None:
        """The sources saved in ``folder``, or ``None`` when it has none."""
        path = Path(folder) / JAXPR_SOURCES_FILE
        try:
            return cls.from_dict(json.loads(path.read_text()))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise CaptureError(f"{path}: not a jaxpr sources file ({error})") from None
