"""Filled in by the issue 12/13 work: registers the `extract` command on import."""
