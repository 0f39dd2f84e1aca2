"""torch autograd and torch.compile through streamscan's scans (the custom op
streamscan::scan): gradcheck in float64, gradients equal to torch's own
functions' (cumsum, cumprod, cummax, cummin), compiled calls equal to eager
ones, and torch.library.opcheck of the op's registration."""

import numpy as np
import pytest

import streamscan as ss

torch = pytest.importorskip("torch")

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() and ss.has_cuda else [])

TORCH_OF = {
    "add": lambda t, d: torch.cumsum(t, d),
    "mul": lambda t, d: torch.cumprod(t, d),
    "max": lambda t, d: torch.cummax(t, d).values,
    "min": lambda t, d: torch.cummin(t, d).values,
}


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

    compiled = torch.compile(f, fullgraph=True)
    torch.testing.assert_close(compiled(x), f(x))
    xg = x.clone().requires_grad_(True)
    compiled(xg).sum().backward()
    eager = x.clone().requires_grad_(True)
    f(eager).sum().backward()
    torch.testing.assert_close(xg.grad, eager.grad)


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
