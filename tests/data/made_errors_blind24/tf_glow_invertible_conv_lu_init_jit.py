import tensorflow as tf


@tf.function(jit_compile=True)
def invertible_1x1_logdet(weight, height, width):
    # Glow: the LU-decomposed 1x1 convolution's log-determinant
    lu, _ = tf.linalg.lu(weight)
    log_s = tf.math.log(tf.abs(tf.linalg.diag_part(lu)))
    return tf.cast(height * width, tf.float32) * tf.reduce_sum(log_s)


q, _ = tf.linalg.qr(tf.random.normal([48, 48]))
print(invertible_1x1_logdet(q, 32, 32))
