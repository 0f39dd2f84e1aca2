// The README's example: an inclusive scan of device memory, convenience form.
#include <streamscan/cuda.cuh>

#include <cstdio>
#include <vector>

int main() {
  std::vector<int> host = {3, 1, 4, 1, 5, 9, 2, 6};
  int* d = nullptr;
  cudaMalloc(&d, host.size() * sizeof(int));
  cudaMemcpy(d, host.data(), host.size() * sizeof(int), cudaMemcpyHostToDevice);
  streamscan::cuda::inclusive_scan(d, d, host.size());  // in place; throws streamscan::error on failure
  cudaMemcpy(host.data(), d, host.size() * sizeof(int), cudaMemcpyDeviceToHost);
  for (int x : host) std::printf("%d ", x);             // 3 4 8 9 14 23 25 31
  cudaFree(d);
}
