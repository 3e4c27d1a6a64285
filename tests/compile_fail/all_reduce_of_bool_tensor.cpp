// expect: staticflow: a collective \(sf::all_reduce, sf::broadcast, sf::all_gather\) carries float32, float64, int32 and int64 tensors
// A bool tensor reduced across processes: MPI and NCCL reduce numbers.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  sf::distributed::local comm;
  auto any_positive = sf::function([&](auto x) {
    return sf::all_reduce(x > 0.f, comm, sf::reduce_op::max);  // fix: sf::cast<int>(x > 0.f)
  });
  xt::xtensor_fixed<float, xt::xshape<3>> x = {1.f, -2.f, 3.f};
  (void)any_positive(x);
  return 0;
}
