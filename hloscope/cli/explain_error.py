"""Filled in by issue 10/11 work: registers the `explain_error` command on import."""
