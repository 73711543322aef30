import tensorflow as tf


@tf.function(jit_compile=True)
def type_token_ratio(tokens):
    words, _, counts = tf.unique_with_counts(tokens)
    return tf.cast(tf.size(words), tf.float32) / tf.cast(tf.size(tokens), tf.float32)


print(type_token_ratio(tf.random.uniform([4096], maxval=500, dtype=tf.int32)))
