import tensorflow as tf


@tf.function(jit_compile=True)
def eval_step(images):
    masks = tf.cast(tf.reduce_mean(images, axis=-1, keepdims=True) > 0.5, tf.uint8) * 255
    png = tf.io.encode_png(masks[0])
    return tf.reduce_mean(tf.cast(masks, tf.float32)), png


print(eval_step(tf.random.uniform([4, 64, 64, 3]))[0])
