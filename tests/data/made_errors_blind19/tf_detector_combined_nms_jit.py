import tensorflow as tf


@tf.function(jit_compile=True)
def detect(boxes, class_scores):
    # boxes (batch, anchors, 1, 4), class_scores (batch, anchors, classes)
    result = tf.image.combined_non_max_suppression(
        boxes, class_scores, max_output_size_per_class=20, max_total_size=50)
    return result.nmsed_boxes, result.nmsed_scores, result.valid_detections


out = detect(tf.random.uniform((2, 500, 1, 4)), tf.random.uniform((2, 500, 20)))
print(out[2])
