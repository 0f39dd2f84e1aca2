"""streamscan's calls as torch custom ops (torch.library): autograd, and a fake
implementation so that torch.compile(fullgraph=True) traces through them.

A call on a torch tensor takes this path where autograd records it (the
tensor requires grad and grad mode is on) or torch.compile traces it; every
other call goes straight to the back end (no dispatcher in its way). The ops
are registered at the first such call: torch is imported by then.

Gradients, as torch's own functions have them:
  add (cumsum)       the reverse scan of the gradient (exclusive: reverse exclusive)
  mul (cumprod)      torch's cumprod_backward (exact where x holds zeros)
  max, min           the gradient goes to the element each output came from, the
                     last of equal ones (as torch.cummax / cummin's indices): a
                     running max of the indices where x equals the output
"""

import sys
from typing import Any, Optional, Union

_ops = None  # the registered ops' namespace, once made


def wanted(x: Any) -> bool:
    """Whether a call on x goes through the custom op: x is a torch tensor
    whose call autograd records, or torch.compile is tracing."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(x, torch.Tensor):
        return False
    return (x.requires_grad and torch.is_grad_enabled()) or torch.compiler.is_compiling()


def scan(x: Any, op: str, exclusive: bool, dtype: Any, initial: Any, dim: Optional[int]) -> Any:
    """The scan custom op: dim None scans the flattened tensor."""
    import torch
    from ._scan import dtype_name
    torch_dtype = None if dtype is None else getattr(torch, dtype_name(dtype))
    return _registered().scan(x, op, exclusive, torch_dtype, initial, dim)


def _result_dtype(x, op: str, dtype):
    import torch
    from ._scan import _default_accumulator
    if dtype is not None:
        return dtype
    return getattr(torch, _default_accumulator(str(x.dtype).replace("torch.", ""), op, "torch"))


def _registered():
    global _ops
    if _ops is not None:
        return _ops
    import torch

    @torch.library.custom_op("streamscan::scan", mutates_args=())
    def scan_op(x: torch.Tensor, op: str, exclusive: bool, dtype: Optional[torch.dtype],
                initial: Optional[Union[int, float, bool]], dim: Optional[int]) -> torch.Tensor:
        from . import _scan
        name = None if dtype is None else str(dtype).replace("torch.", "")
        axis = _scan.FLATTEN if dim is None else dim
        return _scan.scan(x, op, exclusive, name, initial, None, None, None, axis=axis)

    @scan_op.register_fake
    def _(x, op, exclusive, dtype, initial, dim):
        shape = (x.numel(),) if dim is None else x.shape
        return x.new_empty(shape, dtype=_result_dtype(x, op, dtype))

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

    scan_op.register_autograd(backward, setup_context=setup_context)
    _ops = torch.ops.streamscan
    return _ops


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
