// expect: staticflow: a collective inside a traced function over a communicator of device buffers needs its allocate\(bytes\), deallocate\(p\) and copy\(to, from, bytes\)
// A communicator whose buffers are device memory (as sf::distributed::nccl's) but that does not
// manage them (no allocate / deallocate / copy) inside a traced function: the traced collective
// evaluates its operands into the communicator's device memory.
#include <cstddef>

#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

struct gpu_group {  // the concept's calls, on device pointers
  static constexpr bool device_buffers = true;
  int rank() const { return 0; }
  int size() const { return 1; }
  template <class T>
  void all_reduce(const T*, T*, std::size_t, sf::reduce_op) {}
  template <class T>
  void broadcast(T*, std::size_t, int) {}
  template <class T>
  void all_gather(const T*, std::size_t, T*) {}
  void barrier() {}
};

int main() {
  gpu_group comm;
  auto total = sf::function([&](auto x) {
    return sf::all_reduce(x, comm);  // fix: give gpu_group allocate, deallocate and copy
  });
  xt::xtensor_fixed<float, xt::xshape<3>> x = {1.f, -2.f, 3.f};
  (void)total(x);
  return 0;
}
