import tensorflow as tf

FEATURES = {
    "pixels": tf.io.FixedLenFeature([784], tf.float32),
    "label": tf.io.FixedLenFeature([], tf.int64),
}
w = tf.Variable(tf.zeros([784, 10]))


@tf.function(jit_compile=True)
def train_step(serialized):
    batch = tf.io.parse_example(serialized, FEATURES)
    with tf.GradientTape() as tape:
        logits = batch["pixels"] @ w
        xent = tf.nn.sparse_softmax_cross_entropy_with_logits(batch["label"], logits)
        loss = tf.reduce_mean(xent)
    w.assign_sub(0.1 * tape.gradient(loss, w))
    return loss


example = tf.train.Example(features=tf.train.Features(feature={
    "pixels": tf.train.Feature(float_list=tf.train.FloatList(value=[0.0] * 784)),
    "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[3])),
})).SerializeToString()
print(train_step(tf.constant([example] * 32)))
