"""XLA's module metadata (``module_NNNN.metadata.textproto``): when each HLO pass ran.

With ``--xla_dump_module_metadata=true``, XLA writes an ``HloModuleMetadataProto`` per compiled
module in protobuf text format: one ``pass_metadata { ... }`` block per pass run, in the order
they ran::

    pass_metadata {
      pass_id: 54
      pass_name: "simplification-1"
      pipeline_name: "Phase 1 pre-layout assignment passes"
      module_changed: true
      start_timestamp_usec: 1796527199775111
      end_timestamp_usec: 1796527199776074
    }

XLA:TPU writes it (on a TPU and in an offline compile); XLA:CPU writes none. A pass that is
itself a pipeline (``simplification-1`` above) appears twice: as a pass of its parent
pipeline, and as the pipeline of the passes it runs, whose times lie inside its own.

This is a reader of just these fields, with no protobuf dependency: a small text-proto parser
(fields, nested blocks, quoted strings with C escapes) that keeps what it does not know.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .errors import DumpFormatError

__all__ = ["PassRun", "ModuleMetadata", "parse_module_metadata", "parse_text_proto"]

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<comment>\#[^\n]*)
      | (?P<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
      | (?P<punct>[{}:<>\[\],;])
      | (?P<word>[^\s{}:<>\[\],;"'#]+)
    )""",
    re.VERBOSE,
)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "\\": "\\"}


@dataclass(frozen=True, slots=True)
class PassRun:
    """One run of one HLO pass: its name, the pipeline it ran in, when, and whether XLA says
    it changed the module."""

    pass_id: int
    name: str
    pipeline: str
    start_usec: int
    end_usec: int
    changed: bool = False

    @property
    def seconds(self) -> float:
        return max(0, self.end_usec - self.start_usec) / 1e6


@dataclass(frozen=True, slots=True)
class ModuleMetadata:
    """What one ``*.metadata.textproto`` holds: its pass runs in order (and the raw fields)."""

    passes: tuple[PassRun, ...]
    fields: dict[str, list[Any]]

    @property
    def start_usec(self) -> int | None:
        return min((p.start_usec for p in self.passes), default=None)

    @property
    def end_usec(self) -> int | None:
        return max((p.end_usec for p in self.passes), default=None)


def parse_module_metadata(text: str, path: str = "<metadata>") -> ModuleMetadata:
    """The pass runs of an ``HloModuleMetadataProto`` text (:class:`DumpFormatError` when it is
    not one)."""
    fields = parse_text_proto(text, path)
    runs = []
    for block in fields.get("pass_metadata", []):
        if not isinstance(block, dict):
            raise DumpFormatError(f"{path}: pass_metadata is not a block")
        try:
            runs.append(
                PassRun(
                    pass_id=int(_one(block, "pass_id", 0)),
                    name=str(_one(block, "pass_name", "")),
                    pipeline=str(_one(block, "pipeline_name", "")),
                    start_usec=int(_one(block, "start_timestamp_usec", 0)),
                    end_usec=int(_one(block, "end_timestamp_usec", 0)),
                    changed=str(_one(block, "module_changed", "false")) == "true",
                )
            )
        except ValueError as error:
            raise DumpFormatError(
                f"{path}: a pass_metadata field is not a number ({error})"
            ) from None
    return ModuleMetadata(tuple(runs), fields)


def _one(block: dict[str, list[Any]], name: str, default: Any) -> Any:
    values = block.get(name)
    return values[-1] if values else default


def parse_text_proto(text: str, path: str = "<text proto>") -> dict[str, list[Any]]:
    """A protobuf text-format message as ``{field: [value, ...]}``: a nested message is a dict
    of the same shape, a scalar its text (strings unquoted and unescaped)."""
    tokens: list[tuple[str | None, str]] = [
        (m.lastgroup, m.group(m.lastgroup))
        for m in _TOKEN.finditer(text)
        if m.lastgroup and m.lastgroup != "comment"
    ]
    message, end = _message(tokens, 0, path, closing=None)
    if end != len(tokens):
        raise DumpFormatError(f"{path}: unexpected {tokens[end][1]!r}")
    return message


def _message(
    tokens: list[tuple[str | None, str]], at: int, path: str, closing: str | None
) -> tuple[dict[str, list[Any]], int]:
    fields: dict[str, list[Any]] = {}
    while at < len(tokens):
        kind, value = tokens[at]
        if kind == "punct" and value == closing:
            return fields, at + 1
        if kind == "punct" and value in ",;":
            at += 1
            continue
        if kind != "word":
            raise DumpFormatError(f"{path}: expected a field name, found {value!r}")
        name, at = value, at + 1
        if at < len(tokens) and tokens[at] == ("punct", ":"):
            at += 1
        if at >= len(tokens):
            raise DumpFormatError(f"{path}: field {name!r} has no value")
        kind, value = tokens[at]
        if kind == "punct" and value in "{<":
            nested, at = _message(tokens, at + 1, path, "}" if value == "{" else ">")
            fields.setdefault(name, []).append(nested)
        elif kind == "string":
            fields.setdefault(name, []).append(_unquote(value))
            at += 1
        elif kind == "word":
            fields.setdefault(name, []).append(value)
            at += 1
        else:
            raise DumpFormatError(f"{path}: field {name!r} has no value ({value!r})")
    if closing is not None:
        raise DumpFormatError(f"{path}: a block is not closed (missing {closing!r})")
    return fields, at


def _unquote(token: str) -> str:
    body = token[1:-1]
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)
