import tensorflow as tf

VOCAB = 50_000


@tf.function(jit_compile=True)
def skipgram_loss(center, context, embeddings):
    # between 5 and 20 negative samples per pair, as the paper's ablation did
    num_negatives = tf.random.uniform((), 5, 21, dtype=tf.int32)
    negatives = tf.random.uniform([num_negatives], 0, VOCAB, dtype=tf.int32)
    c = tf.gather(embeddings, center)
    pos = tf.reduce_sum(c * tf.gather(embeddings, context))
    neg = tf.reduce_sum(tf.gather(embeddings, negatives) @ c[:, None])
    return -tf.math.log_sigmoid(pos) - tf.math.log_sigmoid(-neg)


print(skipgram_loss(tf.constant(3), tf.constant(7), tf.zeros((VOCAB, 64))))
