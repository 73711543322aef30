"""Which variants ``hloscope try`` compiles: the options, read into one :class:`Variant` each.

Each option names the choices of one setting: the layout (``--mesh``, ``--meshes all`` and
``--shard``: every mesh with every sharding), the remat policy, the donated arguments, the
casts, the flag sets. The variants are every combination of the choices, where each setting
but the layout also has the choice "as the script has it"; the combination of none is the
baseline, compiled as the script gives the program. So ``--shard dp --shard fsdp --remat
nothing_saveable@block`` is four variants: dp, fsdp, and each with the remat policy.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...capture.mesh import parse_mesh
from ...errors import UsageProblem

__all__ = [
    "BASELINE",
    "Variant",
    "VariantOptions",
    "factorisations",
    "parse_mesh",
    "plan_variants",
]

BASELINE = "baseline"
_PRESETS = ("dp", "fsdp", "tp")
#: The axes ``--meshes all`` factors the slice over when the shardings name none.
DEFAULT_AXES = ("data", "model")


@dataclass(frozen=True, slots=True)
class Variant:
    """One compile: its name and what it changes (``changes``: the backend's
    :class:`~hloscope.backends.variant_compile.Changes` as a dict; ``flags``: the XLA/libtpu
    flags its compile runs with, in ``LIBTPU_INIT_ARGS``; ``without``: flags taken out)."""

    name: str
    changes: dict[str, Any] = field(default_factory=dict)
    flags: tuple[str, ...] = ()
    without: tuple[str, ...] = ()

    @property
    def settings(self) -> dict[str, Any]:
        """What it changes, as ``--json`` and the judge see it (only what is set)."""
        out = {
            "mesh": self.changes.get("mesh"),
            "shard": self.changes.get("shard"),
            "remat": self.changes.get("remat"),
            "donate": self.changes.get("donate"),
            "cast": self.changes.get("cast"),
            "flags": list(self.flags) or None,
            "without_flags": list(self.without) or None,
        }
        return {k: v for k, v in out.items() if v}


@dataclass(frozen=True, slots=True)
class VariantOptions:
    """The options as given on the command line (or to :func:`hloscope.try_variants`)."""

    meshes: tuple[str, ...] = ()
    meshes_all: bool = False
    shard: tuple[str, ...] = ()
    batch: tuple[str, ...] = ()
    remat: tuple[str, ...] = ()
    donate: tuple[str, ...] = ()
    cast: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()


def factorisations(chips: int, axes: Sequence[str]) -> list[dict[str, int]]:
    """Every mesh of ``chips`` devices over ``axes``, each axis at least 1 (ordered: ``data=2,
    model=4`` and ``data=4,model=2`` are two)."""
    divisors = [d for d in range(1, chips + 1) if chips % d == 0]
    found = []
    for sizes in itertools.product(divisors, repeat=len(axes)):
        if math.prod(sizes) == chips:
            found.append(dict(zip(axes, sizes)))
    return found


def shard_axes(shards: Sequence[str]) -> tuple[str, ...]:
    """The mesh axes the shardings name (a preset: :data:`DEFAULT_AXES`)."""
    axes: list[str] = []
    for shard in shards:
        if shard in _PRESETS:
            named: Sequence[str] = DEFAULT_AXES
        else:
            named = [a for a in re.split(r"[;,=+()\s]", _specs_only(shard)) if _is_axis(a)]
        for axis in named:
            if axis not in axes:
                axes.append(axis)
    return tuple(axes)


def _specs_only(shard: str) -> str:
    """The SPEC halves of ``REGEX=SPEC;...`` (the regular expressions name no axes)."""
    return ";".join(part.rpartition("=")[2] for part in shard.split(";"))


def _is_axis(word: str) -> bool:
    return bool(word) and word not in ("None", "_") and word.isidentifier()


def _check_shard(text: str) -> None:
    if text in _PRESETS:
        return
    for part in (p.strip() for p in text.split(";")):
        if part and ("=" not in part or not part.rpartition("=")[0]):
            raise UsageProblem(
                f"--shard {text!r}: give a preset ({', '.join(_PRESETS)}) or REGEX=SPEC rules "
                "separated by ';' (params.*w1=None,model)"
            )
        try:
            re.compile(part.rpartition("=")[0])
        except re.error as error:
            raise UsageProblem(f"--shard {text!r}: {error}") from None


def _parse_cast(text: str) -> dict[str, str]:
    out = {}
    for part in text.split(","):
        name, sep, dtype = part.partition("=")
        if not sep or not name.strip() or not dtype.strip():
            raise UsageProblem(f"--cast {text!r}: give ARG=DTYPE (params=bf16)")
        out[name.strip()] = dtype.strip()
    return out


def _flag_set(text: str) -> tuple[str, ...]:
    flags = tuple(f.strip() for f in re.split(r"[,\s]+", text) if f.strip())
    for flag in flags:
        if not flag.startswith("--"):
            raise UsageProblem(f"--flags {text!r}: {flag!r} is not a flag (--xla_name=value)")
    return flags


def _remat(text: str) -> str:
    """``POLICY[@NAME]`` checked (a usage error listing the policies) and in its canonical
    spelling, so that one policy written two ways is one variant and one cache entry."""
    from ...backends.remat_policy import parse_policy, split_target

    policy, target = split_target(text)
    spelled = parse_policy(policy).spelled()
    return f"{spelled}@{target}" if target else spelled


def _short(text: str, limit: int = 28) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def plan_variants(
    options: VariantOptions, chips: int, argument_axes: Sequence[str] = ()
) -> list[Variant]:
    """The variants of ``options`` for a slice of ``chips`` (``argument_axes``: the axes of the
    mesh the example arguments carry, what ``--meshes all`` factors when no ``--shard`` names
    axes)."""
    for shard in options.shard:
        _check_shard(shard)
    meshes = [parse_mesh(m) for m in options.meshes]
    for mesh in meshes:
        if math.prod(mesh.values()) != chips:
            raise UsageProblem(
                f"--mesh {','.join(f'{k}={v}' for k, v in mesh.items())}: "
                f"{math.prod(mesh.values())} devices, and the slice has {chips}"
            )
    if options.meshes_all:
        axes = shard_axes(options.shard) or tuple(argument_axes) or DEFAULT_AXES
        meshes += [m for m in factorisations(chips, axes) if m not in meshes]
    layouts: list[tuple[dict[str, int] | None, str | None]]
    if meshes and options.shard:
        layouts = [(m, s) for s in options.shard for m in meshes]
    elif meshes:
        layouts = [(m, None) for m in meshes]
    elif options.shard:
        layouts = [(None, s) for s in options.shard]
    else:
        layouts = [(None, None)]
    remats: list[str | None] = [None, *(_remat(r) for r in options.remat)]
    donates: list[tuple[str, ...]] = [()] + ([tuple(options.donate)] if options.donate else [])
    casts: list[dict[str, str]] = [{}]
    for text in options.cast:
        casts.append(_parse_cast(text))
    flag_sets: list[tuple[str, ...]] = [(), *(_flag_set(f) for f in options.flags)]
    variants = []
    seen = set()
    for layout, remat, donate, cast, flags in itertools.product(
        layouts, remats, donates, casts, flag_sets
    ):
        changes: dict[str, Any] = {
            "mesh": layout[0],
            "shard": layout[1],
            "batch": list(options.batch),
            "remat": remat,
            "donate": list(donate),
            "cast": cast or None,
        }
        if not (layout[0] or layout[1] or remat or donate or cast or flags):
            continue  # the baseline
        name = _name(changes, flags)
        if name in seen:
            continue
        seen.add(name)
        variants.append(Variant(name, changes, flags))
    return variants


def _name(changes: Mapping[str, Any], flags: Sequence[str]) -> str:
    parts = []
    if changes.get("mesh"):
        parts.append(",".join(f"{k}={v}" for k, v in changes["mesh"].items()))
    if changes.get("shard"):
        parts.append(_short(changes["shard"]))
    if changes.get("remat"):
        parts.append(f"remat={changes['remat']}")
    if changes.get("donate"):
        parts.append(f"donate={','.join(changes['donate'])}")
    if changes.get("cast"):
        parts.append("cast=" + ",".join(f"{k}={v}" for k, v in changes["cast"].items()))
    if flags:
        parts.append(_short(" ".join(flags)))
    return " ".join(parts)


def audit_variants(flags: Sequence[str]) -> list[Variant]:
    """``--audit-flags``: one variant per flag, compiled without it (the baseline has all)."""
    out = []
    for flag in flags:
        out.append(Variant(f"without {_short(flag, 40)}", {}, (), (flag,)))
    return out
