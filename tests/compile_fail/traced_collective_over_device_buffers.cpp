// expect: staticflow: a collective inside a traced function combines host buffers, and this communicator's are device memory
// A communicator whose buffers are device memory (as sf::distributed::nccl's) inside a traced
// function: the traced collective would hand it host buffers (combine device tensors with it
// around the call instead).
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
    return sf::all_reduce(x, comm);  // fix: sf::all_reduce(x, mpi_comm)
  });
  xt::xtensor_fixed<float, xt::xshape<3>> x = {1.f, -2.f, 3.f};
  (void)total(x);
  return 0;
}
