"""Names for a compile's flattened arguments and its static values.

A compile record lists its arguments flattened and often unnamed; the framework names some of
them (TensorFlow's parameters, the paths in JAX's cache-miss explanations, the source's
parameters). :class:`Namer` gives every argument a path, :class:`StaticValues` keeps the
static-argument values each explanation reveals.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ...backends.compile_records import ArgSignature, CompileRecord


class Namer:
    """Names a compile's flattened arguments: the framework's own names where it gave them,
    else what JAX's explanation bullets named earlier compiles' arguments, else the source's
    parameter names when there is one argument per parameter, else ``arg0``, ``arg1``..."""

    def __init__(self) -> None:
        self.learned: dict[int, dict[int, str]] = {}
        self.texts: list[list[str | None]] = []

    def learn(self, record: CompileRecord) -> None:
        """Take the argument names one compile's explanation gives (call in compile order)."""
        self._learn(record, self.learned.setdefault(len(record.arguments), {}))
        self.texts.append([a.text for a in record.arguments])

    def name(self, record: CompileRecord, static_positions: set[int]) -> list[ArgSignature]:
        """``record``'s arguments, each with a path; parameters at ``static_positions`` (known
        static) have no flattened argument, so the others are matched to what is left."""
        count = len(record.arguments)
        learned = self.learned.get(count, {})
        defaults = record.parameter_names
        if defaults is not None and len(defaults) != count:
            defaults = [p for i, p in enumerate(defaults) if i not in static_positions]
        named = []
        for arg in record.arguments:
            if arg.path:
                named.append(arg)
                continue
            path = learned.get(arg.index)
            if path is None and defaults is not None and len(defaults) == count:
                path = defaults[arg.index]
            named.append(replace(arg, path=path or f"arg{arg.index}"))
        return named

    def _learn(self, record: CompileRecord, learned: dict[int, str]) -> None:
        typed = [h for h in record.hints if h.cause in _TYPE_CAUSES and h.path and h.now]
        taken: set[int] = set()
        for hint in typed:
            path = hint.path
            if path is None or path in learned.values():
                continue
            now, before = _bare_type(hint.now or ""), _bare_type(hint.before or "")
            candidates = [
                a.index
                for a in record.arguments
                if a.index not in taken and now in (a.text, (a.sharding or "").split(" ")[0])
            ]
            if len(candidates) > 1:  # prefer the one an earlier compile had `before` at
                earlier = [
                    i for i in candidates if any(len(t) > i and t[i] == before for t in self.texts)
                ]
                candidates = earlier or candidates
            if candidates:
                taken.add(candidates[0])
                learned.setdefault(candidates[0], path)


_TYPE_CAUSES = ("shape", "dtype", "weak_type", "sharding")
_WEAK_NOTE = re.compile(r"\{weak_type=(True|False)\}")


def _bare_type(text: str) -> str:
    return _WEAK_NOTE.sub("", text).strip()


class StaticValues:
    """The static-argument values of each compile, from JAX's explanations.

    An explanation names the *new* value of a static argument (``Static(val=4)``) and the value
    of the closest earlier key; the new value belongs to this compile, the earlier one to the
    one earlier compile that has none known at that path, when there is exactly one."""

    def __init__(self) -> None:
        self.values: list[dict[str, str]] = []

    def positions(self) -> set[int]:
        """The positional parameters known to be static (JAX's ``[0][i]`` paths)."""
        found = set()
        for values in self.values:
            for path in values:
                match = _STATIC_PATH.match(path)
                if match is not None and match.group(1) is not None:
                    found.add(int(match.group(1)))
        return found

    def add(self, record: CompileRecord) -> dict[str, str]:
        mine: dict[str, str] = {}
        for hint in record.hints:
            if hint.cause != "static_value" or hint.path is None:
                continue
            if hint.now is not None:
                mine[hint.path] = hint.now
            unknown = [v for v in self.values if hint.path not in v]
            if hint.before is not None and len(unknown) == 1:
                unknown[0][hint.path] = hint.before
        self.values.append(mine)
        return mine

    def at(self, number: int) -> dict[str, str]:
        return self.values[number] if number < len(self.values) else {}


_STATIC_PATH = re.compile(r"^\[0\]\[(\d+)\]$|^\[1\]\['?([^'\]]+)'?\]$")


def display_statics(values: dict[str, str], parameters: list[str] | None) -> dict[str, str]:
    """Static values keyed by a readable name: JAX's ``[0][1]`` (args[1]) becomes the
    parameter's name where the source gives it, ``[1]['k']`` (kwargs) becomes ``k``."""
    shown = {}
    for path, value in values.items():
        shown[static_name(path, parameters)] = value
    return shown


def static_name(path: str, parameters: list[str] | None) -> str:
    found = _STATIC_PATH.match(path)
    if found is None:
        return path
    if found.group(1) is not None:
        position = int(found.group(1))
        if parameters is not None and position < len(parameters):
            return parameters[position]
        return f"args[{position}]"
    return found.group(2)
