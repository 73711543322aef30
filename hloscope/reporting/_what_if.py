"""The "what if" part of a page: ``hloscope try``'s variants of the page's function, compiled
for a TPU chip or slice and ranked (:func:`hloscope.drivers.variants.try_variants`), or its
flag audit.

Both pages take it: the report of a function that compiled, and the page of one that did not
(:mod:`._failed`), where the variants are what the user needs most: the baseline is refused
in the compiler's words, and the table says which variants compile and fit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ..errors import HloscopeError
from ..render.html.try_section import try_section
from ._optional import optional

if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from ..analysis.variants import TryResult
    from ..devices import DeviceSpec
    from ..drivers.variants import VariantOptions
    from ..render.html.try_section import TrySection

__all__ = ["add_what_if"]


class _Page(Protocol):
    notes: list[str]
    what_if: TrySection | None
    what_if_data: dict[str, Any] | None


def add_what_if(
    page: _Page,
    function: str | None,
    device: str | DeviceSpec | None,
    options: VariantOptions | None,
    goal: str,
    audit: list[str] | None = None,
) -> None:
    """The "what if" section of ``page``: ``hloscope try``'s variants of ``function``
    (``SCRIPT.py:FUNCTION``) for ``device`` (a TPU chip or slice), each compiled in a child
    process and cached, ranked by ``goal`` (with ``audit``, the flag audit of those flags
    instead); and the same data as ``try --json`` in its JSON (a note instead, saying why, when
    it cannot be made)."""

    def variants() -> TryResult:
        from ..drivers.variants import try_variants

        if function is None:
            raise HloscopeError("what if: try compiles variants of a SCRIPT.py:FUNCTION target")
        if device is None:
            raise HloscopeError("what if: give --device, the TPU chip or slice to compile for")
        return try_variants(function, device, options, goal=goal, audit=audit)

    result = optional(page, "what if", variants)
    if result is None:
        return
    section = try_section(result)
    # A flag audit's table says each flag's verdict: its notes need not say them again.
    said = {verdict.line() for verdict in result.audit or []}
    section.notes = [note for note in section.notes if note not in said]
    page.what_if = section
    page.what_if_data = result.to_dict()
