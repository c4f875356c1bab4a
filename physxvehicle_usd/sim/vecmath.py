"""Vector, quaternion and table helpers for the numpy core.

Arrays are component-first: a vector field is (3, ...), a quaternion (4, ...) as (w, x, y, z), a
rotation matrix (3, 3, ...). Component-first keeps every component a contiguous array, so dot and cross
products are a handful of whole-array operations instead of strided ones over a trailing axis of 3.
"""
from __future__ import annotations

import math

import numpy as np


def dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.empty(np.broadcast_shapes(a.shape, b.shape), dtype=np.result_type(a, b))  # filled in place: no stack
    np.subtract(a[1] * b[2], a[2] * b[1], out=out[0])
    np.subtract(a[2] * b[0], a[0] * b[2], out=out[1])
    np.subtract(a[0] * b[1], a[1] * b[0], out=out[2])
    return out


def norm(a: np.ndarray) -> np.ndarray:
    return np.sqrt(dot(a, a))


def normalize(a: np.ndarray) -> np.ndarray:
    """Unit vectors; zero vectors stay zero (as PxVec3::normalize does)."""
    n = norm(a)
    return a * np.where(n > 0.0, 1.0 / np.where(n > 0.0, n, 1.0), 0.0)


def matvec(m: np.ndarray, v: np.ndarray) -> np.ndarray:
    """m (3, 3, ...) times v (3, ...), broadcasting the trailing axes.

    einsum sums j = 0, 1, 2 in order in one pass; it is two to four times faster than three broadcast products.
    """
    return np.einsum("ij...,j...->i...", m, v)


def matTvec(m: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Transpose of m times v."""
    return np.einsum("ji...,j...->i...", m, v)


def sum_wheels(x: np.ndarray) -> np.ndarray:
    """Sum over the trailing wheel axis, left to right, as whole-array adds (a reduce over a 4-long axis is ten times slower)."""
    out = x[..., 0].copy()
    for w in range(1, x.shape[-1]):
        out += x[..., w]
    return out


def any_wheels(x: np.ndarray) -> np.ndarray:
    """Logical or over the trailing wheel axis (see `sum_wheels`; flags of a few wheels in one reduce, which then
    costs less than the loop's calls)."""
    if x.size <= _FEW and x.dtype == np.bool_:
        return np.logical_or.reduce(x, axis=-1)
    out = x[..., 0].copy()
    for w in range(1, x.shape[-1]):
        out |= x[..., w]
    return out


def per_wheel(x: np.ndarray, wheels: int) -> np.ndarray:
    """A per-vehicle array (..., V) repeated over a trailing wheel axis (..., V, W), as its own contiguous copy.

    Broadcasting a (V, 1) operand against (V, W) makes numpy run W-element inner loops (six times slower for
    four wheels); operands of equal shape run as one flat loop.
    """
    return x[..., None].repeat(wheels, axis=-1)  # (the method: np.repeat's wrapper costs as much again)


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.stack([matvec(a, b[:, j]) for j in range(3)], axis=1)


# up to this many quaternions, quat_to_mat and quat_mul gather their terms into a few whole-array operations (a numpy
# call costs as much as the arithmetic of a few hundred floats); for more, they take the written ones
_FEW = 64

# quat_to_mat's gathers: of the products p (flattened 3 x 3), the diagonal's two terms and the pairs off it; of 2 w v,
# the term each pair takes; of the diagonal, the pairs above it and those below it, each entry of the matrix
_DIAGONAL_TERMS = np.array([4, 8, 0, 8, 0, 4, 1, 5, 6])  # p11 + p22, p22 + p00, p00 + p11; p01, p12, p20
_PAIR_W = np.array([2, 0, 1])
_MATRIX_ORDER = np.array([0, 3, 8, 6, 1, 4, 5, 7, 2])  # m00 m01 m02 m10 m11 m12 m20 m21 m22 from (diag, above, below)


def quat_to_mat(q: np.ndarray) -> np.ndarray:
    """The rotation matrix of unit quaternions q (4, ...): 1 - 2 (y y + z z), 2 (x y - w z), ... A factor 2 is exact,
    so the products are taken with 2x, 2y, 2z, all nine of them in one operation (x 2x, x 2y, ... z 2z) and three more
    with w: m_ii = 1 - (p_jj + p_kk), m_ij = p_ij - 2 w v_k, m_ji = p_ij + 2 w v_k for (i, j, k) = (0, 1, 2), (1, 2, 0),
    (2, 0, 1), entry by entry or, for a few quaternions, over gathers of the terms (the same numbers; but where a
    product of two components is a subnormal float, below 1e-38: its last bit can differ)."""
    w, v = q[0], q[1:]
    v2 = v + v                      # 2x, 2y, 2z
    p = v[:, None] * v2[None, :]    # p[a, b] = component a times twice component b
    if w.size <= _FEW:  # a few quaternions: gathers, fewer operations
        w2 = (w * v2)[_PAIR_W]      # 2wz, 2wx, 2wy
        terms = p.reshape((9,) + q.shape[1:])[_DIAGONAL_TERMS]
        pairs = terms[6:]
        entries = np.concatenate((np.subtract(1, terms[:3] + terms[3:6]), pairs - w2, pairs + w2))
        return entries[_MATRIX_ORDER].reshape((3, 3) + q.shape[1:])
    w2 = w * v2                     # 2wx, 2wy, 2wz
    m = np.empty((3, 3) + q.shape[1:], dtype=q.dtype)
    for i, j, k in ((0, 1, 2), (1, 2, 0), (2, 0, 1)):  # the diagonal; the pairs above and below it
        np.subtract(1, p[j, j] + p[k, k], out=m[i, i, ...])  # "...": an array even for one quaternion
        np.subtract(p[i, j], w2[k], out=m[i, j, ...])
        np.add(p[i, j], w2[k], out=m[j, i, ...])
    return m



def quat_to_mat_floats(w: float, x: float, y: float, z: float) -> tuple:
    """`quat_to_mat` of one quaternion in Python floats (rows of the matrix): the same products and sums, so the same
    float64 numbers, without a numpy call's cost (a lone body's broad phase asks it every step)."""
    xx, yy, zz = x * (x + x), y * (y + y), z * (z + z)
    xy, yz, zx = x * (y + y), y * (z + z), z * (x + x)
    wx, wy, wz = w * (x + x), w * (y + y), w * (z + z)
    return ((1 - (yy + zz), xy - wz, zx + wy),
            (xy + wz, 1 - (zz + xx), yz - wx),
            (zx - wy, yz + wx, 1 - (xx + yy)))

# quat_mul's terms after a_w b: the products a_i b_j (i = x, y, z) each component adds, in order, and their signs
_PRODUCT_ROWS = np.array([1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3])
_PRODUCT_COLUMNS = np.array([1, 0, 3, 2, 2, 3, 0, 1, 3, 2, 1, 0])
_PRODUCT_SIGNS = np.array([-1, 1, -1, 1, -1, 1, 1, -1, -1, -1, 1, 1])


def quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The Hamilton product a b of quaternions (4, ...), broadcasting: each component a_w b_. then three signed
    products added in order (w: aw bw - ax bx - ay by - az bz, x: aw bx + ax bw + ay bz - az by, ...). For a few
    quaternions the sixteen products in one operation and the three terms of all four components in a gather (adding
    a negated product is subtracting it); for more, as written (`_quat_mul_written`)."""
    a, b = np.asarray(a), np.asarray(b)
    if a[0].size > _FEW or b[0].size > _FEW:
        return _quat_mul_written(a, b)
    products = a[:, None] * b[None, :]  # a_i b_j
    trailing = (1,) * (products.ndim - 2)
    terms = products[_PRODUCT_ROWS, _PRODUCT_COLUMNS] * _PRODUCT_SIGNS.astype(products.dtype).reshape((12,) + trailing)
    out = products[0] + terms[0:4]
    out += terms[4:8]
    out += terms[8:12]
    return out


def _quat_mul_written(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`quat_mul` as written, component by component: for many quaternions (the gathers' large temporaries cost more
    than the operations they save); each component's last operation writes into the result."""
    aw, ax, ay, az = a[0], a[1], a[2], a[3]
    bw, bx, by, bz = b[0], b[1], b[2], b[3]
    out = np.empty((4,) + np.broadcast_shapes(np.shape(aw), np.shape(bw)), dtype=np.result_type(a, b))
    np.subtract(aw * bw - ax * bx - ay * by, az * bz, out=out[0, ...])
    np.subtract(aw * bx + ax * bw + ay * bz, az * by, out=out[1, ...])
    np.add(aw * by - ax * bz + ay * bw, az * bx, out=out[2, ...])
    np.add(aw * bz + ax * by - ay * bx, az * bw, out=out[3, ...])
    return out


def vec_quat_mul(v: np.ndarray, q: np.ndarray) -> np.ndarray:
    """(0, v) * q: `quat_mul` with a pure quaternion on the left, without its zero products."""
    vx, vy, vz = v[0], v[1], v[2]
    qw, qx, qy, qz = q[0], q[1], q[2], q[3]
    out = np.empty(q.shape, dtype=np.result_type(v, q))
    out[0] = -vx * qx - vy * qy - vz * qz
    out[1] = vx * qw + vy * qz - vz * qy
    out[2] = -vx * qz + vy * qw + vz * qx
    out[3] = vx * qy - vy * qx + vz * qw
    return out


def quat_conj(q: np.ndarray) -> np.ndarray:
    out = -q
    out[0] = q[0]
    return out


def quat_normalize(q: np.ndarray) -> np.ndarray:
    return q / np.sqrt(q[0] ** 2 + q[1] ** 2 + q[2] ** 2 + q[3] ** 2)


def quat_rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    return matvec(quat_to_mat(q), v)


def rotate_about(axis: np.ndarray, angle: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate v by `angle` about the unit `axis` (Rodrigues)."""
    c = np.cos(angle)
    s = np.sin(angle)
    return v * c + cross(axis, v) * s + axis * (dot(axis, v) * (1.0 - c))


def quat_integrate_exact(q: np.ndarray, w: np.ndarray, dt: float | np.ndarray) -> np.ndarray:
    """Rotate q by |w| dt about w/|w| (PhysX's closed-form pose integration)."""
    speed = norm(w)
    half = 0.5 * speed * dt
    safe = np.where(speed > 0.0, speed, 1.0)
    s = np.where(speed > 0.0, np.sin(half) / safe, 0.0)
    dq = np.empty((4,) + np.broadcast_shapes(np.shape(half), np.shape(s)), dtype=np.result_type(half, w))  # (no stack)
    np.cos(half, out=dq[0, ...])
    np.multiply(w[0], s, out=dq[1, ...])
    np.multiply(w[1], s, out=dq[2, ...])
    np.multiply(w[2], s, out=dq[3, ...])
    return quat_normalize(quat_mul(dq, q))


# Radians added to the angle between two orientations measured from their float32 quaternions: their norm is 1
# within a few 1e-7, and 2 arccos(q . q_ref) of quaternions 2e-7 longer than unit comes out short by up to 1.3e-3 rad
_TURN_SLACK = 2e-3


def turn_bound(q: np.ndarray, q_ref: np.ndarray) -> np.ndarray:
    """(...,) an upper bound of the angle each body has turned between the orientations q_ref and q (4, ...)."""
    return turn_from_cosine((q * q_ref).sum(axis=0))


def turn_from_cosine(cosine):
    """`turn_bound` from the quaternions' dot product: of an array, or of a float (with math: a broad phase asks for
    the largest turn of a fleet, the smallest |cosine|'s, every step)."""
    if isinstance(cosine, float):
        return 2.0 * math.acos(min(abs(cosine), 1.0)) + _TURN_SLACK
    return 2.0 * np.arccos(np.minimum(np.abs(cosine), 1.0)) + _TURN_SLACK


def sgn0(x: np.ndarray) -> np.ndarray:
    """PxVehicleComputeSign: -1, 0 or +1."""
    return np.sign(x)


def sgn1(x: np.ndarray) -> np.ndarray:
    """PxSign: +1 for x >= 0, else -1."""
    one = np.asarray(x).dtype.type(1)
    return np.where(x >= 0.0, one, -one)


def lookup(points: np.ndarray, count: np.ndarray, x: np.ndarray) -> np.ndarray:
    """PxVehicleFixedSizeLookupTable over padded tables: points (..., N, 2) with `count` real ones.

    0 points -> 0; 1 point -> y0; clamped at both ends; linear inside. One pass per segment keeps every
    operation a whole-array one (cheaper than gathering segment indices for the short PhysX tables).
    """
    xs = points[..., 0]
    ys = points[..., 1]
    out = np.where(count > 0, ys[..., 0], 0.0) * np.ones_like(x)
    n_max = int(count.max()) if count.size else 0
    for k in range(n_max - 1):
        x0, x1, y0, y1 = xs[..., k], xs[..., k + 1], ys[..., k], ys[..., k + 1]
        dx = x1 - x0
        t = np.minimum(np.maximum((x - x0) / np.where(dx > 0.0, dx, 1.0), 0.0), 1.0)  # np.clip costs more
        t = np.where(dx > 0.0, t, (x >= x1).astype(t.dtype))
        out = np.where((k + 1 < count) & (x >= x0), y0 + t * (y1 - y0), out)
    return out


def lookup_vec(points: np.ndarray, count: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Like `lookup` for tables of (x, vx, vy, vz) rows (..., N, 4); returns (3, ...)."""
    return np.stack([lookup(points[..., [0, c]], count, x) for c in (1, 2, 3)])


def components_first(a: np.ndarray) -> np.ndarray:
    """(..., k) -> (k, ...), contiguous, in double: the layout of the kernels' vectors from the batch's."""
    return np.ascontiguousarray(np.moveaxis(np.asarray(a, dtype=float), -1, 0))
