"""Configuration-like attributes: ``backend_config``, ``frontend_attributes``, ``statistics``,
``domain`` and ``result_accuracy``.

``backend_config`` is JSON (decoded with :mod:`json`); ``frontend_attributes`` values that are
brace groups stay raw text, as XLA's ``LexJsonDict`` reads them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..errors import DecodeError
from ..escapes import c_escape
from ._grammar import ValueCursor, parse_or_raise
from ._split import json_dict_end
from ._values import decode_string
from .sharding import Sharding, decode_sharding

__all__ = ["Domain", "ResultAccuracy"]


@dataclass(frozen=True, slots=True)
class Domain:
    """``domain={kind="sharding", entry={...}, exit={...}}`` of a ``domain`` instruction."""

    kind: str
    entry: Sharding | str | None = None
    exit: Sharding | str | None = None

    def __str__(self) -> str:
        parts = [f'kind="{c_escape(self.kind)}"']
        if self.entry is not None:
            parts.append(f"entry={self.entry}")
        if self.exit is not None:
            parts.append(f"exit={self.exit}")
        return "{" + ", ".join(parts) + "}"


@dataclass(frozen=True, slots=True)
class ResultAccuracy:
    """``result_accuracy={mode=highest}`` or ``{tolerance={rtol=0.5, atol=1, ulps=2}}``."""

    mode: str | None = None
    rtol: float = 0.0
    atol: float = 0.0
    ulps: int = 0

    def __str__(self) -> str:
        if self.mode is not None:
            return f"{{mode={self.mode}}}"
        return f"{{tolerance={{rtol={self.rtol:g}, atol={self.atol:g}, ulps={self.ulps}}}}}"


# --- dictionaries -------------------------------------------------------------------------


def decode_frontend_attributes(raw: str, opcode: str | None) -> dict[str, str]:
    """``{key="escaped",key2={raw text}}``: brace values stay raw text, braces included."""

    def parse(c: ValueCursor) -> dict[str, str]:
        out: dict[str, str] = {}

        def entry() -> None:
            key_at = c.skip()
            key = c.string() if c.at('"') else c.ident()
            c.expect("=")
            pos = c.skip()
            if c.at('"'):
                value = c.string()
            elif c.at("{"):
                c.pos = json_dict_end(c.text, pos)
                value = c.text[pos : c.pos]
            else:
                value = c.balanced()
            if key in out:
                raise DecodeError(f"frontend attribute {key!r} given twice", key_at)
            out[key] = value

        c.comma_list("{", "}", entry)
        return out

    return parse_or_raise(parse, raw)


def decode_backend_config(raw: str, opcode: str | None) -> dict | str:
    """A dict when the text is a JSON object, else the text (unescaped if it was quoted)."""
    text = raw
    if raw.startswith('"'):
        text = decode_string(raw, opcode)
    elif raw.startswith("{"):
        end = json_dict_end(raw, 0)
        if end != len(raw):
            raise DecodeError("unexpected text after backend_config", end)
    if text.startswith("{"):
        try:
            value = json.loads(text)
        except ValueError:
            return text
        if isinstance(value, dict):
            return value
    return text


def decode_statistics(raw: str, opcode: str | None) -> dict[str, float | int]:
    """``{visualizing_index=1,stat-1=33,stat-2=44}``."""

    def parse(c: ValueCursor) -> dict[str, float | int]:
        def entry() -> tuple[str, float | int]:
            key = c.ident()
            c.expect("=")
            return key, c.number()

        return dict(c.comma_list("{", "}", entry))

    return parse_or_raise(parse, raw)


# --- rarer structured values --------------------------------------------------------------


def decode_domain(raw: str, opcode: str | None) -> Domain:
    def parse(c: ValueCursor) -> Domain:
        c.expect("{")
        fields: dict[str, Any] = {}
        while not c.accept("}"):
            key_at = c.skip()
            key = c.ident()
            c.expect("=")
            if key == "kind":
                fields["kind"] = c.string()
            elif key in ("entry", "exit"):
                fields[key] = c.balanced()
            else:
                raise DecodeError(f"unknown domain field {key!r}", key_at)
            c.accept(",")
        if "kind" not in fields:
            raise DecodeError("domain needs kind=", 0)
        if fields["kind"] == "sharding":
            for key in ("entry", "exit"):
                if key in fields:
                    fields[key] = decode_sharding(fields[key], None)
        return Domain(**fields)

    return parse_or_raise(parse, raw)


def decode_result_accuracy(raw: str, opcode: str | None) -> ResultAccuracy:
    def parse(c: ValueCursor) -> ResultAccuracy:
        c.expect("{")
        key_at = c.skip()
        key = c.ident()
        c.expect("=")
        if key == "mode":
            result = ResultAccuracy(mode=c.ident().lower())
        elif key == "tolerance":
            c.expect("{")
            fields: dict[str, Any] = {}
            while not c.accept("}"):
                name_at = c.skip()
                name = c.ident()
                if name not in ("rtol", "atol", "ulps"):
                    raise DecodeError(f"unknown tolerance field {name!r}", name_at)
                c.expect("=")
                value = c.number()
                fields[name] = int(value) if name == "ulps" else float(value)
                c.accept(",")
            result = ResultAccuracy(**fields)
        else:
            raise DecodeError(f"expected mode= or tolerance=, found {key!r}", key_at)
        c.expect("}")
        return result

    return parse_or_raise(parse, raw)
