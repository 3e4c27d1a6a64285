// expect: staticflow: sf::all_reduce / sf::broadcast / sf::all_gather: the communicator argument must model sf::distributed::communicator
// The communicator's rank passed where the communicator goes.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  sf::distributed::local comm;
  int rank = comm.rank();
  auto total = sf::function([&](auto x) {
    return sf::all_reduce(x, rank);  // fix: sf::all_reduce(x, comm)
  });
  xt::xtensor_fixed<float, xt::xshape<3>> x = {1.f, -2.f, 3.f};
  (void)total(x);
  return 0;
}
