import tensorflow as tf


@tf.function(jit_compile=True)
def loop_clip(clip):
    # augmentation: repeat a short sound effect one to three times
    times = tf.random.uniform((), 1, 4, dtype=tf.int32)
    return tf.tile(clip, [times])


print(loop_clip(tf.zeros(8000)).shape)
