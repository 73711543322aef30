import numpy as np
import tensorflow as tf


@tf.function
def train_step(x):
    return tf.reduce_mean(tf.square(x))


rng = np.random.default_rng(0)
for n in range(10, 20):
    train_step(rng.normal(size=(n, 3)).astype(np.float32))
print("done")
