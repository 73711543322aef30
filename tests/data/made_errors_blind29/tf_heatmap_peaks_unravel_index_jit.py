import tensorflow as tf


@tf.function(jit_compile=True)
def keypoints_from_heatmaps(heatmaps):
    # the (row, col) of each keypoint's peak in a 64x64 heatmap
    flat = tf.reshape(heatmaps, [tf.shape(heatmaps)[0], -1])
    peak = tf.argmax(flat, axis=-1, output_type=tf.int32)
    return tf.unravel_index(peak, [64, 64])


print(keypoints_from_heatmaps(tf.random.uniform([17, 64, 64])))
