"""``python -m hloscope``: the same as the ``hloscope`` command."""

from .cli import main

main()
