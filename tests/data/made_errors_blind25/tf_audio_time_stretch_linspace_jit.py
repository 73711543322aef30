import tensorflow as tf


@tf.function(jit_compile=True)
def time_stretch(wave):
    # speed perturbation: resample the clip at a random rate
    rate = tf.random.uniform([], 0.9, 1.1)
    length = tf.cast(tf.shape(wave)[0], tf.float32)
    new_length = tf.cast(length / rate, tf.int32)
    positions = tf.linspace(0.0, length - 1.0, new_length)
    return tf.gather(wave, tf.cast(positions, tf.int32))


print(time_stretch(tf.random.normal([16000])).shape)
