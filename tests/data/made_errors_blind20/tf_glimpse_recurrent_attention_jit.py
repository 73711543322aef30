import tensorflow as tf


@tf.function(jit_compile=True)
def glimpse_step(images, locations, w):
    # recurrent attention model: look at a 12x12 patch around each predicted location
    patches = tf.image.extract_glimpse(images, [12, 12], locations)
    return tf.nn.relu(tf.reshape(patches, [tf.shape(images)[0], -1]) @ w)


images = tf.random.uniform((8, 28, 28, 1))
print(glimpse_step(images, tf.zeros((8, 2)), tf.random.normal((144, 32))).shape)
