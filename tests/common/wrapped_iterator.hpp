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

namespace streamscan_test {

// An output iterator that can be written through but not read (value_type
// void, like thrust's discard or transform-output iterators).
template <class T>
class write_only_iterator {
 public:
  struct proxy {
    T* p;
    template <class U>
    STREAMSCAN_HOST_DEVICE const proxy& operator=(const U& v) const {
      *p = static_cast<T>(v);
      return *this;
    }
  };
  using iterator_category = std::random_access_iterator_tag;
  using value_type = void;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = proxy;

  STREAMSCAN_HOST_DEVICE explicit write_only_iterator(T* p = nullptr) : p_(p) {}
  STREAMSCAN_HOST_DEVICE proxy operator*() const { return {p_}; }
  STREAMSCAN_HOST_DEVICE proxy operator[](difference_type i) const { return {p_ + i}; }
  STREAMSCAN_HOST_DEVICE write_only_iterator operator+(difference_type i) const { return write_only_iterator(p_ + i); }

 private:
  T* p_;
};

}  // namespace streamscan_test
