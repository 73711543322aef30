import tensorflow as tf


@tf.function(jit_compile=True)
def multiscale(images):
    size = tf.random.uniform([], 224, 320, dtype=tf.int32)
    return tf.image.resize(images, [size, size])


print(multiscale(tf.zeros((4, 256, 256, 3))).shape)
