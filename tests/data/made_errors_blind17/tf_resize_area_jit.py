import tensorflow as tf


@tf.function(jit_compile=True)
def thumbnails(images):
    return tf.image.resize(images, (32, 32), method="area")


print(thumbnails(tf.zeros((4, 128, 128, 3))).shape)
