"""Radix sorts: keys, key-value pairs, and argsort. Stable."""

from __future__ import annotations

from typing import Any, Optional, Tuple

from . import _core
from ._core import Array

KEY_DTYPES = frozenset(("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32",
                        "float64"))


def _keys(keys: Any) -> Array:
    k = _core.as_array(keys, "keys")
    _core.dtype_code(k, "keys", KEY_DTYPES)
    if len(k.shape) != 1:
        raise ValueError(f"keys: sorts take a 1-d array, got shape {tuple(k.shape)}")
    return k if k.contiguous else k.lib.contiguous(k)


def _bits(k: Array, begin_bit: int, end_bit: Optional[int]) -> Tuple[int, int]:
    bits = 8 * _core.ITEMSIZE[k.dtype]
    end = bits if end_bit is None else end_bit
    if not (0 <= begin_bit < end <= bits):
        raise ValueError(f"begin_bit, end_bit: need 0 <= begin_bit < end_bit <= {bits} for {k.dtype} keys, "
                         f"got {begin_bit}, {end}")
    return begin_bit, end


def _sort(k: Array, values: Optional[Array], keys_out: Array, values_out: Optional[Array], descending: bool,
          begin_bit: int, end_bit: Optional[int], stream: Any, strategy: Optional[str]) -> None:
    begin, end = _bits(k, begin_bit, end_bit)
    n = k.shape[0]
    if n == 0:
        return
    size = 0 if values is None else _core.ITEMSIZE[values.dtype]
    _core.run(_core.backend(k).sort, k, stream, k.ptr, keys_out.ptr, 0 if values is None else values.ptr,
              0 if values_out is None else values_out.ptr, n, _core.CODE[k.dtype], size, descending, begin, end,
              _core.strategy_code("sort", strategy))


@_core.on_callers_stream("keys")
def sort(keys: Any, *, descending: bool = False, begin_bit: int = 0, end_bit: Optional[int] = None,
         out: Any = None, stream: Any = None, strategy: Optional[str] = None) -> Any:
    """The keys in order (a new array, or `out`, which may be `keys`).

    Integer, float32 and float64 keys. Floats order as -NaN < -inf < ... <
    -0.0 < +0.0 < ... < +inf < +NaN (their bits, as CUB does). begin_bit and
    end_bit restrict the order to those bits of the order-preserving key map.
    strategy: "onesweep" (default on the GPU) or "split" (seed 003's one split per bit).
    """
    k = _keys(keys)
    o = _core.output(k, out, k.shape, k.dtype)
    _sort(k, None, o, None, descending, begin_bit, end_bit, stream, strategy)
    return _core.result(k, o.obj)


@_core.on_callers_stream("keys")
def sort_pairs(keys: Any, values: Any, *, descending: bool = False, begin_bit: int = 0,
               end_bit: Optional[int] = None, stream: Any = None, strategy: Optional[str] = None) -> Tuple[Any, Any]:
    """(sorted keys, values in the same order); stable. values: any dtype, keys' length.

    Values of 4 or 8 bytes move with the keys; others are gathered through argsort.
    """
    k = _keys(keys)
    v = _core.as_array(values, "values")
    _core.same_place(k, v, "values")
    if tuple(v.shape) != tuple(k.shape):
        raise ValueError(f"values: shape {tuple(v.shape)}, expected keys' shape {tuple(k.shape)}")
    if v.dtype not in _core.CODE:
        raise TypeError(f"values: dtype {v.dtype} is not supported")
    if not v.contiguous:
        v = v.lib.contiguous(v)
    keys_out = k.lib.new(k, k.shape, k.dtype)
    if _core.ITEMSIZE[v.dtype] in (4, 8):
        values_out = v.lib.new(v, v.shape, v.dtype)
        _sort(k, v, keys_out, values_out, descending, begin_bit, end_bit, stream, strategy)
        return _core.result(k, keys_out.obj), _core.result(v, values_out.obj)
    order = k.lib.arange(k, k.shape[0], 1)
    order_out = k.lib.new(k, k.shape, "int64")
    _sort(k, order, keys_out, order_out, descending, begin_bit, end_bit, stream, strategy)
    return _core.result(k, keys_out.obj), _core.result(v, v.lib.take(v, order_out).obj)


@_core.on_callers_stream("keys")
def argsort(keys: Any, *, descending: bool = False, begin_bit: int = 0, end_bit: Optional[int] = None,
            stream: Any = None, strategy: Optional[str] = None) -> Any:
    """The int64 indices that sort keys, stably (equal keys keep their order)."""
    k = _keys(keys)
    order = k.lib.arange(k, k.shape[0], 1)
    keys_out = k.lib.new(k, k.shape, k.dtype)
    order_out = k.lib.new(k, k.shape, "int64")
    _sort(k, order, keys_out, order_out, descending, begin_bit, end_bit, stream, strategy)
    return _core.result(k, order_out.obj)
