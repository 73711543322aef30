import tensorflow as tf


@tf.function(jit_compile=True)
def time_mask(spectrogram, max_width=10):
    frames = tf.shape(spectrogram)[0]
    width = tf.random.uniform([], 0, max_width, dtype=tf.int32)
    start = tf.random.uniform([], 0, frames - width, dtype=tf.int32)
    rest = frames - start - width
    keep = tf.concat([tf.ones([start]), tf.zeros([width]), tf.ones([rest])], 0)
    return spectrogram * keep[:, None]


print(time_mask(tf.ones((100, 80))).shape)
