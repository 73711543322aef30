import tensorflow as tf


@tf.function(jit_compile=True)
def patchify(images):
    # FlexiViT-style training: a random patch size (8 or 16) for every batch
    patch = tf.random.uniform((), 0, 2, dtype=tf.int32) * 8 + 8
    patches = tf.image.extract_patches(images, [1, 8, 8, 1], [1, 8, 8, 1], [1, 1, 1, 1], "VALID")
    return tf.reshape(patches, [tf.shape(images)[0], -1, patch * patch * 3])


print(patchify(tf.zeros((4, 64, 64, 3))).shape)
