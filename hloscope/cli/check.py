"""Filled in by issue 10/11 work: registers the `check` command on import."""
