"""streamscan.linear_recurrence: h[t] = a[t] h[t-1] + b[t] along any axis, on
every array library, against a float64 NumPy oracle (gates in (0, 1) as
trained models have them, and in (-1.2, 1.2) to stress the bound); the errors
name the argument; torch autograd (gradcheck in float64, agreement with torch's
own autograd of a loop of torch ops), torch.compile(fullgraph=True) against
eager, and the ops' registration (opcheck)."""

import math

import numpy as np
import pytest

import streamscan as ss
from conftest import supports

EPS = {"float64": 2.0 ** -53, "float32": 2.0 ** -24, "float16": 2.0 ** -24, "bfloat16": 2.0 ** -24}
STORAGE = {"float64": 0.0, "float32": 0.0, "float16": 2.0 ** -11, "bfloat16": 2.0 ** -8}


def oracle(a, b, axis, initial=None, reverse=False):
    """(h, m) in float64: m[t] = |a[t]| m[t-1] + |b[t]|, the size of what went into h[t]."""
    a = np.moveaxis(np.asarray(a, dtype=np.float64), axis, -1)
    b = np.moveaxis(np.asarray(b, dtype=np.float64), axis, -1)
    h = np.zeros(a.shape[:-1]) if initial is None else np.asarray(initial, dtype=np.float64).copy()
    m = np.abs(h)
    hs, ms = np.empty_like(a), np.empty_like(a)
    steps = range(a.shape[-1] - 1, -1, -1) if reverse else range(a.shape[-1])
    for t in steps:
        at, bt = a[..., t], b[..., t]
        h = np.where(at == 0, bt, at * h + bt)
        m = np.abs(at) * m + np.abs(bt)
        hs[..., t], ms[..., t] = h, m
    return np.moveaxis(hs, -1, axis), np.moveaxis(ms, -1, axis)


def assert_within(got, a, b, axis, initial, reverse, dtype, length):
    want, m = oracle(a, b, axis, initial, reverse)
    tol = EPS[dtype] * (64 + 8 * math.log2(length + 1)) + STORAGE[dtype]
    err = np.abs(np.asarray(got, dtype=np.float64) - want)
    bad = ~(err <= tol * m + 1e-300)
    assert not bad.any(), (f"{bad.sum()} of {bad.size} past the bound; first at {np.argwhere(bad)[0]}: got "
                           f"{np.asarray(got, dtype=np.float64)[bad][0]}, want {want[bad][0]} within "
                           f"{(tol * m)[bad][0]}")


def draw(rng, shape, wide):
    a = rng.uniform(-1.2, 1.2, shape) if wide else rng.uniform(0.0, 1.0, shape)
    return a, rng.uniform(-1.0, 1.0, shape)


def stored(xp, values, dtype):
    """values as an array of xp in dtype, and those values read back in float64 (what the call sees)."""
    arr = xp.asarray(values.astype(np.float32), "bfloat16") if dtype == "bfloat16" else xp.asarray(values.astype(dtype))
    return arr, xp.numpy(arr).astype(np.float64)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("dim", [-1, 1, 0])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("with_initial", [False, True])
@pytest.mark.parametrize("wide", [False, True], ids=["gates(0,1)", "gates(-1.2,1.2)"])
def test_matches_the_oracle(xp, rng, dtype, dim, reverse, with_initial, wide):
    shape = (3, 37, 5)
    a, b = draw(rng, shape, wide)
    a.flat[::17] = 0.0  # zero gates: h = b there
    a, av = stored(xp, a, dtype)
    b, bv = stored(xp, b, dtype)
    state = shape[:dim % 3] + shape[dim % 3 + 1:]
    init, iv = stored(xp, rng.uniform(-1, 1, state), dtype) if with_initial else (None, None)
    got = ss.linear_recurrence(a, b, dim, initial=init, reverse=reverse)
    assert xp.is_native(got) and tuple(got.shape) == shape
    assert_within(xp.numpy(got), av, bv, dim, iv, reverse, dtype, shape[dim])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("dim", [-1, 1])
def test_16_bit_values_with_float32_state(xp, rng, dtype, dim):
    if not supports(xp, dtype):
        pytest.skip(f"{xp.name} has no {dtype}")
    shape = (4, 300, 6)  # long enough that a 16-bit state would drift well past the bound
    a, b = draw(rng, shape, False)
    a = 0.9 + 0.1 * a
    a, av = stored(xp, a, dtype)
    b, bv = stored(xp, b, dtype)
    init, iv = stored(xp, rng.uniform(-1, 1, (4, 6) if dim == 1 else (4, 300)), dtype)
    got = ss.linear_recurrence(a, b, dim=dim, initial=init)
    assert str(got.dtype).endswith(dtype)
    assert_within(xp.numpy(got), av, bv, dim, iv, False, dtype, shape[dim])


@pytest.mark.parametrize("length", [0, 1, 2, 31, 32, 33, 4097])
def test_lengths(xp, rng, length):
    a, b = draw(rng, (2, length), True)
    got = ss.linear_recurrence(xp.asarray(a.astype(np.float64)), xp.asarray(b))
    assert tuple(got.shape) == (2, length)
    assert_within(xp.numpy(got), a, b, -1, None, False, "float64", length)


def test_other_layouts_are_copied(xp, rng):
    a, b = draw(rng, (6, 40, 3), True)
    ta, tb = xp.asarray(a.transpose(2, 1, 0).copy()), xp.asarray(b.transpose(2, 1, 0).copy())
    # views in another order: (6, 40, 3) again, but not C-contiguous
    va, vb = (x.transpose(2, 1, 0) if not hasattr(x, "permute") else x.permute(2, 1, 0) for x in (ta, tb))
    for dim in (0, 1, 2):
        got = ss.linear_recurrence(va, vb, dim)
        assert_within(xp.numpy(got), a, b, dim, None, False, "float64", a.shape[dim])


def test_axis_is_numpys_name_for_dim(xp, rng):
    a, b = draw(rng, (5, 8), False)
    x, y = xp.asarray(a), xp.asarray(b)
    want = xp.numpy(ss.linear_recurrence(x, y, 0))
    np.testing.assert_array_equal(xp.numpy(ss.linear_recurrence(x, y, axis=0)), want)
    np.testing.assert_array_equal(xp.numpy(ss.linear_recurrence(x, y, dim=0, axis=0)), want)
    with pytest.raises(TypeError, match="dim, axis"):
        ss.linear_recurrence(x, y, dim=0, axis=1)


def test_out_and_in_place(xp, rng):
    a, b = draw(rng, (4, 50), True)
    want = xp.numpy(ss.linear_recurrence(xp.asarray(a), xp.asarray(b)))
    out = xp.asarray(np.zeros((4, 50)))
    got = ss.linear_recurrence(xp.asarray(a), xp.asarray(b), out=out)
    np.testing.assert_array_equal(xp.numpy(out), want)
    assert got is out
    bb = xp.asarray(b)
    ss.linear_recurrence(xp.asarray(a), bb, out=bb)  # h written over b
    np.testing.assert_array_equal(xp.numpy(bb), want)
    aa = xp.asarray(a)
    ss.linear_recurrence(aa, xp.asarray(b), out=aa)  # and over a
    np.testing.assert_array_equal(xp.numpy(aa), want)


def test_errors_name_the_argument(xp):
    a = xp.asarray(np.full((3, 4), 0.5, dtype=np.float32))
    b = xp.asarray(np.ones((3, 4), dtype=np.float32))
    with pytest.raises(ValueError, match=r"^b: shape \(3, 5\)"):
        ss.linear_recurrence(a, xp.asarray(np.ones((3, 5), dtype=np.float32)))
    with pytest.raises(TypeError, match="^b: dtype float64"):
        ss.linear_recurrence(a, xp.asarray(np.ones((3, 4))))
    with pytest.raises(TypeError, match="^a: dtype int32"):
        ss.linear_recurrence(xp.asarray(np.ones((3, 4), dtype=np.int32)), b)
    with pytest.raises(ValueError, match=r"^initial: shape \(4,\), expected a's shape without the time axis \(3,\)"):
        ss.linear_recurrence(a, b, initial=xp.asarray(np.zeros(4, dtype=np.float32)))
    with pytest.raises(TypeError, match="^initial: dtype float64"):
        ss.linear_recurrence(a, b, initial=xp.asarray(np.zeros(3)))
    with pytest.raises(IndexError, match="dim"):
        ss.linear_recurrence(a, b, 2)
    with pytest.raises(ValueError, match="axis"):
        ss.linear_recurrence(a, b, axis=-3)
    with pytest.raises(TypeError, match="dim: expected an integer"):
        ss.linear_recurrence(a, b, 1.0)
    with pytest.raises(ValueError, match="a 0-d array"):
        ss.linear_recurrence(xp.asarray(np.float32(0.5)), xp.asarray(np.float32(1.0)))
    with pytest.raises(ValueError, match=r"^out: shape \(4, 3\)"):
        ss.linear_recurrence(a, b, out=xp.asarray(np.zeros((4, 3), dtype=np.float32)))
    if xp.name == "numpy":
        ro = np.zeros((3, 4), dtype=np.float32)
        ro.flags.writeable = False
        with pytest.raises(ValueError, match="out: the array is read-only"):
            ss.linear_recurrence(a, b, out=ro)


# ---- torch: autograd and torch.compile ----


def _torch():
    return pytest.importorskip("torch")


def _devices():
    try:
        import torch
    except ImportError:
        return ["cpu"]
    return ["cpu"] + (["cuda"] if torch.cuda.is_available() and ss.has_cuda else [])


@pytest.fixture(params=_devices())
def device(request):
    return request.param


def torch_reference(a, b, dim, initial=None, reverse=False):
    """The recurrence as a loop of torch ops, which torch differentiates."""
    torch = _torch()
    at, bt = a.movedim(dim, -1), b.movedim(dim, -1)
    h = torch.zeros_like(at[..., 0]) if initial is None else initial
    outs = [None] * at.shape[-1]
    for t in (range(at.shape[-1] - 1, -1, -1) if reverse else range(at.shape[-1])):
        h = at[..., t] * h + bt[..., t]
        outs[t] = h
    return torch.stack(outs, -1).movedim(-1, dim)


def torch_inputs(torch, device, shape, dim, dtype, seed, wide=False):
    gen = torch.Generator().manual_seed(seed)
    a = (torch.rand(shape, generator=gen, dtype=torch.float64) * (2.4 if wide else 1.0) - (1.2 if wide else 0.0))
    b = torch.rand(shape, generator=gen, dtype=torch.float64) * 2 - 1
    d = dim % len(shape)
    initial = torch.rand(shape[:d] + shape[d + 1:], generator=gen, dtype=torch.float64) * 2 - 1
    return [x.to(device=device, dtype=dtype).requires_grad_(True) for x in (a, b, initial)]


@pytest.mark.parametrize("dim", [-1, 1, 0])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("with_initial", [False, True])
def test_gradcheck(device, dim, reverse, with_initial):
    torch = _torch()
    a, b, initial = torch_inputs(torch, device, (2, 7, 3), dim, torch.float64, 3, wide=True)
    if with_initial:
        assert torch.autograd.gradcheck(lambda x, y, z: ss.linear_recurrence(x, y, dim, z, reverse), (a, b, initial))
    else:
        assert torch.autograd.gradcheck(lambda x, y: ss.linear_recurrence(x, y, dim, reverse=reverse), (a, b))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("dim", [-1, 1, 0])
@pytest.mark.parametrize("reverse", [False, True])
def test_gradients_equal_torchs_autograd_of_a_loop(device, dtype, dim, reverse):
    torch = _torch()
    dt = getattr(torch, dtype)
    a, b, initial = torch_inputs(torch, device, (3, 40, 4), dim, dt, 5)
    got = ss.linear_recurrence(a, b, dim, initial, reverse)
    want = torch_reference(a, b, dim, initial, reverse)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == "float32" else {}
    torch.testing.assert_close(got, want, **tol)
    g = torch.randn(got.shape, dtype=dt, generator=torch.Generator().manual_seed(9)).to(device)
    got_grads = torch.autograd.grad(got, (a, b, initial), g)
    want_grads = torch.autograd.grad(want, (a, b, initial), g)
    for name, x, y in zip(("a", "b", "initial"), got_grads, want_grads):
        torch.testing.assert_close(x, y, **tol, msg=lambda m: f"grad of {name}: {m}")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_16_bit_gradients(device, dtype):
    torch = _torch()
    dt = getattr(torch, dtype)
    a, b, initial = torch_inputs(torch, device, (2, 200, 8), 1, dt, 7)
    got = ss.linear_recurrence(a, b, 1, initial)
    assert got.dtype == dt
    grads = torch.autograd.grad(got.float().square().sum(), (a, b, initial))
    assert all(g.dtype == dt for g in grads)
    # The float64 function at the same (16-bit) inputs.
    exact = [x.detach().double().requires_grad_(True) for x in (a, b, initial)]
    want = torch_reference(exact[0], exact[1], 1, exact[2])
    torch.testing.assert_close(got.double(), want, rtol=0, atol=0.02 * want.abs().max().item())
    want_grads = torch.autograd.grad(want.square().sum(), exact)
    for name, g, w in zip(("a", "b", "initial"), grads, want_grads):
        worst = (g.double() - w).abs().max().item()
        assert worst <= 0.03 * w.abs().max().item(), f"grad of {name}: {worst} off"


def test_no_grad_and_results_keep_the_graph(device):
    torch = _torch()
    a, b, _ = torch_inputs(torch, device, (2, 10), -1, torch.float32, 1)
    y = ss.linear_recurrence(a, b)
    assert y.requires_grad and y.grad_fn is not None
    with torch.no_grad():
        z = ss.linear_recurrence(a, b)
    assert not z.requires_grad
    torch.testing.assert_close(y.detach(), z)


def test_out_is_refused_where_autograd_records(device):
    torch = _torch()
    a, b, _ = torch_inputs(torch, device, (2, 10), -1, torch.float32, 1)
    with pytest.raises(RuntimeError, match="out"):
        ss.linear_recurrence(a, b, out=torch.empty(2, 10, device=device))


def test_compiled_equals_eager(device):
    torch = _torch()
    torch._dynamo.reset()
    a, b, initial = torch_inputs(torch, device, (2, 33, 4), 1, torch.float32, 2)

    def f(x, y, z):
        return ss.linear_recurrence(torch.sigmoid(x), y * 2, dim=1, initial=z).square().sum()

    compiled = torch.compile(f, fullgraph=True)
    got = compiled(a, b, initial)
    want = f(a, b, initial)
    torch.testing.assert_close(got, want)
    got_grads = torch.autograd.grad(got, (a, b, initial))
    want_grads = torch.autograd.grad(want, (a, b, initial))
    for x, y in zip(got_grads, want_grads):
        torch.testing.assert_close(x, y)


def test_opcheck(device):
    torch = _torch()
    a, b, initial = torch_inputs(torch, device, (3, 9, 2), 1, torch.float64, 4)
    ss.linear_recurrence(a, b)  # registers the ops
    last = torch.rand(3, 9, dtype=torch.float64, device=device, requires_grad=True)
    for args in [(a, b, None, 2, False), (a, b, last, 2, True), (a, b, initial, 1, False)]:
        torch.library.opcheck(torch.ops.streamscan.linear_recurrence.default, args)
    h = ss.linear_recurrence(a, b, 1, initial).detach()
    torch.library.opcheck(torch.ops.streamscan.linear_recurrence_backward.default,
                          (a.detach(), h, torch.ones_like(h), initial.detach(), 1, False))
