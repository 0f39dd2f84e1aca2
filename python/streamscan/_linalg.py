"""Sparse matrix times vector (CSR) and batched tridiagonal solves."""

from __future__ import annotations

from typing import Any, Optional, Tuple

from . import _core, _torch_ops
from ._core import Array

REALS = frozenset(("float32", "float64"))
INDEX = frozenset(("int32", "int64"))


def _csr_parts(A: Any) -> Tuple[Any, Any, Any, Tuple[int, int]]:
    """(indptr, indices, data, shape) of a SciPy, CuPy or torch CSR matrix, or of such a tuple."""
    if isinstance(A, tuple) and len(A) == 4:
        return A
    layout = getattr(A, "layout", None)
    if layout is not None and str(layout) == "torch.sparse_csr":
        return A.crow_indices(), A.col_indices(), A.values(), tuple(A.shape)
    fmt = getattr(A, "format", None)
    if fmt == "csr" and hasattr(A, "indptr"):
        return A.indptr, A.indices, A.data, tuple(A.shape)
    if fmt is not None and hasattr(A, "tocsr"):
        raise TypeError(f"A: a {fmt} matrix; convert it with A.tocsr() first")
    raise TypeError("A: expected a CSR matrix (scipy.sparse, cupyx.scipy.sparse, torch.sparse_csr) or a tuple "
                    "(indptr, indices, data, shape)")


def _vector(v: Any, name: str, like: Array, length: int, dtype: str, written: bool = False) -> Array:
    a = _core.as_array(v, name, written)
    _core.same_place(like, a, name)
    if tuple(a.shape) != (length,):
        raise ValueError(f"{name}: shape {tuple(a.shape)}, expected ({length},)")
    if a.dtype != dtype:
        raise TypeError(f"{name}: dtype {a.dtype}, expected the matrix's {dtype}")
    return a if a.contiguous else a.lib.contiguous(a)


@_core.on_callers_stream("x")
def spmv(A: Any, x: Any, y: Any = None, *, alpha: float = 1.0, beta: float = 0.0, stream: Any = None,
         strategy: Optional[str] = None) -> Any:
    """y = alpha * A @ x + beta * y for a CSR matrix A; returns y.

    float32 or float64 values, int32 or int64 indices (row offsets of another
    width than the column indices are converted, a copy). y: written in place
    when given (it is read when beta != 0), else a new vector. strategy:
    None (the default: row_groups below a mean of 8 non-zeros a row,
    nonzero_split from it on), "row_groups", "nonzero_split", "merge_path" or
    "segmented_scan" (seed 003's formulation).

    torch: where autograd records the call (A's values, x or y require grad) or
    torch.compile traces it, it is the custom op streamscan::spmv, with
    gradients for A's values, x and y; y is then written as by torch's
    in-place ops (so not a leaf that requires grad: pass y.clone()).
    """
    parts = _csr_parts(A)
    if _torch_ops.wanted(parts[2], parts[0], parts[1], x, y):
        return _torch_ops.spmv(*parts, x, y, alpha, beta, strategy)
    return spmv_direct(parts, x, y, alpha, beta, strategy)


def spmv_direct(A: Any, x: Any, y: Any, alpha: float, beta: float, strategy: Optional[str]) -> Any:
    """spmv on the back end (the current stream), with no custom op in the way."""
    indptr, indices, data, shape = _csr_parts(A)
    values = _core.as_array(data, "A.data")
    _core.dtype_code(values, "A.data", REALS)
    cols_index = _core.as_array(indices, "A.indices")
    offsets = _core.as_array(indptr, "A.indptr")
    for part, name in ((cols_index, "A.indices"), (offsets, "A.indptr")):
        _core.same_place(values, part, name)
        _core.dtype_code(part, name, INDEX)
    rows, cols = int(shape[0]), int(shape[1])
    if offsets.shape != (rows + 1,):
        raise ValueError(f"A.indptr: shape {tuple(offsets.shape)}, expected ({rows + 1},)")
    nnz = cols_index.shape[0]
    if values.shape != (nnz,):
        raise ValueError(f"A.data: shape {tuple(values.shape)}, expected A.indices' ({nnz},)")
    if offsets.dtype != cols_index.dtype:
        wide = "int64"
        offsets = offsets.lib.astype(offsets, wide)
        cols_index = cols_index.lib.astype(cols_index, wide)
    offsets, cols_index, values = (a if a.contiguous else a.lib.contiguous(a) for a in (offsets, cols_index, values))
    xv = _vector(x, "x", values, cols, values.dtype)
    if y is None:
        if beta != 0:
            raise ValueError("beta: y is read when beta != 0; pass y")
        yv = values.lib.new(xv, (rows,), values.dtype)
    else:
        yv = _vector(y, "y", values, rows, values.dtype, written=True)
    if rows > 0:
        _core.run(_core.backend(values).spmv, values, None, rows, cols, nnz, offsets.ptr, cols_index.ptr,
                  values.ptr, xv.ptr, yv.ptr, _core.CODE[cols_index.dtype], _core.CODE[values.dtype], float(alpha),
                  float(beta), _core.strategy_code("spmv", strategy))
    return _core.result(yv, yv.obj)


@_core.on_callers_stream("b")
def tridiagonal_solve(lower: Any, diagonal: Any, upper: Any, b: Any, *, out: Any = None, check: bool = False,
                      stream: Any = None, strategy: Optional[str] = None) -> Any:
    """x with A x = b for tridiagonal A, one system or a batch of them.

    lower, diagonal, upper and b: float32 or float64 arrays of shape (n,) for
    one system or (batch, n) for a batch; lower[..., 0] and upper[..., n-1]
    are ignored. No pivoting (as cuSPARSE's gtsv2_nopivot): a zero pivot gives
    inf or NaN in that system, or, with check=True, ZeroDivisionError naming it
    and nothing written (check waits for the GPU). out may be b (in place).

    torch: where autograd records the call or torch.compile traces it, it is
    the custom op streamscan::tridiagonal_solve, with gradients for all four
    inputs (lower[..., 0] and upper[..., n-1] get 0), and no out=.
    """
    if _torch_ops.wanted(b, lower, diagonal, upper):
        if out is not None:
            _torch_ops.refuse_written("out")
        return _torch_ops.tridiagonal_solve(lower, diagonal, upper, b, check, strategy)
    return tridiagonal_direct(lower, diagonal, upper, b, out, check, strategy)


def tridiagonal_direct(lower: Any, diagonal: Any, upper: Any, b: Any, out: Any, check: bool,
                       strategy: Optional[str]) -> Any:
    """tridiagonal_solve on the back end (the current stream), with no custom op in the way."""
    bb = _core.as_array(b, "b")
    _core.dtype_code(bb, "b", REALS)
    if len(bb.shape) not in (1, 2):
        raise ValueError(f"b: shape {tuple(bb.shape)}, expected (n,) or (batch, n)")
    batch, n = (1, bb.shape[0]) if len(bb.shape) == 1 else bb.shape
    parts = []
    for value, name in ((lower, "lower"), (diagonal, "diagonal"), (upper, "upper")):
        a = _core.as_array(value, name)
        _core.same_place(bb, a, name)
        if tuple(a.shape) != tuple(bb.shape):
            raise ValueError(f"{name}: shape {tuple(a.shape)}, expected b's {tuple(bb.shape)}")
        if a.dtype != bb.dtype:
            raise TypeError(f"{name}: dtype {a.dtype}, expected b's {bb.dtype}")
        parts.append(a if a.contiguous else a.lib.contiguous(a))
    source = bb if bb.contiguous else bb.lib.contiguous(bb)
    o = _core.output(bb, out, bb.shape, bb.dtype)
    if n > 0 and batch > 0:
        _core.run(_core.backend(bb).tridiagonal, bb, None, n, batch, parts[0].ptr, parts[1].ptr, parts[2].ptr,
                  source.ptr, o.ptr, _core.CODE[bb.dtype], bool(check), _core.strategy_code("tridiagonal", strategy))
    return _core.result(bb, o.obj)
