"""Renderers: terminal tables (rich), Graphviz pictures and Model Explorer JSON."""
