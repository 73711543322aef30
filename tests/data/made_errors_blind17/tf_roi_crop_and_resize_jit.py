import tensorflow as tf


@tf.function(jit_compile=True)
def roi_features(feature_map, boxes, box_indices):
    return tf.image.crop_and_resize(feature_map, boxes, box_indices, crop_size=(7, 7))


features = tf.random.normal((2, 32, 32, 64))
boxes = tf.constant([[0.1, 0.1, 0.5, 0.5], [0.2, 0.3, 0.9, 0.8]])
print(roi_features(features, boxes, tf.constant([0, 1])).shape)
