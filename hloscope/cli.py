"""The ``hloscope`` command line: a thin click layer over the library.

Each command parses its arguments, calls one library function and hands the result to a
renderer. Errors the user can fix are printed as one line (``file:line:col: error: ...``) and exit
non-zero; tracebacks are never shown. Offline commands must not import jax or tensorflow.
"""

from __future__ import annotations

import sys

import click

from . import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hloscope")
def cli() -> None:
    """See what XLA does to your code.

    TARGET arguments take an HLO text file, an XLA dump folder (--xla_dump_to) or a Python
    script (SCRIPT.py or SCRIPT.py:FUNCTION), which is captured first.
    """


# ---- commands are added below; each stays a few lines that call into the library ----------


def main() -> None:
    """Entry point of the ``hloscope`` console script."""
    try:
        cli(standalone_mode=True)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)


if __name__ == "__main__":
    main()
