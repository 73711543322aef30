"""XLA element types: names, bit widths and kinds.

The names are the lower-case spellings of ``xla_data.proto``'s ``PrimitiveType`` enum, exactly as
HLO text prints them (``f32``, ``bf16``, ``f8e4m3fn``, ``s4``, ``pred``, ``token``...).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ElementType", "ELEMENT_TYPES", "element_type", "is_element_type_name"]


@dataclass(frozen=True, slots=True)
class ElementType:
    """One primitive type.

    ``bits`` is the width of one value (4 for ``s4``, 1 for ``u1``); ``storage_bytes`` is what one
    value occupies in an unpacked buffer, which is what XLA uses unless a layout says ``E(n)``.
    """

    name: str
    bits: int
    kind: str  # "pred" | "signed" | "unsigned" | "float" | "complex" | "token" | "opaque"

    @property
    def storage_bytes(self) -> int:
        return max(1, (self.bits + 7) // 8) if self.bits else 0

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_integral(self) -> bool:
        return self.kind in ("signed", "unsigned")

    @property
    def is_complex(self) -> bool:
        return self.kind == "complex"

    @property
    def is_array_type(self) -> bool:
        """True for types that hold data (everything but token and opaque)."""
        return self.kind not in ("token", "opaque")

    def __str__(self) -> str:
        return self.name


def _table() -> dict[str, ElementType]:
    rows: list[tuple[str, int, str]] = [("pred", 8, "pred")]
    for bits in (1, 2, 4, 8, 16, 32, 64):
        rows.append((f"s{bits}", bits, "signed"))
        rows.append((f"u{bits}", bits, "unsigned"))
    rows += [
        ("f16", 16, "float"),
        ("bf16", 16, "float"),
        ("f32", 32, "float"),
        ("f64", 64, "float"),
        ("f8e5m2", 8, "float"),
        ("f8e4m3", 8, "float"),
        ("f8e4m3fn", 8, "float"),
        ("f8e4m3b11fnuz", 8, "float"),
        ("f8e3m4", 8, "float"),
        ("f8e5m2fnuz", 8, "float"),
        ("f8e4m3fnuz", 8, "float"),
        ("f8e8m0fnu", 8, "float"),
        ("f4e2m1fn", 4, "float"),
        ("c64", 64, "complex"),
        ("c128", 128, "complex"),
        ("token", 0, "token"),
        ("opaque", 0, "opaque"),
    ]
    table = {name: ElementType(name, bits, kind) for name, bits, kind in rows}
    table["opaque_type"] = table["opaque"]  # the parser's accepted alias
    return table


ELEMENT_TYPES: dict[str, ElementType] = _table()


def is_element_type_name(name: str) -> bool:
    return name in ELEMENT_TYPES


def element_type(name: str) -> ElementType:
    """The :class:`ElementType` for ``name``.

    Unknown names (a newer XLA may add types) get an ``ElementType`` of kind ``"unknown"`` whose
    width is guessed from a trailing number, so that a future ``f6e3m2fn`` still sizes sensibly.
    """
    found = ELEMENT_TYPES.get(name)
    if found is not None:
        return found
    digits = ""
    for ch in name[1:]:
        if ch.isdigit():
            digits += ch
        else:
            break
    return ElementType(name, int(digits) if digits else 8, "unknown")
