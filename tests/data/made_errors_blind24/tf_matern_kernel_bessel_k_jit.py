import tensorflow as tf


@tf.function(jit_compile=True)
def matern_kernel(x1, x2, length_scale=1.0):
    # nu = 0 Matern covariance for the spatial GP
    r = tf.norm(x1[:, None, :] - x2[None, :, :], axis=-1) / length_scale
    return tf.math.special.bessel_k0(r + 1e-6)


print(matern_kernel(tf.random.normal([32, 2]), tf.random.normal([16, 2])).shape)
