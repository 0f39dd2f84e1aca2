#include <streamscan/cpu.hpp>

#include <vector>

int main() {
  std::vector<int> v = {1, 2, 3, 4};
  streamscan::cpu::inclusive_scan(v.data(), v.data(), 4);
  return v[3] == 10 ? 0 : 1;
}
