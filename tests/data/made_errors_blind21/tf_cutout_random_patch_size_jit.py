import tensorflow as tf


@tf.function(jit_compile=True)
def cutout(image):
    # erase a square patch of random size from the top-left corner
    size = tf.random.uniform((), 8, 32, dtype=tf.int32)
    patch = tf.zeros([size, size, 3])
    mask = tf.image.pad_to_bounding_box(patch + 1.0, 0, 0, 64, 64)
    return image * (1.0 - mask)


print(cutout(tf.ones((64, 64, 3))).shape)
