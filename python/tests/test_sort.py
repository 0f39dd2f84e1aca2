"""Radix sorts against NumPy's stable sort (and torch's, CuPy's where installed).

Float keys come with NaNs of both signs and many payloads, both zeros and both
infinities; results are compared bit for bit, so a NaN's payload and a zero's
sign must come back where the stable order puts them.
"""

import numpy as np
import pytest

import streamscan as ss
from conftest import GPUS, Lib, supports

INTEGER_KEYS = ["uint8", "int8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]
FLOAT_KEYS = ["float16", "bfloat16", "float32", "float64"]
KEYS = ["bool"] + INTEGER_KEYS + FLOAT_KEYS
SIZES = [0, 1, 1023, 1025, 300_001]
# The value sizes that take each way through sort_pairs: moved with the keys (4, 8 bytes) or gathered (1).
VALUES = ["int32", "float64", "int8"]
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def bits(a):
    """A NumPy array's bits, to compare NaN payloads and signs of zero too."""
    return a.view(UINT[a.itemsize])


def keys_of(rng, dtype, n, distinct):
    """n keys of dtype (bfloat16: float32 keys that are bfloat16 values, for make); distinct bounds how many values."""
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(bool)
    if dtype in FLOAT_KEYS:
        wide = dtype in ("float32", "float64")
        bound = distinct or (10**6 if wide else 10**4)
        k = (rng.integers(-bound, bound, n) * 0.25).astype("float32" if dtype == "bfloat16" else dtype)
        k = with_special_values(rng, k, 7 if dtype == "bfloat16" else np.finfo(k.dtype).nmant)
        if dtype == "bfloat16":
            bits(k)[:] &= 0xFFFF0000  # the high half alone: the bfloat16
        return k
    info = np.iinfo(dtype)
    if distinct:
        return rng.integers(max(info.min, -distinct), min(info.max, distinct), n, dtype=dtype, endpoint=True)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


def with_special_values(rng, k, payload_bits):
    """k with a tenth of its items ±0, ±inf, or NaNs of either sign and random payloads
    (in the top payload_bits of the mantissa)."""
    picked = rng.random(k.size) < 0.1
    special = rng.choice(np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan], k.dtype), k.size)
    k = np.where(picked, special, k)
    u = bits(k)
    mantissa = np.finfo(k.dtype).nmant
    payload = rng.integers(1, 1 << payload_bits, k.size).astype(u.dtype) << u.dtype.type(mantissa - payload_bits)
    nan = np.isnan(k) & (rng.random(k.size) < 0.5)
    u[nan] = (u[nan] & ~u.dtype.type((1 << mantissa) - 1)) | payload[nan]
    return k


def make(xp, k, dtype):
    """k as xp's array of dtype, and the NumPy keys it holds (bfloat16's widened to float32, exactly)."""
    if dtype != "bfloat16":
        a = xp.asarray(k)
    else:  # bit for bit from k's high halves (torch's conversion makes every NaN one)
        import torch
        high = torch.from_numpy((bits(k) >> np.uint32(16)).astype(np.uint16).view(np.int16))
        a = high.view(torch.bfloat16).to("cuda" if xp.gpu else "cpu")
    return a, xp.numpy(a)


def stable_order(keys, descending):
    if not descending:
        return np.argsort(keys, kind="stable")
    # Descending and stable: equal keys (NaNs all one, -0.0 and +0.0 one) keep their input order.
    ranks = np.unique(keys, return_inverse=True)[1].reshape(-1)
    return np.argsort(-ranks.astype(np.int64), kind="stable")


def skip_unless(xp, dtype):
    if not supports(xp, dtype) or (xp.name.startswith("torch") and dtype.startswith("uint") and dtype != "uint8"):
        pytest.skip(f"{xp} has no {dtype}")


@pytest.mark.parametrize("dtype", KEYS)
@pytest.mark.parametrize("descending", [False, True], ids=["ascending", "descending"])
def test_sort_argsort_pairs(xp, rng, dtype, descending):
    skip_unless(xp, dtype)
    for n in SIZES:
        for distinct in (0, 5):
            a, k = make(xp, keys_of(rng, dtype, n, distinct), dtype)
            before = bits(k).copy()
            order = stable_order(k, descending)
            np.testing.assert_array_equal(bits(xp.numpy(ss.sort(a, descending=descending))), bits(k[order]))
            np.testing.assert_array_equal(xp.numpy(ss.argsort(a, descending=descending)), order)
            for value_dtype in VALUES:
                v = rng.integers(-100, 1 << 30, n).astype(value_dtype)
                sk, sv = ss.sort_pairs(a, xp.asarray(v), descending=descending)
                np.testing.assert_array_equal(bits(xp.numpy(sk)), bits(k[order]))
                np.testing.assert_array_equal(xp.numpy(sv), v[order])
            np.testing.assert_array_equal(bits(xp.numpy(a)), before)  # the keys are left as they were


@pytest.mark.parametrize("dtype", FLOAT_KEYS)
def test_float_special_values(xp, dtype):
    skip_unless(xp, dtype)
    nan, inf = np.nan, np.inf
    k = np.array([inf, -0.0, 0.0, nan, -inf, 1.5, -nan, -1.5, 0.0, -0.0, nan], np.float32)
    a, k = make(xp, k.astype("float32" if dtype == "bfloat16" else dtype), dtype)
    up = [4, 7, 1, 2, 8, 9, 5, 0, 3, 6, 10]
    down = [3, 6, 10, 0, 5, 1, 2, 8, 9, 7, 4]
    for descending, order in ((False, up), (True, down)):
        got = xp.numpy(ss.sort(a, descending=descending))
        np.testing.assert_array_equal(bits(got), bits(k[order]))
        np.testing.assert_array_equal(xp.numpy(ss.argsort(a, descending=descending)), order)
    np.testing.assert_array_equal(np.argsort(k, kind="stable"), up)  # the order is NumPy's


@pytest.mark.parametrize("dtype", KEYS)
@pytest.mark.parametrize("descending", [False, True], ids=["ascending", "descending"])
def test_matches_torch(xp, rng, dtype, descending):
    """argsort as torch.argsort(stable=True) orders the same keys (torch's order is
    the reference for descending: NaNs first)."""
    torch = pytest.importorskip("torch")
    skip_unless(Lib("torch", False), dtype)
    skip_unless(xp, dtype)
    for distinct in (0, 5):
        a, k = make(xp, keys_of(rng, dtype, 20_000, distinct), dtype)
        expected = torch.argsort(torch.from_numpy(k).to(getattr(torch, dtype)), descending=descending, stable=True)
        np.testing.assert_array_equal(xp.numpy(ss.argsort(a, descending=descending)), expected.numpy())


@pytest.mark.parametrize("name", ["cupy", "torch-cuda"])
@pytest.mark.parametrize("dtype", ["bool", "int32", "float16", "bfloat16", "float32", "float64"])
def test_device_arrays_match_their_library(rng, name, dtype):
    """On the GPU back end, the order of the library's own sort (cupy.sort; torch.sort(stable=True)),
    on keys whose NaNs are one NaN (none in bfloat16): on the GPU both libraries order NaNs by their
    bits (those with the sign bit set before -inf, the others after +inf by payload), where NumPy
    and torch on the CPU put every NaN last in input order, as streamscan does; torch's GPU sort of
    bfloat16 places even that one NaN elsewhere (checked against NumPy's order on the H200)."""
    if not GPUS:
        pytest.skip("no GPU back end")
    xp = Lib(name, True)
    lib = pytest.importorskip(name.split("-")[0])
    skip_unless(xp, dtype)
    k = keys_of(rng, dtype, 100_000, 0)
    if dtype in FLOAT_KEYS:
        k = np.where(np.isnan(k), np.array(np.nan, k.dtype), k)  # one NaN: positive, no payload
        if dtype == "bfloat16":
            k[np.isnan(k)] = 7.0
    a, k = make(xp, k, dtype)
    if name == "cupy":  # cupy.sort is not stable: compare values (NaN == NaN, -0.0 == +0.0)
        np.testing.assert_array_equal(xp.numpy(ss.sort(a)), lib.sort(a).get())
        return
    for descending in (False, True):
        expected = lib.sort(a, descending=descending, stable=True)
        np.testing.assert_array_equal(xp.numpy(ss.argsort(a, descending=descending)), expected.indices.cpu().numpy())
        np.testing.assert_array_equal(bits(xp.numpy(ss.sort(a, descending=descending))),
                                      bits(xp.numpy(expected.values)))


def float_key(k):
    """The bits that begin_bit and end_bit pick from float keys (sort's docstring):
    ±magnitude bits, NaNs the largest, as an integer key of their size (sign bit flipped)."""
    size = 8 * k.itemsize
    top = (1 << (size - 1)) - 1
    inf = int(bits(np.array(np.inf, k.dtype)))
    i = k.view(f"int{size}").astype(np.int64)
    magnitude = i & top
    key = np.where(magnitude > inf, top, np.where(i < 0, -magnitude, magnitude)).astype(np.uint64)
    return (key + np.uint64(1 << (size - 1))) & np.uint64((1 << size) - 1)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int64"])
@pytest.mark.parametrize("descending", [False, True], ids=["ascending", "descending"])
def test_bit_range(xp, rng, dtype, descending):
    if dtype == "int64":
        k = rng.integers(0, 1 << 31, 50_000).astype(np.int64)
        key = k.astype(np.uint64)
    else:
        k = keys_of(rng, dtype, 50_000, 0)
        key = float_key(k)
    begin, end = 4, 12
    digit = (key >> np.uint64(begin)) & np.uint64(0xFF)
    expected = stable_order(digit.astype(np.int64), descending)
    got = ss.argsort(xp.asarray(k), begin_bit=begin, end_bit=end, descending=descending)
    np.testing.assert_array_equal(xp.numpy(got), expected)
    sk, sv = ss.sort_pairs(xp.asarray(k), xp.asarray(np.arange(k.size, dtype=np.int32)), begin_bit=begin,
                           end_bit=end, descending=descending)
    np.testing.assert_array_equal(xp.numpy(sv), expected)
    np.testing.assert_array_equal(bits(xp.numpy(sk)), bits(k[expected]))


def test_pairs_with_small_values_go_through_argsort(xp, rng):
    k = rng.integers(0, 50, 10_000).astype(np.int32)
    v = rng.integers(0, 100, 10_000).astype(np.int8)
    sk, sv = ss.sort_pairs(xp.asarray(k), xp.asarray(v))
    order = np.argsort(k, kind="stable")
    np.testing.assert_array_equal(xp.numpy(sv), v[order])


@pytest.mark.parametrize("dtype", ["int32", "bool", "float16", "float32", "float64"])
def test_in_place(xp, rng, dtype):
    k = keys_of(rng, dtype, 5000, 0)
    a = xp.asarray(k)
    ss.sort(a, out=a)
    np.testing.assert_array_equal(bits(xp.numpy(a)), bits(k[np.argsort(k, kind="stable")]))


def test_errors(xp):
    a = xp.asarray(np.arange(5000, dtype=np.int32))
    with pytest.raises(TypeError, match="keys"):
        ss.sort(xp.asarray(np.ones(4, np.complex64)))
    with pytest.raises(ValueError, match="keys"):
        ss.sort(xp.asarray(np.array(3, np.int32)))  # 0-d: no axis
    with pytest.raises(ValueError, match="begin_bit"):
        ss.sort(a, begin_bit=8, end_bit=40)
    with pytest.raises(ValueError, match="begin_bit"):
        ss.sort(xp.asarray(np.ones(4, np.float16)), end_bit=17)


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64", "uint8", "int64"])
def test_sort_along_every_axis(xp, rng, dtype):
    """n-d keys: each row along the axis sorted on its own, stably (as numpy's
    stable sort / argsort along that axis), both orders, dim= as torch's name."""
    if not supports(xp, dtype):
        pytest.skip(f"{xp} has no {dtype}")
    x = rng.integers(-6, 6, (4, 7, 5)).astype(dtype)  # few distinct: ties in every row
    if dtype.startswith("float"):
        x[0, 1, 2], x[1, 2, 3], x[2, 0, 0] = np.nan, -0.0, np.inf
    a = xp.asarray(x)
    for axis in (0, 1, 2, -1, -2):
        np.testing.assert_array_equal(xp.numpy(ss.sort(a, axis=axis)), np.sort(x, axis, kind="stable"),
                                      err_msg=f"axis {axis}")
        np.testing.assert_array_equal(xp.numpy(ss.argsort(a, dim=axis)), np.argsort(x, axis, kind="stable"),
                                      err_msg=f"dim {axis}")
        # Descending, stably: the stable ascending order of the negated keys (integers and no NaNs).
        if not dtype.startswith(("float", "uint")):
            want = np.argsort(-x, axis, kind="stable")
            np.testing.assert_array_equal(xp.numpy(ss.argsort(a, axis=axis, descending=True)), want)
        values = np.arange(x.size, dtype=np.int64).reshape(x.shape)
        k, v = ss.sort_pairs(a, xp.asarray(values), axis=axis)
        order = np.argsort(x, axis, kind="stable")
        np.testing.assert_array_equal(xp.numpy(k), np.take_along_axis(x, order, axis))
        np.testing.assert_array_equal(xp.numpy(v), np.take_along_axis(values, order, axis))
    out = xp.asarray(np.zeros_like(x))
    ss.sort(a, axis=0, out=out)
    np.testing.assert_array_equal(xp.numpy(out), np.sort(x, 0, kind="stable"))
    with pytest.raises(IndexError):
        ss.sort(a, axis=3)
    with pytest.raises(TypeError, match="axis, dim"):
        ss.argsort(a, axis=0, dim=1)


def test_sort_along_an_empty_axis(xp):
    a = xp.asarray(np.zeros((3, 0), np.int32))
    assert tuple(ss.sort(a, axis=1).shape) == (3, 0)
    assert tuple(ss.argsort(a, axis=0).shape) == (3, 0)
