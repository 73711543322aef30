"""What runs programs and hands their data to the analyses: the compile time of a TARGET
(:mod:`.compile_time`) and how it grows with a size or a slice (:mod:`.compile_growth`).

This layer sits above :mod:`hloscope.analysis`, which takes data (captures, dumps, module
metadata) and runs nothing; below :mod:`hloscope.bench`, the render layer and the CLI.
"""
