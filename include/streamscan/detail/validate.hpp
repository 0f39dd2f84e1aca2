// streamscan/detail/validate.hpp - argument checks shared by every back end.
//
// Each check runs before any work is queued, so a rejected call writes nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "../status.hpp"

namespace streamscan::detail {

template <class It>
bool is_null_pointer(const It& it) {
  if constexpr (std::is_pointer_v<It>) {
    return it == nullptr;
  } else {
    (void)it;
    return false;  // fancy iterators have no null state we can see
  }
}

// n >= 0 and, when n > 0, neither input nor output is a null pointer. A size
// query (`query`: temp == nullptr) may pass null data pointers, so that temp
// storage can be sized before the data is allocated.
template <class InIt, class OutIt>
status validate_range_args(const char* fn, const InIt& in, const OutIt& out, std::int64_t n, bool query) {
  if (n < 0) return invalid_argument(fn, "argument 'n' is negative (" + std::to_string(n) + ")");
  if (query) return status::ok();
  if (n > 0 && is_null_pointer(in))
    return invalid_argument(fn, "argument 'in' is a null pointer while n = " + std::to_string(n));
  if (n > 0 && is_null_pointer(out))
    return invalid_argument(fn, "argument 'out' is a null pointer while n = " + std::to_string(n));
  return status::ok();
}

// A further array argument (flags, heads, a second output): not a null
// pointer when the call has work to do (n > 0, not a size query).
template <class It>
status validate_array_arg(const char* fn, const It& it, const char* name, std::int64_t n, bool query) {
  if (query || n <= 0 || !is_null_pointer(it)) return status::ok();
  return invalid_argument(fn, std::string("argument '") + name + "' is a null pointer while n = " + std::to_string(n));
}

inline status validate_temp_bytes(const char* fn, std::size_t given, std::size_t required) {
  if (given < required)
    return status(errc::temp_storage_too_small,
                  std::string(fn) + ": argument 'temp_bytes' is " + std::to_string(given) +
                      " but this call needs " + std::to_string(required) +
                      " bytes (query with temp == nullptr first)");
  return status::ok();
}

// The opening every two-phase call shares. temp == nullptr makes the call a
// size query: temp_bytes becomes `required` and the call ends. Otherwise
// temp_bytes must cover `required`. `done` says the caller returns `result`:
//   if (auto t = size_query_or_check(fn, temp, temp_bytes, required); t.done) return t.result;
struct temp_phase {
  status result;
  bool done;
};

inline temp_phase size_query_or_check(const char* fn, const void* temp, std::size_t& temp_bytes,
                                      std::size_t required) {
  if (temp == nullptr) {
    temp_bytes = required;
    return {status::ok(), true};
  }
  status s = validate_temp_bytes(fn, temp_bytes, required);
  const bool failed = !s;
  return {std::move(s), failed};
}

// Bytes needed for `count` objects of T in temp storage, rounded up so that the
// next object placed after them stays aligned. Never returns 0: a zero-byte
// temp buffer could legitimately be null, which would read as a size query.
template <class T>
constexpr std::size_t temp_bytes_for(std::int64_t count) {
  constexpr std::size_t align = 256;
  std::size_t bytes = static_cast<std::size_t>(count) * sizeof(T);
  bytes = (bytes + align - 1) / align * align;
  return bytes == 0 ? 1 : bytes;
}

}  // namespace streamscan::detail
