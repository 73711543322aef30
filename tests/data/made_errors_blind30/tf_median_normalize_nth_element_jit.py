import tensorflow as tf


@tf.function(jit_compile=True)
def robust_normalize(x):
    # subtract every channel's median: robust to the sensor's spikes
    median = tf.raw_ops.NthElement(input=x, n=x.shape[-1] // 2)
    return x - median[:, None]


print(robust_normalize(tf.random.uniform([32, 101])).shape)
