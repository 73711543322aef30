"""``hloscope try SCRIPT.py:FUNCTION --device tpu-v5e:2x2 [variants]``: what-if variants of a
function (meshes, shardings, remat, donation, dtypes, flags), each a real XLA:TPU compile for
the slice made offline, ranked (:mod:`hloscope.drivers.variants`)."""

from __future__ import annotations

import shutil
from typing import Any

import click

from ._app import cli
from ._device import device_option
from ._output import write_json
from ._target import say_note

__all__ = ["try_command"]

_LEAD = (
    "The TPU chip or slice to compile for (tpu-v5e:2x2): each variant is XLA:TPU's own "
    "compile for it, made here without a TPU (the tpu extra)."
)


@cli.command("try")
@click.argument("target")
@device_option(_LEAD)
@click.option(
    "--mesh",
    "meshes",
    multiple=True,
    metavar="AXIS=N[,AXIS=N]",
    help="A mesh of the slice's devices (data=2,model=2); several: one variant each. Without "
    "--shard it reshapes the mesh the example arguments carry.",
)
@click.option(
    "--meshes",
    "meshes_all",
    type=click.Choice(["all"]),
    help="Every factorisation of the slice over the mesh axes (those --shard names, else the "
    "example arguments' mesh, else data,model).",
)
@click.option(
    "--shard",
    multiple=True,
    metavar="PRESET|REGEX=SPEC[;...]",
    help="The arguments' shardings: dp (data parallel), fsdp, tp (tensor parallel), or rules "
    "on each leaf's path ('params.*w1=None,model;batch.*=data'); several: one variant each.",
)
@click.option(
    "--batch",
    metavar="ARG[,ARG]",
    help="The arguments holding the batch, for the presets (default: batch, x, tokens...).",
)
@click.option(
    "--remat",
    metavar="POLICY[@NAME][,...]",
    help="jax.checkpoint policies (nothing_saveable, dots_saveable, everything_saveable...) "
    "around FUNCTION, or @NAME around the script's function NAME (a layer): one variant each.",
)
@click.option("--donate", metavar="ARG[,ARG]", help="Donate these arguments (donate_argnames).")
@click.option(
    "--cast", multiple=True, metavar="ARG=DTYPE", help="Floating leaves of ARG in DTYPE (bf16)."
)
@click.option(
    "--flags",
    multiple=True,
    metavar="'--A --B'",
    help="XLA/libtpu flags for the compile (in LIBTPU_INIT_ARGS); several: one variant each.",
)
@click.option(
    "--audit-flags",
    "audit",
    is_flag=False,
    flag_value="",
    default=None,
    metavar="[FILE]",
    help="Compile with every flag of FILE (or of XLA_FLAGS and LIBTPU_INIT_ARGS), then "
    "without each in turn: which are unknown to this libtpu, which change nothing.",
)
@click.option(
    "--goal",
    type=click.Choice(["fit", "step", "memory"]),
    default="fit",
    show_default=True,
    help="Rank by: fit (those that fit, fastest step first), step, or memory (peak).",
)
@click.option("--jobs", type=click.IntRange(min=1), help="Compiles at once (default: the cores).")
@click.option("--refresh", is_flag=True, help="Compile again, ignoring the cache.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def try_command(
    target: str,
    device: Any,
    meshes: tuple[str, ...],
    meshes_all: str | None,
    shard: tuple[str, ...],
    batch: str | None,
    remat: str | None,
    donate: str | None,
    cast: tuple[str, ...],
    flags: tuple[str, ...],
    audit: str | None,
    goal: str,
    jobs: int | None,
    refresh: bool,
    as_json: bool,
) -> None:
    """Compile SCRIPT.py:FUNCTION for a TPU slice as the script gives it and as each variant
    changes it, with XLA:TPU, offline; rank the variants (fits or not, peak per device,
    FLOPs, HBM and collective bytes, step estimate), say which changed nothing, and show the
    code change that gives the best."""
    from ..drivers.variants import VariantOptions, flags_to_audit, try_variants
    from ..drivers.variants.run import function_target

    function_target(target)  # a wrong TARGET is said before anything else
    options = VariantOptions(
        meshes=meshes,
        meshes_all=meshes_all == "all",
        shard=shard,
        batch=_names(batch),
        remat=_names(remat),
        donate=_names(donate),
        cast=cast,
        flags=flags,
    )
    audited = flags_to_audit(audit or None) if audit is not None else None

    def on_done(outcome: Any) -> None:
        how = "cached" if outcome.cached else f"{outcome.compile_s or 0:.1f} s"
        state = "compiled" if outcome.compiled else ("n/a" if not outcome.applicable else "refused")
        click.echo(f"hloscope: {outcome.name}: {state} ({how})", err=True)

    result = try_variants(
        target,
        device,
        options,
        goal=goal,
        audit=audited,
        jobs=jobs,
        refresh=refresh,
        on_done=on_done,
    )
    # What compiled the variants, as every --device command says it (the registry's backend).
    say_note(f"compiled for {result.device} by {result.compiled_by}")
    payload = result.to_dict()
    if as_json:
        write_json(payload, default=str)
        return
    from ..render.try_text import render_try

    render_try(payload, click.echo, width=shutil.get_terminal_size().columns)


def _names(text: str | None) -> tuple[str, ...]:
    return tuple(n.strip() for n in (text or "").split(",") if n.strip())
