"""Scans against NumPy references (ufunc.accumulate in the accumulator type)."""

import numpy as np
import pytest

import streamscan as ss
from conftest import supports

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
NUMBERS = INTS + ["float32", "float64"]
UFUNC = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum, "and": np.bitwise_and,
         "or": np.bitwise_or, "xor": np.bitwise_xor}
# Sizes: empty, one, around a tile, many tiles, and one drawn at random each run.
SIZES = [0, 1, 1023, 1025, 4096 * 9 + 17]


def values(rng, dtype, n, op):
    """Data whose scans are exact in the accumulator (small integers; +-1 for float products)."""
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if op == "mul" and dtype in ("float16", "bfloat16", "float32", "float64"):
        return rng.choice([-1.0, 1.0], n).astype(np.float32 if dtype == "bfloat16" else dtype)
    if dtype in INTS:
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    return rng.integers(-4, 5, n).astype(np.float32 if dtype == "bfloat16" else dtype)


def reference(x, op, acc, exclusive=False, initial=None):
    x = np.asarray(x).astype(acc)
    if initial is not None or exclusive:
        first = initial if initial is not None else identity(op, acc)
        x = np.concatenate([np.array([first], dtype=acc), x])
    out = UFUNC[op].accumulate(x, dtype=acc) if x.size else x
    if exclusive:
        return out[:-1]
    return out[1:] if initial is not None else out


def identity(op, acc):
    if op == "mul":
        return 1
    if op == "max":
        return -np.inf if acc.startswith("float") else np.iinfo(acc).min
    if op == "min":
        return np.inf if acc.startswith("float") else np.iinfo(acc).max
    if op == "and":
        return -1 if acc.startswith("int") else np.iinfo(acc).max
    return 0


def library_dtype(xp, dtype, op):
    """The result dtype the array library's own function gives (the oracle of
    the default dtype): its cumsum for add, cumprod for mul (NumPy's, CuPy's,
    torch's), the input's
    dtype for max, min and the bitwise operators (cummax and friends)."""
    if op not in ("add", "mul"):
        return "int64" if dtype == "bool" else dtype
    if xp.name.startswith("torch"):
        import torch
        fn = torch.cumsum if op == "add" else torch.cumprod
        return str(fn(torch.zeros(1, dtype=getattr(torch, dtype)), 0).dtype).replace("torch.", "")
    if xp.name.startswith("cupy"):
        import cupy
        fn = cupy.cumsum if op == "add" else cupy.cumprod
        return fn(cupy.zeros(1, dtype)).dtype.name
    fn = np.cumsum if op == "add" else np.cumprod
    return fn(np.zeros(1, dtype)).dtype.name


def ops_for(dtype):
    return list(UFUNC) if dtype in INTS else ["add", "mul", "max", "min"]


@pytest.mark.parametrize("dtype", NUMBERS)
@pytest.mark.parametrize("exclusive", [False, True], ids=["inclusive", "exclusive"])
def test_every_dtype_and_op(xp, rng, dtype, exclusive):
    if not supports(xp, dtype):
        pytest.skip(f"{xp} has no {dtype}")
    for op in ops_for(dtype):
        for n in SIZES + [int(rng.integers(2, 300_000))]:
            x = values(rng, dtype, n, op)
            fn = ss.exclusive_scan if exclusive else ss.inclusive_scan
            got = fn(xp.asarray(x), op)
            assert xp.is_native(got), type(got)
            acc = library_dtype(xp, dtype, op)
            assert str(got.dtype).replace("torch.", "") == acc, f"{op}: {got.dtype}, the library gives {acc}"
            np.testing.assert_array_equal(xp.numpy(got), reference(x, op, acc, exclusive), err_msg=f"{op} n={n}")


@pytest.mark.parametrize("dtype,acc", [("bool", "int64"), ("bool", "int32"), ("int8", "int64"), ("uint8", "uint64"),
                                       ("int16", "int32"), ("int32", "int64"), ("float32", "float64"),
                                       ("int32", "float64"), ("float16", "float32"), ("bfloat16", "float32")])
def test_accumulator_dtype(xp, rng, dtype, acc):
    if not (supports(xp, dtype) and supports(xp, acc)):
        pytest.skip(f"{xp} lacks {dtype} or {acc}")
    x = values(rng, dtype, 50_001, "add")
    a = xp.asarray(x, dtype=dtype)
    got = ss.inclusive_scan(a, dtype=acc)
    np.testing.assert_array_equal(xp.numpy(got), reference(x, "add", acc))
    assert str(got.dtype).replace("torch.", "") == acc


def test_defaults_widen_bools_and_keep_halves(xp, rng):
    flags = rng.integers(0, 2, 1000).astype(bool)
    got = ss.inclusive_scan(xp.asarray(flags))
    assert str(got.dtype).endswith("int64")
    np.testing.assert_array_equal(xp.numpy(got), np.cumsum(flags))
    # float16 in, float16 out (as every library's cumsum), accumulated in
    # float32 and rounded once: 2049 rounds to 2048 once, where a float16
    # running sum would stop growing there.
    halves = ss.cumsum(xp.asarray(np.ones(3000, np.float16)))
    assert str(halves.dtype).endswith("float16")
    np.testing.assert_array_equal(xp.numpy(halves), np.arange(1, 3001).astype(np.float16))


@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "int32", "uint8", "uint16", "uint32", "int64", "float16",
                                   "float32"])
@pytest.mark.parametrize("fn,op", [(ss.cumsum, "add"), (ss.cumprod, "mul")], ids=["cumsum", "cumprod"])
def test_default_dtype_is_the_librarys(xp, rng, dtype, fn, op):
    if not supports(xp, dtype):
        pytest.skip(f"{xp} has no {dtype}")
    x = values(rng, dtype, 2000, "mul" if op == "mul" and dtype.startswith("float") else "add")
    if op == "mul" and not dtype.startswith("float"):
        x = (x % 3).astype(dtype) if dtype != "bool" else x
    got = fn(xp.asarray(x))
    acc = library_dtype(xp, dtype, op)
    assert str(got.dtype).replace("torch.", "") == acc
    np.testing.assert_array_equal(xp.numpy(got), reference(x, op, acc))


def test_float16_output_is_rounded_once(xp):
    x = xp.asarray(np.full(4000, 0.5, np.float16))
    got = ss.inclusive_scan(x, dtype="float16")
    assert str(got.dtype).endswith("float16")
    np.testing.assert_array_equal(xp.numpy(got), (np.arange(1, 4001) * 0.5).astype(np.float16))


@pytest.mark.parametrize("op", ["add", "max", "xor"])
def test_initial(xp, rng, op):
    x = values(rng, "int32", 77_777, op)
    for exclusive in (False, True):
        fn = ss.exclusive_scan if exclusive else ss.inclusive_scan
        got = fn(xp.asarray(x), op, initial=12345)
        acc = library_dtype(xp, "int32", op)
        np.testing.assert_array_equal(xp.numpy(got), reference(x, op, acc, exclusive, 12345))


def test_out_and_in_place(xp, rng):
    x = values(rng, "int32", 100_003, "add")
    a = xp.asarray(x)
    out = xp.asarray(np.full(x.size, -7, np.int32))
    r = ss.inclusive_scan(a, out=out)  # no dtype=: out's, as NumPy
    assert r is out
    np.testing.assert_array_equal(xp.numpy(out), reference(x, "add", "int32"))
    ss.exclusive_scan(a, out=a)
    np.testing.assert_array_equal(xp.numpy(a), reference(x, "add", "int32", True))


def test_strided_input_is_copied(xp, rng):
    x = values(rng, "int64", 20_000, "add")
    a = xp.asarray(x)[::3]
    np.testing.assert_array_equal(xp.numpy(ss.inclusive_scan(a)), np.cumsum(x[::3]))


@pytest.mark.parametrize("shape", [(1, 5000), (7, 1025), (300, 33), (2, 3, 4000), (5, 0)])
def test_batched_rows_along_last_axis(xp, rng, shape):
    x = rng.integers(-100, 100, shape).astype(np.int32)
    got = ss.inclusive_scan(xp.asarray(x))
    np.testing.assert_array_equal(xp.numpy(got), np.cumsum(x, axis=-1, dtype=np.int32))
    got = ss.exclusive_scan(xp.asarray(x), "max", initial=-50)
    ref = np.maximum.accumulate(np.concatenate([np.full(shape[:-1] + (1,), -50, np.int32), x], axis=-1), axis=-1)
    np.testing.assert_array_equal(xp.numpy(got), ref[..., :-1])


def test_bfloat16_through_torch(xp, rng):
    if not xp.name.startswith("torch"):
        pytest.skip("bfloat16 arrays come from torch")
    import torch
    x = values(rng, "bfloat16", 10_000, "add")
    got = ss.inclusive_scan(xp.asarray(x, dtype="bfloat16"))
    assert got.dtype == torch.bfloat16  # as torch.cumsum: bfloat16 out, float32 inside, rounded once
    exact = np.cumsum(x.astype(np.float64)).astype(np.float32)  # small integers: exact in float32
    np.testing.assert_array_equal(xp.numpy(got), torch.from_numpy(exact).to(torch.bfloat16).float().numpy())
    wide = ss.inclusive_scan(xp.asarray(x, dtype="bfloat16"), dtype="float32")
    np.testing.assert_array_equal(xp.numpy(wide), exact)


def test_dlpack_object_comes_back_as_numpy_on_the_host(rng):
    class Wrapped:  # an array known only by its __dlpack__
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, **kwargs):
            return self.a.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    x = values(rng, "int32", 1000, "add")
    got = ss.inclusive_scan(Wrapped(x))
    np.testing.assert_array_equal(got, np.cumsum(x))


def test_strategies(xp, rng):
    x = values(rng, "int32", 250_000, "add")
    for strategy in ["reduce_then_scan", "scan_then_add", "chained", "decoupled_lookback"]:
        got = ss.inclusive_scan(xp.asarray(x), strategy=strategy, dtype="int32")
        np.testing.assert_array_equal(xp.numpy(got), np.cumsum(x, dtype=np.int32), err_msg=strategy)


def test_repeated_calls_take_each_calls_arguments(xp, rng):
    """A call like one made before reuses that call's plan (codes, temp size): each call's
    own data, initial value, strides and output must still be what it uses."""
    x, y = rng.integers(-9, 9, 5000).astype("int32"), rng.integers(-9, 9, 5000).astype("int32")
    for _ in range(2):  # the second round runs on the plans the first made
        np.testing.assert_array_equal(xp.numpy(ss.inclusive_scan(xp.asarray(x))), np.cumsum(x, dtype="int32"))
        np.testing.assert_array_equal(xp.numpy(ss.inclusive_scan(xp.asarray(y))), np.cumsum(y, dtype="int32"))
        for initial in (3, -7):
            got = ss.exclusive_scan(xp.asarray(x), initial=initial)
            np.testing.assert_array_equal(xp.numpy(got), reference(x, "add", "int32", True, initial))
        got = ss.inclusive_scan(xp.asarray(x), "max", dtype="int64")
        np.testing.assert_array_equal(xp.numpy(got), np.maximum.accumulate(x.astype("int64")))
        strided = xp.asarray(np.concatenate([x, y]))[::2]  # same length, not contiguous
        np.testing.assert_array_equal(xp.numpy(ss.inclusive_scan(strided)),
                                      np.cumsum(np.concatenate([x, y])[::2], dtype="int32"))
        into = xp.asarray(np.zeros(5000, "int32"))
        ss.inclusive_scan(xp.asarray(y), out=into)
        np.testing.assert_array_equal(xp.numpy(into), np.cumsum(y, dtype="int32"))
    with pytest.raises(TypeError, match="dtype"):
        ss.inclusive_scan(xp.asarray(x), dtype=["int32"])  # not hashable: no plan, the check says why


def test_along_every_axis(xp, rng):
    """axis= / dim= of any axis, negative ones, and axis=None (flattened), as
    numpy.cumsum; in place along a non-last axis; out= of that shape."""
    x = rng.integers(-50, 50, (3, 4, 5)).astype(np.int32)
    a = xp.asarray(x)
    for axis in (0, 1, 2, -1, -2, -3):
        np.testing.assert_array_equal(xp.numpy(ss.cumsum(a, axis)), np.cumsum(x, axis), err_msg=f"axis {axis}")
        np.testing.assert_array_equal(xp.numpy(ss.cumsum(a, dim=axis)), np.cumsum(x, axis), err_msg=f"dim {axis}")
        got = ss.inclusive_scan(a, "max", axis=axis)
        np.testing.assert_array_equal(xp.numpy(got), np.maximum.accumulate(x, axis), err_msg=f"max axis {axis}")
        got = ss.inclusive_scan(a, "min", dim=axis)  # dim stands in for the default axis
        np.testing.assert_array_equal(xp.numpy(got), np.minimum.accumulate(x, axis), err_msg=f"min dim {axis}")
        got = ss.exclusive_scan(a, axis=axis, initial=7)
        want = np.moveaxis(reference(np.moveaxis(x, axis, -1).reshape(-1, x.shape[axis])[0], "add", "int32", True,
                                     7), 0, 0)
        np.testing.assert_array_equal(np.moveaxis(xp.numpy(got), axis, -1).reshape(-1, x.shape[axis])[0], want)
    np.testing.assert_array_equal(xp.numpy(ss.cumsum(a)), np.cumsum(x))  # axis=None: flattened
    assert tuple(ss.cumsum(a).shape) == (60,)
    np.testing.assert_array_equal(xp.numpy(ss.inclusive_scan(a, axis=None)), np.cumsum(x))
    # In place along axis 0, and an out= of the scan's dtype.
    b = xp.asarray(x)
    got = ss.inclusive_scan(b, axis=0, out=b)
    np.testing.assert_array_equal(xp.numpy(b), np.cumsum(x, 0).astype(np.int32))
    out = xp.asarray(np.zeros(x.shape, np.int64))
    ss.cumsum(a, 1, out=out)
    np.testing.assert_array_equal(xp.numpy(out), np.cumsum(x, 1))


def test_axis_errors(xp):
    a = xp.asarray(np.ones((2, 3), np.int32))
    with pytest.raises(np.exceptions.AxisError if hasattr(np, "exceptions") else ValueError):
        ss.cumsum(a, 2)
    with pytest.raises(IndexError):  # NumPy's AxisError is an IndexError too
        ss.inclusive_scan(a, axis=-3)
    with pytest.raises(TypeError, match="axis, dim"):
        ss.cumsum(a, axis=0, dim=1)
    with pytest.raises(TypeError, match="axis"):
        ss.cumsum(a, axis=0.5)


def test_an_array_in_the_op_slot_is_named(xp):
    a = xp.asarray(np.ones(10, np.int32))
    flags = xp.asarray(np.zeros(10, bool))
    with pytest.raises(TypeError, match="op: expected one of"):
        ss.inclusive_scan(a, flags)
