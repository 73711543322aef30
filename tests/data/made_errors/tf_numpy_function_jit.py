import numpy as np
import tensorflow as tf

@tf.function(jit_compile=True)
def normalised(x):
    y = tf.numpy_function(lambda v: v / np.linalg.norm(v), [x], tf.float32)
    return y * 2

normalised(tf.ones(4))
