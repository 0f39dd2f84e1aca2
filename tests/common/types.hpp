// Value types and operators the tests scan with. Host and device callable.
#pragma once

#include <cstdint>
#include <cstring>
#include <ostream>

#include <streamscan/config.hpp>
#include <streamscan/operators.hpp>

namespace streamscan_test {

// A 16-byte struct with a commutative, element-wise operator.
struct vec4i {
  std::int32_t x, y, z, w;
  friend bool operator==(const vec4i& a, const vec4i& b) {
    return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;
  }
  friend std::ostream& operator<<(std::ostream& os, const vec4i& v) {
    return os << '(' << v.x << ',' << v.y << ',' << v.z << ',' << v.w << ')';
  }
};
struct vec4i_plus {
  STREAMSCAN_HOST_DEVICE vec4i operator()(const vec4i& a, const vec4i& b) const {
    return {a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w};
  }
};

// A 16-byte struct with a non-commutative operator: 2x2 matrix product modulo
// 2^32. Any order mistake (op(b, a) for op(a, b)) changes the result.
struct mat2u {
  std::uint32_t a, b, c, d;
  friend bool operator==(const mat2u& p, const mat2u& q) {
    return p.a == q.a && p.b == q.b && p.c == q.c && p.d == q.d;
  }
  friend std::ostream& operator<<(std::ostream& os, const mat2u& m) {
    return os << '[' << m.a << ',' << m.b << ';' << m.c << ',' << m.d << ']';
  }
};
struct mat2u_product {
  STREAMSCAN_HOST_DEVICE mat2u operator()(const mat2u& p, const mat2u& q) const {
    return {p.a * q.a + p.b * q.c, p.a * q.b + p.b * q.d, p.c * q.a + p.d * q.c, p.c * q.b + p.d * q.d};
  }
};

// Affine maps x -> a*x + b modulo 2^(8*sizeof(W)), 4 bytes (W = uint16_t) or
// 8 bytes (W = uint32_t): non-commutative operators on the value sizes that
// fit the packed status word. affine_compose(f, g) = g after f.
template <class W>
struct affine {
  W a, b;
  friend bool operator==(const affine& p, const affine& q) { return p.a == q.a && p.b == q.b; }
  friend std::ostream& operator<<(std::ostream& os, const affine& f) {
    return os << '(' << +f.a << "x+" << +f.b << ')';
  }
};
struct affine_compose {
  template <class W>
  STREAMSCAN_HOST_DEVICE affine<W> operator()(const affine<W>& f, const affine<W>& g) const {
    using U = std::uint32_t;  // uint16_t products would overflow int after promotion
    return {static_cast<W>(U(g.a) * U(f.a)), static_cast<W>(U(g.a) * U(f.b) + U(g.b))};
  }
};

// A 12-byte value (paired status words, no 16-byte vectors): an affine map
// x -> a*x + b modulo 2^32 and a count of the maps composed. Non-commutative.
struct affine3u {
  std::uint32_t a, b, count;
  friend bool operator==(const affine3u& p, const affine3u& q) {
    return p.a == q.a && p.b == q.b && p.count == q.count;
  }
  friend std::ostream& operator<<(std::ostream& os, const affine3u& f) {
    return os << '(' << f.a << "x+" << f.b << ", " << f.count << ')';
  }
};
static_assert(sizeof(affine3u) == 12);
struct affine3u_compose {  // g after f
  STREAMSCAN_HOST_DEVICE affine3u operator()(const affine3u& f, const affine3u& g) const {
    return {g.a * f.a, g.a * f.b + g.b, f.count + g.count};
  }
};

// Non-commutative on a scalar: "take the right one" (op(a, b) = b) is associative;
// an inclusive scan with it copies the input, an exclusive scan shifts it by one.
struct take_right {
  template <class T>
  STREAMSCAN_HOST_DEVICE T operator()(const T&, const T& b) const {
    return b;
  }
};

}  // namespace streamscan_test
