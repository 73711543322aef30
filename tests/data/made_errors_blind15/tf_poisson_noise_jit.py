import tensorflow as tf


@tf.function(jit_compile=True)
def shot_noise(image, photons=50.0):
    counts = tf.random.poisson([], image * photons)
    return counts / photons


print(shot_noise(tf.fill((4, 4), 0.5)).shape)
