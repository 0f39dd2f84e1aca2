// python/src/module.cpp - the extension module (nanobind): plain integers in,
// the calls of calls.hpp out. Arrays, dtypes, streams and allocation are the
// Python side's (streamscan/_core.py); this layer converts scalars, names the
// argument in every error and turns a streamscan::status into an exception.
// Compiled once per back end, as streamscan._cpu and streamscan._cuda.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#if defined(STREAMSCAN_PY_CUDA_MODULE)
#include <cuda_runtime.h>
#endif

#include <streamscan/scan_options.hpp>
#include <streamscan/select.hpp>
#include <streamscan/sort.hpp>
#include <streamscan/spmv.hpp>
#include <streamscan/tridiagonal.hpp>

#include "calls.hpp"
#include "types.hpp"

namespace nb = nanobind;

namespace streamscan::python {
namespace {

[[noreturn]] void raise(PyObject* type, const std::string& message) {
  PyErr_SetString(type, message.c_str());
  throw nb::python_error();
}

// A status as the exception a Python user expects.
void check(const status& s) {
  switch (s.code()) {
    case errc::success: return;
    case errc::invalid_argument:
    case errc::inaccessible_pointer: raise(PyExc_ValueError, s.message());
    case errc::zero_pivot: raise(PyExc_ZeroDivisionError, s.message());
    default: raise(PyExc_RuntimeError, s.message());
  }
}

template <class E>
E enum_arg(int value, int count, const char* name) {
  if (value < 0 || value >= count) raise(PyExc_ValueError, std::string(name) + ": unknown code " + std::to_string(value));
  return static_cast<E>(value);
}

dtype dtype_arg(int code, const char* name) { return enum_arg<dtype>(code, dtype_count, name); }

// A Python number as a value of type T, or TypeError / OverflowError naming
// the argument.
template <class T>
T number_as(nb::handle value, const char* name) {
  if constexpr (std::is_floating_point_v<T>) {
    const double v = PyFloat_AsDouble(value.ptr());
    if (v == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      raise(PyExc_TypeError, std::string(name) + ": expected a real number");
    }
    return static_cast<T>(v);
  } else {
    PyObject* index = PyNumber_Index(value.ptr());  // ints, numpy integers, bools; not floats
    if (index == nullptr) {
      PyErr_Clear();
      raise(PyExc_TypeError, std::string(name) + ": expected an integer for an integer dtype");
    }
    nb::object owned = nb::steal(index);
    bool fits = false;
    T out{};
    if constexpr (std::is_signed_v<T>) {
      int overflow = 0;
      const long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
      fits = overflow == 0 && v >= std::numeric_limits<T>::min() && v <= std::numeric_limits<T>::max();
      out = static_cast<T>(v);
    } else {
      const unsigned long long v = PyLong_AsUnsignedLongLong(index);
      if (PyErr_Occurred()) PyErr_Clear();
      else fits = v <= std::numeric_limits<T>::max();
      out = static_cast<T>(v);
    }
    if (!fits) raise(PyExc_OverflowError, std::string(name) + ": " + nb::str(value).c_str() + " does not fit the dtype");
    return out;
  }
}

template <class T>
scalar to_scalar(T v) {
  scalar s;
  std::memcpy(s.bytes, &v, sizeof v);
  return s;
}

// The identity of op for T: what an exclusive scan starts from by default.
template <class T>
T identity_of(op_code op) {
  switch (op) {
    case op_code::mul: return T(1);
    case op_code::max:
      return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                  : std::numeric_limits<T>::lowest();
    case op_code::min:
      return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                  : std::numeric_limits<T>::max();
    case op_code::bit_and:
      if constexpr (std::is_integral_v<T>) return static_cast<T>(~T(0));
      return T(0);  // not reached: bitwise operators take integers only
    default: return T(0);
  }
}

// `value` (none: op's identity) as a scalar of the number type t.
scalar scalar_arg(dtype t, const std::optional<nb::object>& value, op_code op, const char* name) {
  return visit_dtype(t, [&](auto tt) -> scalar {
    using T = typename decltype(tt)::type;
    if constexpr (is_number_v<T>) {
      return to_scalar<T>(value ? number_as<T>(*value, name) : identity_of<T>(op));
    } else {
      raise(PyExc_TypeError, std::string(name) + ": this dtype takes no scalar");
    }
  });
}

void* ptr(std::uintptr_t p) { return reinterpret_cast<void*>(p); }

// Runs a two-phase call: temp == 0 asks for the bytes, else runs. The GIL is
// released for the call (the CPU back end may take a while).
template <class Args, class Call>
std::size_t two_phase(Call call, const Args& args, std::uintptr_t temp, std::size_t temp_bytes, int device,
                      std::uintptr_t stream) {
  const launch l{device, stream};
  status s;
  {
    nb::gil_scoped_release release;
    s = call(args, ptr(temp), temp_bytes, l);
  }
  check(s);
  return temp == 0 ? temp_bytes : 0;
}

// The names of an enum's values, in order, by the library's to_string.
template <class E>
std::vector<std::string> names_of(int count) {
  std::vector<std::string> out;
  for (int i = 0; i < count; ++i) out.emplace_back(to_string(static_cast<E>(i)));
  return out;
}

std::size_t py_scan(std::uintptr_t in, std::uintptr_t out, std::int64_t n, int in_type, int acc_type, int op,
                    bool exclusive, const std::optional<nb::object>& init, int segments, std::uintptr_t segment_data,
                    std::int64_t num_segments, bool backward, int strategy, std::uintptr_t comm,
                    std::uintptr_t temp, std::size_t temp_bytes, int device, std::uintptr_t stream) {
  scan_args a;
  a.in = in;
  a.out = out;
  a.n = n;
  a.in_type = dtype_arg(in_type, "x");
  a.acc_type = dtype_arg(acc_type, "dtype");
  a.op = enum_arg<op_code>(op, op_count, "op");
  a.exclusive = exclusive;
  a.has_init = exclusive || init.has_value();
  if (a.has_init) a.init = scalar_arg(a.acc_type, init, a.op, "initial");
  a.segments = enum_arg<segments_kind>(segments, 3, "segments");
  a.segment_data = segment_data;
  a.num_segments = num_segments;
  a.backward = backward;
  a.strategy = strategy;
  a.comm = comm;
  return two_phase(&scan, a, temp, temp_bytes, device, stream);
}

std::size_t py_select(int kind, std::uintptr_t in, std::uintptr_t flags, std::uintptr_t out, std::uintptr_t num_out,
                      std::int64_t n, int type, int cmp, const std::optional<nb::object>& value, int strategy, std::uintptr_t temp,
                      std::size_t temp_bytes, int device, std::uintptr_t stream) {
  select_args a;
  a.kind = enum_arg<select_kind>(kind, 5, "kind");
  a.in = in;
  a.flags = flags;
  a.out = out;
  a.num_out = num_out;
  a.n = n;
  a.type = dtype_arg(type, "x");
  a.cmp = enum_arg<cmp_code>(cmp, cmp_count, "cmp");
  if (a.kind == select_kind::compare) {
    if (!value) raise(PyExc_TypeError, "value: select_if compares with a number, not None");
    a.value = scalar_arg(a.type, value, op_code::add, "value");
  }
  a.strategy = strategy;
  return two_phase(&select, a, temp, temp_bytes, device, stream);
}

std::size_t py_sort(std::uintptr_t keys_in, std::uintptr_t keys_out, std::uintptr_t values_in,
                    std::uintptr_t values_out, std::int64_t n, int key_type, int value_size, bool descending,
                    int begin_bit, int end_bit, int strategy, std::uintptr_t comm, std::int64_t capacity,
                    std::uintptr_t temp, std::size_t temp_bytes, int device, std::uintptr_t stream) {
  sort_args a;
  a.keys_in = keys_in;
  a.keys_out = keys_out;
  a.values_in = values_in;
  a.values_out = values_out;
  a.n = n;
  a.key_type = dtype_arg(key_type, "keys");
  a.value_size = value_size;
  a.descending = descending;
  a.begin_bit = begin_bit;
  a.end_bit = end_bit;
  a.strategy = strategy;
  a.comm = comm;
  a.capacity = capacity;
  return two_phase(&sort, a, temp, temp_bytes, device, stream);
}

std::size_t py_spmv(std::int64_t rows, std::int64_t cols, std::int64_t nnz, std::uintptr_t offsets,
                    std::uintptr_t indices, std::uintptr_t values, std::uintptr_t x, std::uintptr_t y, int index_type,
                    int value_type, double alpha, double beta, int strategy, std::uintptr_t temp,
                    std::size_t temp_bytes, int device, std::uintptr_t stream) {
  spmv_args a;
  a.rows = rows;
  a.cols = cols;
  a.nnz = nnz;
  a.offsets = offsets;
  a.indices = indices;
  a.values = values;
  a.x = x;
  a.y = y;
  a.index_type = dtype_arg(index_type, "A.indices");
  a.value_type = dtype_arg(value_type, "A.data");
  a.alpha = alpha;
  a.beta = beta;
  a.strategy = strategy;
  return two_phase(&spmv, a, temp, temp_bytes, device, stream);
}

std::size_t py_tridiagonal(std::int64_t n, std::int64_t batch_count, std::uintptr_t lower, std::uintptr_t diagonal,
                           std::uintptr_t upper, std::uintptr_t b, std::uintptr_t x, int type, bool checked,
                           int strategy, std::uintptr_t temp, std::size_t temp_bytes, int device,
                           std::uintptr_t stream) {
  tridiagonal_args a;
  a.n = n;
  a.batch_count = batch_count;
  a.lower = lower;
  a.diagonal = diagonal;
  a.upper = upper;
  a.b = b;
  a.x = x;
  a.type = dtype_arg(type, "b");
  a.checked = checked;
  a.strategy = strategy;
  return two_phase(&tridiagonal, a, temp, temp_bytes, device, stream);
}

// The linear recurrence (backward: its gradient; b is then dh and h the
// forward's h), over a strided layout of element offsets.
std::size_t py_linear_recurrence(bool backward, std::uintptr_t a, std::uintptr_t b, std::uintptr_t h,
                                 std::uintptr_t initial, std::uintptr_t grad_a, std::uintptr_t grad_b,
                                 std::uintptr_t grad_initial, std::int64_t batch_count, std::int64_t length,
                                 std::int64_t channels, std::int64_t time_stride, std::int64_t channel_stride,
                                 std::int64_t batch_stride, int type, bool reverse, std::uintptr_t temp,
                                 std::size_t temp_bytes, int device, std::uintptr_t stream) {
  recurrence_args r;
  r.backward = backward;
  r.a = a;
  r.b = b;
  r.h = h;
  r.initial = initial;
  r.grad_a = grad_a;
  r.grad_b = grad_b;
  r.grad_initial = grad_initial;
  r.batch_count = batch_count;
  r.length = length;
  r.channels = channels;
  r.time_stride = time_stride;
  r.channel_stride = channel_stride;
  r.batch_stride = batch_stride;
  r.type = dtype_arg(type, "a");
  r.reverse = reverse;
  return two_phase(&linear_recurrence, r, temp, temp_bytes, device, stream);
}

// Whether the work queued on `stream` is being captured into a CUDA graph: the
// Python side then allocates temp storage for the call instead of reusing the
// stream's kept buffer, whose address the graph would hold. An error (a query
// that capture forbids) answers yes.
bool stream_capturing(std::uintptr_t stream) {
#if defined(STREAMSCAN_PY_CUDA_MODULE)
  cudaStreamCaptureStatus state = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(reinterpret_cast<cudaStream_t>(stream), &state) != cudaSuccess) {
    cudaGetLastError();  // clear it: the call that follows reports its own errors
    return true;
  }
  return state != cudaStreamCaptureStatusNone;
#else
  (void)stream;
  return false;
#endif
}

#if defined(STREAMSCAN_PY_CUDA_MODULE)
// Kernels compiled at run time (streamscan.associative_scan; rtc_impl.hpp).
// The GPU module only: the host path compiles with the host's C++ compiler.
void define_rtc(nb::module_& m) {
  // (ok, log, cubin): NVRTC's messages whether or not it compiled.
  m.def("rtc_compile", [](const std::string& source, const std::string& name, const std::vector<std::string>& options) {
    rtc_program p;
    {
      nb::gil_scoped_release release;  // seconds of compiling
      p = rtc_compile(source, name, options);
    }
    if (!p.unavailable.empty()) raise(PyExc_RuntimeError, "streamscan.associative_scan: " + p.unavailable);
    return nb::make_tuple(p.ok, p.log, nb::bytes(p.cubin.data(), p.cubin.size()));
  });
  m.def("nvrtc_version", []() {
    int version = 0;
    check(rtc_nvrtc_version(version));
    return version;
  });
  m.def("device_arch", [](int device) {
    int arch = 0;
    check(rtc_device_arch(device, arch));
    return arch;
  });
  m.def("rtc_load", [](nb::bytes cubin, int device) {
    std::uintptr_t handle = 0;
    const std::string code(cubin.c_str(), cubin.size());
    status s;
    {
      nb::gil_scoped_release release;
      s = rtc_load(code, device, handle);
    }
    check(s);
    return handle;
  });
  // The toolkit's include folders this module was built with (where NVRTC may find libcu++).
  m.def("rtc_build_includes", []() -> std::vector<std::string> {
    std::vector<std::string> dirs;
    std::string all = STREAMSCAN_PY_CUDA_INCLUDE_DIRS;
    for (std::size_t start = 0; start <= all.size();) {
      const std::size_t end = std::min(all.find(';', start), all.size());
      if (end > start) dirs.push_back(all.substr(start, end - start));
      start = end + 1;
    }
    return dirs;
  });
  m.def("rtc_zip_scan", [](std::uintptr_t handle, const std::vector<std::uintptr_t>& in,
                           const std::vector<std::uintptr_t>& out, std::int64_t rows, std::int64_t length,
                           std::uintptr_t temp, std::size_t temp_bytes, int device, std::uintptr_t stream) {
    return two_phase(&rtc_zip_scan, rtc_zip_scan_args{handle, in, out, rows, length}, temp, temp_bytes, device, stream);
  });
}
#endif

}  // namespace

void define_module(nb::module_& m) {
  m.doc() = "streamscan's calls on raw addresses; use the functions of the streamscan package instead.";
  m.def("backend", &backend_name);
  m.def("strategies", [](const std::string& family) -> std::vector<std::string> {
    if (family == "scan") return names_of<scan_strategy>(5);
    if (family == "select") return names_of<select_strategy>(5);
    if (family == "sort") return names_of<sort_strategy>(3);
    if (family == "spmv") return names_of<spmv_strategy>(5);
    if (family == "tridiagonal") return names_of<tridiagonal_strategy>(8);
    raise(PyExc_ValueError, "family: one of scan, select, sort, spmv, tridiagonal");
  });
  m.def("scan_supported", [](int in, int acc, int op, bool segmented) {
    return scan_supported(dtype_arg(in, "x"), dtype_arg(acc, "dtype"), enum_arg<op_code>(op, op_count, "op"),
                          segmented);
  });
  m.def("select_supported", [](int type, int kind) {
    return select_supported(dtype_arg(type, "x"), enum_arg<select_kind>(kind, 5, "kind"));
  });
  m.def("sort_supported", [](int key, int value_size) { return sort_supported(dtype_arg(key, "keys"), value_size); });
  m.def("spmv_supported",
        [](int index, int value) { return spmv_supported(dtype_arg(index, "index"), dtype_arg(value, "value")); });
  m.def("tridiagonal_supported", [](int type) { return tridiagonal_supported(dtype_arg(type, "dtype")); });
  m.def("scan", &py_scan);
  m.def("ranked_scan_compiled", &ranked_scan_compiled);
  m.def("select", &py_select);
  m.def("sort", &py_sort);
  // (rank, every rank's n) of the communicator at `comm`.
  m.def("ranked_sizes", [](std::uintptr_t comm, std::int64_t n, int device, std::uintptr_t stream) {
    std::vector<std::int64_t> sizes;
    int rank = 0;
    status s;
    {
      nb::gil_scoped_release release;
      s = ranked_sizes(comm, n, sizes, rank, launch{device, stream});
    }
    check(s);
    return std::make_pair(rank, sizes);
  });
  m.def("spmv", &py_spmv);
  m.def("tridiagonal", &py_tridiagonal);
  m.def("linear_recurrence_supported", [](int type) { return linear_recurrence_supported(dtype_arg(type, "a")); });
  m.def("linear_recurrence", &py_linear_recurrence);
  m.def("stream_capturing", &stream_capturing);
#if defined(STREAMSCAN_PY_CUDA_MODULE)
  define_rtc(m);
#endif
}

}  // namespace streamscan::python

// The module's name is its back end's (python/CMakeLists.txt defines which).
#if defined(STREAMSCAN_PY_CUDA_MODULE)
NB_MODULE(_cuda, m) { streamscan::python::define_module(m); }
#else
NB_MODULE(_cpu, m) { streamscan::python::define_module(m); }
#endif
