"""Filled in by the issue 12/13 work: registers the `bench` command on import."""
