import tensorflow as tf


@tf.function(jit_compile=True)
def bag_of_words(counts):
    sparse = tf.sparse.from_dense(counts)
    return tf.sparse.reduce_sum(sparse, axis=1)


print(bag_of_words(tf.constant([[0, 2, 0, 1], [3, 0, 0, 0]])))
