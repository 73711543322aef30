"""What runs programs, opens TARGETs and hands their data to the analyses: the compile time of a
TARGET (:mod:`.compile_time`) and how it grows with a size or a slice (:mod:`.compile_growth`);
the memory of a TARGET or of a function compiled here (:mod:`.memory`); a TARGET's stages
linked for ``explain`` (:mod:`.explain`) and its pass timeline (:mod:`.passes`); the recompiles
of a script run (:mod:`.script_recompiles`), of a TARGET read offline
(:mod:`.target_recompiles`) and of code watched live (:mod:`.compile_watch`); the pre-flight
checks' lowering and tracing (:mod:`.jax_check`, :mod:`.tf_check`) and their confirmation by
XLA:TPU (:mod:`.tpu_confirm`).

This layer sits above :mod:`hloscope.analysis`, which takes data (captures, dumps, module
metadata, compile records, lowering facts) and runs nothing; below :mod:`hloscope.bench`, the
render layer and the CLI.
"""
