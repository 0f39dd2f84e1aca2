"""Radix sorts against NumPy's stable sort."""

import numpy as np
import pytest

import streamscan as ss
from conftest import supports

KEYS = ["uint8", "int8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32", "float64"]
SIZES = [0, 1, 1023, 1025, 300_001]


def keys_of(rng, dtype, n, distinct):
    if dtype.startswith("float"):
        return (rng.integers(-(distinct or 10**6), distinct or 10**6, n) * 0.25).astype(dtype)
    info = np.iinfo(dtype)
    if distinct:
        return rng.integers(max(info.min, -distinct), min(info.max, distinct), n, dtype=dtype, endpoint=True)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


def stable_order(keys, descending):
    if not descending:
        return np.argsort(keys, kind="stable")
    # Descending and stable: equal keys keep their input order.
    ranks = np.unique(keys, return_inverse=True)[1]
    return np.argsort(-ranks.astype(np.int64), kind="stable")


@pytest.mark.parametrize("dtype", KEYS)
@pytest.mark.parametrize("descending", [False, True], ids=["ascending", "descending"])
def test_sort_argsort_pairs(xp, rng, dtype, descending):
    if not supports(xp, dtype) or (xp.name.startswith("torch") and dtype.startswith("uint") and dtype != "uint8"):
        pytest.skip(f"{xp} has no {dtype}")
    for n in SIZES:
        for distinct in (0, 5):
            k = keys_of(rng, dtype, n, distinct)
            order = stable_order(k, descending)
            got = ss.sort(xp.asarray(k), descending=descending)
            np.testing.assert_array_equal(xp.numpy(got), k[order])
            np.testing.assert_array_equal(xp.numpy(ss.argsort(xp.asarray(k), descending=descending)), order)
            v = rng.integers(0, 1 << 30, n).astype(np.int32)
            sk, sv = ss.sort_pairs(xp.asarray(k), xp.asarray(v), descending=descending)
            np.testing.assert_array_equal(xp.numpy(sk), k[order])
            np.testing.assert_array_equal(xp.numpy(sv), v[order])


def test_pairs_with_small_values_go_through_argsort(xp, rng):
    k = rng.integers(0, 50, 10_000).astype(np.int32)
    v = rng.integers(0, 100, 10_000).astype(np.int8)
    sk, sv = ss.sort_pairs(xp.asarray(k), xp.asarray(v))
    order = np.argsort(k, kind="stable")
    np.testing.assert_array_equal(xp.numpy(sv), v[order])


def test_bit_range(xp, rng):
    k = rng.integers(0, 1 << 31, 50_000).astype(np.int64)
    got = ss.argsort(xp.asarray(k), begin_bit=4, end_bit=12)
    np.testing.assert_array_equal(xp.numpy(got), np.argsort((k >> 4) & 0xFF, kind="stable"))


def test_float_special_values(xp):
    k = np.array([np.inf, -0.0, 0.0, -np.inf, 1.5, -1.5, 0.0, -0.0], np.float32)
    got = xp.numpy(ss.sort(xp.asarray(k)))
    np.testing.assert_array_equal(np.signbit(got), [True, True, True, True, False, False, False, False])
    np.testing.assert_array_equal(got, [-np.inf, -1.5, -0.0, -0.0, 0.0, 0.0, 1.5, np.inf])


def test_in_place_and_errors(xp, rng):
    k = rng.integers(0, 1000, 5000).astype(np.int32)
    a = xp.asarray(k)
    ss.sort(a, out=a)
    np.testing.assert_array_equal(xp.numpy(a), np.sort(k))
    with pytest.raises(TypeError, match="keys"):
        ss.sort(xp.asarray(np.ones(4, bool)))
    with pytest.raises(ValueError, match="keys"):
        ss.sort(xp.asarray(np.ones((2, 2), np.int32)))
    with pytest.raises(ValueError, match="begin_bit"):
        ss.sort(a, begin_bit=8, end_bit=40)
