"""``python -m hloscope.cli``: the same as the ``hloscope`` command."""

from . import main

main()
