import tensorflow as tf


@tf.function(jit_compile=True)
def smooth(bands, signal):
    # smoothing spline: solve the banded lower-triangular system
    return tf.linalg.banded_triangular_solve(bands, signal[:, None])[:, 0]


bands = tf.concat([tf.fill([1, 256], 0.25), tf.ones((1, 256))], axis=0)
print(smooth(bands, tf.random.normal((256,))).shape)
