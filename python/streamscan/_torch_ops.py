"""streamscan's calls as torch custom ops (torch.library): autograd, and a fake
implementation so that torch.compile(fullgraph=True) traces through them.

A call on a torch tensor takes this path where autograd records it (the
tensor requires grad and grad mode is on) or torch.compile traces it; every
other call goes straight to the back end (no dispatcher in its way). The ops
are registered at the first such call: torch is imported by then. Eager calls
under autograd run the same implementation, context and backward as a
torch.autograd.Function rather than through the op (_differentiable): the
op's dispatch costs about a tenth of a millisecond a forward and backward,
more than a short call's kernels.

Gradients, as torch's own functions have them:
  add (cumsum)       the reverse scan of the gradient (exclusive: reverse exclusive)
  mul (cumprod)      torch's cumprod_backward (exact where x holds zeros)
  max, min           the gradient goes to the element each output came from, the
                     last of equal ones (as torch.cummax / cummin's indices): a
                     running max of the indices where x equals the output

The other ops (flags, offsets, indices and options get no gradient):
  segmented_scan     as the scans, within segments and in the scan's direction:
                     add by the segmented scan of the gradient the other way; mul
                     and max / min with exclusive or initial= too (an exclusive
                     scan is the inclusive one shifted a place)
  spmv               values: alpha g[row] x[col]; x: alpha A^T g (an SpMV through
                     this op on A's transpose); y: beta g
  tridiagonal_solve  b: A^-T g (a solve through this op, A^T being tridiagonal);
                     each entry of A: -(A^-T g)[row] x[col]
  argsort            none (indices); sort and sort_pairs are torch gathers by it, which
                     torch differentiates
  linear_recurrence  one pass of streamscan::linear_recurrence_backward (the C++
                     gradient): g = the recurrence of the gradient the other way in
                     time with a moved a place; b: g; a: g h[t-1]; initial: a[0] g[0]
                     (reverse: mirrored)
"""

import sys
from typing import Any, Optional, Union

_ops_registered = False


def wanted(x: Any, *others: Any) -> bool:
    """Whether a call on x (and the arrays `others`, None where not given) goes
    through a custom op: all are torch tensors, and autograd records the call
    (one of them requires grad) or torch.compile is tracing. A call that mixes
    libraries goes straight on, to the checks that name the odd one."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(x, torch.Tensor):
        return False
    if not all(a is None or isinstance(a, torch.Tensor) for a in others):
        return False
    if torch.compiler.is_compiling():
        return True
    return torch.is_grad_enabled() and any(a is not None and a.requires_grad for a in (x, *others))


def refuse_written(name: str) -> None:
    """The error for out= (or comm=) where autograd records the call or torch.compile traces it."""
    raise RuntimeError(f"{name}: a call that autograd records or torch.compile traces returns a new tensor (no "
                       f"{name}=), as torch's own functions")


def scan(x: Any, op: str, exclusive: bool, dtype: Any, initial: Any, dim: Optional[int]) -> Any:
    """The scan custom op: dim None scans the flattened tensor."""
    import torch
    from ._scan import dtype_name
    torch_dtype = None if dtype is None else getattr(torch, dtype_name(dtype))
    return _call("scan", x, op, exclusive, torch_dtype, initial, dim)


def segmented_scan(x: Any, flags: Any, offsets: Any, op: str, exclusive: bool, backward: bool, initial: Any,
                   strategy: Optional[str]) -> Any:
    """The segmented scan custom op."""
    return _call("segmented_scan", x, flags, offsets, op, exclusive, backward, initial, strategy)


def spmv(indptr: Any, indices: Any, values: Any, shape: Any, x: Any, y: Any, alpha: float, beta: float,
         strategy: Optional[str]) -> Any:
    """The SpMV custom op, which returns a new vector; y, where given, is then
    written as torch's in-place ops write (autograd sees it)."""
    result = _call("spmv", indptr, indices, values, int(shape[1]), x, y, float(alpha), float(beta), strategy)
    if y is None:
        return result
    return y.copy_(result)


def tridiagonal_solve(lower: Any, diagonal: Any, upper: Any, b: Any, check: bool, strategy: Optional[str]) -> Any:
    """The tridiagonal solve custom op."""
    return _call("tridiagonal_solve", lower, diagonal, upper, b, bool(check), strategy)


def argsort(keys: Any, descending: bool, begin_bit: int, end_bit: Optional[int], dim: int,
            strategy: Optional[str]) -> Any:
    """The argsort custom op (int64 indices along dim: no gradient of its own)."""
    return _registered().argsort(keys, descending, begin_bit, end_bit, dim, strategy)


def sorted_by(keys: Any, values: Any, descending: bool, begin_bit: int, end_bit: Optional[int], dim: int,
              strategy: Optional[str]):
    """(keys sorted, values in that order) as gathers of torch's by argsort's
    indices: torch differentiates the gathers (a value's gradient goes back to
    where it came from) and torch.compile traces them."""
    import torch
    order = argsort(keys, descending, begin_bit, end_bit, dim, strategy)
    keys_out = torch.take_along_dim(keys, order, dim)
    return keys_out, None if values is None else torch.take_along_dim(values, order, dim)


def linear_recurrence(a: Any, b: Any, initial: Any, dim: int, reverse: bool) -> Any:
    """The linear recurrence custom op (dim: non-negative)."""
    return _call("linear_recurrence", a, b, initial, dim, reverse)


def _recurrence_grads(backward_pass, saved, grad, dim: int, reverse: bool):
    """The gradients of (a, b, initial, dim, reverse) from the saved (a, h,
    initial) and dL/dh, through backward_pass (the direct call or its op)."""
    a, h, initial = saved
    grad_a, grad_b, grad_initial = backward_pass(a, h, grad.to(a.dtype).contiguous(), initial, dim, reverse)
    return grad_a, grad_b, grad_initial if initial is not None else None, None, None


_eager = {}  # an op's name -> its eager torch.autograd.Function


def _call(name: str, *args: Any) -> Any:
    """Op `name` on args: traced by torch.compile, the custom op; eager, its
    torch.autograd.Function."""
    import torch
    ops = _registered()
    if torch.compiler.is_compiling():
        return getattr(ops, name)(*args)
    return _eager[name].apply(*args)


def _differentiable(torch, name: str, impl, setup_context, backward, eager_backward=None):
    """impl as the custom op streamscan::name, with autograd (setup_context,
    backward), and the same three as an eager torch.autograd.Function
    (eager_backward: its own backward, where the op's calls another op that
    an eager one can skip). Returns the op, for its fake implementation."""
    op = torch.library.custom_op(f"streamscan::{name}", mutates_args=())(impl)
    op.register_autograd(backward, setup_context=setup_context)

    def forward(ctx, *inputs):
        output = impl(*inputs)
        setup_context(ctx, inputs, output)
        return output

    _eager[name] = type(name, (torch.autograd.Function,),
                        {"forward": staticmethod(forward), "backward": staticmethod(eager_backward or backward)})
    return op


def _result_dtype(x, op: str, dtype):
    import torch
    from ._scan import _default_accumulator
    if dtype is not None:
        return dtype
    return getattr(torch, _default_accumulator(str(x.dtype).replace("torch.", ""), op, "torch"))


def _registered():
    """The ops' namespace (torch.ops.streamscan), registering them at the first call."""
    import torch
    if not _ops_registered:
        _register()
    return torch.ops.streamscan


def _register() -> bool:
    global _ops_registered
    if _ops_registered:
        return True
    import torch

    def scan_impl(x: torch.Tensor, op: str, exclusive: bool, dtype: Optional[torch.dtype],
                  initial: Optional[Union[int, float, bool]], dim: Optional[int]) -> torch.Tensor:
        from . import _scan
        name = None if dtype is None else str(dtype).replace("torch.", "")
        axis = _scan.FLATTEN if dim is None else dim
        return _scan.scan(x, op, exclusive, name, initial, None, None, None, axis=axis)

    def setup_context(ctx, inputs, output):
        x, op, exclusive, _, initial, dim = inputs
        ctx.op, ctx.exclusive, ctx.initial, ctx.dim = op, exclusive, initial, dim
        ctx.save_for_backward(x, output)

    def backward(ctx, grad):
        x, out = ctx.saved_tensors
        shape = x.shape
        if ctx.dim is None:  # the flattened tensor: a 1-d scan
            x, dim = x.reshape(-1), 0
        else:
            dim = ctx.dim % max(x.dim(), 1)
        grad_x = _scan_gradient(torch, ctx.op, ctx.exclusive, ctx.initial, x, out, grad, dim)
        return grad_x.reshape(shape).to(x.dtype), None, None, None, None, None

    scan_op = _differentiable(torch, "scan", scan_impl, setup_context, backward)

    @scan_op.register_fake
    def _(x, op, exclusive, dtype, initial, dim):
        shape = (x.numel(),) if dim is None else x.shape
        return x.new_empty(shape, dtype=_result_dtype(x, op, dtype))

    _register_segmented(torch)
    _register_spmv(torch)
    _register_tridiagonal(torch)
    _register_argsort(torch)
    _register_recurrence(torch)
    _ops_registered = True
    return True


# The first call may be one torch.compile traces, and dynamo cannot trace a registration
# (torch.library's schema inference is on its skip list): marked as of constant result,
# _register is run, not traced. This is what torch.compiler.assume_constant_result(_register)
# does, set here without importing torch.
_register._dynamo_marked_constant = True


def _scan_gradient(torch, op: str, exclusive: bool, initial: Any, x, out, grad, dim: int):
    scan_op = torch.ops.streamscan.scan
    if op == "add":  # d out[i] / d x[j] = 1 where j <= i (exclusive: j < i)
        flipped = grad.flip(dim)
        return scan_op(flipped, "add", exclusive, None, None, dim).flip(dim)
    if op == "mul":
        if exclusive or initial is not None:
            raise NotImplementedError("streamscan: the gradient of a product scan with initial= or exclusive is not "
                                      "provided (torch.cumprod's is: an inclusive scan without initial)")
        return torch.ops.aten.cumprod_backward(grad.to(x.dtype), x, dim, out.to(x.dtype))
    if op in ("max", "min"):
        if exclusive or initial is not None:
            raise NotImplementedError(f"streamscan: the gradient of a {op} scan with initial= or exclusive is not "
                                      f"provided (torch.cum{op}'s is: an inclusive scan without initial)")
        # Where each output came from: the last j <= i with x[j] == out[j].
        shape = [1] * x.dim()
        shape[dim] = x.shape[dim]
        positions = torch.arange(x.shape[dim], device=x.device).reshape(shape).expand(x.shape)
        sources = torch.where(x == out.to(x.dtype), positions, torch.zeros_like(positions))
        sources = scan_op(sources.contiguous(), "max", False, None, None, dim)
        return torch.zeros_like(x, dtype=grad.dtype).scatter_add(dim, sources, grad)
    raise NotImplementedError(f"streamscan: op {op!r} has no gradient")


def _register_segmented(torch) -> None:
    def segmented_impl(x: torch.Tensor, flags: Optional[torch.Tensor], offsets: Optional[torch.Tensor], op: str,
                     exclusive: bool, backward: bool, initial: Optional[Union[int, float, bool]],
                     strategy: Optional[str]) -> torch.Tensor:
        from . import _scan
        return _scan.scan(x, op, exclusive, None, initial, None, None, strategy, flags, offsets, backward, True)

    def setup_context(ctx, inputs, output):
        x, flags, offsets, op, exclusive, backward, initial, _ = inputs
        ctx.op, ctx.exclusive, ctx.backward, ctx.initial = op, exclusive, backward, initial
        ctx.save_for_backward(x, flags, offsets, output)

    def backward(ctx, grad):
        x, flags, offsets, out = ctx.saved_tensors
        grad_x = _segmented_gradient(torch, ctx.op, ctx.exclusive, ctx.backward, ctx.initial, x, flags, offsets,
                                     out, grad)
        return grad_x, None, None, None, None, None, None, None

    segmented_op = _differentiable(torch, "segmented_scan", segmented_impl, setup_context, backward)

    @segmented_op.register_fake
    def _(x, flags, offsets, op, exclusive, backward, initial, strategy):
        return x.new_empty(x.shape, dtype=torch.int64 if x.dtype == torch.bool else x.dtype)


def _segmented_gradient(torch, op: str, exclusive: bool, backward: bool, initial: Any, x, flags, offsets, out, grad):
    """The gradient of a segmented scan. "Before", "after" and "next" below are in the
    scan's direction (backward=True: from each segment's end to its start)."""
    if x.shape[0] == 0:
        return torch.zeros_like(grad)

    def segmented(v, how, excl=False, reverse=False, init=None):
        # A scan through the op, with x's segments, in the scan's direction or (reverse) the other.
        return torch.ops.streamscan.segmented_scan(v, flags, offsets, how, excl, backward != reverse, init, None)

    if op == "add":  # d out[i] / d x[j] = 1 where j is before i in its segment (inclusive: or is i)
        return segmented(grad, "add", exclusive, reverse=True)
    if op not in ("mul", "max", "min"):
        raise NotImplementedError(f"streamscan: op {op!r} has no gradient")
    ends = _segment_ends(torch, flags, offsets, x.shape[0], backward)
    if exclusive:
        # An exclusive scan is the inclusive one (with the same initial) shifted a place
        # within each segment: its gradient is the inclusive one's of the gradient moved a
        # place back, and the inclusive output is op(out, x).
        grad = torch.where(ends, 0, _next(torch, grad, backward))
        out = {"mul": torch.mul, "max": torch.maximum, "min": torch.minimum}[op](out, x)
    if op == "mul" and torch.is_grad_enabled():
        # A second derivative will follow (create_graph=True). The O(n) form below has the
        # right values but, where x has zeros, not the right derivatives; this one keeps
        # d out[i] / d x[j] a product: (product before j) * r[j], with the recurrence
        # r[j] = grad[j] + x[next j] r[next j] within segments, by recursive doubling
        # (log2 n passes of elementwise ops; torch's cumprod_backward turns O(n^2) here).
        link = torch.where(ends, 0, _next(torch, x, backward))
        r, span = grad, 1
        while span < x.shape[0]:
            r = r + link * _next(torch, r, backward, span)
            link = link * _next(torch, link, backward, span)
            span *= 2
        return segmented(x, "mul", excl=True, init=initial) * r
    if op == "mul":
        # Before a segment's first zero, d out[i] / d x[j] = out[i] / x[j]. At that zero it is
        # the product with x[j] left out: the scan with that zero made a one. After it, 0.
        zeros_so_far = segmented((x == 0).to(torch.int64), "add")
        before = zeros_so_far == 0
        first_zero = (x == 0) & (zeros_so_far == 1)
        ones = torch.ones_like(x)
        at_zero = segmented(grad * segmented(torch.where(first_zero, ones, x), "mul", init=initial), "add",
                            reverse=True)
        before_zero = segmented(grad * out, "add", reverse=True) / torch.where(before, x, ones)
        return torch.where(before, before_zero, torch.where(first_zero, at_zero, torch.zeros_like(x)))
    # max, min: the gradient goes to the element each output came from, the nearest one at or
    # before it in its segment where x equals the running result (the last of equal values,
    # as torch.cummax); none where the output is initial's. The fill marks none.
    n = x.shape[0]
    fill = n if backward else -1
    positions = torch.arange(n, device=x.device)
    sources = segmented(torch.where(x == out, positions, fill), "min" if backward else "max")
    found = sources != fill
    return torch.zeros_like(grad).scatter_add(0, torch.where(found, sources, 0),
                                              torch.where(found, grad, torch.zeros_like(grad)))


def _segment_ends(torch, flags, offsets, n: int, backward: bool):
    """True at each segment's last element in the scan's direction (backward=True: its first)."""
    device = (flags if flags is not None else offsets).device
    if flags is not None:
        heads = flags | (torch.arange(n, device=device) == 0)  # position 0 always begins a segment
    else:
        heads = torch.zeros(n + 1, dtype=torch.bool, device=device).index_fill(0, offsets.to(torch.int64), True)[:n]
    if backward:
        return heads
    return torch.cat([heads[1:], heads.new_ones(1)])  # a segment ends where the next begins


def _next(torch, v, backward: bool, span: int = 1):
    """v at the position `span` places on in the scan's direction, 0 past the array's end."""
    zeros = v.new_zeros(span)
    return torch.cat([zeros, v[:-span]]) if backward else torch.cat([v[span:], zeros])


def _register_spmv(torch) -> None:
    def spmv_impl(indptr: torch.Tensor, indices: torch.Tensor, values: torch.Tensor, cols: int, x: torch.Tensor,
                y: Optional[torch.Tensor], alpha: float, beta: float, strategy: Optional[str]) -> torch.Tensor:
        from . import _linalg
        shape = (indptr.shape[0] - 1, cols)
        written = None if y is None else y.clone(memory_format=torch.contiguous_format)
        return _linalg.spmv_direct((indptr, indices, values, shape), x, written, alpha, beta, strategy)

    def setup_context(ctx, inputs, output):
        indptr, indices, values, cols, x, _, alpha, beta, _ = inputs
        ctx.cols, ctx.alpha, ctx.beta = cols, alpha, beta
        ctx.save_for_backward(indptr, indices, values, x)

    def backward(ctx, grad):
        indptr, indices, values, x = ctx.saved_tensors
        rows = indptr.shape[0] - 1
        # The row of each non-zero: the last row whose offset is at or below its position.
        positions = torch.arange(indices.shape[0], dtype=indptr.dtype, device=indptr.device)
        row_of = torch.searchsorted(indptr, positions, right=True) - 1
        grad_values = grad_x = grad_y = None
        if ctx.needs_input_grad[2]:
            grad_values = ctx.alpha * grad[row_of] * x[indices]
        if ctx.needs_input_grad[4]:
            # alpha A^T g, by this op on A^T in CSR: the non-zeros in a stable order by column,
            # their rows as its column indices, its offsets where each column's run begins. Through
            # the op (not a scatter-add): deterministic, and differentiable again.
            by_column = torch.sort(indices, stable=True)
            columns = torch.arange(ctx.cols + 1, dtype=indices.dtype, device=indices.device)
            t_indptr = torch.searchsorted(by_column.values, columns)
            grad_x = torch.ops.streamscan.spmv(t_indptr, row_of[by_column.indices], values[by_column.indices], rows,
                                               grad, None, ctx.alpha, 0.0, None)
        if ctx.needs_input_grad[5]:
            grad_y = ctx.beta * grad
        return None, None, grad_values, None, grad_x, grad_y, None, None, None

    spmv_op = _differentiable(torch, "spmv", spmv_impl, setup_context, backward)

    @spmv_op.register_fake
    def _(indptr, indices, values, cols, x, y, alpha, beta, strategy):
        return values.new_empty((indptr.shape[0] - 1,))


def _register_tridiagonal(torch) -> None:
    def tridiagonal_impl(lower: torch.Tensor, diagonal: torch.Tensor, upper: torch.Tensor, b: torch.Tensor,
                       check: bool, strategy: Optional[str]) -> torch.Tensor:
        from . import _linalg
        return _linalg.tridiagonal_direct(lower, diagonal, upper, b, None, check, strategy)

    def setup_context(ctx, inputs, output):
        lower, diagonal, upper = inputs[:3]
        ctx.save_for_backward(lower, diagonal, upper, output)

    def backward(ctx, grad):
        lower, diagonal, upper, x = ctx.saved_tensors
        if x.shape[-1] == 0:
            return (torch.zeros_like(lower), torch.zeros_like(diagonal), torch.zeros_like(upper),
                    torch.zeros_like(grad), None, None)
        # A^T is tridiagonal: its sub-diagonal is upper moved down a place, its super-diagonal
        # lower moved up (what wraps round lands on the ends that are ignored). Its pivots are
        # A's, so a solve that passed has none zero here.
        grad_b = torch.ops.streamscan.tridiagonal_solve(upper.roll(1, -1), diagonal, lower.roll(-1, -1),
                                                        grad.contiguous(), False, None)
        # x = A^-1 b: d x = -A^-1 (dA) x, so entry (i, j) of A gets -grad_b[i] x[j];
        # lower[..., 0] and upper[..., n-1] are outside A and get 0.
        pad = torch.nn.functional.pad
        grad_lower = pad(-grad_b[..., 1:] * x[..., :-1], (1, 0))
        grad_upper = pad(-grad_b[..., :-1] * x[..., 1:], (0, 1))
        return grad_lower, -grad_b * x, grad_upper, grad_b, None, None

    tridiagonal_op = _differentiable(torch, "tridiagonal_solve", tridiagonal_impl, setup_context, backward)

    @tridiagonal_op.register_fake
    def _(lower, diagonal, upper, b, check, strategy):
        return b.new_empty(b.shape)


def _register_argsort(torch) -> None:
    @torch.library.custom_op("streamscan::argsort", mutates_args=())
    def argsort_op(keys: torch.Tensor, descending: bool, begin_bit: int, end_bit: Optional[int], dim: int,
                   strategy: Optional[str]) -> torch.Tensor:
        from . import _sort
        return _sort.argsort_direct(keys.detach(), descending, begin_bit, end_bit, dim, strategy)

    @argsort_op.register_fake
    def _(keys, descending, begin_bit, end_bit, dim, strategy):
        return keys.new_empty(keys.shape, dtype=torch.int64)


def _register_recurrence(torch) -> None:
    from typing import Tuple

    from . import _recurrence

    def recurrence_impl(a: torch.Tensor, b: torch.Tensor, initial: Optional[torch.Tensor], dim: int,
                        reverse: bool) -> torch.Tensor:
        return _recurrence.recurrence_direct(a, b, dim, None, initial, reverse, None)

    @torch.library.custom_op("streamscan::linear_recurrence_backward", mutates_args=())
    def recurrence_backward_op(a: torch.Tensor, h: torch.Tensor, grad: torch.Tensor,
                               initial: Optional[torch.Tensor], dim: int,
                               reverse: bool) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        from . import _recurrence
        return _recurrence.recurrence_backward_direct(a, h, grad, initial, dim, reverse)

    @recurrence_backward_op.register_fake
    def _(a, h, grad, initial, dim, reverse):
        state = a.shape[:dim] + a.shape[dim + 1:]
        return a.new_empty(a.shape), a.new_empty(a.shape), a.new_empty(state)

    def setup_context(ctx, inputs, output):
        a, _, initial, dim, reverse = inputs
        ctx.dim, ctx.reverse = dim, reverse
        ctx.save_for_backward(a, output, initial)

    def backward(ctx, grad):
        return _recurrence_grads(torch.ops.streamscan.linear_recurrence_backward, ctx.saved_tensors, grad, ctx.dim,
                                 ctx.reverse)

    def eager_backward(ctx, grad):  # the C++ gradient pass without its op in the way
        return _recurrence_grads(_recurrence.recurrence_backward_direct, ctx.saved_tensors, grad, ctx.dim,
                                 ctx.reverse)

    recurrence_op = _differentiable(torch, "linear_recurrence", recurrence_impl, setup_context, backward,
                                    eager_backward)

    @recurrence_op.register_fake
    def _(a, b, initial, dim, reverse):
        torch._check(a.shape == b.shape, lambda: f"b: shape {tuple(b.shape)}, expected a's {tuple(a.shape)}")
        return a.new_empty(a.shape)

