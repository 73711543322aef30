import tensorflow as tf


@tf.function(jit_compile=True)
def radiated_pressure(k, r):
    # the standing-wave part of the field around a pulsating cylinder: Y0 of k r
    kr = k * r
    return tf.math.special.bessel_y0(kr) / tf.sqrt(kr)


print(radiated_pressure(tf.constant(2.0), tf.linspace(0.1, 5.0, 64))[:4])
