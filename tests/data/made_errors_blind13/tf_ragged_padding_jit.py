import tensorflow as tf


@tf.function(jit_compile=True)
def embed_batch(token_ids, row_lengths, table):
    ragged = tf.RaggedTensor.from_row_lengths(token_ids, row_lengths)
    padded = ragged.to_tensor(default_value=0)
    return tf.reduce_mean(tf.gather(table, padded), axis=1)


table = tf.random.normal((100, 8))
print(embed_batch(tf.constant([5, 9, 2, 7, 7, 1]), tf.constant([3, 1, 2]), table))
