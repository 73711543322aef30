import tensorflow as tf

@tf.function(jit_compile=True)
def labels(x):
    return tf.strings.join([tf.strings.as_string(x), "!"])

labels(tf.constant([1, 2, 3]))
