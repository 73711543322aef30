import tensorflow as tf


@tf.function(jit_compile=True)
def place_digit(digit):
    # cluttered MNIST: put the 28x28 digit at a random place on a 60x60 canvas
    offset = tf.random.uniform((2,), 0, 32, dtype=tf.int32)
    return tf.image.pad_to_bounding_box(digit, offset[0], offset[1], 60, 60)


print(place_digit(tf.ones((28, 28, 1))).shape)
