# XLA_FLAGS extra: ''; env: {}
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf


def save_ir(fn, args, name):
    for stage in ("hlo", "optimized_hlo"):
        with open(os.path.join(OUT, f"{name}.{stage}.txt"), "w") as out:
            out.write(fn.experimental_get_compiler_ir(*args)(stage=stage))

model = tf.keras.applications.ResNet50(weights=None, input_shape=(32, 32, 3), classes=10)


@tf.function(jit_compile=True)
def fwd(x):
    return model(x, training=False)


save_ir(fwd, (tf.ones((1, 32, 32, 3)),), "resnet50_forward")
