"""streamscan.associative_scan: the caller's operator as C++ source, compiled at
run time (NVRTC for device arrays, the host C++ compiler for NumPy and torch
CPU tensors), on every array library, against naive float64 loops written here
(apart from the implementation): non-commutative operators (the linear
recurrence's pair, 2x2 matrix products, an arg-max whose ties make order
matter, with mixed dtypes), lengths around the tiles, batched rows along any
axis, reverse, keep=, the compile error naming the operator's line, the caches,
and errors naming the argument. Inputs are fresh random data from the run's
logged seed (conftest.py)."""

import math
import re
import uuid

import numpy as np
import pytest

import streamscan as ss
from streamscan import _associative

PAIR = "return {x.a * y.a, y.a * x.b + y.b};"  # (a1, b1) then (a2, b2): h -> a2 (a1 h + b1) + b2
MATRIX = ("return {x.m00 * y.m00 + x.m01 * y.m10, x.m00 * y.m01 + x.m01 * y.m11,\n"
          "        x.m10 * y.m00 + x.m11 * y.m10, x.m10 * y.m01 + x.m11 * y.m11};")  # x @ y
ARGMAX = "return y.v > x.v ? y : x;"  # the first of the largest: ties keep the earlier one
EPS = {"float32": 2.0 ** -24, "float64": 2.0 ** -53}
# Lengths around the tiles of the struct sizes used here (a tile is 128 threads x
# up to 64 values: 512 to 4096 positions) and past many tiles.
LENGTHS = [0, 1, 2, 31, 511, 512, 513, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097, 3 * 4096 + 5, 65536 + 17]


def host(xp, a):
    return np.asarray(xp.numpy(a))


# --- oracles: naive loops in float64, one step at a time ----------------------

def recurrence_oracle(a, b, reverse):
    """(h, m) along the last axis: h[t] = a[t] h[t-1] + b[t], m the same with |a|, |b| (the size of h's terms)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    h, m = np.zeros(a.shape[:-1]), np.zeros(a.shape[:-1])
    hs, ms = np.empty_like(a), np.empty_like(a)
    steps = range(a.shape[-1] - 1, -1, -1) if reverse else range(a.shape[-1])
    for t in steps:
        h = a[..., t] * h + b[..., t]
        m = np.abs(a[..., t]) * m + np.abs(b[..., t])
        hs[..., t], ms[..., t] = h, m
    return hs, ms


def matrix_oracle(ms):
    """Prefix products m[0] @ m[1] @ ... @ m[t] along axis 0 of ms (shape (T, 2, 2)), in float64."""
    out = np.empty_like(ms, dtype=np.float64)
    acc = np.eye(2)
    for t in range(ms.shape[0]):
        acc = acc @ ms[t].astype(np.float64)
        out[t] = acc
    return out


def argmax_oracle(v):
    """(running max, index of its first occurrence) along a 1-d array."""
    best, at = np.empty(len(v)), np.empty(len(v), np.int64)
    for t in range(len(v)):
        if t == 0 or v[t] > best[t - 1]:
            best[t], at[t] = v[t], t
        else:
            best[t], at[t] = best[t - 1], at[t - 1]
    return best, at


def assert_recurrence(got, a, b, reverse, dtype):
    """got (time last) within the float error bound of the float64 recurrence on the same stored inputs."""
    want, m = recurrence_oracle(a, b, reverse)
    length = a.shape[-1]
    tol = EPS[dtype] * (64 + 8 * math.log2(length + 1))
    err = np.abs(np.asarray(got, np.float64) - want)
    bad = ~(err <= tol * m + 1e-300)
    assert not bad.any(), (f"{bad.sum()} of {bad.size} past the bound (dtype {dtype}, reverse {reverse}, shape "
                           f"{a.shape}); first at {tuple(np.argwhere(bad)[0])}: got {np.asarray(got)[bad][0]}, "
                           f"want {want[bad][0]} within {(tol * m)[bad][0]}")


def draw_pair(rng, shape, wide, dtype):
    a = rng.uniform(-1.2, 1.2, shape) if wide else rng.uniform(0.0, 1.0, shape)
    b = rng.uniform(-1.0, 1.0, shape)
    return a.astype(dtype), b.astype(dtype)


# --- the linear recurrence's pair ------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("wide", [False, True], ids=["gates01", "gates1.2"])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("shape,axis", [((3, 5, 700), -1), ((3, 5, 700), 1), ((700, 3, 5), 0), ((3000, 4), -2),
                                        ((9000,), 0)])
def test_pair_matches_a_float64_recurrence(xp, rng, dtype, wide, reverse, shape, axis):
    a, b = draw_pair(rng, shape, wide, dtype)
    h = ss.associative_scan(PAIR, (xp.asarray(a), xp.asarray(b)), axis=axis, reverse=reverse, names=("a", "b"),
                            keep="b")
    assert xp.is_native(h), f"the result is a {type(h).__module__} array, not the caller's {xp.name}"
    got = host(xp, h)
    assert got.shape == shape and got.dtype == np.dtype(dtype), (got.shape, got.dtype)
    assert_recurrence(np.moveaxis(got, axis, -1), np.moveaxis(a, axis, -1), np.moveaxis(b, axis, -1), reverse, dtype)


@pytest.mark.parametrize("length", LENGTHS)
def test_lengths(xp, rng, length):
    a, b = draw_pair(rng, (length,), False, "float32")
    h = ss.associative_scan(PAIR, (xp.asarray(a), xp.asarray(b)), names="a b", keep="b")
    assert host(xp, h).shape == (length,)
    assert_recurrence(host(xp, h), a, b, False, "float32")
    # Integers are exact: the sum equals NumPy's cumsum at every position (two rows, the second reversed).
    x = rng.integers(-1000, 1000, (2, length), dtype=np.int64)
    got = host(xp, ss.associative_scan("return x + y;", xp.asarray(x)))
    np.testing.assert_array_equal(got, np.cumsum(x, axis=-1), err_msg=f"integer sum, length {length}")
    back = host(xp, ss.associative_scan("return x + y;", xp.asarray(x), reverse=True))
    np.testing.assert_array_equal(back, np.cumsum(x[:, ::-1], axis=-1)[:, ::-1],
                                  err_msg=f"reversed integer sum, length {length}")


def test_a_large_random_size(xp, rng):
    length = int(rng.integers(200_000, 600_000))
    a, b = draw_pair(rng, (2, length), False, "float32")
    print(f"length {length}")
    h = ss.associative_scan(PAIR, (xp.asarray(a), xp.asarray(b)), names=("a", "b"), keep=1)
    assert_recurrence(host(xp, h), a, b, False, "float32")


@pytest.mark.parametrize("reverse", [False, True])
def test_both_fields_are_the_scan_of_pairs(xp, rng, reverse):
    """Without keep=, every field comes back: a's is the running product of the gates."""
    a, b = draw_pair(rng, (4, 777), False, "float64")
    pa, h = ss.associative_scan(PAIR, (xp.asarray(a), xp.asarray(b)), reverse=reverse, names=("a", "b"))
    want = np.cumprod(a[:, ::-1], axis=-1)[:, ::-1] if reverse else np.cumprod(a, axis=-1)
    np.testing.assert_allclose(host(xp, pa), want, rtol=1e-12, atol=1e-300, err_msg="the gates' running product")
    assert_recurrence(host(xp, h), a, b, reverse, "float64")


def as16(xp, a, dtype):
    """float32 values as an array of xp in a 16-bit float dtype (conftest makes bfloat16 from float32)."""
    return xp.asarray(a.astype(np.float32), "bfloat16") if dtype == "bfloat16" else xp.asarray(a.astype(dtype))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("length", [1, 2047, 2049, 20000])
def test_16_bit_fields_with_float32_state(xp, rng, dtype, reverse, length):
    """16-bit fields are floats in the struct: the state stays float32, each output rounded once."""
    from conftest import supports
    if not supports(xp, dtype):
        pytest.skip(f"{xp.name} has no {dtype}")
    a, b = draw_pair(rng, (3, length), False, "float32")
    aa, bb = as16(xp, a, dtype), as16(xp, b, dtype)
    a64, b64 = host(xp, aa).astype(np.float64), host(xp, bb).astype(np.float64)  # what the call reads
    h = ss.associative_scan(PAIR, (aa, bb), reverse=reverse, names=("a", "b"), keep="b")
    assert str(h.dtype).endswith(dtype), f"the result's dtype is {h.dtype}, not {dtype}"
    want, m = recurrence_oracle(a64, b64, reverse)
    got = host(xp, h).astype(np.float64)
    storage = {"float16": 2.0 ** -11, "bfloat16": 2.0 ** -8}[dtype]  # one rounding of the output
    bound = storage * np.abs(want) + EPS["float32"] * (64 + 8 * math.log2(length + 1)) * m + 2.0 ** -24
    bad = ~(np.abs(got - want) <= bound)
    assert not bad.any(), (f"{bad.sum()} of {bad.size} past the bound ({dtype}, reverse {reverse}, length "
                           f"{length}); first at {tuple(np.argwhere(bad)[0])}: got {got[bad][0]}, want "
                           f"{want[bad][0]} within {bound[bad][0]}")


def test_16_bit_conversions_round_to_nearest_even(xp):
    """The identity operator on 16-bit fields gives back the stored values exactly (NaN, inf, subnormals, the
    largest finite values), and float32 fields written to float16 by an operator round as NumPy/torch do."""
    from conftest import supports
    for dtype in ("float16", "bfloat16"):
        if not supports(xp, dtype):
            continue
        special = np.array([0.0, -0.0, 1.0, -2.5, 65504.0, -65504.0, 6.1e-5, 5.96e-8, 1e-7, 3.0e38, np.inf,
                            -np.inf, np.nan, 1.0 / 3.0], np.float32)
        if dtype == "float16":
            special = special[np.abs(special) <= 65504.0]
        x = as16(xp, special, dtype)
        got = host(xp, ss.associative_scan("return y;", x))  # the last value: each element itself
        np.testing.assert_array_equal(got.astype(np.float64), host(xp, x).astype(np.float64),
                                      err_msg=f"{dtype} values did not come back unchanged")
    # float32 -> float16 rounding at ties (to even), overflow to inf and subnormals, through a float16 field
    # written from the float32 field's value.
    if supports(xp, "float16"):
        f = np.array([0.0, 1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11, 65519.0, 65520.0, 1e6, 3e-8, 2.0 ** -25, 1.5 * 2.0 ** -25,
                      -7.5e-5, 1.0 / 3.0], np.float32)
        zero = np.zeros_like(f).astype(np.float16)
        out = ss.associative_scan("return {y.w, y.w};", (xp.asarray(zero), xp.asarray(f)), names=("h", "w"),
                                  keep="h")
        with np.errstate(over="ignore"):
            want = f.astype(np.float16)
        # (position 0 is the input itself, not an operator's result)
        np.testing.assert_array_equal(host(xp, out)[1:], want[1:], err_msg="float32 to float16 rounding")


# --- other non-commutative operators ------------------------------------------------

def orthogonal(rng, n):
    """n random 2x2 orthogonal matrices, rotations and reflections (they do not commute; products stay of norm 1)."""
    theta = rng.uniform(0, 2 * np.pi, n)
    c, s = np.cos(theta), np.sin(theta)
    flip = rng.random(n) < 0.5
    m = np.empty((n, 2, 2))
    m[:, 0, 0], m[:, 0, 1] = c, np.where(flip, s, -s)
    m[:, 1, 0], m[:, 1, 1] = s, np.where(flip, -c, c)
    return m


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("length", [1, 513, 5000])
def test_matrix_products(xp, rng, dtype, length):
    m = orthogonal(rng, length).astype(dtype)
    fields = tuple(xp.asarray(np.ascontiguousarray(m[:, i, j])) for i in range(2) for j in range(2))
    out = ss.associative_scan(MATRIX, fields, names=("m00", "m01", "m10", "m11"))
    got = np.stack([host(xp, f) for f in out], axis=-1).reshape(length, 2, 2)
    want = matrix_oracle(m)
    tol = EPS[dtype] * (64 + 16 * math.log2(length + 1)) * 4
    err = np.abs(got - want).max(axis=(1, 2))
    assert (err <= tol).all(), f"matrix product {int(np.argmax(err))} off by {err.max()} (bound {tol})"
    if length > 1:  # the check can tell the order: the products the other way round differ
        swapped = matrix_oracle(m.transpose(0, 2, 1)).transpose(0, 2, 1)  # m[t] @ ... @ m[0]
        assert np.abs(swapped - want).max() > 100 * tol


@pytest.mark.parametrize("length", [1, 1023, 1024, 1025, 7777])
@pytest.mark.parametrize("reverse", [False, True])
def test_argmax_with_mixed_dtypes(xp, rng, length, reverse):
    v = rng.integers(0, 50, length).astype(np.float32)  # many ties: which one wins depends on the order
    idx = np.arange(length, dtype=np.int64)
    best, at = ss.associative_scan(ARGMAX, (xp.asarray(v), xp.asarray(idx)), reverse=reverse, names=("v", "i"))
    if reverse:
        want_best, want_at = argmax_oracle(v[::-1])
        want_best, want_at = want_best[::-1], (length - 1 - want_at)[::-1]
    else:
        want_best, want_at = argmax_oracle(v)
    assert host(xp, at).dtype == np.int64 and host(xp, best).dtype == np.float32
    np.testing.assert_array_equal(host(xp, best), want_best, err_msg="running maximum")
    np.testing.assert_array_equal(host(xp, at), want_at, err_msg="index of the first maximum (scan order)")


# --- batched rows, axes, keep, one array ------------------------------------------------

@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2, -3])
@pytest.mark.parametrize("reverse", [False, True])
def test_batched_rows_along_any_axis(xp, rng, axis, reverse):
    x = rng.integers(-100, 100, (3, 5, 1030), dtype=np.int32)
    moved = np.moveaxis(x, axis, -1)
    want = np.cumsum(moved[..., ::-1], axis=-1)[..., ::-1] if reverse else np.cumsum(moved, axis=-1)
    got = host(xp, ss.associative_scan("return x + y;", xp.asarray(x), axis=axis, reverse=reverse))
    assert got.shape == x.shape
    np.testing.assert_array_equal(np.moveaxis(got, axis, -1), want.astype(np.int32),
                                  err_msg=f"axis {axis}, reverse {reverse}")


# --- one warp a row (the default; STREAMSCAN_ASSOCIATIVE_ROWS=lookback leaves it out) ---

def sm_count(xp):
    if xp.name.startswith("cupy"):
        import cupy
        return cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)["multiProcessorCount"]
    import torch
    return torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("length", [64, 520])  # within one chunk; several and a partial one (either width)
def test_one_warp_a_row_by_default(xp, rng, monkeypatch, dtype, reverse, length):
    if not xp.gpu:
        pytest.skip("one warp a row is the GPU's kernel")
    monkeypatch.delenv(_associative.ROWS_ENV, raising=False)
    from streamscan import _core
    lead = (3, 8 * sm_count(xp) + 1)  # at least 24 rows an SM: zip_chunk_plan's rule takes them
    rows = lead[0] * lead[1]
    a, b = draw_pair(rng, lead + (length,), True, dtype)
    xa = xp.asarray(a)
    h = ss.associative_scan(PAIR, (xa, xp.asarray(b)), reverse=reverse, names=("a", "b"), keep="b")
    assert_recurrence(host(xp, h), a, b, reverse, dtype)
    # The module holds both entries; the chunk one takes these rows (no temp storage), not few rows or
    # rows of a length that is not a whole number of vectors (the look-back kernel's temp storage).
    first = _core.as_array(xa, "xa")
    module = _core.backend(first)
    handle = _associative._known[(first.device, reverse, True, (PAIR, ("a", "b"), (dtype, dtype), False))]

    def temp_bytes(r, t):
        return module.rtc_zip_scan(handle, [0, 0], [0, 0], r, t, 0, 0, first.device, 0)
    assert temp_bytes(rows, length) == 0
    assert temp_bytes(5, length) > 0
    assert temp_bytes(rows, length + 1) > 0
    # and those other calls still scan right, from the same module
    for shape in ((5, length), (rows, 37)):
        a2, b2 = draw_pair(rng, shape, True, dtype)
        h2 = ss.associative_scan(PAIR, (xp.asarray(a2), xp.asarray(b2)), reverse=reverse, names=("a", "b"),
                                 keep="b")
        assert_recurrence(host(xp, h2), a2, b2, reverse, dtype)


def test_rows_env_var(monkeypatch):
    for value, want in (("", True), ("lookback", False), ("warps", True)):
        monkeypatch.setenv(_associative.ROWS_ENV, value)
        assert _associative._rows_by_warps() is want
    monkeypatch.delenv(_associative.ROWS_ENV)
    assert _associative._rows_by_warps() is True
    monkeypatch.setenv(_associative.ROWS_ENV, "warp")
    with pytest.raises(ValueError, match="STREAMSCAN_ASSOCIATIVE_ROWS"):
        _associative._rows_by_warps()


def test_the_warps_source_is_another_module():
    spec = _associative._Spec(PAIR, ("a", "b"), ("float32", "bfloat16"), False)
    for backward in (False, True):
        plain, warps = spec.device_source(backward), spec.device_source(backward, True)
        assert "streamscan_zip_rows_chunks" not in plain
        assert warps.startswith(plain) and "zip_rows_chunks<streamscan_value, streamscan_combine, " + \
            ("true" if backward else "false") in warps
        assert "__nv_bfloat16>" in warps.split("streamscan_chunks")[1]  # the same fields as the look-back entry
        # the source is hashed into the cache key: the two never share a cubin


def test_non_contiguous_inputs(xp, rng):
    x = rng.integers(-100, 100, (6, 2000), dtype=np.int64)
    arr = xp.asarray(x)[::2, 3:]  # a strided view, offset from the allocation
    got = host(xp, ss.associative_scan("return x + y;", arr))
    np.testing.assert_array_equal(got, np.cumsum(x[::2, 3:], axis=-1))


def test_keep(xp, rng):
    a, b = draw_pair(rng, (2, 300), False, "float64")
    args = (xp.asarray(a), xp.asarray(b))
    pa, h = ss.associative_scan(PAIR, args, names=("a", "b"))
    for keep in ("b", 1, -1):
        one = ss.associative_scan(PAIR, args, names=("a", "b"), keep=keep)
        assert not isinstance(one, tuple), f"keep={keep!r}: one field is one array"
        np.testing.assert_array_equal(host(xp, one), host(xp, h))
    both = ss.associative_scan(PAIR, args, names=("a", "b"), keep=["b", "a"])
    assert isinstance(both, tuple) and len(both) == 2
    np.testing.assert_array_equal(host(xp, both[0]), host(xp, h))
    np.testing.assert_array_equal(host(xp, both[1]), host(xp, pa))
    listed = ss.associative_scan(PAIR, args, names=("a", "b"), keep=["b"])
    assert isinstance(listed, tuple) and len(listed) == 1, "keep as a list gives a tuple"


def test_default_names_and_one_array(xp, rng):
    a, b = draw_pair(rng, (50,), False, "float32")
    h = ss.associative_scan("return {x.f0 * y.f0, y.f0 * x.f1 + y.f1};", (xp.asarray(a), xp.asarray(b)), keep=1)
    assert_recurrence(host(xp, h), a, b, False, "float32")
    x = rng.uniform(-5, 5, 100)
    got = host(xp, ss.associative_scan("return max(x, y);", xp.asarray(x)))
    np.testing.assert_array_equal(got, np.maximum.accumulate(x))
    # One array with names=: a struct of one field.
    got = ss.associative_scan("return {x.s + y.s};", xp.asarray(x), names=("s",))
    assert not isinstance(got, tuple)
    np.testing.assert_allclose(host(xp, got), np.cumsum(x), rtol=1e-12, atol=1e-9)
    got = ss.associative_scan("return {x.s + y.s};", (xp.asarray(x),), names=("s",))
    assert isinstance(got, tuple) and len(got) == 1, "a tuple of one array gives a tuple of one"


@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                                   "float32", "float64"])
def test_every_dtype(xp, rng, dtype):
    from conftest import supports
    if not supports(xp, dtype):
        pytest.skip(f"{xp.name} has no {dtype}")
    if dtype == "bool":
        x = rng.random(3000) < 0.002
        op, want = "return x || y;", np.logical_or.accumulate(x)
    else:
        x = rng.integers(0, 3, 3000).astype(dtype)
        op, want = "return x > y ? x : y;", np.maximum.accumulate(x)
    got = host(xp, ss.associative_scan(op, xp.asarray(x)))
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 5), (2, 0, 4)])
def test_empty(xp, shape):
    x = xp.asarray(np.zeros(shape, np.float32))
    got = ss.associative_scan("return x + y;", (x, x), axis=-1, names=("p", "q"))
    assert [host(xp, g).shape for g in got] == [shape, shape]


# --- compile errors and the caches ------------------------------------------------

def test_a_broken_operator_names_its_line(xp):
    x = xp.asarray(np.ones(10, np.float32))
    body = "value r = x;\nr.a = x.a * y.c;  // no field c\nreturn r;"
    with pytest.raises(ss.CompileError) as info:
        ss.associative_scan(body, (x, x), names=("a", "b"))
    message = str(info.value)
    assert isinstance(info.value, ValueError)
    assert re.search(r"combine[(:]2\b", message), f"the error does not name the operator's line 2:\n{message}"
    assert info.value.log and re.search(r"combine[(:]2\b", info.value.log)


def test_the_second_call_hits_the_cache(xp, tmp_path, monkeypatch):
    monkeypatch.setenv("STREAMSCAN_CACHE_DIR", str(tmp_path))
    op = f"return x + y;  // {uuid.uuid4().hex}"  # an operator no cache has seen
    x = np.arange(100, dtype=np.int32)
    before = _associative.cache_info()
    ss.associative_scan(op, xp.asarray(x))
    after_first = _associative.cache_info()
    assert after_first["compiled"] == before["compiled"] + 1, (before, after_first)
    files = list(tmp_path.glob("combine-*"))
    assert len(files) == 1, f"one compiled file in the cache folder, found {files}"
    got = ss.associative_scan(op, xp.asarray(x))
    after_second = _associative.cache_info()
    assert after_second["compiled"] == after_first["compiled"], "the second call compiled again"
    assert after_second["memory_hits"] == after_first["memory_hits"] + 1
    np.testing.assert_array_equal(host(xp, got), np.cumsum(x))
    _associative.clear_memory_cache()  # as a new process would: the disk cache serves it
    got = ss.associative_scan(op, xp.asarray(x))
    after_third = _associative.cache_info()
    assert after_third["compiled"] == after_first["compiled"], "compiled again though the disk cache had it"
    assert after_third["disk_hits"] == after_second["disk_hits"] + 1
    np.testing.assert_array_equal(host(xp, got), np.cumsum(x))
    assert not list(tmp_path.glob("*.tmp")), "a temporary file was left behind"


# --- errors name the argument ------------------------------------------------

def test_errors_name_the_argument(xp):
    x = xp.asarray(np.ones((4, 5), np.float32))
    y = xp.asarray(np.ones((4, 6), np.float32))
    with pytest.raises(ValueError, match=r"xs\[1\]: shape"):
        ss.associative_scan(PAIR, (x, y), names=("a", "b"))
    with pytest.raises(TypeError, match="xs: expected a tuple"):
        ss.associative_scan(PAIR, {"a": x, "b": x})
    with pytest.raises(TypeError, match="xs: expected a tuple"):
        ss.associative_scan(PAIR, 3)
    with pytest.raises(ValueError, match="xs: an empty tuple"):
        ss.associative_scan(PAIR, ())
    with pytest.raises(TypeError, match=r"xs\[0\]: dtype"):
        ss.associative_scan("return x + y;", (np.ones(3, np.complex64),))
    with pytest.raises(TypeError, match=r"xs\[1\]: dtype complex64 is not supported"):
        ss.associative_scan(PAIR, (x, xp.asarray(np.ones((4, 5), np.complex64))), names=("a", "b"))
    with pytest.raises(TypeError, match="combine: expected C\\+\\+ source"):
        ss.associative_scan(lambda x, y: x + y, x)
    with pytest.raises(ValueError, match="names: 1 names for 2"):
        ss.associative_scan(PAIR, (x, x), names=("a",))
    with pytest.raises(ValueError, match="names: 'a-b' is not"):
        ss.associative_scan(PAIR, (x, x), names=("a-b", "c"))
    with pytest.raises(ValueError, match="names: repeated"):
        ss.associative_scan(PAIR, (x, x), names=("a", "a"))
    with pytest.raises(ValueError, match="keep: no field named 'c'"):
        ss.associative_scan(PAIR, (x, x), names=("a", "b"), keep="c")
    with pytest.raises(ValueError, match="keep: index 2"):
        ss.associative_scan(PAIR, (x, x), names=("a", "b"), keep=2)
    with pytest.raises(ValueError, match="axis"):
        ss.associative_scan(PAIR, (x, x), axis=2, names=("a", "b"))
    with pytest.raises(ValueError, match=r"xs\[1\]: a numpy array|xs\[1\]: on"):
        other = np.ones((4, 5), np.float32)
        if xp.name == "numpy":
            pytest.skip("the input is already NumPy")
        ss.associative_scan(PAIR, (x, other), names=("a", "b"))


def test_on_the_callers_stream(xp, rng):
    """Device arrays: the scan is queued on the library's current stream (a side stream here)."""
    if not xp.gpu:
        pytest.skip("host arrays have no stream")
    x = rng.integers(-100, 100, (8, 50_000), dtype=np.int64)
    if xp.name == "cupy":
        import cupy
        s = cupy.cuda.Stream(non_blocking=True)
        with s:
            arr = cupy.asarray(x)
            got = ss.associative_scan("return x + y;", arr)
        s.synchronize()
    else:
        import torch
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            arr = torch.from_numpy(x).cuda()
            got = ss.associative_scan("return x + y;", arr)
        s.synchronize()
    np.testing.assert_array_equal(host(xp, got), np.cumsum(x, axis=-1))
