import tensorflow as tf


@tf.function(jit_compile=True)
def augment(image, seed):
    # robustness to compression: re-encode at a random JPEG quality
    image = tf.image.stateless_random_flip_left_right(image, seed)
    return tf.image.stateless_random_jpeg_quality(image, 30, 95, seed)


print(augment(tf.random.uniform((224, 224, 3)), tf.constant([1, 2])).shape)
