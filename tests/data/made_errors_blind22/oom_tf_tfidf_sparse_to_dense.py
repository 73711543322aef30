import tensorflow as tf

# TF-IDF of two million documents over a 500k-term vocabulary, mostly zeros
tfidf = tf.sparse.SparseTensor(
    indices=[[0, 3], [1, 7], [1999999, 499999]],
    values=[0.5, 0.2, 0.9],
    dense_shape=[2_000_000, 500_000],
)
dense = tf.sparse.to_dense(tfidf)
print(tf.reduce_sum(dense))
