import tensorflow as tf


@tf.function(jit_compile=True)
def token_frequencies(token_ids):
    tokens, _, counts = tf.unique_with_counts(token_ids)
    return tokens, tf.cast(counts, tf.float32) / tf.cast(tf.size(token_ids), tf.float32)


print(token_frequencies(tf.constant([4, 1, 4, 7, 1, 4])))
