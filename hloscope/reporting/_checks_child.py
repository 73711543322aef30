"""The report's framework checks of one ``SCRIPT.py:FUNCTION``, every platform in this one
process: ``python -m hloscope.reporting._checks_child SCRIPT.py:FUNCTION PLATFORM...`` prints
one JSON object, each platform to what ``hloscope check SCRIPT.py:FUNCTION --device PLATFORM
--json`` prints for it (:func:`hloscope.cli.check.function_checks`), and exits 0; an error
(a script that cannot be imported) exits 1, as the command does.

:func:`hloscope.reporting._checks.framework_checks` runs it: one child, which imports the script
and its framework once, where a child per platform imported them once each.
"""

from __future__ import annotations

import json
import os
import sys


def main(argv: list[str]) -> int:
    from ..cli.check import function_checks

    spec, *platforms = argv
    try:
        reports = function_checks(spec, platforms)
    except Exception as error:  # noqa: BLE001 - the parent reads any failure from the status
        print(f"hloscope: error: {error}", file=sys.stderr)
        return 1
    # (json.dumps, not the commands' printer: a package's private helper stays in it, and
    # the parent reads the object, not its layout.)
    sys.stdout.write(json.dumps({p: report.to_dict() for p, report in reports.items()}) + "\n")
    return 0


if __name__ == "__main__":
    status = main(sys.argv[1:])
    sys.stdout.flush()
    os._exit(status)  # all is said: skip the frameworks' clean-up at exit, as the command does
