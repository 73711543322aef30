import tensorflow as tf


@tf.function(jit_compile=True)
def dedupe_instances(masks, scores):
    # suppress instance masks that overlap a better one: IoU of the binary masks
    flat = tf.reshape(masks, [tf.shape(masks)[0], -1])
    inter = tf.matmul(flat, flat, transpose_b=True)
    area = tf.reduce_sum(flat, axis=-1)
    iou = inter / (area[:, None] + area[None, :] - inter)
    return tf.image.non_max_suppression_overlaps(iou, scores, max_output_size=20,
                                                 overlap_threshold=0.5)


masks = tf.cast(tf.random.uniform([50, 64, 64]) > 0.5, tf.float32)
print(dedupe_instances(masks, tf.random.uniform([50])))
