import tensorflow as tf


@tf.function(jit_compile=True)
def region_proposals(scores, deltas, anchors):
    # Faster R-CNN region proposal network: decode, clip and NMS the anchors
    image_info = tf.constant([[512.0, 512.0, 1.0, 1.0, 1.0]])
    rois, roi_scores = tf.image.generate_bounding_box_proposals(
        scores, deltas, image_info, anchors, post_nms_topn=300)
    return rois, roi_scores


rois, _ = region_proposals(tf.zeros((1, 32, 32, 9)), tf.zeros((1, 32, 32, 36)),
                           tf.zeros((1, 32 * 32 * 9, 4)))
print(rois.shape)
