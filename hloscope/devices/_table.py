"""The rows of the device registry, read from ``chips.toml`` beside this module.

The rows are facts about chips, one row per chip, each figure sourced; they are data, so they
live in a data file (``chips.toml``, which says where its figures come from), and this module
keeps only how a row becomes a :class:`Device`:

* units: ``tflops`` are 1e12 per second, ``bandwidth_gbps`` 1e9 bytes per second,
  ``memory_gib`` binary gigabytes;
* interconnects: a ``torus`` (TPU ICI) has a ring bandwidth of twice one link's one-way, the
  link's being the chip's bidirectional total over its links and two directions (or given);
  through a ``switch`` (NVLink, PCIe) every GPU reaches every other at its full one-way
  bandwidth, which is the ring bandwidth;
* sources: a row's ``page`` sources its peaks, bandwidth and capacity, an interconnect's own
  ``source`` the interconnect, and a TPU's MXU size the one page that lists them;
* what every row of a platform shares (``[tpu]``, ``[gpu]``): a TPU's tile, a GPU's note that
  its peaks are the dense ones.

Every table is read field by field: a missing field, one of the wrong type and one nothing
reads are each a :class:`DeviceTableError` naming the chip (or the shared table) and the field,
so a typo in the file fails at once rather than leaving a figure out.
"""

from __future__ import annotations

import re
import tomllib
from enum import StrEnum, auto
from importlib import resources
from typing import Any

from ._model import Device, Interconnect, Platform, TpuTopology
from .errors import DeviceTableError

__all__ = ["BUILT_IN", "read_table"]

TERA = 1e12
GIGA = 1e9
GiB = 1 << 30

_FILE = "chips.toml"
_WHERE = f"hloscope/devices/{_FILE}"


class _Link(StrEnum):
    """How an interconnect joins the chips (its ``kind``)."""

    TORUS = auto()
    SWITCH = auto()


#: Latency per hop when an interconnect does not state its own.
_LATENCY_S = {_Link.TORUS: 1e-6, _Link.SWITCH: 3e-6}


class _Fields:
    """One table of the file, read a field at a time; :meth:`done` refuses the fields left."""

    def __init__(self, table: object, owner: str, where: str) -> None:
        self.owner = owner
        self.where = where
        if not isinstance(table, dict):
            raise self.error(f"must be a table, not {table!r}")
        self._left: dict[str, Any] = dict(table)

    def error(self, message: str) -> DeviceTableError:
        return DeviceTableError(f"{self.owner}: {message}", path=self.where)

    def has(self, field: str) -> bool:
        return field in self._left

    def names(self) -> list[str]:
        return list(self._left)

    def peek(self, field: str) -> Any:
        return self._left.get(field)

    def take(self, field: str, kinds: tuple[type, ...], what: str) -> Any:
        if field not in self._left:
            raise self.error(f"{field} is missing")
        value = self._left.pop(field)
        if isinstance(value, bool) or not isinstance(value, kinds):
            raise self.error(f"{field} must be {what}, not {value!r}")
        return value

    def text(self, field: str, default: str | None = None) -> str:
        if default is not None and field not in self._left:
            return default
        return str(self.take(field, (str,), "a string"))

    def integer(self, field: str) -> int:
        return int(self.take(field, (int,), "an integer"))

    def number(self, field: str, default: float | None = None) -> float:
        if default is not None and field not in self._left:
            return default
        value: float = self.take(field, (int, float), "a number")
        return value

    def texts(self, field: str) -> tuple[str, ...]:
        if field not in self._left:
            return ()
        values = self.take(field, (list,), "an array of strings")
        if not all(isinstance(value, str) for value in values):
            raise self.error(f"{field} must be an array of strings, not {values!r}")
        return tuple(values)

    def table(self, field: str) -> Any:
        return self.take(field, (dict,), "a table")

    def done(self) -> None:
        if self._left:
            raise self.error(f"unknown field {next(iter(self._left))!r}")


def read_table(text: str, where: str = _WHERE) -> tuple[Device, ...]:
    """The rows of a chips file's ``text`` (``where`` names it in errors), in its order."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise DeviceTableError(str(error), path=where) from None
    top = _Fields(data, "the file", where)
    shared = _Shared(top)
    chips = top.take("chip", (list,), "an array of [[chip]] tables")
    top.done()
    return tuple(_chip(table, number, shared) for number, table in enumerate(chips, 1))


class _Shared:
    """The tables rows refer to: the platforms' shared facts, named peaks and interconnects."""

    def __init__(self, top: _Fields) -> None:
        self.where = top.where
        tpu = _Fields(top.table("tpu"), "[tpu]", top.where)
        tile = tpu.take("tile", (list,), "two integers")
        if len(tile) != 2 or not all(isinstance(n, int) and n > 0 for n in tile):
            raise tpu.error(f"tile must be two positive integers, not {tile!r}")
        self.tpu_tile: tuple[int, int] = (tile[0], tile[1])
        self.mxu_source = tpu.text("mxu_source")
        tpu.done()
        gpu = _Fields(top.table("gpu"), "[gpu]", top.where)
        self.gpu_note = gpu.text("note")
        gpu.done()
        self.tflops = {
            name: _peaks(_Fields(table, f"[tflops.{name}]", top.where))
            for name, table in top.table("tflops").items()
        }
        self.links = {
            name: _link(_Fields(table, f"[interconnect.{name}]", top.where))
            for name, table in top.table("interconnect").items()
        }


def _peaks(fields: _Fields) -> dict[str, float]:
    # Any element type may have a peak: each field is one, in 1e12 per second.
    peaks = {kind: fields.number(kind) * TERA for kind in fields.names()}
    fields.done()
    return peaks


def _link(fields: _Fields) -> Interconnect:
    try:
        kind = _Link(fields.text("kind"))
    except ValueError:
        raise fields.error(f"kind must be one of {', '.join(_Link)}") from None
    topology, links = fields.text("topology"), fields.integer("links")
    latency_s = fields.number("latency_s", _LATENCY_S[kind])
    if kind is _Link.SWITCH:
        one_way = fields.number("chip_gbps") * GIGA / 2
        link_one_way, ring = one_way / links, one_way
    else:
        if fields.has("link_gbps") == fields.has("chip_gbps"):
            raise fields.error("a torus states one of link_gbps and chip_gbps")
        if fields.has("link_gbps"):
            link_one_way = fields.number("link_gbps") * GIGA
        else:
            link_one_way = fields.number("chip_gbps") * GIGA / links / 2
        ring = 2 * link_one_way
    source = fields.text("source")
    fields.done()
    return Interconnect(
        topology, links, link_one_way, ring, latency_s, kind is _Link.SWITCH, source
    )


def _chip(table: object, number: int, shared: _Shared) -> Device:
    name = table.get("name") if isinstance(table, dict) else None
    owner = f"chip {name!r}" if isinstance(name, str) else f"[[chip]] number {number}"
    fields = _Fields(table, owner, shared.where)
    row: dict[str, Any] = {"name": fields.text("name")}
    row["platform"] = _platform(fields)
    row["device_kind"] = fields.text("device_kind")
    row["kind_pattern"] = _pattern(fields)
    row["aliases"] = fields.texts("aliases")
    row["flops_per_s"] = _row_peaks(fields, shared)
    row["memory_bytes_per_s"] = fields.number("bandwidth_gbps") * GIGA
    memory_gib = fields.integer("memory_gib") if fields.has("memory_gib") else None
    row["memory_bytes"] = memory_gib * GiB if memory_gib is not None else None
    row["memory_kind"] = fields.text("memory_kind")
    page = fields.text("page")
    sources = {"flops_per_s": page, "memory_bytes_per_s": page}
    if memory_gib is not None:
        sources["memory_bytes"] = page
    note = fields.text("note", "")
    if row["platform"] is Platform.TPU:
        sources["mxu"] = shared.mxu_source
        row.update(mxu=fields.integer("mxu"), tile=shared.tpu_tile, tpu_topology=_topology(fields))
    else:
        note = (note + "; " if note else "") + shared.gpu_note
    row["interconnect"] = _row_link(fields, shared)
    if row["interconnect"] is not None:
        sources["interconnect"] = row["interconnect"].source
    fields.done()
    return Device(**row, sources=sources, note=note)


def _platform(fields: _Fields) -> Platform:
    spelled = fields.text("platform")
    if spelled not in (Platform.TPU, Platform.GPU):
        raise fields.error(f"platform must be tpu or gpu, not {spelled!r}")
    return Platform(spelled)


def _pattern(fields: _Fields) -> str:
    pattern = fields.text("kind_pattern")
    try:
        re.compile(pattern)
    except re.error as error:
        raise fields.error(f"kind_pattern is not a regular expression: {error}") from None
    return pattern


def _row_peaks(fields: _Fields, shared: _Shared) -> dict[str, float]:
    # A row's peaks are a table of its own or the name of a shared one (several GPU models).
    if not fields.has("tflops") or isinstance(fields.peek("tflops"), dict):
        return _peaks(_Fields(fields.table("tflops"), f"{fields.owner}'s tflops", fields.where))
    named = fields.text("tflops")
    if named not in shared.tflops:
        raise fields.error(f"tflops {named!r} is no [tflops] table ({', '.join(shared.tflops)})")
    return dict(shared.tflops[named])


def _row_link(fields: _Fields, shared: _Shared) -> Interconnect | None:
    if not fields.has("interconnect"):
        return None
    named = fields.text("interconnect")
    if named not in shared.links:
        raise fields.error(
            f"interconnect {named!r} is no [interconnect] table ({', '.join(shared.links)})"
        )
    return shared.links[named]


def _topology(fields: _Fields) -> TpuTopology | None:
    if not fields.has("topology"):
        return None
    spelled = _Fields(fields.table("topology"), f"{fields.owner}'s topology", fields.where)
    cores = spelled.integer("cores_per_chip") if spelled.has("cores_per_chip") else 1
    topology = TpuTopology(
        spelled.text("prefix"), spelled.integer("dims"), spelled.text("accelerator_type"), cores
    )
    spelled.done()
    return topology


#: The rows hloscope ships with (:func:`hloscope.devices.register` adds more).
BUILT_IN: tuple[Device, ...] = read_table(
    resources.files(__package__).joinpath(_FILE).read_text("utf-8")
)
