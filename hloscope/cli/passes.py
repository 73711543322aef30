"""Filled in by the issue 12/13 work: registers the `passes` command on import."""
