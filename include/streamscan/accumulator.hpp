// streamscan/accumulator.hpp - the accumulator-type rule.
//
// A scan reads values of type In, combines them with `op` and writes values of
// type Out. The type the partial sums are held in (the accumulator A) is:
//
//   1. the output iterator's value type, when it has one (raw pointers,
//      most iterators): uint8 in, uint64 out => sums kept in uint64, so they
//      cannot overflow at 8 bits;
//   2. otherwise (output iterators whose value_type is void) the initial
//      value's type, when an initial value is given;
//   3. otherwise std::decay_t<decltype(op(In, In))>.
//
// Each input is converted to A as it is read (A(x)); op is then only ever
// invoked as op(A, A) and must return something convertible to A. Results are
// converted to Out when written.
#pragma once

#include <iterator>
#include <type_traits>
#include <utility>

namespace streamscan {

template <class It>
using iterator_value_t = typename std::iterator_traits<It>::value_type;

namespace detail {
template <class T>
struct type_identity {
  using type = T;
};
template <class Op, class In>
struct op_result {
  using type = std::decay_t<std::invoke_result_t<Op&, const In&, const In&>>;
};
// Evaluated lazily: op(In, In) need only be valid when rules 1 and 2 do not apply.
template <class Op, class In, class Init, class Out>
struct accumulator_rule {
  using out_value = typename std::iterator_traits<Out>::value_type;
  using type = typename std::conditional_t<std::is_void_v<out_value>,
                                           std::conditional_t<std::is_void_v<Init>, op_result<Op, In>,
                                                              type_identity<Init>>,
                                           type_identity<out_value>>::type;
};
}  // namespace detail

// accumulator_t<Op, InIt, OutIt, Init = void>: see the rule above.
template <class Op, class InIt, class OutIt, class Init = void>
using accumulator_t = typename detail::accumulator_rule<
    Op, iterator_value_t<InIt>, std::decay_t<Init>, OutIt>::type;

namespace detail {
// An argument is an iterator we can read from/write through when it can be
// dereferenced; this keeps `void*` temp pointers and sizes out of the
// convenience overloads.
template <class It, class = void>
struct is_iterator : std::false_type {};
template <class It>
struct is_iterator<It, std::void_t<decltype(*std::declval<It&>()),
                                   typename std::iterator_traits<It>::difference_type>>
    : std::true_type {};
template <class It>
inline constexpr bool is_iterator_v = is_iterator<It>::value;
}  // namespace detail

}  // namespace streamscan
