// The CPU back end: same names, no CUDA needed. uint8 inputs accumulate in the
// output's uint64 (streamscan/accumulator.hpp), and a non-commutative
// operator (affine maps x -> a*x + b, composed left to right) keeps its order.
#include <streamscan/cpu.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

struct affine {
  double a, b;
};
struct compose {  // apply f, then g
  affine operator()(const affine& f, const affine& g) const { return {g.a * f.a, g.a * f.b + g.b}; }
};

int main() {
  std::vector<std::uint8_t> bytes(1 << 20, 255);
  std::vector<std::uint64_t> sums(bytes.size());
  streamscan::cpu::inclusive_scan(bytes.data(), sums.data(), static_cast<std::int64_t>(bytes.size()));
  std::printf("sum of 2^20 bytes of 255: %llu\n", static_cast<unsigned long long>(sums.back()));

  std::vector<affine> maps = {{2, 0}, {1, 3}, {0.5, 0}};
  std::vector<affine> composed(maps.size());
  streamscan::cpu::inclusive_scan(maps.data(), composed.data(), 3, compose{});
  std::printf("((x*2)+3)/2 at x=1: %g\n", composed[2].a * 1 + composed[2].b);  // 2.5
}
