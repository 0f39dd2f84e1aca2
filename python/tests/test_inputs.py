"""Arrays the back ends cannot take as they are. Where a call writes an argument (out=, an
in-place call, spmv's y), a read-only array (NumPy's flag, DLPack 1.0's read-only flag,
__cuda_array_interface__'s) raises ValueError naming it, and nothing is written. An input in
non-native byte order gives the native input's result, in native order; an output, a CuPy
array or a device array interface in that order raises TypeError naming the argument."""

import ctypes
import inspect

import numpy as np
import pytest

import streamscan as ss

from conftest import GPUS


def swapped(a):
    """a's values in the other byte order (bool has none)."""
    return a.astype(a.dtype.newbyteorder())


def _inputs(rng):
    lower, diag, upper, b = rng.standard_normal((4, 2, 6))
    diag += 8 * np.sign(diag)  # diagonally dominant: the solve is well-conditioned
    return {
        # values of every byte mixed in: a byte-order mix-up cannot give the same answer
        "x": rng.integers(-70_000, 70_000, 8).astype(np.int32),
        "rows": rng.integers(-70_000, 70_000, (2, 4)).astype(np.int32),
        "small": rng.integers(1, 4, 8).astype(np.int64),  # products stay in range
        "real": rng.standard_normal(8),
        "flags": np.array([1, 0, 0, 1, 0, 1, 0, 0], bool),
        "mask": rng.integers(0, 2, 8).astype(bool),
        "offsets": np.array([0, 3, 5, 8], np.int64),
        "values4": rng.standard_normal(8).astype(np.float32),
        "values2": rng.integers(-30_000, 30_000, 8).astype(np.int16),
        "indptr": np.array([0, 2, 3, 5], np.int32),
        "indptr64": np.array([0, 2, 3, 5], np.int64),
        "indices": np.array([0, 2, 1, 0, 3], np.int32),
        "data": rng.standard_normal(5),
        "vec": rng.standard_normal(4),
        "y": rng.standard_normal(3),
        "lower": lower, "diag": diag, "upper": upper, "b": b,
        "gates": rng.uniform(0.0, 1.0, (2, 4)), "drive": rng.standard_normal((2, 4)), "h0": rng.standard_normal(2),
    }


def _csr(indptr, indices, data):
    return (indptr, indices, data, (3, 4))


# Every call that writes an argument: id -> (the argument's name, the call given the
# inputs and the written array w, the input w takes the shape and dtype of). In-place calls
# take w as their input too.
WRITTEN = {
    "inclusive_scan": ("out", lambda a, w: ss.inclusive_scan(a["x"], out=w), "x"),
    "inclusive_scan-in-place": ("out", lambda a, w: ss.inclusive_scan(w, out=w), "x"),
    "exclusive_scan": ("out", lambda a, w: ss.exclusive_scan(a["x"], "max", out=w), "x"),
    "cumsum": ("out", lambda a, w: ss.cumsum(a["real"], out=w), "real"),
    "cumprod": ("out", lambda a, w: ss.cumprod(a["small"], out=w), "small"),
    "segmented_inclusive_scan": ("out", lambda a, w: ss.segmented_inclusive_scan(a["x"], flags=a["flags"], out=w),
                                 "x"),
    "segmented_exclusive_scan": ("out", lambda a, w: ss.segmented_exclusive_scan(a["x"], offsets=a["offsets"], out=w),
                                 "x"),
    "sort": ("out", lambda a, w: ss.sort(a["x"], out=w), "x"),
    "sort-in-place": ("out", lambda a, w: ss.sort(w, out=w), "x"),
    "spmv": ("y", lambda a, w: ss.spmv(_csr(a["indptr"], a["indices"], a["data"]), a["vec"], w, beta=0.5), "y"),
    "tridiagonal_solve": ("out", lambda a, w: ss.tridiagonal_solve(a["lower"], a["diag"], a["upper"], a["b"], out=w),
                          "b"),
    "tridiagonal_solve-in-place": ("out", lambda a, w: ss.tridiagonal_solve(a["lower"], a["diag"], a["upper"], w,
                                                                            out=w), "b"),
    "linear_recurrence": ("out", lambda a, w: ss.linear_recurrence(a["gates"], a["drive"], out=w), "drive"),
    "linear_recurrence-in-place": ("out", lambda a, w: ss.linear_recurrence(a["gates"], w, out=w), "drive"),
}

# Every public call: id -> (the call, its array arguments' keys in _inputs, their names).
READ = {
    "inclusive_scan": (lambda x: ss.inclusive_scan(x, "xor"), ["x"], ["x"]),
    "exclusive_scan": (lambda x: ss.exclusive_scan(x, "min"), ["x"], ["x"]),
    "cumsum": (ss.cumsum, ["real"], ["x"]),
    "cumsum-batched": (ss.cumsum, ["rows"], ["x"]),
    "cumprod": (ss.cumprod, ["small"], ["x"]),
    "segmented_inclusive_scan": (lambda x, f: ss.segmented_inclusive_scan(x, flags=f), ["x", "flags"],
                                 ["x", "flags"]),
    "segmented_exclusive_scan": (lambda x, s: ss.segmented_exclusive_scan(x, offsets=s), ["x", "offsets"],
                                 ["x", "offsets"]),
    "select": (ss.select, ["x", "mask"], ["x", "mask"]),
    "select_if": (lambda x: ss.select_if(x, ">", 0), ["x"], ["x"]),
    "flatnonzero": (ss.flatnonzero, ["mask"], ["mask"]),
    "split": (ss.split, ["x", "flags"], ["x", "flags"]),
    "partition": (ss.partition, ["real", "mask"], ["x", "mask"]),
    "sort": (ss.sort, ["x"], ["keys"]),
    "sort-float": (lambda k: ss.sort(k, descending=True), ["real"], ["keys"]),
    "argsort": (ss.argsort, ["x"], ["keys"]),
    "sort_pairs": (ss.sort_pairs, ["x", "values4"], ["keys", "values"]),
    "sort_pairs-2-byte-values": (ss.sort_pairs, ["real", "values2"], ["keys", "values"]),
    "spmv": (lambda p, i, d, v: ss.spmv(_csr(p, i, d), v), ["indptr", "indices", "data", "vec"],
             ["A.indptr", "A.indices", "A.data", "x"]),
    "spmv-index-widths": (lambda p, i, d, v: ss.spmv(_csr(p, i, d), v), ["indptr64", "indices", "data", "vec"],
                          ["A.indptr", "A.indices", "A.data", "x"]),
    "tridiagonal_solve": (ss.tridiagonal_solve, ["lower", "diag", "upper", "b"], ["lower", "diagonal", "upper", "b"]),
    "linear_recurrence": (ss.linear_recurrence, ["gates", "drive"], ["a", "b"]),
    "linear_recurrence-initial": (lambda a, b, i: ss.linear_recurrence(a, b, initial=i), ["gates", "drive", "h0"],
                                  ["a", "b", "initial"]),
    # (the names are patterns: xs[0] is matched as xs\[0\])
    "associative_scan": (lambda a, b: ss.associative_scan("return {x.a * y.a, y.a * x.b + y.b};", (a, b),
                                                          names=("a", "b")),
                         ["gates", "drive"], [r"xs\[0\]", r"xs\[1\]"]),
}


def test_every_public_call_is_covered():
    public = {name for name in ss.__all__ if callable(getattr(ss, name)) and not isinstance(getattr(ss, name), type)}
    assert public == {case.split("-")[0] for case in READ}
    writers = {name for name in public if {"out", "y"} & set(inspect.signature(getattr(ss, name)).parameters)}
    assert writers == {case.split("-")[0] for case in WRITTEN}


_capsule_name = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(("PyCapsule_GetName", ctypes.pythonapi))
_capsule_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))


def _versioned_flags(capsule):
    """The flags word of a DLPack 1.0 capsule, or None for an unversioned one."""
    if _capsule_name(capsule) != b"dltensor_versioned":
        return None
    # DLManagedTensorVersioned: version (two uint32), manager_ctx, deleter, flags
    return ctypes.c_uint64.from_address(_capsule_pointer(capsule, b"dltensor_versioned") + 24)


class DLPackExport:
    """An array seen only through DLPack, its read-only flag set where read_only."""

    def __init__(self, a, read_only):
        self.a, self.read_only = a, read_only

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()

    def __dlpack__(self, *args, **kwargs):
        capsule = self.a.__dlpack__(*args, **kwargs)
        if self.read_only:
            _versioned_flags(capsule).value |= 1  # DLPACK_FLAG_BITMASK_READ_ONLY
        return capsule


class ArrayInterface:
    """An array seen only through __cuda_array_interface__ (version 3)."""

    def __init__(self, owner, interface):
        self.owner, self.__cuda_array_interface__ = owner, interface


def exported(kind, xp, a, read_only):
    """a (of xp's library) as an argument of the given kind, read-only where asked, or a skip.
    NumPy's own kinds are arrays; the others are seen only through their protocol."""
    if kind in ("flag", "frombuffer"):
        if xp.name != "numpy":
            pytest.skip("NumPy's own read-only arrays")
        if not read_only:
            return a
        if kind == "frombuffer":  # over bytes, which nothing may write
            return np.frombuffer(a.tobytes(), a.dtype).reshape(a.shape)
        view = a.view()
        view.flags.writeable = False
        return view
    if kind == "dlpack":
        try:
            if _versioned_flags(a.__dlpack__(max_version=(1, 0))) is None:
                raise TypeError
        except TypeError:
            pytest.skip(f"{xp.name} exports no DLPack 1.0 tensors (no read-only flag)")
        return DLPackExport(a, read_only)
    assert kind == "cai"
    if not xp.gpu:
        pytest.skip("__cuda_array_interface__ describes device memory")
    interface = dict(a.__cuda_array_interface__)
    interface["data"] = (interface["data"][0], read_only)
    return ArrayInterface(a, interface)


@pytest.mark.parametrize("kind", ["flag", "frombuffer", "dlpack", "cai"])
@pytest.mark.parametrize("case", list(WRITTEN))
def test_read_only_output_is_refused(xp, rng, case, kind):
    name, call, like = WRITTEN[case]
    inputs = _inputs(rng)
    poison = np.full_like(inputs[like], 7)
    target = xp.asarray(poison)
    argument = exported(kind, xp, target, True)
    # The inputs seen the same way, so that they are of the library the argument is imported as.
    a = {key: exported(kind, xp, xp.asarray(value), False) for key, value in inputs.items()}
    with pytest.raises(ValueError, match=f"^{name}: the array is read-only$"):
        call(a, argument)
    xp.synchronize()
    np.testing.assert_array_equal(xp.numpy(target), poison)
    if kind == "frombuffer":
        np.testing.assert_array_equal(argument, poison)


def test_read_only_output_of_a_scan_across_ranks():
    # Refused before the communicator is looked at (1234 is no communicator).
    out = np.zeros(5, np.int64)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="^out: the array is read-only$"):
        ss.inclusive_scan(np.arange(5), out=out, comm=1234)


def test_read_only_inputs_and_writable_exports_are_taken(rng):
    x = np.frombuffer(rng.integers(-9, 9, 8).tobytes(), np.int64)
    assert not x.flags.writeable
    np.testing.assert_array_equal(ss.cumsum(x), np.cumsum(x))
    np.testing.assert_array_equal(ss.sort(x), np.sort(x))
    out = np.zeros(8, np.int64)
    ss.cumsum(x, out=DLPackExport(out, False))  # the same export, no read-only flag: written
    np.testing.assert_array_equal(out, np.cumsum(x))


def test_read_only_array_interface_on_the_host_path():
    # The interface is checked before anything reads it: address 0 is never touched.
    interface = {"shape": (8,), "typestr": "<i4", "data": (0, True), "version": 3}
    with pytest.raises(ValueError, match="^out: the array is read-only$"):
        ss.cumsum(np.arange(8, dtype=np.int32), out=ArrayInterface(None, interface))


def _results(r):
    return list(r) if isinstance(r, tuple) else [r]


@pytest.mark.parametrize("case", list(READ))
def test_non_native_input_gives_the_native_result(rng, case):
    call, keys, _ = READ[case]
    inputs = _inputs(rng)
    native = [inputs[key] for key in keys]
    other = [swapped(a) for a in native]
    if all(a.dtype.isnative for a in other):
        pytest.skip("bool arrays have no byte order")
    expected = _results(call(*native))
    got = _results(call(*other))
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        if isinstance(e, np.ndarray):
            assert g.dtype == e.dtype and g.dtype.isnative
        np.testing.assert_array_equal(g, e)
    for a, b in zip(other, native):  # the inputs are read, not converted in place
        np.testing.assert_array_equal(a, b)


def test_non_native_input_matches_numpy(rng):
    x = swapped(rng.integers(-10**6, 10**6, 1000).astype(np.int32))
    np.testing.assert_array_equal(ss.sort(np.array([5, 3, 9, 1], ">i4")), [1, 3, 5, 9])
    np.testing.assert_array_equal(ss.sort(x), np.sort(x))
    np.testing.assert_array_equal(ss.argsort(x), np.argsort(x, kind="stable"))
    np.testing.assert_array_equal(ss.cumsum(x, dtype=np.int64), np.cumsum(x))
    np.testing.assert_array_equal(ss.select(x, x > 0), x[x > 0])
    np.testing.assert_array_equal(ss.select_if(x, "<", 5), x[x < 5])
    f = swapped(rng.standard_normal(1000))
    np.testing.assert_array_equal(ss.sort(f), np.sort(f))
    np.testing.assert_allclose(ss.cumsum(f), np.cumsum(f), rtol=1e-12, atol=1e-9)
    assert ss.sort(x).dtype == np.dtype(np.int32)


@pytest.mark.parametrize("case", list(WRITTEN))
def test_non_native_output_is_refused(rng, case):
    name, call, like = WRITTEN[case]
    inputs = _inputs(rng)
    poison = swapped(np.full_like(inputs[like], 7))
    target = poison.copy()
    with pytest.raises(TypeError, match=f"^{name}: dtype {poison.dtype.str} is in non-native byte order"):
        call(inputs, target)
    assert target.tobytes() == poison.tobytes()


def _device_swapped(kind, a):
    """a in non-native byte order as a device array of the given kind, or a skip."""
    if kind == "interface":  # on the host path too: it is refused before anything reads it
        typestr = a.dtype.newbyteorder().str
        return ArrayInterface(None, {"shape": a.shape, "typestr": typestr, "data": (0, False), "version": 3})
    if not GPUS:
        pytest.skip("no GPU")
    cupy = pytest.importorskip("cupy")
    try:
        c = cupy.asarray(a).view(a.dtype.newbyteorder())
    except Exception as e:  # a CuPy that makes no such arrays
        pytest.skip(f"cupy: {e}")
    if c.dtype.isnative:
        pytest.skip("this CuPy makes no arrays in non-native byte order")
    return c


@pytest.mark.parametrize("kind", ["interface", "cupy"])
@pytest.mark.parametrize("case", list(READ))
def test_non_native_device_array_is_refused(rng, case, kind):
    call, keys, names = READ[case]
    inputs = _inputs(rng)
    which = next((i for i, key in enumerate(keys) if inputs[key].dtype != bool), None)
    if which is None:
        pytest.skip("bool arrays have no byte order")
    args = [inputs[key] for key in keys]
    swapped_arg = _device_swapped(kind, inputs[keys[which]])
    if kind == "cupy":  # the others on the device too, so that only the byte order is wrong
        cupy = pytest.importorskip("cupy")
        args = [cupy.asarray(a) for a in args]
    args[which] = swapped_arg
    with pytest.raises(TypeError, match=f"^{names[which]}: dtype [<>]\\S+ is in non-native byte order"):
        call(*args)
