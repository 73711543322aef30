"""Filled in by the issue 12/13 work: registers the `report` command on import."""
