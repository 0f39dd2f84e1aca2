"""torch autograd and torch.compile through streamscan's scans (the custom op
streamscan::scan): gradcheck in float64, gradients equal to torch's own
functions' (cumsum, cumprod, cummax, cummin), compiled calls equal to eager
ones, and torch.library.opcheck of the op's registration; then the same for
the segmented scans, spmv and tridiagonal_solve."""

import numpy as np
import pytest

import streamscan as ss
from test_scan import identity

torch = pytest.importorskip("torch")

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() and ss.has_cuda else [])

TORCH_OF = {
    "add": lambda t, d: torch.cumsum(t, d),
    "mul": lambda t, d: torch.cumprod(t, d),
    "max": lambda t, d: torch.cummax(t, d).values,
    "min": lambda t, d: torch.cummin(t, d).values,
}


def assert_compiled_equals_eager(f, x, grad_rtol=None):
    """f compiled with fullgraph=True gives eager f's values and gradients.
    grad_rtol: where inductor's fused backward sums in another order than
    eager's (relative to the gradient's largest magnitude)."""
    torch._dynamo.reset()  # each case compiles afresh, not as a recompile of the last one's f
    compiled = torch.compile(f, fullgraph=True)
    torch.testing.assert_close(compiled(x), f(x))
    xg = x.clone().requires_grad_(True)
    compiled(xg).sum().backward()
    eager = x.clone().requires_grad_(True)
    f(eager).sum().backward()
    if grad_rtol is None:
        torch.testing.assert_close(xg.grad, eager.grad)
    else:
        scale = eager.grad.abs().max().item()
        torch.testing.assert_close(xg.grad, eager.grad, rtol=grad_rtol, atol=grad_rtol * scale)


@pytest.fixture(params=DEVICES)
def device(request):
    return request.param


@pytest.mark.parametrize("op", list(TORCH_OF))
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_gradients_equal_torchs(device, op, dim):
    gen = torch.Generator().manual_seed(5)
    x = torch.randn(4, 33, 7, dtype=torch.float64, generator=gen).to(device)
    if op in ("max", "min"):  # ties: the gradient goes to the last of equal values, as torch's indices
        x = torch.round(x * 2) / 2
    if op == "mul":
        x[1, 3, :] = 0.0  # zeros: torch's cumprod_backward handles them
    x.requires_grad_(True)
    got = ss.inclusive_scan(x, op, dim=dim)
    want = TORCH_OF[op](x, dim)
    torch.testing.assert_close(got, want)
    g = torch.randn(got.shape, dtype=got.dtype, generator=gen).to(device)
    (got_grad,) = torch.autograd.grad(got, x, g)
    (want_grad,) = torch.autograd.grad(want, x, g)
    torch.testing.assert_close(got_grad, want_grad)


@pytest.mark.parametrize("call", [
    lambda t: ss.cumsum(t, dim=1),
    lambda t: ss.cumsum(t),  # flattened
    lambda t: ss.cumprod(t, 0),
    lambda t: ss.exclusive_scan(t, dim=0),
    lambda t: ss.exclusive_scan(t, dim=1, initial=2.5),
    lambda t: ss.inclusive_scan(t, "max", dim=1),
    lambda t: ss.inclusive_scan(t, initial=1.0, dim=0),
], ids=["cumsum", "cumsum-flat", "cumprod", "exclusive", "exclusive-initial", "max", "inclusive-initial"])
def test_gradcheck(device, call):
    x = torch.randn(5, 6, dtype=torch.float64, device=device, requires_grad=True)
    assert torch.autograd.gradcheck(call, (x,))
    assert torch.autograd.gradgradcheck(call, (x,))


def test_results_keep_the_graph_and_no_grad_skips_it(device):
    x = torch.randn(100, dtype=torch.float32, device=device, requires_grad=True)
    y = ss.cumsum(x)
    assert y.requires_grad and y.grad_fn is not None
    with torch.no_grad():
        z = ss.cumsum(x)
    assert not z.requires_grad
    torch.testing.assert_close(y.detach(), z)


def test_half_inputs_get_half_gradients(device):
    x = torch.randn(300, dtype=torch.float16, device=device, requires_grad=True)
    y = ss.cumsum(x)
    assert y.dtype == torch.float16
    y.sum().backward()
    assert x.grad.dtype == torch.float16
    torch.testing.assert_close(x.grad.float(), torch.arange(300, 0, -1, dtype=torch.float32, device=device))


def test_out_is_refused_where_autograd_records(device):
    x = torch.randn(10, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="out"):
        ss.cumsum(x, out=torch.empty(10, device=device))


@pytest.mark.parametrize("op", ["add", "mul", "max"])
def test_compiled_equals_eager(device, op):
    x = torch.randn(8, 50, dtype=torch.float32, device=device)

    def f(t):
        return ss.inclusive_scan(t * 2, op, dim=1).sum(0)

    # mul's backward (torch's cumprod_backward) is sums of products of up to 50
    # factors: compiled, it rounds differently in float32.
    assert_compiled_equals_eager(f, x, grad_rtol=1e-4 if op == "mul" else None)


def test_compiled_integer_scan_keeps_torchs_dtype(device):
    x = torch.arange(20, dtype=torch.int32, device=device)
    compiled = torch.compile(lambda t: ss.cumsum(t, dim=0), fullgraph=True)
    got = compiled(x)
    assert got.dtype == torch.int64  # torch.cumsum's
    np.testing.assert_array_equal(got.cpu().numpy(), np.cumsum(np.arange(20)))


def test_opcheck(device):
    ss.cumsum(torch.ones(2, requires_grad=True))  # registers the op
    x = torch.randn(3, 9, dtype=torch.float64, device=device, requires_grad=True)
    for args in [(x, "add", False, None, None, 1), (x, "mul", False, None, None, 0),
                 (x, "max", False, None, None, -1), (x, "add", True, torch.float64, 1.5, None)]:
        torch.library.opcheck(torch.ops.streamscan.scan.default, args)


# Segmented scans (streamscan::segmented_scan), spmv (streamscan::spmv) and
# tridiagonal_solve (streamscan::tridiagonal_solve): gradients against torch
# references (a loop over segments of torch's cumulative functions; a dense
# matmul; torch.linalg.solve on the dense matrix), gradcheck, compiled against
# eager, opcheck.

@pytest.fixture
def ops():
    """torch.ops.streamscan, registered (by a first call) for opcheck."""
    ss.cumsum(torch.ones(2, requires_grad=True))
    return torch.ops.streamscan


SEGMENT_OFFSETS = [0, 3, 3, 9, 10, 17, 24]  # an empty segment and a segment of one


def segments(by, device):
    offsets = torch.tensor(SEGMENT_OFFSETS, device=device)
    if by == "offsets":
        return {"offsets": offsets}
    flags = torch.zeros(SEGMENT_OFFSETS[-1], dtype=torch.bool, device=device)
    flags[offsets[:-1][offsets[:-1] < flags.shape[0]]] = True
    return {"flags": flags}


CUMULATIVE = {
    "add": torch.cumsum,
    "mul": torch.cumprod,
    "max": lambda t, d: torch.cummax(t, d).values,
    "min": lambda t, d: torch.cummin(t, d).values,
}


def segmented_reference(x, op, exclusive, backward, initial):
    """Each segment by torch's own function, initial (or, exclusive, op's identity) first."""
    pieces = []
    for b, e in zip(SEGMENT_OFFSETS[:-1], SEGMENT_OFFSETS[1:]):
        seg = x[b:e].flip(0) if backward else x[b:e]
        first = initial if initial is not None else (identity(op, "float64") if exclusive else None)
        if first is not None:
            seg = torch.cat([seg.new_full((1,), float(first)), seg])
        r = CUMULATIVE[op](seg, 0)
        r = r[:-1] if exclusive else (r[1:] if first is not None else r)
        pieces.append(r.flip(0) if backward else r)
    return torch.cat(pieces)


def segmented_input(op, device, seed=7):
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(SEGMENT_OFFSETS[-1], dtype=torch.float64, generator=gen)
    if op in ("max", "min"):  # ties, with each other and with initial's 0.5
        x = torch.round(x * 2) / 2
    if op == "mul":  # zeros: one alone in its segment, two in one, one at a segment's start
        x[[4, 6, 11, 17]] = 0.0
    return x.to(device)


@pytest.mark.parametrize("op", list(CUMULATIVE))
@pytest.mark.parametrize("exclusive", [False, True], ids=["inclusive", "exclusive"])
@pytest.mark.parametrize("backward", [False, True], ids=["forward", "backward"])
@pytest.mark.parametrize("initial", [None, 0.5])
@pytest.mark.parametrize("by", ["flags", "offsets"])
def test_segmented_gradients_equal_torchs(device, op, exclusive, backward, initial, by):
    x = segmented_input(op, device).requires_grad_(True)
    call = ss.segmented_exclusive_scan if exclusive else ss.segmented_inclusive_scan
    got = call(x, op=op, backward=backward, initial=initial, **segments(by, device))
    want = segmented_reference(x, op, exclusive, backward, initial)
    torch.testing.assert_close(got, want)
    g = torch.randn(got.shape, dtype=got.dtype, generator=torch.Generator().manual_seed(3)).to(device)
    (want_grad,) = torch.autograd.grad(want, x, g, retain_graph=True)
    # create_graph: mul's gradient then takes its twice-differentiable form
    for create_graph in (False, True):
        (got_grad,) = torch.autograd.grad(got, x, g, retain_graph=True, create_graph=create_graph)
        torch.testing.assert_close(got_grad, want_grad)


def finite(t):
    """An exclusive max / min starts each segment at -inf / inf, where finite differences give NaN."""
    return torch.where(t.isfinite(), t, 0)


@pytest.mark.parametrize("op,exclusive,backward,initial,by", [
    ("add", False, False, None, "offsets"),
    ("add", True, True, 1.5, "flags"),
    ("mul", False, False, None, "flags"),
    ("mul", True, True, 2.0, "offsets"),
    ("max", False, True, None, "offsets"),
    ("min", True, False, None, "flags"),
])
def test_segmented_gradcheck(device, op, exclusive, backward, initial, by):
    x = torch.randn(SEGMENT_OFFSETS[-1], dtype=torch.float64, device=device)
    if op == "mul":
        x[[4, 11]] = 0.0
    x.requires_grad_(True)
    call = ss.segmented_exclusive_scan if exclusive else ss.segmented_inclusive_scan
    seg = segments(by, device)

    def f(t):
        return finite(call(t, op=op, backward=backward, initial=initial, **seg))

    assert torch.autograd.gradcheck(f, (x,))
    assert torch.autograd.gradgradcheck(f, (x,))


@pytest.mark.parametrize("op", list(CUMULATIVE))
@pytest.mark.parametrize("exclusive", [False, True], ids=["inclusive", "exclusive"])
@pytest.mark.parametrize("by", ["flags", "offsets"])
def test_segmented_compiled_equals_eager(device, op, exclusive, by):
    torch._dynamo.reset()  # one code object, many closures: clear dynamo's recompile count
    x = segmented_input(op, device).float()
    seg = segments(by, device)
    call = ss.segmented_exclusive_scan if exclusive else ss.segmented_inclusive_scan

    def f(t):
        return finite(call(t * 2, op=op, backward=True, initial=1.0 if exclusive else None, **seg)).sin()

    assert_compiled_equals_eager(f, x)


def test_segmented_compiled_keeps_the_dtype(device):
    x = torch.tensor([True, False, True, True], device=device)
    offsets = torch.tensor([0, 2, 4], device=device)
    got = torch.compile(lambda t: ss.segmented_inclusive_scan(t, offsets=offsets), fullgraph=True)(x)
    assert got.dtype == torch.int64  # bool: int64, as uncompiled
    assert got.tolist() == [1, 1, 1, 2]


def test_segmented_out_is_refused_where_autograd_records(device):
    x = torch.randn(4, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="out"):
        ss.segmented_inclusive_scan(x, offsets=torch.tensor([0, 4], device=device), out=torch.empty(4, device=device))


def test_segmented_opcheck(device, ops):
    x = segmented_input("mul", device).requires_grad_(True)
    seg = segments("offsets", device)["offsets"]
    flags = segments("flags", device)["flags"]
    for args in [(x, None, seg, "add", False, False, None, None), (x, flags, None, "mul", True, True, 2.0, None),
                 (x, None, seg, "max", False, True, None, None), (x, flags, None, "min", True, False, 0.5, None)]:
        torch.library.opcheck(ops.segmented_scan.default, args)


def csr_example(device, index_dtype=torch.int64, seed=11):
    """(indptr, indices, values, shape) of a 9 x 6 matrix with an empty row and an empty column."""
    gen = torch.Generator().manual_seed(seed)
    dense = torch.randn(9, 6, dtype=torch.float64, generator=gen)
    dense = dense * (torch.rand(9, 6, generator=gen) < 0.5)
    dense[4] = 0
    dense[:, 2] = 0
    S = dense.to_sparse_csr()
    # Copies: the parts are views of the sparse tensor, which torch.compile and
    # opcheck cannot turn into fake tensors.
    return (S.crow_indices().to(device, index_dtype, copy=True), S.col_indices().to(device, index_dtype, copy=True),
            S.values().to(device, copy=True), (9, 6))


def dense_of(indptr, indices, values, shape):
    """The dense matrix, differentiable in values."""
    rows = torch.repeat_interleave(torch.arange(shape[0], device=values.device), indptr.diff().long())
    return values.new_zeros(shape).index_put((rows, indices.long()), values, accumulate=True)


@pytest.mark.parametrize("index_dtype", [torch.int32, torch.int64])
@pytest.mark.parametrize("with_y", [False, True], ids=["no-y", "y"])
def test_spmv_gradients_equal_a_dense_matmul(device, index_dtype, with_y):
    indptr, indices, values, shape = csr_example(device, index_dtype)
    gen = torch.Generator().manual_seed(2)
    values = values.clone().requires_grad_(True)
    x = torch.randn(shape[1], dtype=torch.float64, generator=gen).to(device).requires_grad_(True)
    y = torch.randn(shape[0], dtype=torch.float64, generator=gen).to(device).requires_grad_(True)
    alpha, beta = 0.75, (-1.5 if with_y else 0.0)
    got = ss.spmv((indptr, indices, values, shape), x, y.clone() if with_y else None, alpha=alpha, beta=beta)
    want = alpha * dense_of(indptr, indices, values, shape) @ x + beta * y
    torch.testing.assert_close(got, want)
    g = torch.randn(shape[0], dtype=torch.float64, generator=gen).to(device)
    inputs = (values, x, y) if with_y else (values, x)
    got_grads = torch.autograd.grad(got, inputs, g)
    want_grads = torch.autograd.grad(want, inputs, g)
    for got_grad, want_grad in zip(got_grads, want_grads):
        torch.testing.assert_close(got_grad, want_grad)


def test_spmv_gradcheck(device):
    indptr, indices, values, shape = csr_example(device)
    x = torch.randn(shape[1], dtype=torch.float64, device=device)
    y = torch.randn(shape[0], dtype=torch.float64, device=device)
    inputs = tuple(t.clone().requires_grad_(True) for t in (values, x, y))

    def f(v, t, w):
        return ss.spmv((indptr, indices, v, shape), t, w.clone(), alpha=-0.5, beta=2.0)

    assert torch.autograd.gradcheck(f, inputs)
    assert torch.autograd.gradgradcheck(f, inputs)


def test_spmv_of_a_torch_csr_matrix_reaches_its_values(device):
    indptr, indices, values, shape = csr_example(device)
    values = values.clone().requires_grad_(True)
    x = torch.randn(shape[1], dtype=torch.float64, device=device, requires_grad=True)
    A = torch.sparse_csr_tensor(indptr, indices, values, size=shape)
    ss.spmv(A, x, alpha=2.0).sum().backward()
    torch.testing.assert_close(x.grad, 2.0 * dense_of(indptr, indices, values.detach(), shape).sum(0))
    torch.testing.assert_close(values.grad, 2.0 * x.detach()[indices])


def test_spmv_writes_y_in_place_where_autograd_records(device):
    indptr, indices, values, shape = csr_example(device)
    x = torch.randn(shape[1], dtype=torch.float64, device=device, requires_grad=True)
    y0 = torch.randn(shape[0], dtype=torch.float64, device=device, requires_grad=True)
    y = y0 * 1  # a non-leaf, as torch's in-place ops need
    got = ss.spmv((indptr, indices, values, shape), x, y, beta=3.0)
    assert got is y
    torch.testing.assert_close(y, dense_of(indptr, indices, values, shape) @ x + 3.0 * y0)
    y.sum().backward()
    torch.testing.assert_close(y0.grad, torch.full_like(y0, 3.0))


def test_spmv_compiled_equals_eager(device):
    indptr, indices, values, shape = csr_example(device)
    values = values.float()
    x = torch.randn(shape[1], device=device)
    y = torch.randn(shape[0], device=device)

    def f(v, t, w):  # a torch sparse tensor cannot enter a compiled graph: the CSR's parts can
        return ss.spmv((indptr, indices, v * 2, shape), t.cos(), w * 1, alpha=0.5, beta=2.0).pow(2)

    compiled = torch.compile(f, fullgraph=True)
    torch.testing.assert_close(compiled(values, x, y), f(values, x, y))
    got = [t.clone().requires_grad_(True) for t in (values, x, y)]
    compiled(*got).sum().backward()
    want = [t.clone().requires_grad_(True) for t in (values, x, y)]
    f(*want).sum().backward()
    for a, b in zip(got, want):
        torch.testing.assert_close(a.grad, b.grad)


def test_spmv_opcheck(device, ops):
    indptr, indices, values, shape = csr_example(device, torch.int32)
    values = values.requires_grad_(True)
    x = torch.randn(shape[1], dtype=torch.float64, device=device, requires_grad=True)
    y = torch.randn(shape[0], dtype=torch.float64, device=device, requires_grad=True)
    for args in [(indptr, indices, values, shape[1], x, None, 1.0, 0.0, None),
                 (indptr.long(), indices.long(), values, shape[1], x, y, -2.0, 0.5, "merge_path")]:
        torch.library.opcheck(ops.spmv.default, args)


def tridiagonal_example(shape, device, seed=13):
    gen = torch.Generator().manual_seed(seed)
    lower, diagonal, upper, b = (torch.randn(shape, dtype=torch.float64, generator=gen).to(device) for _ in range(4))
    return lower, diagonal + 4.0, upper, b  # diagonally dominant: no pivoting needed


def dense_solve(lower, diagonal, upper, b):
    A = (torch.diag_embed(diagonal) + torch.diag_embed(lower[..., 1:], offset=-1)
         + torch.diag_embed(upper[..., :-1], offset=1))
    return torch.linalg.solve(A, b.unsqueeze(-1)).squeeze(-1)


@pytest.mark.parametrize("shape", [(1,), (2,), (12,), (3, 12), (4, 1)])
def test_tridiagonal_gradients_equal_a_dense_solve(device, shape):
    inputs = [t.requires_grad_(True) for t in tridiagonal_example(shape, device)]
    got = ss.tridiagonal_solve(*inputs)
    want = dense_solve(*inputs)
    torch.testing.assert_close(got, want)
    g = torch.randn(shape, dtype=torch.float64, generator=torch.Generator().manual_seed(4)).to(device)
    got_grads = torch.autograd.grad(got, inputs, g)
    want_grads = torch.autograd.grad(want, inputs, g, allow_unused=True, materialize_grads=True)
    for got_grad, want_grad in zip(got_grads, want_grads):
        torch.testing.assert_close(got_grad, want_grad)
    assert (got_grads[0][..., 0] == 0).all() and (got_grads[2][..., -1] == 0).all()  # outside the matrix


@pytest.mark.parametrize("shape", [(7,), (3, 5)])
def test_tridiagonal_gradcheck(device, shape):
    inputs = tuple(t.requires_grad_(True) for t in tridiagonal_example(shape, device))
    assert torch.autograd.gradcheck(ss.tridiagonal_solve, inputs)
    assert torch.autograd.gradgradcheck(ss.tridiagonal_solve, inputs)


def test_tridiagonal_compiled_equals_eager(device):
    example = [t.float() for t in tridiagonal_example((3, 9), device)]

    def f(lower, diagonal, upper, b):
        return ss.tridiagonal_solve(lower, diagonal, upper * 0.5, b.sin()).pow(2)

    compiled = torch.compile(f, fullgraph=True)
    torch.testing.assert_close(compiled(*example), f(*example))
    got = [t.clone().requires_grad_(True) for t in example]
    compiled(*got).sum().backward()
    want = [t.clone().requires_grad_(True) for t in example]
    f(*want).sum().backward()
    for a, b in zip(got, want):
        torch.testing.assert_close(a.grad, b.grad)


def test_tridiagonal_out_is_refused_where_autograd_records(device):
    lower, diagonal, upper, b = tridiagonal_example((5,), device)
    with pytest.raises(RuntimeError, match="out"):
        ss.tridiagonal_solve(lower, diagonal.requires_grad_(True), upper, b, out=torch.empty_like(b))


def test_tridiagonal_opcheck(device, ops):
    for shape in [(6,), (2, 6)]:
        args = (*(t.requires_grad_(True) for t in tridiagonal_example(shape, device)), False, None)
        torch.library.opcheck(ops.tridiagonal_solve.default, args)


def test_first_call_of_a_process_may_be_compiled():
    """The ops are registered at the first call, which dynamo runs rather than traces."""
    import subprocess
    import sys
    code = ("import torch, streamscan as ss\n"
            "f = torch.compile(lambda t: ss.cumsum(t, dim=0), fullgraph=True)\n"
            "assert f(torch.arange(5.0)).tolist() == [0.0, 1.0, 3.0, 6.0, 10.0]\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]


# ---- sorts: gathers of torch's by the streamscan::argsort op ----

@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dim", [0, -1])
def test_sort_gradients_equal_torchs(device, descending, dim):
    gen = torch.Generator().manual_seed(11)
    x = (torch.randint(-5, 5, (6, 40), generator=gen).double() / 2).to(device).requires_grad_(True)  # ties
    got = ss.sort(x, dim=dim, descending=descending)
    want = torch.sort(x, dim=dim, descending=descending, stable=True).values
    torch.testing.assert_close(got, want)
    g = torch.randn(got.shape, dtype=got.dtype, generator=gen).to(device)
    torch.testing.assert_close(torch.autograd.grad(got, x, g)[0], torch.autograd.grad(want, x, g)[0])
    values = torch.randn(x.shape, dtype=torch.float64, generator=gen).to(device).requires_grad_(True)
    keys_out, values_out = ss.sort_pairs(x, values, dim=dim, descending=descending)
    order = torch.sort(x, dim=dim, descending=descending, stable=True).indices
    torch.testing.assert_close(values_out, torch.take_along_dim(values, order, dim))
    (got_grad,) = torch.autograd.grad(values_out, values, g)
    torch.testing.assert_close(got_grad, torch.zeros_like(values).scatter(dim, order, g))
    assert torch.autograd.gradcheck(lambda v: ss.sort_pairs(x.detach(), v, dim=dim)[1], (values,))


def test_sorts_compiled_equal_eager(device):
    x = torch.randn(5, 30, device=device)
    assert_compiled_equals_eager(lambda t: ss.sort(t * 3, dim=1).cumsum(1), x)
    with_nans = x.clone()
    with_nans[0, :3] = float("nan")
    compiled = torch.compile(lambda t: ss.argsort(t, dim=0, descending=True), fullgraph=True)
    torch.testing.assert_close(compiled(with_nans), ss.argsort(with_nans, dim=0, descending=True))
    v = torch.arange(150.0, device=device).reshape(5, 30)
    pairs = torch.compile(lambda k, w: ss.sort_pairs(k, w)[1], fullgraph=True)
    torch.testing.assert_close(pairs(x, v), ss.sort_pairs(x, v)[1])


def test_argsort_opcheck(device):
    ss.cumsum(torch.ones(2, requires_grad=True))  # registers the ops
    keys = torch.randn(4, 33, device=device)
    for args in [(keys, False, 0, None, 1, None), (keys, True, 0, None, 0, None)]:
        torch.library.opcheck(torch.ops.streamscan.argsort.default, args)
