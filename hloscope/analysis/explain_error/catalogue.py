"""A kind's words as data: the patterns it reads and the texts it writes, beside its code.

Each module of :mod:`.kinds` reads one family of messages. What it looks for (regular
expressions) and what it tells the user (advice, with ``{placeholders}``) are words, not logic:
they change whenever a framework rewords a message or the advice is sharpened, and they are
reviewed by reading, not by stepping through code. So they live in a TOML file of the same name
beside the module (``kinds/pallas.toml`` for ``kinds/pallas.py``), as sqlglot keeps a dialect's
tokens in tables, and the module keeps only how a match is read::

    # kinds/device_halt.toml
    [patterns]
    # The runtime's own words for the halt.
    opening = 'Accelerator device halted prematurely'
    hlo = ['\\b(?:hlo|HLO): ', '(?P<hlo>[\\w.-]+)']    # an array is joined

    [texts]
    hosts = "the TPU's launch group went out of step: ..."

    # kinds/device_halt.py
    _RE, _TEXT = words_of(__name__)
    ... _RE.hlo.search(log.text) ... _TEXT.hosts ...

A family whose messages come in several forms (one regex alternation, one named group a form:
:mod:`.forms`) keeps each form whole in the file, one table a form in the order the alternation
tries them, and the module reads them with ``forms_of(__name__)``::

    [forms.tensor_list_size]
    pattern = 'XLA compilation requires a fixed tensor list size'
    op = "TensorListReserve"          # the op to report when the message names none
    reason = "dynamic_shape"          # a Reason's value
    fixes = ["TensorListReserve"]     # fixes keys, most specific first
    meaning = "a TensorArray/TensorList without a static size ..."

A pattern is one string or an array of strings joined without separators (TOML allows a
comment between the parts, where a long alternation wants one per branch); flags are written
inline (``(?m)`` at the start). Literal strings (``'...'``, ``'''...'''``) keep backslashes as
they are, so a pattern reads as it would in an ``r"..."`` string. A name the module asks for
and the file lacks is an error at import, never a silent empty match; a test checks that every
name a module uses is in its file and every name in the file is used.
"""

from __future__ import annotations

import re
import tomllib
from importlib import resources
from typing import NamedTuple

from ..errors import CatalogueError
from ..unsupported.findings import Reason
from .forms import Form

__all__ = ["CatalogueError", "Patterns", "Texts", "Words", "forms_of", "words_of"]


class Patterns:
    """A kind's regular expressions by name, compiled on first use."""

    __slots__ = ("_compiled", "_file", "_sources")

    def __init__(self, sources: dict[str, str], file: str) -> None:
        self._sources = sources
        self._file = file
        self._compiled: dict[str, re.Pattern[str]] = {}

    def __getattr__(self, name: str) -> re.Pattern[str]:
        if name.startswith("_"):
            raise AttributeError(name)
        found = self._compiled.get(name)
        if found is None:
            found = self._compiled[name] = _compile(self._sources, name, self._file)
        return found

    def names(self) -> frozenset[str]:
        """Every pattern's name in the file."""
        return frozenset(self._sources)


class Texts:
    """A kind's texts for the user by name (``str.format`` templates where they take values)."""

    __slots__ = ("_file", "_texts")

    def __init__(self, texts: dict[str, str], file: str) -> None:
        self._texts = texts
        self._file = file

    def __getattr__(self, name: str) -> str:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._texts[name]
        except KeyError:
            raise CatalogueError(f"{self._file}: no text named {name!r}") from None

    def names(self) -> frozenset[str]:
        """Every text's name in the file."""
        return frozenset(self._texts)


class Words(NamedTuple):
    """One kind's patterns and texts."""

    patterns: Patterns
    texts: Texts


def words_of(module: str) -> Words:
    """The words of the kind whose module is named ``module`` (pass ``__name__``)."""
    data, where = _read(module)
    patterns = _strings(data, "patterns", where)
    return Words(Patterns(patterns, where), Texts(_strings(data, "texts", where), where))


def forms_of(module: str) -> tuple[Form, ...]:
    """The message forms of the kind whose module is named ``module`` (pass ``__name__``): its
    file's ``[forms.GROUP]`` tables, in the file's order (the order the alternation tries)."""
    data, where = _read(module)
    table = data.get("forms", {})
    if not isinstance(table, dict):
        raise CatalogueError(f"{where}: [forms] is not a table")
    return tuple(
        _form(group, fields, f"{where}: [forms.{group}]") for group, fields in table.items()
    )


def _read(module: str) -> tuple[dict[str, object], str]:
    package, _, stem = module.rpartition(".")
    file = f"{stem}.toml"
    try:
        data = tomllib.loads(resources.files(package).joinpath(file).read_text("utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise CatalogueError(f"{package}/{file}: {error}") from None
    return data, f"{package.replace('.', '/')}/{file}"


_FORM_FIELDS = ("pattern", "op", "reason", "fixes", "meaning")


def _form(group: str, fields: object, where: str) -> Form:
    if not isinstance(fields, dict):
        raise CatalogueError(f"{where} is not a table")
    unknown = [name for name in fields if name not in _FORM_FIELDS]
    if unknown:
        raise CatalogueError(f"{where}: unknown field {unknown[0]!r}")
    missing = [name for name in ("pattern", "reason") if name not in fields]
    if missing:
        raise CatalogueError(f"{where}: no {missing[0]}")
    try:
        reason = Reason(fields["reason"])
    except ValueError:
        choices = ", ".join(Reason)
        raise CatalogueError(f"{where}: reason {fields['reason']!r} is none of {choices}") from None
    fixes = fields.get("fixes", [])
    if not isinstance(fixes, list) or not all(isinstance(key, str) for key in fixes):
        raise CatalogueError(f"{where}: fixes is not an array of strings")
    return Form(
        group,
        _joined(fields["pattern"], where, "pattern"),
        _joined(fields.get("op", ""), where, "op"),
        reason,
        tuple(fixes),
        _joined(fields.get("meaning", ""), where, "meaning"),
    )


def _strings(data: dict[str, object], key: str, where: str) -> dict[str, str]:
    table = data.get(key, {})
    if not isinstance(table, dict):
        raise CatalogueError(f"{where}: [{key}] is not a table")
    return {name: _joined(value, where, name) for name, value in table.items()}


def _joined(value: object, where: str, name: str) -> str:
    # An array lets a long pattern or text carry a comment per part; its parts join as they are.
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(part, str) for part in value):
        return "".join(value)
    raise CatalogueError(f"{where}: {name} is neither a string nor an array of strings")


def _compile(sources: dict[str, str], name: str, where: str) -> re.Pattern[str]:
    try:
        source = sources[name]
    except KeyError:
        raise CatalogueError(f"{where}: no pattern named {name!r}") from None
    # A leading "(?m)" (or "(?ms)", ...) becomes the flags: the pattern then is what
    # re.compile(source, re.M) made, and its .pattern can be joined into one alternation
    # (registry.joined), where a global flag past the start is an error.
    flags = 0
    lead = _GLOBAL_FLAGS.match(source)
    if lead is not None:
        for letter in lead["flags"]:
            flags |= _FLAGS[letter]
        source = source[lead.end() :]
    try:
        return re.compile(source, flags)
    except re.error as error:
        raise CatalogueError(f"{where}: pattern {name}: {error}") from None


_GLOBAL_FLAGS = re.compile(r"\(\?(?P<flags>[aimsux]+)\)")
_FLAGS = {"a": re.A, "i": re.I, "m": re.M, "s": re.S, "u": re.U, "x": re.X}
