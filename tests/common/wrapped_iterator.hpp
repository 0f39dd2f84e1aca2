// A random-access iterator that is not a raw pointer: proves the algorithms
// accept iterators (and exercises their non-pointer code paths).
#pragma once

#include <cstddef>
#include <iterator>

#include <streamscan/config.hpp>

namespace streamscan_test {

template <class T>
class wrapped_iterator {
 public:
  using iterator_category = std::random_access_iterator_tag;
  using value_type = std::remove_const_t<T>;
  using difference_type = std::ptrdiff_t;
  using pointer = T*;
  using reference = T&;

  STREAMSCAN_HOST_DEVICE explicit wrapped_iterator(T* p = nullptr) : p_(p) {}
  STREAMSCAN_HOST_DEVICE reference operator*() const { return *p_; }
  STREAMSCAN_HOST_DEVICE reference operator[](difference_type i) const { return p_[i]; }
  STREAMSCAN_HOST_DEVICE wrapped_iterator operator+(difference_type i) const { return wrapped_iterator(p_ + i); }
  STREAMSCAN_HOST_DEVICE wrapped_iterator& operator++() { ++p_; return *this; }
  STREAMSCAN_HOST_DEVICE difference_type operator-(const wrapped_iterator& o) const { return p_ - o.p_; }
  STREAMSCAN_HOST_DEVICE bool operator==(const wrapped_iterator& o) const { return p_ == o.p_; }
  STREAMSCAN_HOST_DEVICE bool operator!=(const wrapped_iterator& o) const { return p_ != o.p_; }

 private:
  T* p_;
};

}  // namespace streamscan_test
