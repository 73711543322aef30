"""The fixes the TensorFlow check suggests do the offender's job, and compile: TensorFlow is the
oracle.

For each family of ops without an XLA kernel (warps, resizes, crops, morphology, determinants,
random sampling, ...), a small program runs the offender eagerly and the alternative its
suggestion names; the test asserts that TensorFlow really has no XLA kernel for the offender,
that TensorFlow compiles the alternative (``experimental_get_compiler_ir``, which stops at HLO),
and that the alternative computes the same thing (the same values, or for random sampling the
same distribution). Then: every op's suggestion names its own family's alternative, and no
suggestion names the alternative of another job (a rotation is no resize).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from frameworks_needed import needs_framework

tf = needs_framework("tensorflow")

from hloscope.analysis.unsupported import Reason
from hloscope.analysis.unsupported.fixes import TF_FIXES, suggest
from hloscope.backends.tf_graph import compile_error, xla_kernels
from hloscope.drivers.tf_check import check_tf

RNG = np.random.default_rng(18)
IMAGE = RNG.uniform(size=(1, 8, 8, 1)).astype(np.float32)
SPD = (lambda a: a @ a.T + 3 * np.eye(3))(RNG.normal(size=(3, 3))).astype(np.float32)


def spec(value: np.ndarray) -> Any:
    return tf.TensorSpec(value.shape, tf.as_dtype(value.dtype))


@dataclass(frozen=True)
class Family:
    """Ops that do one job, the API their suggestion must name (``primary``, unique to the
    job), and a demonstration: ``offender`` and ``alternative`` take the same ``inputs``, and
    ``same`` says whether their results do the same job."""

    ops: tuple[str, ...]
    primary: str
    offender: Callable[..., Any]
    alternative: Callable[..., Any]
    inputs: tuple[np.ndarray, ...]
    same: Callable[[Any, Any], bool]
    # Other jobs' alternatives this one legitimately names: a crop-and-resize is a resize of
    # a sampled crop.
    shares: tuple[str, ...] = ()


def close(a: Any, b: Any) -> bool:
    return bool(np.allclose(np.asarray(a), np.asarray(b), atol=1e-4))


def same_shape(a: Any, b: Any) -> bool:
    return np.asarray(a).shape == np.asarray(b).shape


# ---- the demonstrations -------------------------------------------------------------------------

TURN = 0.4  # radians
COS, SIN, CENTRE = math.cos(TURN), math.sin(TURN), 3.5
# Output pixel (x, y) reads input ((a0 x + a1 y + a2), (b0 x + b1 y + b2)): a turn about the centre.
ROTATION = [COS, -SIN, CENTRE - COS * CENTRE + SIN * CENTRE, SIN, COS]
ROTATION += [CENTRE - SIN * CENTRE - COS * CENTRE, 0.0, 0.0]


def rotate_with_the_op(image):
    return tf.raw_ops.ImageProjectiveTransformV3(
        images=image,
        transforms=tf.constant([ROTATION]),
        output_shape=[8, 8],
        fill_value=0.0,
        interpolation="BILINEAR",
        fill_mode="CONSTANT",
    )[0, :, :, 0]


def rotate_by_sampling(image):
    keras = needs_framework("keras")
    y, x = tf.meshgrid(tf.range(8.0), tf.range(8.0), indexing="ij")
    a0, a1, a2, b0, b1, b2 = ROTATION[:6]
    source = [b0 * x + b1 * y + b2, a0 * x + a1 * y + a2]  # (row, column) read for each pixel
    return keras.ops.image.map_coordinates(image[0, :, :, 0], source, order=1, fill_value=0.0)


BOX = (0.125, 0.25, 0.75, 0.875)  # y1, x1, y2, x2 in [0, 1]


def crop_with_the_op(image):
    return tf.image.crop_and_resize(image, [BOX], [0], [5, 4])[0, :, :, 0]


def crop_by_sampling(image):
    keras = needs_framework("keras")
    y1, x1, y2, x2 = (c * 7.0 for c in BOX)
    rows = y1 + tf.range(5.0) * (y2 - y1) / 4.0
    columns = x1 + tf.range(4.0) * (x2 - x1) / 3.0
    grid = tf.meshgrid(rows, columns, indexing="ij")
    return keras.ops.image.map_coordinates(image[0, :, :, 0], grid, order=1)


def boxes_and_scores() -> tuple[np.ndarray, np.ndarray]:
    corner = RNG.uniform(0.0, 0.6, size=(12, 2))
    size = RNG.uniform(0.2, 0.4, size=(12, 2))
    boxes = np.concatenate([corner, corner + size], axis=1).astype(np.float32)
    return boxes, RNG.permutation(12).astype(np.float32) / 12


def hard_nms_with_scores(boxes, scores):
    return tf.image.non_max_suppression_with_scores(boxes, scores, 6, 0.3)[0]


def hard_nms_padded(boxes, scores):
    selected, count = tf.image.non_max_suppression_padded(
        boxes, scores, 6, 0.3, pad_to_max_output_size=True
    )
    return selected, count


def same_selection(a, b):
    selected, count = b
    return list(np.asarray(a)) == list(np.asarray(selected)[: int(count)])


def cholesky_det(m):
    return tf.reduce_prod(tf.linalg.diag_part(tf.linalg.cholesky(m)), -1) ** 2


def cholesky_logdet(m):
    return 2 * tf.reduce_sum(tf.math.log(tf.linalg.diag_part(tf.linalg.cholesky(m))), -1)


RHS = RNG.normal(size=(3, 2)).astype(np.float32)


def lu_solve(m):
    lower_upper, permutation = tf.linalg.lu(m)
    return tf.linalg.lu_solve(lower_upper, permutation, RHS)


def eigh_sqrtm(m):
    w, v = tf.linalg.eigh(m)
    return v @ tf.linalg.diag(tf.sqrt(w)) @ tf.linalg.adjoint(v)


SPARSE_AT = [[0, 1], [2, 0], [2, 3]]
EMBEDDING = RNG.normal(size=(4, 3)).astype(np.float32)


def sparse_matmul(values):
    return tf.sparse.sparse_dense_matmul(tf.SparseTensor(SPARSE_AT, values, [3, 4]), EMBEDDING)


def dense_matmul(values):
    return tf.sparse.to_dense(tf.SparseTensor(SPARSE_AT, values, [3, 4])) @ EMBEDDING


IDS = [0, 0, 1, 2, 2, 2]


def histogram_by_one_hot(x):
    bins = tf.clip_by_value(tf.cast(tf.floor(x * 5), tf.int32), 0, 4)
    return tf.reduce_sum(tf.one_hot(bins, 5, dtype=tf.int32), 0)


def same_values_in_any_order(a, b):
    return sorted(np.asarray(a).tolist()) == sorted(np.asarray(b).tolist())


def mean_near(expected: float) -> Callable[[Any, Any], bool]:
    """Random sampling: the offender and the alternative draw from the same distribution."""

    def check(a, b):
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        return abs(a.mean() - expected) < 0.1 and abs(b.mean() - expected) < 0.1

    return check


def gamma_by_uniform_logs(x):
    k = 3
    draws = tf.random.stateless_uniform([k, 20000], [1, 2], minval=1e-7, maxval=1.0)
    return x + -tf.reduce_sum(tf.math.log(draws), 0)


def set_members_by_broadcast(a, b):
    return tf.reduce_sum(
        tf.cast(tf.reduce_any(tf.equal(a[:, :, None], b[:, None, :]), -1), tf.int32), -1
    )


def spectrogram_with_the_op(signal):
    return tf.raw_ops.AudioSpectrogram(
        input=tf.transpose(signal), window_size=64, stride=32, magnitude_squared=False
    )


def spectrogram_by_stft(signal):
    return tf.abs(tf.signal.stft(signal, 64, 32, fft_length=64))


ZERO_FILTER = np.zeros((3, 3, 1), np.float32)
UNIFORM = RNG.uniform(size=(20000,)).astype(np.float32)

FAMILIES: dict[str, Family] = {
    "warp": Family(
        ops=("ImageProjectiveTransformV2", "ImageProjectiveTransformV3"),
        primary="keras.ops.image.map_coordinates",
        offender=rotate_with_the_op,
        alternative=rotate_by_sampling,
        inputs=(IMAGE,),
        same=close,
    ),
    "resize": Family(
        ops=("ResizeArea", "ResizeBicubic", "ScaleAndTranslate"),
        primary="tf.image.resize",
        offender=lambda x: tf.image.resize(x, [4, 4], method="area"),
        alternative=lambda x: tf.nn.avg_pool2d(x, 2, 2, "VALID"),
        inputs=(IMAGE,),
        same=close,
    ),
    "crop": Family(
        ops=("CropAndResize", "ExtractGlimpse", "ExtractGlimpseV2"),
        primary="tf.image.crop_to_bounding_box",
        offender=crop_with_the_op,
        alternative=crop_by_sampling,
        inputs=(IMAGE,),
        same=close,
        shares=("warp", "resize"),
    ),
    "non-max suppression": Family(
        ops=("NonMaxSuppressionV5", "CombinedNonMaxSuppression", "NonMaxSuppressionV2"),
        primary="tf.image.non_max_suppression_padded",
        offender=hard_nms_with_scores,
        alternative=hard_nms_padded,
        inputs=boxes_and_scores(),
        same=same_selection,
    ),
    "morphology": Family(
        ops=("Dilation2D", "Erosion2D"),
        primary="tf.nn.max_pool2d",
        offender=lambda x: tf.nn.erosion2d(x, ZERO_FILTER, [1] * 4, "SAME", "NHWC", [1] * 4),
        alternative=lambda x: -tf.nn.max_pool2d(-x, 3, 1, "SAME"),
        inputs=(IMAGE,),
        same=close,
    ),
    "determinant": Family(
        ops=("MatrixDeterminant", "LogMatrixDeterminant"),
        primary="tf.linalg.cholesky",
        offender=lambda m: tf.linalg.slogdet(m)[1],
        alternative=cholesky_logdet,
        inputs=(SPD,),
        same=close,
    ),
    "LU solve": Family(
        ops=("Lu",),
        primary="tf.linalg.solve",
        offender=lu_solve,
        alternative=lambda m: tf.linalg.solve(m, RHS),
        inputs=(SPD,),
        same=close,
    ),
    "matrix function": Family(
        ops=("MatrixSquareRoot", "MatrixLogarithm"),
        primary="tf.linalg.eigh",
        offender=lambda m: tf.linalg.sqrtm(m),
        alternative=eigh_sqrtm,
        inputs=(SPD,),
        same=close,
    ),
    "sparse": Family(
        ops=("SparseTensorDenseMatMul", "SparseSegmentSum", "SparseReduceSum"),
        primary="tf.sparse.to_dense",
        offender=sparse_matmul,
        alternative=dense_matmul,
        inputs=(np.array([1.0, -2.0, 0.5], np.float32),),
        same=close,
        shares=("segment",),
    ),
    "segment": Family(
        ops=("SegmentSum", "SegmentMax", "SegmentMean"),
        primary="tf.math.unsorted_segment_sum",
        offender=lambda x: tf.math.segment_max(x, IDS),
        alternative=lambda x: tf.math.unsorted_segment_max(x, IDS, 3),
        inputs=(RNG.normal(size=(6,)).astype(np.float32),),
        same=close,
    ),
    "histogram": Family(
        ops=("HistogramFixedWidth",),
        primary="tf.one_hot",
        offender=lambda x: tf.histogram_fixed_width(x, [0.0, 1.0], 5),
        alternative=histogram_by_one_hot,
        inputs=(RNG.uniform(size=(50,)).astype(np.float32),),
        same=close,
    ),
    "shuffle": Family(
        ops=("StatelessShuffle",),
        primary="tf.argsort",
        offender=lambda x: tf.random.experimental.stateless_shuffle(x, [1, 2]),
        alternative=lambda x: tf.gather(x, tf.argsort(tf.random.stateless_uniform([12], [1, 2]))),
        inputs=(np.arange(12, dtype=np.float32),),
        same=same_values_in_any_order,
    ),
    "Poisson sampling": Family(
        ops=("RandomPoissonV2", "RandomPoisson"),
        primary="tf.random.stateless_poisson",
        offender=lambda x: x + tf.random.poisson([20000], 3.0),
        alternative=lambda x: x + tf.random.stateless_poisson([20000], [1, 2], 3.0, tf.float32),
        inputs=(np.zeros(20000, np.float32),),
        same=mean_near(3.0),
    ),
    "gamma sampling": Family(
        ops=("RandomGamma", "StatelessRandomGammaV3", "StatelessRandomGammaV2"),
        primary="tf.math.log(tf.random.stateless_uniform",
        offender=lambda x: x + tf.random.gamma([20000], 3.0),
        alternative=gamma_by_uniform_logs,
        inputs=(np.zeros(20000, np.float32),),
        same=mean_near(3.0),
    ),
    "set operation": Family(
        ops=("DenseToDenseSetOperation", "SetSize"),
        primary="tf.reduce_any(tf.equal(",
        offender=lambda a, b: tf.sets.size(tf.sets.intersection(a, b)),
        alternative=set_members_by_broadcast,
        inputs=(np.array([[1, 4, 7, 9]], np.int32), np.array([[4, 5, 9]], np.int32)),
        same=close,
    ),
    "spectrogram": Family(
        ops=("AudioSpectrogram", "Mfcc"),
        primary="tf.signal.stft",
        offender=spectrogram_with_the_op,
        alternative=spectrogram_by_stft,
        inputs=(RNG.normal(size=(1, 400)).astype(np.float32),),
        same=close,
    ),
}


def unsupported_ops_named(error: str) -> list[str]:
    return re.findall(r"Detected unsupported operations .*? on XLA_\w+_JIT: ?([\w.]+) \(", error)


@pytest.mark.parametrize("job", list(FAMILIES))
def test_the_alternative_compiles_and_does_the_same_job(job):
    family = FAMILIES[job]
    kernels = xla_kernels("XLA_CPU_JIT")
    assert not [op for op in family.ops if op in kernels]  # TensorFlow: none of them compiles
    specs = [spec(value) for value in family.inputs]
    refused = compile_error(tf.function(family.offender), *specs)
    assert refused is not None and unsupported_ops_named(refused)[0] in family.ops, refused
    assert compile_error(tf.function(family.alternative), *specs) is None
    expected = family.offender(*family.inputs)
    assert family.same(expected, family.alternative(*family.inputs)), job


@pytest.mark.parametrize("job", list(FAMILIES))
def test_each_op_is_told_its_own_jobs_alternative_and_no_other(job):
    family = FAMILIES[job]
    others = {
        name: other.primary
        for name, other in FAMILIES.items()
        if name != job and name not in family.shares and other.primary not in family.primary
    }
    for op in family.ops:
        advice = suggest(op, Reason.NO_KERNEL)
        assert family.primary in advice, (op, advice)
        wrong = [name for name, primary in others.items() if primary in advice]
        assert not wrong, (op, wrong, advice)


def test_no_row_names_an_alternative_for_a_job_it_does_not_do():
    """Across every TF row, not only the families above: a row that names a job's alternative
    is the row of that job (or of a job that shares it)."""
    rows_of = {
        job: {suggest(op) for op in family.ops}
        | {suggest(op) for other in FAMILIES.values() if job in other.shares for op in other.ops}
        for job, family in FAMILIES.items()
    }
    for advice in TF_FIXES.values():
        for job, family in FAMILIES.items():
            if family.primary in advice:
                assert advice in rows_of[job], (job, advice)


def test_image_transforms_are_told_to_warp_not_to_resize():
    for op in FAMILIES["warp"].ops:
        advice = suggest(op, Reason.NO_KERNEL)
        assert "warp" in advice and "transform" in advice, advice
        assert "resize" not in advice, advice


def test_keras_random_rotation_is_found_and_told_to_warp():
    keras = needs_framework("keras")
    rotate = keras.layers.RandomRotation(0.2)

    @tf.function
    def augment(images):
        return rotate(images, training=True)

    images = tf.TensorSpec([2, 8, 8, 3], tf.float32)
    error = compile_error(augment, images)
    assert error is not None and unsupported_ops_named(error) == ["ImageProjectiveTransformV3"]
    (finding,) = check_tf(augment, images).findings
    assert finding.op == "ImageProjectiveTransformV3"
    assert "keras.ops.image.map_coordinates" in finding.suggestion
    assert "RandomRotation" in finding.suggestion and "tf.image.resize" not in finding.suggestion


def test_tf_print_is_told_about_printing():
    """tf.print formats its message first: TensorFlow names StringFormat, and the job is
    printing, not string processing."""

    def printing(x):
        tf.print("x is", x)
        return x + 1

    x = tf.TensorSpec([2], tf.float32)
    error = compile_error(tf.function(printing), x)
    assert unsupported_ops_named(error) == ["StringFormat"], error
    findings = check_tf(printing, x).findings
    assert [f.op for f in findings][:1] == ["StringFormat"]
    assert all("tf.print" in f.suggestion for f in findings), findings


def registered_ops() -> set[str]:
    from tensorflow.python.framework import kernels

    return {kernel.op for kernel in kernels.get_all_registered_kernels().kernel} | set(
        dir(tf.raw_ops)
    )


def test_a_row_that_says_no_xla_kernel_matches_only_ops_without_one():
    """Over every op this TensorFlow registers: a row claiming "no XLA kernel" is never the
    row of an op that has one (SegmentSumV2 compiles where SegmentSum does not), and names at
    least one real op."""
    kernels = xla_kernels("XLA_CPU_JIT")
    claims = {advice for advice in TF_FIXES.values() if "no XLA kernel" in advice}
    matched: dict[str, list[str]] = {advice: [] for advice in claims}
    for op in registered_ops():
        advice = suggest(op)
        if advice in claims:
            matched[advice].append(op)
    for advice, ops in matched.items():
        assert ops, advice
        compiled = sorted(op for op in ops if op in kernels)
        assert not compiled, (compiled, advice)
