"""Radix sorts: keys, key-value pairs, and argsort. Stable, in NumPy's order.

The module orders float keys by their bits (-NaN first, -0.0 before +0.0), so
float keys are sorted here through integer keys that order them as NumPy, CuPy
and torch do (-0.0 == +0.0, every NaN after +inf), made by a few elementwise ops
of the input's library. The float's bits ride along (as the values, or in the
low half of a key of twice the size), so the result holds the input's very
values (NaN payloads, signs of zeros) and the sort stays one radix sort; only
float64 keys with values are sorted by their order and gathered. bool keys are
sorted as their bytes. (CuPy's and torch's own sorts on the GPU follow that order
only for NaNs without sign or payload: they put NaNs with the sign bit set first
and order the others by payload; streamscan keeps NumPy's order on every device.)"""

from __future__ import annotations

import contextlib
import sys
from typing import Any, Optional, Tuple

from . import _core, _torch_ops
from ._core import Array

KEY_DTYPES = _core.INTEGERS | _core.FLOATS | {"bool"}

# A float dtype's signed integer of its size, and the bits of its +inf: NaNs' magnitudes lie above.
_FLOAT_BITS = {"float16": ("int16", 0x7C00), "bfloat16": ("int16", 0x7F80), "float32": ("int32", 0x7F800000),
               "float64": ("int64", 0x7FF0000000000000)}
_TWICE = {"int16": "int32", "int32": "int64"}
# Where the low half of an integer lies when it is viewed as two of half its size.
_LOW = 0 if sys.byteorder == "little" else 1


def _keys(keys: Any) -> Array:
    k = _core.as_array(keys, "keys")
    _core.dtype_code(k, "keys", KEY_DTYPES)
    if len(k.shape) == 0:
        raise ValueError("keys: a 0-d array has no axis to sort along")
    return k if k.contiguous else k.lib.contiguous(k)


class _Rows:
    """An n-d sort along one axis as one sort of the flattened rows: the axis is
    moved last in a contiguous copy, the whole array is argsorted stably by key,
    and that order is argsorted stably by row (a key of just the row index's
    bits): two radix sorts, whatever the number of rows, and every row ends in
    its own place in key order, ties in input order. `order` indexes the
    flattened rows; `back` puts an array of the rows' shape where the axis was."""

    def __init__(self, k: Array, axis: Any, dim: Any, begin: int, end: int, descending: bool, stream: Any,
                 strategy: Optional[str]):
        self.lib, self.axis = k.lib, _core.normalize_axis(*_core.axis_or_dim(axis, dim, -1), len(k.shape))
        moved = k.lib.contiguous(k.lib.moveaxis(k, self.axis, -1))
        self.shape, self.n = moved.shape, moved.shape[-1]
        self.flat = k.lib.reshape(moved, (-1,))
        by_key = _order(self.flat, begin, end, descending, stream, strategy)
        with _on_device(k):
            row = k.lib.describe(by_key.obj // max(self.n, 1), k.back)
        rows = self.flat.shape[0] // max(self.n, 1)
        by_row = _order(row, 0, max(1, (rows - 1).bit_length()), False, stream, strategy)
        self.order = k.lib.take(by_key, by_row)

    def flat_of(self, a: Array) -> Array:
        """a (keys' shape) with the axis moved last, flattened."""
        return self.lib.reshape(self.lib.contiguous(self.lib.moveaxis(a, self.axis, -1)), (-1,))

    def back(self, flat: Array) -> Array:
        rows = self.lib.reshape(flat, self.shape)
        return self.lib.contiguous(self.lib.moveaxis(rows, -1, self.axis))

    def index_in_row(self) -> Array:
        with _on_device(self.flat):
            return self.lib.describe(self.order.obj % max(self.n, 1), self.flat.back)


def _along(k: Array, axis: Any, dim: Any) -> bool:
    """Whether a call sorts along an axis of an n-d array (else: a 1-d array, as ever)."""
    if len(k.shape) == 1:
        _core.normalize_axis(*_core.axis_or_dim(axis, dim, -1), 1)  # checked all the same
        return False
    return True


def _bits(k: Array, begin_bit: int, end_bit: Optional[int]) -> Tuple[int, int]:
    bits = 8 * _core.ITEMSIZE[k.dtype]
    end = bits if end_bit is None else end_bit
    if not (0 <= begin_bit < end <= bits):
        raise ValueError(f"begin_bit, end_bit: need 0 <= begin_bit < end_bit <= {bits} for {k.dtype} keys, "
                         f"got {begin_bit}, {end}")
    return begin_bit, end


def _on_device(a: Array) -> Any:
    """A context in which a's library computes on a's device (CuPy computes on the current one)."""
    cupy = getattr(a.lib, "cupy", None)
    return cupy.cuda.Device(a.device) if cupy is not None else contextlib.nullcontext()


def _view(a: Array, dtype: str) -> Array:
    """a's memory (C-contiguous) as another dtype; the last extent scales with the item size."""
    if a.lib.name == "torch":
        obj = a.obj.detach().view(a.lib.dtypes[dtype])
    else:
        obj = a.obj.view(_core._numpy_dtype(dtype))
    return a.lib.describe(obj, a.back)


def _ordered(k: Array) -> Array:
    """Float keys as signed integers of their size in NumPy's order: a float's
    magnitude bits, negated for a negative float (-0.0 and +0.0 are both 0), and
    every NaN (any sign or payload) the largest integer. Integer operators only,
    the same in every library (NumPy's `where` is slow)."""
    int_type, inf = _FLOAT_BITS[k.dtype]
    sign = 8 * _core.ITEMSIZE[k.dtype] - 1
    top = (1 << sign) - 1
    with _on_device(k):
        i = _view(k, int_type).obj
        key = i & top  # the magnitude
        nan = inf - key
        nan >>= sign  # -1 for NaNs, else 0
        negative = i >> sign  # -1 for negative floats, else 0
        negative &= ~nan
        key |= nan & top
        key ^= negative  # two's complement negation where negative
        key -= negative
    return k.lib.describe(key, k.back)


def _key(k: Array) -> Array:
    """What the module sorts in k's place: _ordered floats, bool's bytes, other keys themselves."""
    if k.dtype in _FLOAT_BITS:
        return _ordered(k)
    return _view(k, "uint8") if k.dtype == "bool" else k


def _packed(k: Array) -> Array:
    """An integer of twice float k's size for each key: its _ordered key in the high
    half, its bits in the low half. Sorted by the high half, it sorts k and carries k."""
    half = _FLOAT_BITS[k.dtype][0]
    shift = 8 * _core.ITEMSIZE[k.dtype]
    with _on_device(k):
        p = k.lib.astype(_ordered(k), _TWICE[half])
        high, low = p.obj, k.lib.astype(_view(k, half), _TWICE[half]).obj
        high <<= shift
        low &= (1 << shift) - 1
        high |= low
    return p


def _unpack(p: Array, keys_out: Array) -> None:
    """keys_out = the keys carried in the low halves of p (of _packed)."""
    half = _FLOAT_BITS[keys_out.dtype][0]
    with _on_device(p):
        _view(keys_out, half).obj[...] = _view(p, half).obj[_LOW::2]


def _sort(key: Array, values: Optional[Array], keys_out: Array, values_out: Optional[Array], descending: bool,
          begin: int, end: int, stream: Any, strategy: Optional[str]) -> None:
    """One radix sort of the module: integer keys, values of 4 or 8 bytes (or none)."""
    n = key.shape[0]
    if n == 0:
        return
    size = 0 if values is None else _core.ITEMSIZE[values.dtype]
    _core.run(_core.backend(key).sort, key, stream, key.ptr, keys_out.ptr, 0 if values is None else values.ptr,
              0 if values_out is None else values_out.ptr, n, _core.CODE[key.dtype], size, descending, begin, end,
              _core.strategy_code("sort", strategy), 0, 0)


class _Ranks:
    """A sort across the ranks of an NCCL communicator: this rank's index, every
    rank's shard size, and this rank's share of the sorted whole (numpy.array_split's
    split: the first total % ranks ranks hold one key more)."""

    def __init__(self, k: Array, comm: Any, axis: Any, dim: Any, stream: Any):
        from ._scan import comm_address
        if not k.cuda:
            raise TypeError("comm: a sort across ranks runs on GPU arrays (CuPy, PyTorch), not host memory")
        if len(k.shape) != 1:
            raise ValueError(f"keys: a sort across ranks takes this rank's 1-d shard, got shape {tuple(k.shape)}")
        _core.normalize_axis(*_core.axis_or_dim(axis, dim, -1), 1)
        module = _core.backend(k)
        if not module.ranked_scan_compiled():
            raise RuntimeError("comm: this build of streamscan has no calls across ranks (NCCL was not found "
                               "when it was built)")
        self.address = comm_address(comm, k.device)
        self.rank, self.sizes = module.ranked_sizes(self.address, k.shape[0], k.device, k.lib.stream(k, stream))
        total, ranks = sum(self.sizes), len(self.sizes)
        begin = lambda r: r * (total // ranks) + min(r, total % ranks)  # noqa: E731
        self.offset = sum(self.sizes[:self.rank])  # this shard's first global index
        self.share = begin(self.rank + 1) - begin(self.rank)

    def sort(self, key: Array, values: Optional[Array], descending: bool, begin: int, end: int, stream: Any,
             strategy: Optional[str]) -> Tuple[Array, Optional[Array]]:
        """(keys, values) of this rank's share: integer keys, values of 4 or 8 bytes (or none)."""
        keys_out = key.lib.new(key, (self.share,), key.dtype)
        values_out = None if values is None else values.lib.new(values, (self.share,), values.dtype)
        size = 0 if values is None else _core.ITEMSIZE[values.dtype]
        _core.run(_core.backend(key).sort, key, stream, key.ptr, keys_out.ptr, 0 if values is None else values.ptr,
                  0 if values_out is None else values_out.ptr, key.shape[0], _core.CODE[key.dtype], size,
                  descending, begin, end, _core.strategy_code("sort", strategy), self.address, self.share)
        return keys_out, values_out

    def sorted(self, k: Array, values: Optional[Array], begin: int, end: int, descending: bool, stream: Any,
               strategy: Optional[str]) -> Tuple[Array, Optional[Array]]:
        """k's share sorted (and values with it), floats in NumPy's order as _sorted does;
        float64 keys with values, which _sorted gathers, cannot be gathered across ranks."""
        size = _core.ITEMSIZE[k.dtype]
        if k.dtype not in _FLOAT_BITS:
            keys_out, values_out = self.sort(_key(k), values, descending, begin, end, stream, strategy)
            return (_view(keys_out, "bool") if k.dtype == "bool" else keys_out), values_out
        if values is None and size >= 4:  # the float's bits ride as the values
            _, bits = self.sort(_ordered(k), k, descending, begin, end, stream, strategy)
            return bits, None
        if size <= 4:  # key and bits in one integer
            p, values_out = self.sort(_packed(k), values, descending, begin + 8 * size, end + 8 * size, stream,
                                      strategy)
            keys_out = k.lib.new(k, (self.share,), k.dtype)
            _unpack(p, keys_out)
            return keys_out, values_out
        raise TypeError("keys: float64 keys with values cannot be sorted across ranks (their order and bits "
                        "need 16 bytes a key); sort their argsort(comm=...) instead")

    def order(self, k: Array, begin: int, end: int, descending: bool, stream: Any, strategy: Optional[str]) -> Array:
        """The global int64 indices (rank order, then position) of this rank's share of the sorted keys."""
        with _on_device(k):
            index = k.lib.arange(k, k.shape[0], 1)
            shifted = index.obj
            shifted += self.offset  # in place: the Array keeps its object
        return self.sort(_key(k), index, descending, begin, end, stream, strategy)[1]


def _order(k: Array, begin: int, end: int, descending: bool, stream: Any, strategy: Optional[str]) -> Array:
    """The int64 indices that sort k, stably."""
    key = _key(k)
    order_out = k.lib.new(k, k.shape, "int64")
    # A float's key is a temp, sorted in place; the others are the caller's.
    keys_out = key if k.dtype in _FLOAT_BITS else key.lib.new(key, key.shape, key.dtype)
    _sort(key, k.lib.arange(k, k.shape[0], 1), keys_out, order_out, descending, begin, end, stream, strategy)
    return order_out


def _sorted(k: Array, keys_out: Array, values: Optional[Array], begin: int, end: int, descending: bool,
            stream: Any, strategy: Optional[str]) -> Optional[Array]:
    """keys_out = k sorted; returns values (None, or 4- or 8-byte items) in that order."""
    values_out = None if values is None else values.lib.new(values, values.shape, values.dtype)
    size = _core.ITEMSIZE[k.dtype]
    if k.dtype not in _FLOAT_BITS:
        _sort(_key(k), values, _key(keys_out), values_out, descending, begin, end, stream, strategy)
    elif values is None and size >= 4:  # the float's bits are the values
        key = _ordered(k)
        _sort(key, k, key, keys_out, descending, begin, end, stream, strategy)
    elif size <= 4:  # key and bits in one integer
        p = _packed(k)
        _sort(p, values, p, values_out, descending, begin + 8 * size, end + 8 * size, stream, strategy)
        _unpack(p, keys_out)
    else:  # float64 keys with values: both gathered by the keys' order
        order = _order(k, begin, end, descending, stream, strategy)
        with _on_device(k):
            keys_out.obj[...] = k.lib.take(k, order).obj
        values_out = values.lib.take(values, order)
    return values_out


@_core.on_callers_stream("keys")
def sort(keys: Any, *, axis: int = -1, dim: Optional[int] = None, descending: bool = False, begin_bit: int = 0,
         end_bit: Optional[int] = None, out: Any = None, stream: Any = None, strategy: Optional[str] = None,
         comm: Any = None) -> Any:
    """The keys in order, stably (a new array, or `out`, which may be `keys`).

    Keys of bool, integer and float dtypes (float16, bfloat16, float32, float64),
    ordered as numpy.sort and torch.sort order them: -inf < ... < +inf < NaN, -0.0
    equal to +0.0 (equal keys keep their input order, so the signs of zeros and the
    NaNs' payloads keep theirs). descending=True reverses the order, still stably
    (torch.sort(descending=True, stable=True): NaNs first). begin_bit and end_bit
    restrict the order to those bits of the key as an integer: integers' two's
    complement, bool's byte, a float's magnitude bits negated for a negative float
    (0 for both zeros; NaNs the largest integer of that size).
    strategy: "onesweep" (default on the GPU) or "split" (seed 003's one split per bit).
    An n-d array is sorted along `axis` (or `dim`, torch's name; default the
    last), each row on its own: two stable radix sorts of the whole array (by key,
    then by row) and gathers, not a loop over rows.
    comm: sort across GPUs. keys is this rank's 1-d shard of one array held by the
    ranks of an NCCL communicator (a torch.distributed process group of the nccl
    backend, nccl4py's Communicator, or an ncclComm_t address; one process a GPU);
    returns this rank's share of the sorted whole (rank r: the r-th of
    numpy.array_split(sorted, ranks)), equal keys in rank order, then position.
    """
    if comm is not None:
        if out is not None:
            raise ValueError("out: a sort across ranks returns a new array (its share's length)")
        k = _keys(keys)
        begin, end = _bits(k, begin_bit, end_bit)
        ranks = _Ranks(k, comm, axis, dim, stream)
        return _core.result(k, ranks.sorted(k, None, begin, end, descending, stream, strategy)[0].obj)
    if _torch_ops.wanted(keys):  # autograd or torch.compile: a gather of torch's by argsort
        if out is not None:
            _torch_ops.refuse_written("out")
        return _torch_ops.sorted_by(keys, None, descending, begin_bit, end_bit, _dim_of(keys, axis, dim),
                                    strategy)[0]
    k = _keys(keys)
    begin, end = _bits(k, begin_bit, end_bit)
    o = _core.output(k, out, k.shape, k.dtype)
    if _along(k, axis, dim):
        rows = _Rows(k, axis, dim, begin, end, descending, stream, strategy)
        with _on_device(k):
            o.obj[...] = rows.back(k.lib.take(rows.flat, rows.order)).obj
        return _core.result(k, o.obj)
    _sorted(k, o, None, begin, end, descending, stream, strategy)
    return _core.result(k, o.obj)


@_core.on_callers_stream("keys")
def sort_pairs(keys: Any, values: Any, *, axis: int = -1, dim: Optional[int] = None, descending: bool = False,
               begin_bit: int = 0, end_bit: Optional[int] = None, stream: Any = None,
               strategy: Optional[str] = None, comm: Any = None) -> Tuple[Any, Any]:
    """(sorted keys, values in the same order); stable, keys as `sort` orders them.
    values: any dtype, keys' length.

    Values of 4 or 8 bytes move with the keys; others are gathered through argsort.
    axis / dim: as sort's, for n-d keys and values of one shape.
    comm: as sort's; values of 4 or 8 bytes travel with their keys (others: sort
    argsort(comm=...)'s global indices with the keys instead).
    """
    if comm is None and _torch_ops.wanted(keys, values):  # autograd or torch.compile: gathers by argsort
        return _torch_ops.sorted_by(keys, values, descending, begin_bit, end_bit, _dim_of(keys, axis, dim),
                                    strategy)
    k = _keys(keys)
    begin, end = _bits(k, begin_bit, end_bit)
    v = _core.as_array(values, "values")
    _core.same_place(k, v, "values")
    if tuple(v.shape) != tuple(k.shape):
        raise ValueError(f"values: shape {tuple(v.shape)}, expected keys' shape {tuple(k.shape)}")
    if v.dtype not in _core.CODE:
        raise TypeError(f"values: dtype {v.dtype} is not supported")
    if not v.contiguous:
        v = v.lib.contiguous(v)
    if comm is not None:
        if _core.ITEMSIZE[v.dtype] not in (4, 8):
            raise TypeError(f"values: a sort across ranks moves values of 4 or 8 bytes, not {v.dtype}")
        keys_out, values_out = _Ranks(k, comm, axis, dim, stream).sorted(k, v, begin, end, descending, stream,
                                                                         strategy)
        return _core.result(k, keys_out.obj), _core.result(v, values_out.obj)
    if _along(k, axis, dim):  # along an axis of n-d keys and values
        rows = _Rows(k, axis, dim, begin, end, descending, stream, strategy)
        with _on_device(k):
            keys_out = rows.back(k.lib.take(rows.flat, rows.order))
            values_out = rows.back(v.lib.take(rows.flat_of(v), rows.order))
        return _core.result(k, keys_out.obj), _core.result(v, values_out.obj)
    keys_out = k.lib.new(k, k.shape, k.dtype)
    if _core.ITEMSIZE[v.dtype] in (4, 8):
        values_out = _sorted(k, keys_out, v, begin, end, descending, stream, strategy)
    else:
        order = _sorted(k, keys_out, k.lib.arange(k, k.shape[0], 1), begin, end, descending, stream, strategy)
        values_out = v.lib.take(v, order)
    return _core.result(k, keys_out.obj), _core.result(v, values_out.obj)


@_core.on_callers_stream("keys")
def argsort(keys: Any, *, axis: int = -1, dim: Optional[int] = None, descending: bool = False, begin_bit: int = 0,
            end_bit: Optional[int] = None, stream: Any = None, strategy: Optional[str] = None,
            comm: Any = None) -> Any:
    """The int64 indices that sort keys as `sort` does, stably (equal keys keep their order):
    numpy.argsort(kind="stable"), torch.argsort(stable=True), with descending= too;
    along `axis` (or `dim`) of an n-d array, each row's indices within the row.
    comm: as sort's; returns this rank's share of the global indices (positions in
    the shards joined in rank order)."""
    if comm is not None:
        k = _keys(keys)
        begin, end = _bits(k, begin_bit, end_bit)
        ranks = _Ranks(k, comm, axis, dim, stream)
        return _core.result(k, ranks.order(k, begin, end, descending, stream, strategy).obj)
    if _torch_ops.wanted(keys):  # torch.compile: the custom op
        return _torch_ops.argsort(keys, descending, begin_bit, end_bit, _dim_of(keys, axis, dim), strategy)
    axis, dim = _core.axis_or_dim(axis, dim, -1)
    if dim is not None:  # two different axes: normalize_axis names the conflict
        _core.normalize_axis(axis, dim, 1)
    return argsort_direct(keys, descending, begin_bit, end_bit, axis, strategy, stream)


def _dim_of(keys: Any, axis: Any, dim: Any) -> int:
    """The axis a torch tensor's sort runs along, as a non-negative index."""
    return _core.normalize_axis(*_core.axis_or_dim(axis, dim, -1), keys.dim())


def argsort_direct(keys: Any, descending: bool, begin_bit: int, end_bit: Optional[int], axis: int,
                   strategy: Optional[str], stream: Any = None) -> Any:
    """argsort on the back end (the custom op's body too)."""
    k = _keys(keys)
    begin, end = _bits(k, begin_bit, end_bit)
    if _along(k, axis, None):
        rows = _Rows(k, axis, None, begin, end, descending, stream, strategy)
        return _core.result(k, rows.back(rows.index_in_row()).obj)
    return _core.result(k, _order(k, begin, end, descending, stream, strategy).obj)
