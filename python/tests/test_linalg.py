"""SpMV against a dense product in float64; tridiagonal solves against numpy.linalg.solve."""

import numpy as np
import pytest

import streamscan as ss


def random_csr(rng, rows, cols, index):
    lengths = rng.integers(0, 8, rows)
    lengths[rng.integers(0, rows, max(1, rows // 10))] = 0          # empty rows
    if rows > 3:
        lengths[rows // 2] = min(cols, 5000)                        # one long row
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(index)
    indices = np.concatenate([rng.choice(cols, l, replace=False) for l in lengths]).astype(index) \
        if lengths.sum() else np.zeros(0, index)
    data = rng.standard_normal(int(lengths.sum()))
    return indptr, indices, data


def dense(indptr, indices, data, rows, cols):
    a = np.zeros((rows, cols))
    for r in range(rows):
        for k in range(indptr[r], indptr[r + 1]):
            a[r, indices[k]] += data[k]
    return a


@pytest.mark.parametrize("value", ["float32", "float64"])
@pytest.mark.parametrize("index", ["int32", "int64"])
@pytest.mark.parametrize("rows,cols", [(1, 1), (0, 5), (1000, 7000), (20_000, 300)])
def test_spmv(xp, rng, value, index, rows, cols):
    indptr, indices, data = random_csr(rng, rows, cols, index) if rows else (np.zeros(1, index), np.zeros(0, index),
                                                                              np.zeros(0))
    x = rng.standard_normal(cols)
    y0 = rng.standard_normal(rows)
    ref_a = dense(indptr, indices, data.astype(value), rows, cols) @ x.astype(value)
    tol = 1e-4 if value == "float32" else 1e-10
    A = (xp.asarray(indptr), xp.asarray(indices), xp.asarray(data.astype(value)), (rows, cols))
    for alpha, beta in ((1.0, 0.0), (0.0, 1.0), (2.5, -0.5)):
        y = xp.asarray(y0.astype(value))
        got = ss.spmv(A, xp.asarray(x.astype(value)), y, alpha=alpha, beta=beta)
        ref = alpha * ref_a + beta * y0.astype(value)
        scale = np.abs(dense(indptr, indices, np.abs(data), rows, cols)) @ np.abs(x) + np.abs(y0) + 1
        np.testing.assert_array_less(np.abs(xp.numpy(got) - ref), tol * scale)


@pytest.mark.parametrize("strategy", [None, "row_groups", "merge_path", "nonzero_split", "segmented_scan"])
def test_spmv_strategies(xp, rng, strategy):
    # Mean row length about 3, one row of 500 (past a 2-lane row group's reach on the GPU).
    indptr, indices, data = random_csr(rng, 3000, 500, "int32")
    x = rng.standard_normal(500)
    ref = dense(indptr, indices, data, 3000, 500) @ x
    A = (xp.asarray(indptr), xp.asarray(indices), xp.asarray(data), (3000, 500))
    got = ss.spmv(A, xp.asarray(x), strategy=strategy)
    np.testing.assert_allclose(xp.numpy(got), ref, rtol=1e-10, atol=1e-10)
    again = ss.spmv(A, xp.asarray(x), strategy=strategy)
    assert np.array_equal(xp.numpy(got), xp.numpy(again)), "results repeat bit for bit"


def test_spmv_scipy_and_torch_matrices(xp, rng):
    sp = pytest.importorskip("scipy.sparse") if xp.name in ("numpy",) else None
    indptr, indices, data = random_csr(rng, 500, 400, "int32")
    x = rng.standard_normal(400)
    ref = dense(indptr, indices, data, 500, 400) @ x
    if sp is not None:
        A = sp.csr_matrix((data, indices, indptr), shape=(500, 400))
    elif xp.name.startswith("torch"):
        import torch
        A = torch.sparse_csr_tensor(*(xp.asarray(a) for a in (indptr, indices, data)), size=(500, 400))
    else:
        import cupyx.scipy.sparse as csp
        A = csp.csr_matrix((xp.asarray(data), xp.asarray(indices), xp.asarray(indptr)), shape=(500, 400))
    got = ss.spmv(A, xp.asarray(x))
    np.testing.assert_allclose(xp.numpy(got), ref, rtol=1e-10, atol=1e-10)


def test_spmv_errors(xp, rng):
    indptr, indices, data = random_csr(rng, 10, 10, "int32")
    A = (xp.asarray(indptr), xp.asarray(indices), xp.asarray(data), (10, 10))
    with pytest.raises(ValueError, match="x"):
        ss.spmv(A, xp.asarray(np.ones(9)))
    with pytest.raises(TypeError, match="x"):
        ss.spmv(A, xp.asarray(np.ones(10, np.float32)))
    with pytest.raises(ValueError, match="beta"):
        ss.spmv(A, xp.asarray(np.ones(10)), beta=1.0)
    with pytest.raises(TypeError, match="A"):
        ss.spmv("matrix", xp.asarray(np.ones(10)))
    with pytest.raises(ValueError, match="strategy"):
        ss.spmv(A, xp.asarray(np.ones(10)), strategy="rows")


def systems(rng, batch, n, dtype):
    lower, upper = rng.uniform(-1, 1, (2, batch, n))
    diagonal = 3 + rng.uniform(0, 1, (batch, n))
    b = rng.standard_normal((batch, n))
    return [a.astype(dtype) for a in (lower, diagonal, upper, b)]


def solve_reference(lower, diagonal, upper, b):
    out = np.empty(b.shape)
    for s in range(b.shape[0]):
        n = b.shape[1]
        a = np.diag(diagonal[s].astype(np.float64)) + np.diag(lower[s, 1:], -1) + np.diag(upper[s, :-1], 1)
        out[s] = np.linalg.solve(a, b[s])
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batch,n", [(1, 1), (3, 2), (64, 512), (2, 5000)])
def test_tridiagonal(xp, rng, dtype, batch, n):
    lower, diagonal, upper, b = systems(rng, batch, n, dtype)
    ref = solve_reference(lower, diagonal, upper, b)
    tol = 1e-4 if dtype == "float32" else 1e-11
    got = ss.tridiagonal_solve(*(xp.asarray(a) for a in (lower, diagonal, upper, b)))
    np.testing.assert_allclose(xp.numpy(got), ref, rtol=tol, atol=tol)
    one = ss.tridiagonal_solve(*(xp.asarray(a[0]) for a in (lower, diagonal, upper, b)))
    np.testing.assert_allclose(xp.numpy(one), ref[0], rtol=tol, atol=tol)
    bb = xp.asarray(b)
    ss.tridiagonal_solve(*(xp.asarray(a) for a in (lower, diagonal, upper)), bb, out=bb)  # in place
    np.testing.assert_allclose(xp.numpy(bb), ref, rtol=tol, atol=tol)


def test_tridiagonal_zero_pivot_checked(xp, rng):
    lower, diagonal, upper, b = systems(rng, 4, 100, "float64")
    diagonal[2, 0] = 0.0
    upper[2, 0] = 0.0
    out = xp.asarray(np.full(b.shape, 7.0))
    with pytest.raises(ZeroDivisionError):
        ss.tridiagonal_solve(*(xp.asarray(a) for a in (lower, diagonal, upper, b)), out=out, check=True)
    np.testing.assert_array_equal(xp.numpy(out), np.full(b.shape, 7.0))


def test_tridiagonal_errors(xp, rng):
    lower, diagonal, upper, b = systems(rng, 2, 10, "float64")
    with pytest.raises(ValueError, match="upper"):
        ss.tridiagonal_solve(xp.asarray(lower), xp.asarray(diagonal), xp.asarray(upper[:, :9]), xp.asarray(b))
    with pytest.raises(TypeError, match="lower"):
        ss.tridiagonal_solve(xp.asarray(lower.astype(np.float32)), xp.asarray(diagonal), xp.asarray(upper),
                             xp.asarray(b))
    with pytest.raises(TypeError, match="b"):
        ss.tridiagonal_solve(*(xp.asarray(a.astype(np.int32)) for a in (lower, diagonal, upper, b)))
