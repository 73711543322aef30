"""Filled in by issue 10/11 work: registers the `recompiles` command on import."""
