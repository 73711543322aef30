import tensorflow as tf

frame = tf.random.uniform([1, 2160, 3840, 3])  # one 4K frame for the patch denoiser
# every overlapping 16x16 patch (stride 1) as a feature vector
patches = tf.image.extract_patches(
    frame, sizes=[1, 16, 16, 1], strides=[1, 1, 1, 1], rates=[1, 1, 1, 1], padding="SAME"
)
print(patches.shape)
