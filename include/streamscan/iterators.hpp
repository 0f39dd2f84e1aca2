// streamscan/iterators.hpp - input iterators that compute their values, so
// that an algorithm can be written by composition (ModernGPU's
// transform_segreduce, Thrust's fancy iterators): a sparse matrix-vector
// product is a segmented reduction of a transform_iterator over the
// non-zeros, a segment index a counting_iterator. Shared by every back end;
// host and device callable; no CUDA.
//
// Each is a random-access iterator whose reference is its value (nothing to
// write through), cheap to copy, and valid at any index: it[i] computes the
// value, nothing is stored. Every call of both back ends takes them as inputs.
// On the GPU, the scans and segmented scans (and what is built on them) read a
// counting or constant iterator, or a transform_iterator over one of them or
// over a raw pointer, in their vectorised kernels, as they read raw pointers;
// other iterators, and the other calls, take the general path.
#pragma once

#include <cstddef>
#include <iterator>
#include <new>
#include <type_traits>
#include <utility>

#include "config.hpp"

namespace streamscan {

namespace detail {
// What every iterator here shares: its traits (the reference is the value:
// nothing to write through) and the arithmetic, on top of its `at(d)` (a
// copy moved by d) and `distance(a, b)` (a - b).
template <class Derived, class T>
struct computed_iterator {
  using iterator_category = std::random_access_iterator_tag;
  using value_type = T;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = T;
  STREAMSCAN_HOST_DEVICE Derived operator+(difference_type d) const { return self().at(d); }
  STREAMSCAN_HOST_DEVICE Derived operator-(difference_type d) const { return self().at(-d); }
  STREAMSCAN_HOST_DEVICE friend Derived operator+(difference_type d, const Derived& it) { return it.at(d); }
  STREAMSCAN_HOST_DEVICE Derived& operator+=(difference_type d) { return self_mut() = self().at(d); }
  STREAMSCAN_HOST_DEVICE Derived& operator-=(difference_type d) { return self_mut() = self().at(-d); }
  STREAMSCAN_HOST_DEVICE Derived& operator++() { return *this += 1; }
  STREAMSCAN_HOST_DEVICE Derived& operator--() { return *this -= 1; }
  STREAMSCAN_HOST_DEVICE Derived operator++(int) {
    Derived old = self();
    ++*this;
    return old;
  }
  STREAMSCAN_HOST_DEVICE Derived operator--(int) {
    Derived old = self();
    --*this;
    return old;
  }
  STREAMSCAN_HOST_DEVICE friend difference_type operator-(const Derived& a, const Derived& b) {
    return Derived::distance(a, b);
  }
  STREAMSCAN_HOST_DEVICE friend bool operator==(const Derived& a, const Derived& b) { return a - b == 0; }
  STREAMSCAN_HOST_DEVICE friend bool operator!=(const Derived& a, const Derived& b) { return a - b != 0; }
  STREAMSCAN_HOST_DEVICE friend bool operator<(const Derived& a, const Derived& b) { return a - b < 0; }
  STREAMSCAN_HOST_DEVICE friend bool operator>(const Derived& a, const Derived& b) { return a - b > 0; }
  STREAMSCAN_HOST_DEVICE friend bool operator<=(const Derived& a, const Derived& b) { return a - b <= 0; }
  STREAMSCAN_HOST_DEVICE friend bool operator>=(const Derived& a, const Derived& b) { return a - b >= 0; }

 private:
  STREAMSCAN_HOST_DEVICE const Derived& self() const { return static_cast<const Derived&>(*this); }
  STREAMSCAN_HOST_DEVICE Derived& self_mut() { return static_cast<Derived&>(*this); }
};

template <class It, class F>
using transform_value_t = std::decay_t<std::invoke_result_t<const F&, decltype(std::declval<const It&>()[0])>>;
}  // namespace detail

// it[i] = first + i (an index sequence: segment ids, positions, iota).
template <class T>
class counting_iterator : public detail::computed_iterator<counting_iterator<T>, T> {
 public:
  static_assert(std::is_arithmetic_v<T>, "streamscan::counting_iterator counts in an arithmetic type");
  using difference_type = std::ptrdiff_t;

  STREAMSCAN_HOST_DEVICE explicit counting_iterator(T first = T(0)) : first_(first) {}
  STREAMSCAN_HOST_DEVICE T operator[](difference_type i) const { return static_cast<T>(first_ + static_cast<T>(i)); }
  STREAMSCAN_HOST_DEVICE T operator*() const { return first_; }

  STREAMSCAN_HOST_DEVICE counting_iterator at(difference_type d) const { return counting_iterator((*this)[d]); }
  STREAMSCAN_HOST_DEVICE static difference_type distance(const counting_iterator& a, const counting_iterator& b) {
    return static_cast<difference_type>(a.first_ - b.first_);
  }

 private:
  T first_;
};

// it[i] = value for every i.
template <class T>
class constant_iterator : public detail::computed_iterator<constant_iterator<T>, T> {
 public:
  using difference_type = std::ptrdiff_t;

  STREAMSCAN_HOST_DEVICE explicit constant_iterator(T value, difference_type index = 0)
      : value_(value), index_(index) {}
  STREAMSCAN_HOST_DEVICE T operator[](difference_type) const { return value_; }
  STREAMSCAN_HOST_DEVICE T operator*() const { return value_; }

  STREAMSCAN_HOST_DEVICE constant_iterator at(difference_type d) const { return constant_iterator(value_, index_ + d); }
  STREAMSCAN_HOST_DEVICE static difference_type distance(const constant_iterator& a, const constant_iterator& b) {
    return a.index_ - b.index_;
  }

 private:
  T value_;
  difference_type index_;  // only for distances and comparisons
};

// it[i] = f(base[i]). f is called as a const function object; on the GPU it
// must be __device__ callable (a functor with STREAMSCAN_HOST_DEVICE, or an
// extended lambda).
template <class It, class F>
class transform_iterator : public detail::computed_iterator<transform_iterator<It, F>, detail::transform_value_t<It, F>> {
 public:
  using value_type = detail::transform_value_t<It, F>;
  using difference_type = std::ptrdiff_t;

  STREAMSCAN_HOST_DEVICE transform_iterator(It base, F f) : base_(base), f_(f) {}
  STREAMSCAN_HOST_DEVICE value_type operator[](difference_type i) const { return f_(base_[i]); }
  STREAMSCAN_HOST_DEVICE value_type operator*() const { return f_(base_[0]); }
  STREAMSCAN_HOST_DEVICE It base() const { return base_; }
  STREAMSCAN_HOST_DEVICE const F& functor() const { return f_; }

  STREAMSCAN_HOST_DEVICE transform_iterator at(difference_type d) const { return transform_iterator(base_ + d, f_); }
  STREAMSCAN_HOST_DEVICE static difference_type distance(const transform_iterator& a, const transform_iterator& b) {
    return static_cast<difference_type>(a.base_ - b.base_);
  }

  // Copy assignment that also works for lambdas (whose own is deleted).
  transform_iterator(const transform_iterator&) = default;
  STREAMSCAN_HOST_DEVICE transform_iterator& operator=(const transform_iterator& o) {
    base_ = o.base_;
    if constexpr (std::is_copy_assignable_v<F>) {
      f_ = o.f_;
    } else {
      f_.~F();
      new (&f_) F(o.f_);
    }
    return *this;
  }

 private:
  It base_;
  F f_;
};
template <class It, class F>
transform_iterator(It, F) -> transform_iterator<It, F>;

template <class T>
STREAMSCAN_HOST_DEVICE counting_iterator<T> make_counting_iterator(T first) {
  return counting_iterator<T>(first);
}
template <class T>
STREAMSCAN_HOST_DEVICE constant_iterator<T> make_constant_iterator(T value) {
  return constant_iterator<T>(value);
}
template <class It, class F>
STREAMSCAN_HOST_DEVICE transform_iterator<It, F> make_transform_iterator(It base, F f) {
  return transform_iterator<It, F>(base, f);
}

}  // namespace streamscan
