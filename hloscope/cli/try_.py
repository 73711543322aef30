"""``hloscope try SCRIPT.py:FUNCTION --device tpu-v5e:2x2 [variants]``: what-if variants of a
function (meshes, shardings, remat, donation, dtypes, flags), each a real XLA:TPU compile for
the slice made offline, ranked (:mod:`hloscope.drivers.variants`)."""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING, Any

import click

from ._app import cli
from ._count import count_option
from ._device import device_option
from ._output import write_json
from ._target import say_note

if TYPE_CHECKING:  # pragma: no cover
    from ..drivers.variants import VariantOptions

__all__ = ["try_command", "checked_variants", "variant_options", "variant_options_of"]

_LEAD = (
    "The TPU chip or slice to compile for (tpu-v5e:2x2): each variant is XLA:TPU's own "
    "compile for it, made here without a TPU (the tpu extra)."
)


def variant_options(command: Any) -> Any:
    """The options that name the variants and the goal, as ``try`` takes them (``report
    --try`` reads the same from one string)."""
    for option in reversed(_VARIANT_OPTIONS):
        command = option(command)
    return command


_VARIANT_OPTIONS = [
    click.option(
        "--mesh",
        "meshes",
        multiple=True,
        metavar="AXIS=N[,AXIS=N]",
        help="A mesh of the slice's devices (data=2,model=2); several: one variant each. Without "
        "--shard it reshapes the mesh the example arguments carry.",
    ),
    click.option(
        "--meshes",
        "meshes_all",
        type=click.Choice(["all"]),
        help="Every factorisation of the slice over the mesh axes (those --shard names, else the "
        "example arguments' mesh, else data,model).",
    ),
    click.option(
        "--shard",
        multiple=True,
        metavar="PRESET|REGEX=SPEC[;...]",
        help="The arguments' shardings: dp (data parallel), fsdp, tp (tensor parallel), or rules "
        "on each leaf's path ('params.*w1=None,model;batch.*=data'); several: one variant each.",
    ),
    click.option(
        "--batch",
        metavar="ARG[,ARG]",
        help="The arguments holding the batch, for the presets (default: batch, x, tokens...).",
    ),
    click.option(
        "--remat",
        metavar="POLICY[@NAME][,...]",
        help="jax.checkpoint policies (nothing_saveable, dots_saveable, everything_saveable, "
        "save_only_these_names(a,b), offload_dot_with_no_batch_dims(device,pinned_host)...) "
        "around FUNCTION, or @NAME around the script's function NAME (a layer): one variant each.",
    ),
    click.option("--donate", metavar="ARG[,ARG]", help="Donate these arguments (donate_argnames)."),
    click.option(
        "--cast", multiple=True, metavar="ARG=DTYPE", help="Floating leaves of ARG in DTYPE (bf16)."
    ),
    click.option(
        "--flags",
        multiple=True,
        metavar="'--A --B'",
        help="XLA/libtpu flags for the compile (in LIBTPU_INIT_ARGS); several: one variant each.",
    ),
    click.option(
        "--goal",
        type=click.Choice(["fit", "step", "memory"]),
        default="fit",
        show_default=True,
        help="Rank by: fit (those that fit, fastest step first), step, or memory (peak).",
    ),
]


#: ``--audit-flags [FILE]``, as ``try`` and ``report --try`` take it.
_AUDIT_OPTION = click.option(
    "--audit-flags",
    "audit",
    is_flag=False,
    flag_value="",
    default=None,
    metavar="[FILE]",
    help="Compile with every flag of FILE (or of XLA_FLAGS and LIBTPU_INIT_ARGS), then "
    "without each in turn: which are unknown to this libtpu, which change nothing.",
)


@cli.command("try")
@click.argument("target")
@device_option(_LEAD)
@variant_options
@_AUDIT_OPTION
@count_option("--jobs", "Compiles at once (default: the cores).", least=1)
@click.option("--refresh", is_flag=True, help="Compile again, ignoring the cache.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def try_command(
    target: str,
    device: Any,
    audit: str | None,
    goal: str,
    jobs: int | None,
    refresh: bool,
    as_json: bool,
    **variants: Any,
) -> None:
    """Compile SCRIPT.py:FUNCTION for a TPU slice as the script gives it and as each variant
    changes it, with XLA:TPU, offline; rank the variants (fits or not, peak per device,
    FLOPs, HBM and collective bytes, step estimate), say which changed nothing, and show the
    code change that gives the best."""
    from ..drivers.variants import flags_to_audit, try_variants
    from ..drivers.variants.run import function_target

    function_target(target)  # a wrong TARGET is said before anything else
    options = _options(**variants)  # read as report --try reads them
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


def _options(**given: Any) -> VariantOptions:
    """The variant options as the command line gave them (click's values of
    :func:`variant_options`, ``--goal`` aside)."""
    from ..drivers.variants import VariantOptions

    return VariantOptions(
        meshes=tuple(given["meshes"]),
        meshes_all=given["meshes_all"] == "all",
        shard=tuple(given["shard"]),
        batch=_names(given["batch"]),
        remat=_policies(given["remat"]),
        donate=_names(given["donate"]),
        cast=tuple(given["cast"]),
        flags=tuple(given["flags"]),
    )


#: ``report --try``'s reader of the variant options (never run: only its parser is used).
_TRY_OPTIONS = _AUDIT_OPTION(variant_options(click.Command("--try", add_help_option=False)))


def variant_options_of(text: str) -> tuple[VariantOptions, str, str | None]:
    """The variants, the goal and ``--audit-flags``' FILE (``""``: the environment's flags;
    ``None``: no audit) of ``text``, written as ``try``'s options (``--shard dp --remat
    nothing_saveable@block --goal memory``); a usage error in one line for anything ``try``
    would refuse."""
    import shlex

    from ..errors import UsageProblem

    try:
        words = shlex.split(text)
        params = _TRY_OPTIONS.make_context("--try", words).params
    except ValueError as error:
        raise UsageProblem(f"--try {text!r}: {error}") from None
    except click.UsageError as error:
        raise UsageProblem(f"--try {text!r}: {error.format_message()}") from None
    goal = str(params.pop("goal"))
    audit = params.pop("audit")
    return _options(**params), goal, audit


def checked_variants(
    text: str, target: str, device: Any
) -> tuple[VariantOptions, str, list[str] | None]:
    """``report --try TEXT``'s variants, goal and flags to audit, checked before anything
    compiles: a function target, a TPU chip or slice that a backend here compiles for, and
    variants ``try`` would plan or flags to audit (each problem a one-line usage error)."""
    from ..backends.variant_compile import slice_row
    from ..capture.target import is_function_spec
    from ..drivers.variants import flags_to_audit, plan_variants
    from ..errors import UsageProblem

    options, goal, audit = variant_options_of(text)
    if not is_function_spec(target):
        raise UsageProblem("--try: try compiles variants of a function: give SCRIPT.py:FUNCTION")
    if device is None:
        raise UsageProblem("--try: give --device, the TPU chip or slice to compile for")
    slice_row(device)
    audited = flags_to_audit(audit or None) if audit is not None else None
    if audited is None and not options.meshes_all and not plan_variants(options, device.chips):
        raise UsageProblem(
            f"--try {text!r}: name variants (--mesh, --shard, --remat... or --audit-flags)"
        )
    return options, goal, audited


def _policies(text: str | None) -> tuple[str, ...]:
    from ..backends.remat_policy import split_policies

    return tuple(split_policies(text or ""))


def _names(text: str | None) -> tuple[str, ...]:
    return tuple(n.strip() for n in (text or "").split(",") if n.strip())
