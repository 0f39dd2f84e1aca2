"""Inclusive and exclusive scans, plain, batched and segmented."""

from __future__ import annotations

from typing import Any, NamedTuple, Optional, Tuple

import numpy as np

from . import _core, _torch_ops
from ._core import Array

OPS = ("add", "mul", "max", "min", "and", "or", "xor")
BITWISE = frozenset(("and", "or", "xor"))
_SEGMENTS = {"none": 0, "flags": 1, "offsets": 2}


def dtype_name(dtype: Any, name: str = "dtype") -> str:
    """A dtype given as a string, NumPy dtype or type, or torch dtype, as a name of _core.DTYPES."""
    if isinstance(dtype, str) and dtype in _core.CODE:
        return dtype
    text = str(dtype)
    if text.startswith("torch."):
        text = text[len("torch."):]
        if text in _core.CODE:
            return text
    else:
        try:
            text = np.dtype(dtype).name
        except TypeError:
            pass
        if text in _core.CODE:
            return text
    raise TypeError(f"{name}: {dtype!r} is not a supported dtype (one of {', '.join(_core.DTYPES)})")


_WIDER_UNSIGNED = frozenset(("uint8", "uint16", "uint32"))
_WIDER_SIGNED = frozenset(("bool", "int8", "int16", "int32"))


def _default_accumulator(in_dtype: str, op: str, library: str) -> str:
    """The result dtype the input library's own function gives (cumsum, cumprod,
    cummax, ...): sums and products of integers narrower than 64 bits widen, as
    torch's cumsum / cumprod (every integer and bool to int64) and NumPy's and
    CuPy's (signed and bool to int64, unsigned to uint64) do; max, min and the
    bitwise operators keep the input's dtype (bool: int64). 16-bit floats stay
    16-bit (accumulated in float32, rounded once at the output)."""
    if op in ("add", "mul") and (in_dtype in _WIDER_SIGNED or in_dtype in _WIDER_UNSIGNED):
        return "uint64" if in_dtype in _WIDER_UNSIGNED and library != "torch" else "int64"
    if in_dtype == "bool":
        return "int64"
    return in_dtype


def _work_type(acc: str) -> str:
    """The type a scan accumulates in for an output dtype: 16-bit floats are
    accumulated in float32 and rounded once at the end."""
    if acc in ("float16", "bfloat16"):
        return "float32"
    if acc == "bool":
        raise TypeError("dtype: a bool accumulator is not supported (use an integer dtype)")
    return acc


def _check_op(op: Any) -> None:
    if not isinstance(op, str):
        raise TypeError(f"op: expected one of {', '.join(OPS)}, got {type(op).__name__} (segments go in flags= or "
                        "offsets=, an axis in axis=)")


def _op_code(op: str, work: str) -> int:
    _check_op(op)
    if op not in OPS:
        raise ValueError(f"op: {op!r} is not one of {', '.join(OPS)}")
    if op in BITWISE and work not in _core.INTEGERS:
        raise TypeError(f"op: {op!r} needs an integer dtype, the accumulator is {work}")
    return OPS.index(op)


_compiled = {}


def _prepare(x: Array, work: str, op: int, segmented: bool, module) -> Array:
    """x, cast to the accumulator type where its (input, accumulator) pair is not compiled in."""
    if not x.contiguous:
        x = x.lib.contiguous(x)
    key = (x.dtype, work, op, segmented)
    supported = _compiled.get(key)
    if supported is None:
        supported = _compiled[key] = module.scan_supported(_core.CODE[x.dtype], _core.CODE[work], op, segmented)
    return x if supported else x.lib.astype(x, work)


class _Plan(NamedTuple):
    """What a plain scan of one kind of input resolved to (accumulator, codes, temp
    bytes), so that the same call again skips the checks and lookups."""

    call: Any
    acc: str
    total: int
    in_code: int
    work_code: int
    code: int
    strategy_code: int
    nbytes: int


_plans = {}


def _run_plan(p: _Plan, a: Array, exclusive: bool, initial: Any, backward: bool, stream: Any) -> Any:
    o = a.lib.new(a, a.shape, p.acc)
    _core.run(p.call, a, stream, a.ptr, o.ptr, p.total, p.in_code, p.work_code, p.code, exclusive, initial,
              _SEGMENTS["none"], 0, 0, backward, p.strategy_code, 0, nbytes=p.nbytes)
    return _core.result(a, o.obj)


FLATTEN = object()  # axis=None of numpy.cumsum: the flattened array


def scan(x: Any, op: str, exclusive: bool, dtype: Any, initial: Any, out: Any, stream: Any, strategy: Optional[str],
         flags: Any = None, offsets: Any = None, backward: bool = False, segmented: bool = False,
         comm: Any = None, axis: Any = -1, dim: Any = None) -> Any:
    _check_op(op)
    if dim is not None or axis is FLATTEN or axis != -1:
        return _scan_along(x, op, exclusive, dtype, initial, out, stream, strategy, comm, axis, dim)
    a = _core.as_array(x, "x")
    # A plain scan (one row, no out=, segments or ranks) of an input like one seen before
    # runs the plan that call made: the same checks would pass, the same codes and temp
    # size would come out.
    x_obj = a.obj
    plan_key = None
    if not segmented and comm is None and out is None:
        plan_key = (a.lib, a.cuda, a.device, a.dtype, a.shape, a.contiguous, op, exclusive, dtype, initial is None,
                    strategy, backward)
        try:
            plan = _plans.get(plan_key)
        except TypeError:  # an argument that is not hashable: the checks below say what is wrong
            plan_key = plan = None
        if plan is not None:
            return _run_plan(plan, a, exclusive, initial, backward, stream)
    _core.dtype_code(a, "x")
    module = _core.backend(a)
    if dtype is not None:
        acc = dtype_name(dtype)
    elif out is not None:  # as NumPy: an out= without dtype= accumulates in out's dtype
        acc = _core.as_array(out, "out", True).dtype
    elif segmented:  # the input's dtype (bool: int64)
        acc = "int64" if a.dtype == "bool" else a.dtype
    else:
        acc = _default_accumulator(a.dtype, op, a.lib.name)
    work = _work_type(acc)
    code = _op_code(op, work)
    strategy_code = _core.strategy_code("scan", strategy)
    rows, n = _core.rows_of(a)
    total = rows * n
    if segmented and len(a.shape) != 1:
        raise ValueError(f"x: segmented scans take a 1-d array, got shape {tuple(a.shape)}")
    o = _core.output(a, out, a.shape, acc)  # checked before the communicator is touched
    address = 0 if comm is None else _ranked_address(a, module, comm, exclusive, initial)

    kind, seg, num_segments = _SEGMENTS["none"], None, 0
    if segmented:
        kind, seg, num_segments = _segments(a, flags, offsets, n)
    if total == 0 and not address:  # across ranks, an empty shard still takes part in the exchange
        return _core.result(a, o.obj)
    if rows > 1:  # batched rows: one segment a row
        kind, seg, num_segments = _SEGMENTS["offsets"], a.lib.arange(a, total + 1, n), rows
    by_segments = kind != _SEGMENTS["none"]
    if address and a.dtype != work:  # across ranks, the input is of the accumulator's type
        a = a.lib.astype(a if a.contiguous else a.lib.contiguous(a), work)
    a = _prepare(a, work, code, by_segments, module)
    target = o if work == acc else a.lib.new(a, a.shape, work)
    in_code, work_code = _core.CODE[a.dtype], _core.CODE[work]
    # Across ranks the temp size also depends on the communicator's size: the query (local,
    # no exchange) runs every time.
    key = None if address else (total, in_code, work_code, code, exclusive, initial is None, kind, num_segments,
                                backward, strategy_code)
    nbytes = _core.run(module.scan, a, stream, a.ptr, target.ptr, total, in_code, work_code, code, exclusive, initial,
                       kind, 0 if seg is None else seg.ptr, num_segments, backward, strategy_code, address, key=key)
    if target is not o:
        o.obj[...] = target.obj
    if plan_key is not None and rows == 1 and target is o and a.obj is x_obj:
        if len(_plans) > 1024:
            _plans.clear()
        _plans[plan_key] = _Plan(module.scan, acc, total, in_code, work_code, code, strategy_code, nbytes)
    return _core.result(a, o.obj)


def _scan_along(x: Any, op: str, exclusive: bool, dtype: Any, initial: Any, out: Any, stream: Any,
                strategy: Optional[str], comm: Any, axis: Any, dim: Any) -> Any:
    """A scan along any axis of an n-d array, or of the flattened array (axis
    FLATTEN, numpy's axis=None): the axis is moved last in a contiguous copy,
    scanned row by row, and moved back into a new C-contiguous result or into
    out. The copies cost two passes over the data each way; a kernel that reads
    the rows with a stride would save them."""
    a = _core.as_array(x, "x")
    if comm is not None:
        raise ValueError("axis: a scan across ranks runs along its 1-d shard; give no axis")
    if axis is FLATTEN and dim is None:
        flat = a if len(a.shape) == 1 else a.lib.reshape(a if a.contiguous else a.lib.contiguous(a), (-1,))
        return _core.result(a, scan(flat.obj, op, exclusive, dtype, initial, out, stream, strategy))
    ax = _core.normalize_axis(None if axis is FLATTEN else axis, dim, len(a.shape))
    if ax == len(a.shape) - 1:
        return _core.result(a, scan(a.obj, op, exclusive, dtype, initial, out, stream, strategy))
    if out is not None:  # checked before any work; without dtype=, its dtype is the scan's
        acc = _core.as_array(out, "out", True).dtype if dtype is None else dtype_name(dtype)
        o = _core.output(a, out, a.shape, acc)
        dtype = acc
    moved = a.lib.contiguous(a.lib.moveaxis(a, ax, -1))
    scanned = _core.as_array(scan(moved.obj, op, exclusive, dtype, initial, None, stream, strategy), "x")
    back = a.lib.moveaxis(scanned, -1, ax)
    if out is None:
        return _core.result(a, a.lib.contiguous(back).obj)
    o.obj[...] = back.obj
    return _core.result(a, o.obj)


def _ranked_address(a: Array, module, comm: Any, exclusive: bool, initial: Any) -> int:
    """The ncclComm_t address of `comm` for a scan of a's shard across ranks, once the call is one
    that can run so."""
    if not a.cuda:
        raise TypeError("comm: a scan across ranks runs on GPU arrays (CuPy, PyTorch), not host memory")
    if len(a.shape) != 1:
        raise ValueError(f"x: a scan across ranks takes this rank's 1-d shard, got shape {tuple(a.shape)}")
    if not exclusive and initial is not None:
        raise ValueError("initial: an inclusive scan across ranks takes no initial value (use exclusive_scan)")
    if not module.ranked_scan_compiled():
        raise RuntimeError("comm: this build of streamscan has no scans across ranks (NCCL was not found "
                           "when it was built)")
    return comm_address(comm, a.device)


def comm_address(comm: Any, device: int) -> int:
    """The ncclComm_t behind `comm`: an address (int), nccl4py's Communicator (its .ptr), or a
    torch.distributed process group of the NCCL backend (its communicator on `device`, which
    torch creates at the group's first collective there: one all_reduce of a zero if none was
    made yet)."""
    if isinstance(comm, int) and not isinstance(comm, bool):
        if comm <= 0:
            raise ValueError(f"comm: {comm} is not an ncclComm_t address")
        return comm
    ptr = getattr(comm, "ptr", None)
    if isinstance(ptr, int) and not isinstance(ptr, bool):
        if ptr == 0:
            raise ValueError("comm: the communicator is null or destroyed")
        return ptr
    backend_of = getattr(comm, "_get_backend", None)
    if callable(backend_of):
        import torch
        import torch.distributed as dist
        where = torch.device("cuda", device)
        comm_ptr = getattr(backend_of(where), "_comm_ptr", None)
        if not callable(comm_ptr):
            raise TypeError("comm: this torch.distributed group has no NCCL communicator (use the nccl backend)")
        # torch looks the communicator up for the current device: make it the shard's, on
        # every rank alike, so that no rank runs the all_reduce alone.
        with torch.cuda.device(where):
            address = comm_ptr()
            if not address:
                dist.all_reduce(torch.zeros(1, device=where), group=comm)
                address = comm_ptr()
        if not address:
            raise ValueError(f"comm: the process group has no NCCL communicator on cuda:{device}")
        return int(address)
    raise TypeError(f"comm: {type(comm).__name__} is not an NCCL communicator (an ncclComm_t address, nccl4py's "
                    "Communicator, or a torch.distributed process group of the nccl backend)")


def _segments(a: Array, flags: Any, offsets: Any, n: int):
    if (flags is None) == (offsets is None):
        raise ValueError("flags, offsets: give exactly one of head flags or segment offsets")
    if flags is not None:
        f = _core.as_array(flags, "flags")
        _core.same_place(a, f, "flags")
        if f.dtype != "bool":
            raise TypeError(f"flags: dtype {f.dtype}, expected bool (a head flag per element)")
        if tuple(f.shape) != (n,):
            raise ValueError(f"flags: shape {tuple(f.shape)}, expected ({n},)")
        if not f.contiguous:
            f = f.lib.contiguous(f)
        return _SEGMENTS["flags"], f, 0
    s = _core.as_array(offsets, "offsets")
    _core.same_place(a, s, "offsets")
    if s.dtype not in _core.INTEGERS:
        raise TypeError(f"offsets: dtype {s.dtype}, expected an integer dtype")
    if len(s.shape) != 1 or s.shape[0] < 1:
        raise ValueError(f"offsets: shape {tuple(s.shape)}, expected (num_segments + 1,) with offsets[-1] == n")
    if s.dtype != "int64" or not s.contiguous:
        s = s.lib.astype(s, "int64")
    return _SEGMENTS["offsets"], s, s.shape[0] - 1


def _through_torch(x: Any, op: str, exclusive: bool, dtype: Any, initial: Any, out: Any, strategy: Any,
                   comm: Any, axis: Any, dim: Any) -> Any:
    """The call as torch's custom op, where autograd or torch.compile must see it
    (_torch_ops.wanted); None where it runs straight on the back end."""
    if not _torch_ops.wanted(x):
        return None
    if out is not None or comm is not None:
        _torch_ops.refuse_written("out" if out is not None else "comm")
    chosen = dim if dim is not None else axis
    return _torch_ops.scan(x, op, exclusive, dtype, initial, None if chosen is FLATTEN else chosen)


def _segmented_through_torch(x: Any, flags: Any, offsets: Any, op: str, exclusive: bool, backward: bool,
                             initial: Any, out: Any, strategy: Any) -> Any:
    """A segmented scan as torch's custom op, where autograd or torch.compile must see it; else None."""
    if not _torch_ops.wanted(x, flags, offsets):
        return None
    _check_op(op)
    if out is not None:
        _torch_ops.refuse_written("out")
    return _torch_ops.segmented_scan(x, flags, offsets, op, exclusive, backward, initial, strategy)


def _axis(axis: Any, dim: Any, default: Any) -> Tuple[Any, Any]:
    """(axis, dim) for scan(): as _core.axis_or_dim; axis=None is numpy's flattened array."""
    axis, dim = _core.axis_or_dim(axis, dim, default)
    return (FLATTEN if axis is None else axis), dim


@_core.on_callers_stream("x")
def inclusive_scan(x: Any, op: str = "add", *, axis: Any = -1, dim: Any = None, dtype: Any = None,
                   initial: Any = None, out: Any = None, stream: Any = None, strategy: Optional[str] = None,
                   comm: Any = None) -> Any:
    """out[..., i] = initial (op) x[..., 0] (op) ... (op) x[..., i], along an axis.

    op: "add", "mul", "max", "min", or for integers "and", "or", "xor".
    axis (or dim, torch's name): the axis to scan along, negative from the
    end (default the last; None: the flattened array, as numpy.cumsum). Every
    other axis is a batch of independent scans.
    dtype: the accumulator and output dtype. The default is what the input
    library's own function gives (torch.cumsum / numpy.cumsum for "add",
    cumprod for "mul", cummax / cummin for "max" / "min"): sums and products of
    narrower integers widen to int64 (NumPy and CuPy: unsigned to uint64);
    float16 and bfloat16 stay 16-bit, accumulated in float32 and rounded once;
    bool gives int64; with out= and no dtype=, out's dtype (as NumPy).
    initial: a value folded in first (default: none). out: an array of x's
    shape (flattened: x.size) and the scan's dtype; it may be x itself (in
    place). Runs on the caller's current stream (or `stream`)
    without waiting for the GPU. Along another axis than the last the rows are
    moved into a contiguous copy first (two extra passes each way).

    comm: scan across GPUs. x is this rank's 1-d shard of one array held by
    the ranks of an NCCL communicator (a torch.distributed process group of
    the nccl backend, nccl4py's Communicator, or an ncclComm_t address), and
    the result is its part of the scan of the whole array in rank order.
    Every rank must make the same call (shards may differ in size, or be
    empty); the call waits for the ranks' exchange. No initial value. The
    library's own errors reach every rank; an error raised here in Python (a
    bad dtype, shape or out= on one rank) stops that rank before the
    exchange, and the others then wait, as for any collective one rank skips.
    """
    axis, dim = _axis(axis, dim, -1)
    traced = _through_torch(x, op, False, dtype, initial, out, strategy, comm, axis, dim)
    if traced is not None:
        return traced
    return scan(x, op, False, dtype, initial, out, stream, strategy, comm=comm, axis=axis, dim=dim)


@_core.on_callers_stream("x")
def exclusive_scan(x: Any, op: str = "add", *, axis: Any = -1, dim: Any = None, dtype: Any = None,
                   initial: Any = None, out: Any = None, stream: Any = None, strategy: Optional[str] = None,
                   comm: Any = None) -> Any:
    """out[..., 0] = initial, out[..., i] = initial (op) x[..., 0] (op) ... (op) x[..., i-1].

    initial defaults to op's identity (0 for add, or and xor; 1 for mul; the
    lowest value for max, the highest for min; all ones for and). Otherwise as
    inclusive_scan; across ranks (comm), initial comes before rank 0's shard.
    """
    axis, dim = _axis(axis, dim, -1)
    traced = _through_torch(x, op, True, dtype, initial, out, strategy, comm, axis, dim)
    if traced is not None:
        return traced
    return scan(x, op, True, dtype, initial, out, stream, strategy, comm=comm, axis=axis, dim=dim)


@_core.on_callers_stream("x")
def cumsum(x: Any, axis: Any = None, dtype: Any = None, out: Any = None, *, dim: Any = None,
           stream: Any = None) -> Any:
    """numpy.cumsum / torch.cumsum: inclusive_scan(x, "add"). axis=None (the
    default, as NumPy) scans the flattened array; dim is torch's name for axis.
    The default dtype is the input library's (see inclusive_scan)."""
    axis, dim = _axis(axis, dim, None)
    traced = _through_torch(x, "add", False, dtype, None, out, None, None, axis, dim)
    if traced is not None:
        return traced
    return scan(x, "add", False, dtype, None, out, stream, None, axis=axis, dim=dim)


@_core.on_callers_stream("x")
def cumprod(x: Any, axis: Any = None, dtype: Any = None, out: Any = None, *, dim: Any = None,
            stream: Any = None) -> Any:
    """numpy.cumprod / torch.cumprod: inclusive_scan(x, "mul"); as cumsum."""
    axis, dim = _axis(axis, dim, None)
    traced = _through_torch(x, "mul", False, dtype, None, out, None, None, axis, dim)
    if traced is not None:
        return traced
    return scan(x, "mul", False, dtype, None, out, stream, None, axis=axis, dim=dim)


def _segment_args(flags: Any, op: Any) -> None:
    """A string where the flags go is an op passed in the old argument order."""
    if isinstance(flags, str):
        raise TypeError(f"flags: got the string {flags!r}; segments come second (flags= or offsets=) and op is a "
                        f"keyword: op={flags!r}")


@_core.on_callers_stream("x")
def segmented_inclusive_scan(x: Any, flags: Any = None, offsets: Any = None, op: str = "add", *,
                             backward: bool = False, initial: Any = None, out: Any = None, stream: Any = None,
                             strategy: Optional[str] = None) -> Any:
    """An inclusive scan that restarts at every segment of the 1-d array x.

    Segments are given by exactly one of: flags, a bool array of x's length
    (True where a segment begins; position 0 always begins one); or offsets,
    an integer array of num_segments + 1 entries, non-decreasing, from 0 to
    len(x). op as inclusive_scan's (by keyword, or after the segments).
    backward=True scans each segment from its end to its start. initial
    (default none) starts every segment. The output has x's dtype (bool:
    int64). On torch tensors, where autograd records the call or
    torch.compile traces it, it is the custom op streamscan::segmented_scan
    (gradients for x; add, mul, max and min).
    """
    _segment_args(flags, op)
    traced = _segmented_through_torch(x, flags, offsets, op, False, backward, initial, out, strategy)
    if traced is not None:
        return traced
    return scan(x, op, False, None, initial, out, stream, strategy, flags, offsets, backward, True)


@_core.on_callers_stream("x")
def segmented_exclusive_scan(x: Any, flags: Any = None, offsets: Any = None, op: str = "add", *,
                             backward: bool = False, initial: Any = None, out: Any = None, stream: Any = None,
                             strategy: Optional[str] = None) -> Any:
    """An exclusive scan that restarts at every segment (initial, default op's
    identity, at each segment's first position); as segmented_inclusive_scan."""
    _segment_args(flags, op)
    traced = _segmented_through_torch(x, flags, offsets, op, True, backward, initial, out, strategy)
    if traced is not None:
        return traced
    return scan(x, op, True, None, initial, out, stream, strategy, flags, offsets, backward, True)
