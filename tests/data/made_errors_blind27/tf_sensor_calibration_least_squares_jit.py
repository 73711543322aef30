import tensorflow as tf


@tf.function(jit_compile=True)
def fit_gain_offset(raw, reference):
    # per-sensor linear calibration fitted by least squares
    design = tf.stack([raw, tf.ones_like(raw)], axis=-1)
    return tf.linalg.lstsq(design, reference[:, None], fast=False)


print(fit_gain_offset(tf.random.uniform([256]), tf.random.uniform([256])))
