"""Compaction, the indices of true flags, split and partition.

These return how many elements were kept, which is the one thing that makes a
call wait for the GPU: the count is read back (on the call's stream) to size
the result. Elements of any dtype move as words of their size.
"""

from __future__ import annotations

from typing import Any, Optional, Tuple

from . import _core
from ._core import Array

_KIND = {"flagged": 0, "indices": 1, "compare": 2, "split": 3, "partition": 4}
COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")


def _flat(a: Array) -> Array:
    if not a.contiguous:
        a = a.lib.contiguous(a)
    return a


def _flags(a: Array, mask: Any, name: str) -> Array:
    m = _core.as_array(mask, name)
    _core.same_place(a, m, name)
    if m.dtype != "bool":
        raise TypeError(f"{name}: dtype {m.dtype}, expected bool")
    if tuple(m.shape) != tuple(a.shape):
        raise ValueError(f"{name}: shape {tuple(m.shape)}, expected x's shape {tuple(a.shape)}")
    return _flat(m)


def _size(a: Array) -> int:
    n = 1
    for extent in a.shape:
        n *= extent
    return n


def _select(kind: str, a: Array, flags: Optional[Array], out_dtype: str, cmp: int, value: Any, stream: Any,
            strategy: Optional[str]) -> Tuple[Any, int]:
    module = _core.backend(a)
    n = _size(a)
    out = a.lib.new(a, (n,), out_dtype)
    if n == 0:
        return out.obj, 0
    count = a.lib.new(a, (1,), "int64")
    _core.run(module.select, a, stream, _KIND[kind], a.ptr, 0 if flags is None else flags.ptr, out.ptr, count.ptr, n, _core.CODE[a.dtype], cmp, value,
              _core.strategy_code("select", strategy))
    return out.obj, a.lib.item(count)


@_core.on_callers_stream("x")
def select(x: Any, mask: Any, *, stream: Any = None, strategy: Optional[str] = None) -> Any:
    """x[mask] for a bool mask of x's shape: the kept elements, in order, as a 1-d array.

    strategy: "stable" (default) or "multi_level"; "hybrid" and "warp_atomic"
    are faster on some GPUs but do not keep the order. Waits for the count.
    """
    a = _flat(_core.as_array(x, "x"))
    _core.dtype_code(a, "x")
    f = _flags(a, mask, "mask")
    out, count = _select("flagged", a, f, a.dtype, 0, None, stream, strategy)
    return _core.result(a, out[:count])


@_core.on_callers_stream("x")
def select_if(x: Any, cmp: str, value: Any, *, stream: Any = None, strategy: Optional[str] = None) -> Any:
    """x[x cmp value] in one pass (no mask in memory), cmp one of < <= > >= == !=.

    For numeric dtypes other than float16 and bfloat16. Waits for the count.
    """
    a = _flat(_core.as_array(x, "x"))
    code = _core.dtype_code(a, "x")
    if cmp not in COMPARISONS:
        raise ValueError(f"cmp: {cmp!r} is not one of {' '.join(COMPARISONS)}")
    if not _core.backend(a).select_supported(code, _KIND["compare"]):
        raise TypeError(f"x: select_if does not take dtype {a.dtype}")
    out, count = _select("compare", a, None, a.dtype, COMPARISONS.index(cmp), value, stream, strategy)
    return _core.result(a, out[:count])


@_core.on_callers_stream("mask")
def flatnonzero(mask: Any, *, stream: Any = None) -> Any:
    """The int64 indices where a bool array is true (of its flattened view), as numpy.flatnonzero."""
    m = _flat(_core.as_array(mask, "mask"))
    if m.dtype != "bool":
        raise TypeError(f"mask: dtype {m.dtype}, expected bool")
    out, count = _select("indices", m, m, "int64", 0, None, stream, None)
    return _core.result(m, out[:count])


@_core.on_callers_stream("x")
def split(x: Any, flags: Any, *, stream: Any = None) -> Tuple[Any, int]:
    """(out, num_false): the elements whose flag is false, then those whose flag
    is true, each in input order (seed 003's split); num_false is where the trues begin."""
    a = _flat(_core.as_array(x, "x"))
    _core.dtype_code(a, "x")
    f = _flags(a, flags, "flags")
    out, count = _select("split", a, f, a.dtype, 0, None, stream, None)
    return _core.result(a, out), count


@_core.on_callers_stream("x")
def partition(x: Any, mask: Any, *, stream: Any = None) -> Tuple[Any, int]:
    """(out, num_true): the elements where mask is true, then the others, each
    in input order; num_true is where the others begin."""
    a = _flat(_core.as_array(x, "x"))
    _core.dtype_code(a, "x")
    f = _flags(a, mask, "mask")
    out, count = _select("partition", a, f, a.dtype, 0, None, stream, None)
    return _core.result(a, out), count
