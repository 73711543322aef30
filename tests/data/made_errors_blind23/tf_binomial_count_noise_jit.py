import tensorflow as tf


@tf.function(jit_compile=True)
def thin_counts(read_counts, seed):
    # augmentation for single-cell data: keep each read with probability 0.8
    thinned = tf.random.stateless_binomial(tf.shape(read_counts), seed,
                                           counts=read_counts, probs=0.8,
                                           output_dtype=tf.float32)
    return tf.math.log1p(thinned)


print(thin_counts(tf.fill([32, 2000], 10.0), tf.constant([1, 2])).shape)
