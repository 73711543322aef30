# XLA_FLAGS extra: ''; env: {}
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf


def save_ir(fn, args, name):
    for stage in ("hlo", "optimized_hlo"):
        with open(os.path.join(OUT, f"{name}.{stage}.txt"), "w") as out:
            out.write(fn.experimental_get_compiler_ir(*args)(stage=stage))


def attempt(name, fn, *args):
    try:
        fn(*args)
        message = "compiled without error"
    except Exception as error:
        message = f"{type(error).__name__}: {error}"
    with open(os.path.join(OUT, f"{name}.error.txt"), "w") as out:
        out.write(message)


@tf.function(jit_compile=True)
def as_string(x):
    return tf.strings.length(tf.strings.as_string(x))


@tf.function(jit_compile=True)
def unique(x):
    return tf.unique(x).y


@tf.function(jit_compile=True)
def py_func(x):
    return tf.py_function(lambda a: a + 1, [x], tf.float32)


@tf.function(jit_compile=True)
def boolean_mask(x):
    return tf.boolean_mask(x, x < 0)


@tf.function(jit_compile=True)
def fine(x):
    return tf.math.softplus(x) * 3


attempt("as_string", as_string, tf.constant([4.0, 5.0]))
attempt("unique", unique, tf.constant([3, 1, 3, 2]))
attempt("py_function", py_func, tf.constant([4.0, 5.0]))
attempt("boolean_mask", boolean_mask, tf.constant([4.0, -5.0]))
attempt("fine", fine, tf.constant([4.0, -5.0]))
