"""Analyses of parsed HLO: cost model, fusion report, summaries."""
