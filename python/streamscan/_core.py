"""Arrays, dtypes, streams and temp storage: what every call needs.

An input is taken as it comes (NumPy, CuPy or PyTorch) and described once by
its library's adapter: where it lives, its address, dtype, shape and element
strides. Outputs and temp storage are allocated by that same library (NumPy,
CuPy's memory pool, PyTorch's caching allocator), so a call returns arrays of
the caller's library and never calls cudaMalloc itself. Other arrays are
imported without a copy: through DLPack (``__dlpack__``) or the CUDA array
interface, as CuPy (device) or NumPy (host) arrays; the result goes back to the
input's library where that library has ``from_dlpack``.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import importlib
import inspect
import sys
import warnings
from typing import Any, Callable, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from . import _cpu

_cuda_import_error = ""
try:  # the GPU back end is built where nvcc was found
    from . import _cuda
except ImportError as e:  # pragma: no cover - depends on the build
    _cuda = None
    # Not built (no such module), or built but not loadable (a library it needs, such as
    # libnccl.so.2, not found): the error says which.
    _cuda_import_error = str(e)

# dtype codes: the order of calls.hpp's enum.
DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "bfloat16", "float32", "float64")
CODE = {name: i for i, name in enumerate(DTYPES)}
INTEGERS = frozenset(("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"))
FLOATS = frozenset(("float16", "bfloat16", "float32", "float64"))
ITEMSIZE = {"bool": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8, "uint8": 1, "uint16": 2, "uint32": 4,
            "uint64": 8, "float16": 2, "bfloat16": 2, "float32": 4, "float64": 8}


class Array(NamedTuple):
    """An array as the back ends see it."""

    obj: Any            # the library's own array (CuPy, torch or NumPy)
    lib: "Library"
    cuda: bool          # device memory (else host memory)
    device: int
    ptr: int
    dtype: str          # a name of DTYPES, or the library's own name when unsupported
    shape: Tuple[int, ...]
    contiguous: bool    # C order
    back: Optional[Callable[[Any], Any]]  # converts a result back to a foreign library


class Library:
    """What streamscan needs of an array library; one subclass each."""

    name = ""

    def describe(self, x: Any, back=None) -> Array:
        raise NotImplementedError

    def checked(self, x: Any, name: str, written: bool, back=None) -> Array:
        """x described as argument `name`, which the call writes where `written`:
        raises for what the library can tell is read-only or in non-native byte order."""
        return self.describe(x, back)

    def empty(self, like: Array, shape: Sequence[int], dtype: str) -> Any:
        raise NotImplementedError

    def new(self, like: Array, shape: Sequence[int], dtype: str) -> Array:
        """A new C-contiguous array where like lives, described."""
        return self.describe(self.empty(like, shape, dtype), like.back)

    def temp(self, like: Array, nbytes: int) -> Tuple[Any, int]:
        """Temp storage of nbytes (at least one) where like lives: (owner, address)."""
        owner = self.empty(like, (max(nbytes, 1),), "uint8")
        return owner, self.describe(owner).ptr

    def stream(self, like: Array, stream: Any) -> int:
        return 0 if stream is None else raw_stream(stream)

    def on_stream(self, like: Array, stream: Any) -> Any:
        """A context in which `stream` is like's library's current stream (on
        like's device), so that what the call allocates belongs to that stream."""
        raw_stream(stream)  # checked even where there are no streams
        return contextlib.nullcontext()

    def contiguous(self, a: Array) -> Array:
        raise NotImplementedError

    def astype(self, a: Array, dtype: str) -> Array:
        raise NotImplementedError

    def arange(self, like: Array, stop: int, step: int) -> Array:
        raise NotImplementedError

    def take(self, a: Array, indices: Array) -> Array:
        return self.describe(a.obj[indices.obj])

    def moveaxis(self, a: Array, source: int, destination: int) -> Array:
        """A view of a with axis `source` moved to `destination` (numpy.moveaxis, torch.movedim)."""
        module = getattr(self, "cupy", None) or np
        return self.describe(module.moveaxis(a.obj, source, destination), a.back)

    def reshape(self, a: Array, shape: Sequence[int]) -> Array:
        """a with another shape, a view where its layout allows."""
        return self.describe(a.obj.reshape(tuple(shape)), a.back)

    def item(self, a: Array) -> int:
        return int(a.obj[0])


def _contiguous_strides(shape: Sequence[int], itemsize: int, strides: Sequence[int]) -> bool:
    expected = itemsize
    for extent, stride in zip(reversed(shape), reversed(strides)):
        if extent != 1 and stride != expected:
            return False
        expected *= extent
    return True


class NumpyLibrary(Library):
    name = "numpy"

    def __init__(self):
        self.names = {}  # dtype -> name (dtype.name is slow)

    def describe(self, x, back=None):
        dt = x.dtype
        name = self.names.get(dt)
        if name is None:
            name = self.names[dt] = dt.name
        return Array(x, self, False, 0, x.__array_interface__["data"][0], name, x.shape,
                     x.flags.c_contiguous, back)

    def checked(self, x, name, written, back=None):
        if written and not x.flags.writeable:
            raise ValueError(read_only(name))
        if not x.dtype.isnative:  # the back ends read and write native order only
            if written:
                raise TypeError(non_native(name, x.dtype.str))
            x = x.astype(x.dtype.newbyteorder("="))
        return self.describe(x, back)

    def empty(self, like, shape, dtype):
        return np.empty(shape, dtype=_numpy_dtype(dtype))

    def new(self, like, shape, dtype):
        x = np.empty(shape, dtype=_numpy_dtype(dtype))
        return Array(x, self, False, 0, x.__array_interface__["data"][0], dtype, tuple(shape), True, like.back)

    def temp(self, like, nbytes):
        owner = np.empty(max(nbytes, 1), dtype=np.uint8)
        return owner, owner.__array_interface__["data"][0]

    def contiguous(self, a):
        return self.describe(np.ascontiguousarray(a.obj), a.back)

    def astype(self, a, dtype):
        return self.describe(np.ascontiguousarray(a.obj, dtype=_numpy_dtype(dtype)), a.back)

    def arange(self, like, stop, step):
        return self.describe(np.arange(0, stop, step, dtype=np.int64))


def _numpy_dtype(name: str):
    if name == "bfloat16":  # NumPy has none; ml_dtypes adds one
        import ml_dtypes  # noqa: PLC0415
        return ml_dtypes.bfloat16
    return np.dtype(name)


class CupyLibrary(Library):
    name = "cupy"

    def __init__(self):
        import cupy  # noqa: PLC0415
        self.cupy = cupy
        self.names = {}

    def describe(self, x, back=None):
        dt = x.dtype
        name = self.names.get(dt)
        if name is None:
            name = self.names[dt] = dt.name
        return Array(x, self, True, x.device.id, x.data.ptr, name, x.shape,
                     x.flags.c_contiguous, back)

    def checked(self, x, name, written, back=None):
        if not x.dtype.isnative:  # refused, not converted: CuPy's own casts ignore byte order
            raise TypeError(non_native(name, x.dtype.str))
        return self.describe(x, back)

    def temp(self, like, nbytes):
        with self.cupy.cuda.Device(like.device):
            owner = self.cupy.empty(max(nbytes, 1), dtype=self.cupy.uint8)
        return owner, owner.data.ptr

    def empty(self, like, shape, dtype):
        with self.cupy.cuda.Device(like.device):
            return self.cupy.empty(shape, dtype=_numpy_dtype(dtype))

    def stream(self, like, stream):
        if stream is None:
            with self.cupy.cuda.Device(like.device):
                return self.cupy.cuda.get_current_stream().ptr
        return raw_stream(stream)

    def on_stream(self, like, stream):
        handle = raw_stream(stream)
        if handle == self.stream(like, None):
            return contextlib.nullcontext()
        return _cupy_stream_scope(self.cupy, like.device, handle)

    def contiguous(self, a):
        with self.cupy.cuda.Device(a.device):
            return self.describe(self.cupy.ascontiguousarray(a.obj), a.back)

    def astype(self, a, dtype):
        with self.cupy.cuda.Device(a.device):
            return self.describe(self.cupy.ascontiguousarray(a.obj.astype(_numpy_dtype(dtype))), a.back)

    def arange(self, like, stop, step):
        with self.cupy.cuda.Device(like.device):
            return self.describe(self.cupy.arange(0, stop, step, dtype=self.cupy.int64))

    def item(self, a):
        return int(a.obj[0].item())


@contextlib.contextmanager
def _cupy_stream_scope(cupy, device: int, handle: int):
    with cupy.cuda.Device(device):
        with warnings.catch_warnings():  # CuPy 14 deprecates ExternalStream for Stream.from_external
            warnings.simplefilter("ignore", DeprecationWarning)
            stream = cupy.cuda.ExternalStream(handle, device)
        with stream:
            yield


class TorchLibrary(Library):
    name = "torch"

    def __init__(self):
        import torch  # noqa: PLC0415
        self.torch = torch
        # The current stream's handle without making a Stream object (the
        # public torch.cuda.current_stream() costs microseconds a call).
        self.raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        self.names = {}
        self.dtypes = {}
        for name in DTYPES:
            dt = getattr(torch, name, None)
            if dt is not None:
                self.names[dt] = name
                self.dtypes[name] = dt

    def describe(self, x, back=None):
        cuda = x.is_cuda
        name = self.names.get(x.dtype)
        if name is None:
            name = str(x.dtype).replace("torch.", "")
        return Array(x, self, cuda, x.get_device() if cuda else 0, x.data_ptr(), name, tuple(x.shape),
                     x.is_contiguous(), back)

    # Tensor.new_empty: where `like` lives without making a torch.device each call.
    def empty(self, like, shape, dtype):
        return like.obj.new_empty(shape, dtype=self.dtypes[dtype])

    def new(self, like, shape, dtype):
        t = like.obj.new_empty(shape, dtype=self.dtypes[dtype])
        return Array(t, self, like.cuda, like.device, t.data_ptr(), dtype, tuple(shape), True, like.back)

    def temp(self, like, nbytes):
        t = like.obj.new_empty((max(nbytes, 1),), dtype=self.torch.uint8)
        return t, t.data_ptr()

    def stream(self, like, stream):
        if stream is None:
            if not like.cuda:
                return 0
            if self.raw_stream is not None:
                return self.raw_stream(like.device)
            return self.torch.cuda.current_stream(like.device).cuda_stream
        return raw_stream(stream)

    def on_stream(self, like, stream):
        handle = raw_stream(stream)
        if not like.cuda or handle == self.stream(like, None):
            return contextlib.nullcontext()
        torch = self.torch
        return torch.cuda.stream(torch.cuda.ExternalStream(handle, device=like.obj.device))

    def contiguous(self, a):
        return self.describe(a.obj.contiguous(), a.back)

    def moveaxis(self, a, source, destination):
        return self.describe(a.obj.movedim(source, destination), a.back)

    def astype(self, a, dtype):
        return self.describe(a.obj.to(self.dtypes[dtype]).contiguous(), a.back)

    def arange(self, like, stop, step):
        return self.describe(self.torch.arange(0, stop, step, dtype=self.torch.int64, device=like.obj.device))

    def item(self, a):
        return int(a.obj[0].item())


_libraries = {}


def _library(name: str) -> Library:
    lib = _libraries.get(name)
    if lib is None:
        lib = {"numpy": NumpyLibrary, "cupy": CupyLibrary, "torch": TorchLibrary}[name]()
        _libraries[name] = lib
    return lib


def _foreign_back(x: Any) -> Optional[Callable[[Any], Any]]:
    """The input library's from_dlpack, to hand a result back to it."""
    root = type(x).__module__.split(".")[0]
    module = sys.modules.get(root)
    for candidate in (module, getattr(module, "numpy", None), getattr(module, "dlpack", None)):
        convert = getattr(candidate, "from_dlpack", None)
        if convert is not None:
            return convert
    return None


def as_array(x: Any, name: str, written: bool = False) -> Array:
    """Describes x (any array), or raises TypeError naming the argument.

    Every argument is described here, so the checks of what the back ends cannot
    take are made here, once for every call: where the call writes the argument
    (written: out=, spmv's y), a read-only array raises ValueError; an input in
    non-native byte order (NumPy) is described as a native copy, one written to
    raises TypeError, and so does a device array in that order (CuPy cannot
    convert it).
    """
    module = type(x).__module__
    if module == "numpy":
        return _library("numpy").checked(x, name, written)
    if module.startswith("torch"):  # no read-only tensors, no byte orders
        return _library("torch").describe(x)
    if module.startswith("cupy"):
        return _library("cupy").checked(x, name, written)
    if hasattr(x, "__cuda_array_interface__"):
        interface = x.__cuda_array_interface__
        if written and interface["data"][1]:
            raise ValueError(read_only(name))
        if not np.dtype(interface["typestr"]).isnative:  # CuPy refuses it too, naming no argument
            raise TypeError(non_native(name, interface["typestr"]))
        cupy = _library("cupy").cupy
        return _library("cupy").describe(cupy.asarray(x), _foreign_back(x))
    if hasattr(x, "__dlpack__"):
        device_type, _ = x.__dlpack_device__()
        exported = _Exported(x) if written else x
        if device_type in (2, 13):  # kDLCUDA, kDLCUDAManaged
            cupy = _library("cupy").cupy
            a = _library("cupy").checked(cupy.from_dlpack(exported), name, written, _foreign_back(x))
        elif device_type in (1, 3):  # kDLCPU, kDLCUDAHost
            a = _library("numpy").checked(np.from_dlpack(exported), name, written, _foreign_back(x))
        else:
            raise TypeError(f"{name}: arrays on DLPack device type {device_type} are not supported")
        if written and exported.read_only:
            raise ValueError(read_only(name))
        return a
    if isinstance(x, (list, tuple, int, float, bool)):
        return _library("numpy").describe(np.asarray(x))
    raise TypeError(f"{name}: expected an array (NumPy, CuPy, PyTorch, or one with __dlpack__ or "
                    f"__cuda_array_interface__), got {type(x).__name__}")


def read_only(name: str) -> str:
    return f"{name}: the array is read-only"


def non_native(name: str, dtype: str) -> str:
    return f"{name}: dtype {dtype} is in non-native byte order (convert it with .astype(dtype.newbyteorder('=')))"


class _Exported:
    """x's DLPack export, handed on to the importing library as it asks for it,
    noting the read-only flag of a versioned (DLPack 1.0) tensor: CuPy imports
    such a tensor as a writable array."""

    def __init__(self, x: Any):
        self.x = x
        self.read_only = False

    def __dlpack_device__(self):
        return self.x.__dlpack_device__()

    def __dlpack__(self, *args, **kwargs):
        capsule = self.x.__dlpack__(*args, **kwargs)
        self.read_only = _capsule_read_only(capsule)
        return capsule


# The capsule's C API through private prototypes (not ctypes.pythonapi's shared
# functions, whose argument types others may set).
_capsule_name = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(("PyCapsule_GetName", ctypes.pythonapi))
_capsule_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))


def _capsule_read_only(capsule: Any) -> bool:
    if _capsule_name(capsule) != b"dltensor_versioned":
        return False  # an unversioned tensor has no flags
    address = _capsule_pointer(capsule, b"dltensor_versioned")
    # DLManagedTensorVersioned: version (two uint32), manager_ctx, deleter, then the uint64 flags.
    flags = ctypes.c_uint64.from_address(address + 24).value
    return bool(flags & 1)  # DLPACK_FLAG_BITMASK_READ_ONLY


def result(a: Array, obj: Any) -> Any:
    """obj (of a's library) as the caller's type."""
    return obj if a.back is None else a.back(obj)


def backend(a: Array):
    """The extension module for a's memory."""
    if not a.cuda:
        return _cpu
    if _cuda is None:
        raise RuntimeError("streamscan's CUDA module is missing or could not be loaded, so device arrays cannot be "
                           f"used (importing streamscan._cuda: {_cuda_import_error})")
    return _cuda


def same_place(first: Array, other: Optional[Array], name: str) -> None:
    """ValueError naming `name` unless other lives where first does."""
    if other is None:
        return
    if other.lib is not first.lib:
        raise ValueError(f"{name}: a {other.lib.name} array where the input is a {first.lib.name} array")
    if other.cuda != first.cuda or other.device != first.device:
        where = lambda a: f"cuda:{a.device}" if a.cuda else "the host"  # noqa: E731
        raise ValueError(f"{name}: on {where(other)}, the input is on {where(first)} (device mismatch)")


def dtype_code(a: Array, name: str, allowed=None) -> int:
    """The dtype code of a, or TypeError naming the argument."""
    code = CODE.get(a.dtype)
    if code is None or (allowed is not None and a.dtype not in allowed):
        what = "supported dtypes" if allowed is None else ", ".join(sorted(allowed))
        raise TypeError(f"{name}: dtype {a.dtype} is not supported (expected {what})")
    return code


def raw_stream(stream: Any) -> int:
    """A CUDA stream handle from an int, a torch or CuPy stream, or __cuda_stream__."""
    if isinstance(stream, int):
        return stream
    protocol = getattr(stream, "__cuda_stream__", None)
    if protocol is not None:
        return int(protocol()[1])
    for attribute in ("cuda_stream", "ptr", "handle"):
        value = getattr(stream, attribute, None)
        if isinstance(value, int):
            return value
    raise TypeError(f"stream: expected a CUDA stream (int handle, torch.cuda.Stream, cupy.cuda.Stream or an "
                    f"object with __cuda_stream__), got {type(stream).__name__}")


def output(like: Array, out: Any, shape: Sequence[int], dtype: str, name: str = "out") -> Array:
    """out checked against the shape and dtype a call writes, or a new array."""
    if out is None:
        return like.lib.new(like, shape, dtype)
    o = as_array(out, name, written=True)
    same_place(like, o, name)
    if tuple(o.shape) != tuple(shape):
        raise ValueError(f"{name}: shape {tuple(o.shape)}, expected {tuple(shape)}")
    if o.dtype != dtype:
        raise TypeError(f"{name}: dtype {o.dtype}, expected {dtype}")
    if not o.contiguous:
        raise ValueError(f"{name}: must be C-contiguous")
    return o


_temp_bytes = {}

# Temp storage of up to _KEEP_TEMP bytes is kept from call to call, one buffer a
# (library, device, stream): the calls queued on one stream run in order, so the
# next call may use it again at once, and allocating it anew would cost the host
# microseconds a call. Not while the stream is captured into a CUDA graph (the
# graph would hold its address), and not on the host (threads are not ordered).
_KEEP_TEMP = 1 << 20
_kept_temp = {}


def _temp(a: Array, handle: int, nbytes: int) -> Tuple[Any, int]:
    if not a.cuda or nbytes > _KEEP_TEMP or _cuda.stream_capturing(handle):
        return a.lib.temp(a, nbytes)
    key = (a.lib, a.device, handle)
    kept = _kept_temp.get(key)
    if kept is None or kept[2] < nbytes:
        if len(_kept_temp) >= 64:  # streams come and go: forget them all now and then
            _kept_temp.clear()
        size = max(nbytes, 4096)
        owner, address = a.lib.temp(a, size)
        kept = _kept_temp[key] = (owner, address, size)
    return kept[0], kept[1]


def run(module_call: Callable[..., int], a: Array, stream: Any, *args, key: Optional[tuple] = None,
        nbytes: Optional[int] = None) -> int:
    """A two-phase call: ask for the temp bytes, take them from a's library
    (or the stream's kept buffer), run on the caller's stream. args end where
    temp begins. A `key` (everything but the addresses that the temp size
    depends on: sizes, types, operator, strategy) lets a repeated call skip the
    query; the library promises the same size for the same n, strategy and
    device. `nbytes`, where the caller already knows it, skips both. Returns
    the temp bytes."""
    handle = a.lib.stream(a, stream)
    if nbytes is None and key is not None:
        nbytes = _temp_bytes.get((module_call, a.device) + key)
    if nbytes is None:
        nbytes = module_call(*args, 0, 0, a.device, handle)
        if key is not None:
            if len(_temp_bytes) > 4096:
                _temp_bytes.clear()
            _temp_bytes[(module_call, a.device) + key] = nbytes
    owner, address = _temp(a, handle, nbytes)
    module_call(*args, address, nbytes, a.device, handle)
    del owner  # a new buffer is freed after the call is queued: the caching allocators order it on the stream
    return nbytes


def on_callers_stream(array_arg: str):
    """Decorates a public call whose `stream=` argument, where given, becomes
    the current stream of the array library of argument `array_arg` for the
    call: its outputs and temp storage are then allocated on that stream, and
    anything it reads back (a count) is read there."""
    def wrap(fn):
        position = list(inspect.signature(fn).parameters).index(array_arg)

        @functools.wraps(fn)
        def call(*args, **kwargs):
            stream = kwargs.get("stream")
            if stream is None:
                return fn(*args, **kwargs)
            x = args[position] if position < len(args) else kwargs.get(array_arg)
            a = as_array(x, array_arg)
            with a.lib.on_stream(a, stream):
                kwargs["stream"] = None
                return fn(*args, **kwargs)
        return call
    return wrap


def strategy_code(family: str, strategy: Optional[str]) -> int:
    if strategy is None:
        return 0
    names = _strategies(family)
    if strategy not in names:
        raise ValueError(f"strategy: {strategy!r} is not one of {', '.join(names)}")
    return names.index(strategy)


_strategy_names = {}


def _strategies(family: str):
    names = _strategy_names.get(family)
    if names is None:
        names = _strategy_names[family] = list(_cpu.strategies(family))
    return names


_AxisError = getattr(getattr(np, "exceptions", np), "AxisError")


def axis_or_dim(axis: Any, dim: Any, default: Any) -> Tuple[Any, Any]:
    """(axis, dim) as given, but dim (torch's name) stands in for an axis left
    at its default, so that only two different axes given both conflict."""
    if dim is not None and (axis is default or axis == default):
        return dim, None
    return axis, dim


def normalize_axis(axis: Any, dim: Any, ndim: int, name: str = "axis") -> int:
    """The axis a call runs along, from NumPy's `axis` or torch's `dim` (the same
    thing; give one), negative counting from the end, as a non-negative index."""
    if dim is not None:
        if axis is not None and axis != dim:
            raise TypeError(f"axis, dim: two different axes ({axis} and {dim}); dim is torch's name for axis")
        axis, name = dim, "dim"
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{name}: expected an integer, got {type(axis).__name__}")
    if ndim == 0:
        raise ValueError(f"{name}: a 0-d array has no axis")
    if not -ndim <= axis < ndim:
        raise _AxisError(int(axis), ndim, name)  # NumPy's: a ValueError and an IndexError
    return int(axis) % ndim


def rows_of(a: Array) -> Tuple[int, int]:
    """(rows, n) of an array scanned along its last axis."""
    if len(a.shape) == 0:
        raise ValueError("x: a 0-d array has no axis to scan")
    n = a.shape[-1]
    rows = 1
    for extent in a.shape[:-1]:
        rows *= extent
    return rows, n


def import_library(name: str):
    """The module of an optional array library, or None."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None
