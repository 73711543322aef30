import tensorflow as tf


@tf.function
def scale(x, factor):
    return x * factor


for step in range(10):
    scale(tf.ones(3), 0.1 * step)
print("done")
