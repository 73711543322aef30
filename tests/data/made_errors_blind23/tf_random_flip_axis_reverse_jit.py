import tensorflow as tf


@tf.function(jit_compile=True)
def random_flip(image):
    # flip each image horizontally or vertically, chosen at random
    axis = tf.random.uniform((), 0, 2, dtype=tf.int32)
    return tf.reverse(image, [axis])


print(random_flip(tf.zeros((224, 224, 3))).shape)
