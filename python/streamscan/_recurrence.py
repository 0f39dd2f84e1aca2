"""First-order linear recurrences: h[t] = a[t] * h[t-1] + b[t] along one axis."""

from __future__ import annotations

from typing import Any, Optional, Tuple

from . import _core, _torch_ops
from ._core import Array

FLOATS = frozenset(("float16", "bfloat16", "float32", "float64"))


def time_axis(ndim: int, dim: Any, axis: Any) -> int:
    """The time axis from dim= (default -1) or axis= (NumPy's name), as a non-negative index."""
    first, second = _core.axis_or_dim(dim, axis, -1)  # axis stands in for a dim left at -1
    if second is not None and second != first:
        raise TypeError(f"dim, axis: two different axes ({dim} and {axis}); axis is NumPy's name for dim")
    name = "axis" if axis is not None and second is None else "dim"
    return _core.normalize_axis(first, None, ndim, name)


@_core.on_callers_stream("a")
def linear_recurrence(a: Any, b: Any, dim: Any = -1, initial: Any = None, reverse: bool = False, *,
                      axis: Any = None, out: Any = None, stream: Any = None) -> Any:
    """h[t] = a[t] * h[t-1] + b[t] along axis `dim`, elementwise over the other axes.

    a, b: arrays of one shape and one dtype: float32, float64 (state of the
    same type), float16 or bfloat16 (state in float32: each h rounded once
    to the dtype, the carried state never). dim: the time axis, anywhere
    (axis= is NumPy's name for it). initial: h[-1], of a's shape without the
    time axis (None: zeros). reverse=True runs from the end: h[t] = a[t] *
    h[t+1] + b[t], initial being h[T]. Where a[t] == 0, h[t] = b[t] (even
    after an inf or NaN). out: a C-contiguous array of a's shape and dtype to
    write h into (it may be a or b itself), else a new one.

    Arrays whose time axis is the last ([..., T]) or followed only by
    contiguous channels ([..., T, D], any C-contiguous array) are read in
    place; other layouts are copied to C order first.

    torch: where autograd records the call (a, b or initial requires grad),
    gradients for a, b and initial (one backward pass), and no out=; traced
    by torch.compile, it is the custom op streamscan::linear_recurrence (its
    backward streamscan::linear_recurrence_backward).
    """
    if _torch_ops.wanted(a, b, initial):
        if out is not None:
            _torch_ops.refuse_written("out")
        ax = time_axis(a.dim(), dim, axis)
        return _torch_ops.linear_recurrence(a, b, initial, ax, bool(reverse))
    return recurrence_direct(a, b, dim, axis, initial, reverse, out)


class _Plan:
    """Arrays (C order) and the layout of a recurrence along one axis."""

    def __init__(self, first: Array, shape: Tuple[int, ...], ax: int):
        self.first, self.shape, self.ax = first, shape, ax
        outer = inner = 1
        for extent in shape[:ax]:
            outer *= extent
        for extent in shape[ax + 1:]:
            inner *= extent
        length = shape[ax]
        self.size = outer * length * inner
        self.state_shape = shape[:ax] + shape[ax + 1:]
        if inner == 1:  # [..., T]: time contiguous (streamscan::time_last_layout(outer, 1, T))
            self.layout = (outer, length, 1, 1, length, length)
        else:  # [..., T, D]: channels contiguous (streamscan::channels_last_layout(outer, T, D))
            self.layout = (outer, length, inner, inner, 1, length * inner)


def _c_order(x: Array) -> Array:
    return x if x.contiguous else x.lib.contiguous(x)


def _operand(x: Any, name: str, first: Array, shape: Tuple[int, ...], what: str, written: bool = False) -> Array:
    o = _core.as_array(x, name, written)
    _core.same_place(first, o, name)
    if tuple(o.shape) != tuple(shape):
        raise ValueError(f"{name}: shape {tuple(o.shape)}, expected {what} {tuple(shape)}")
    if o.dtype != first.dtype:
        raise TypeError(f"{name}: dtype {o.dtype}, expected a's {first.dtype}")
    return o


def _plan(a: Any, b: Any, dim: Any, axis: Any, initial: Any, b_name: str = "b"):
    aa = _core.as_array(a, "a")
    _core.dtype_code(aa, "a", FLOATS)
    bb = _operand(b, b_name, aa, aa.shape, "a's")
    ax = time_axis(len(aa.shape), dim, axis)
    plan = _Plan(aa, tuple(aa.shape), ax)
    init = None
    if initial is not None:
        init = _c_order(_operand(initial, "initial", aa, plan.state_shape, "a's shape without the time axis"))
    return plan, _c_order(aa), _c_order(bb), init


def _call(plan: _Plan, backward: bool, a: Array, b: Array, h: Array, init: Optional[Array],
          grads: Tuple[int, int, int], reverse: bool) -> None:
    module = _core.backend(a)
    _core.run(module.linear_recurrence, a, None, backward, a.ptr, b.ptr, h.ptr, 0 if init is None else init.ptr,
              *grads, *plan.layout, _core.CODE[a.dtype], bool(reverse),
              key=(backward, plan.layout, a.dtype, bool(reverse), init is None))


def recurrence_direct(a: Any, b: Any, dim: Any, axis: Any, initial: Any, reverse: bool, out: Any) -> Any:
    """linear_recurrence on the back end (the current stream), with no custom op in the way."""
    plan, aa, bb, init = _plan(a, b, dim, axis, initial)
    h = _core.output(aa, out, plan.shape, aa.dtype)
    if plan.size > 0:
        _call(plan, False, aa, bb, h, init, (0, 0, 0), reverse)
    return _core.result(plan.first, h.obj)


def recurrence_backward_direct(a: Any, h: Any, grad: Any, initial: Any, dim: int, reverse: bool):
    """(grad_a, grad_b, grad_initial) of h = linear_recurrence(a, b, dim, initial, reverse) for dL/dh = grad,
    from a, h and initial (the custom op's backward)."""
    plan, aa, dh, init = _plan(a, grad, dim, None, initial, "grad")
    hh = _c_order(_operand(h, "h", plan.first, plan.shape, "a's"))
    lib = aa.lib
    grad_a = lib.new(aa, plan.shape, aa.dtype)
    grad_b = lib.new(aa, plan.shape, aa.dtype)
    grad_initial = lib.new(aa, plan.state_shape, aa.dtype)
    if plan.size > 0:
        _call(plan, True, aa, dh, hh, init, (grad_a.ptr, grad_b.ptr, grad_initial.ptr), reverse)
    else:  # no time steps (or no sequences): nothing read initial
        grad_initial.obj[...] = 0
    return grad_a.obj, grad_b.obj, grad_initial.obj
