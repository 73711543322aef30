"""One module per kind of log, each a recogniser: its opening regex and its handler."""
