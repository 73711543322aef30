import tensorflow as tf


@tf.function(jit_compile=True)
def random_crop(image):
    # inception-style crop covering at least a tenth of the object
    begin, size, _ = tf.image.sample_distorted_bounding_box(
        tf.shape(image), bounding_boxes=tf.constant([[[0.0, 0.0, 1.0, 1.0]]]),
        min_object_covered=0.1, area_range=(0.08, 1.0))
    crop = tf.slice(image, begin, size)
    return tf.image.resize(crop, (224, 224))


print(random_crop(tf.random.uniform((256, 256, 3))).shape)
