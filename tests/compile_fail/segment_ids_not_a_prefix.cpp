// expect: static assertion failed: staticflow: segment_sum / unsorted_segment_sum: data's shape does not start with the segment ids' shape
// One id per column instead of one per row: the ids' shape must be data.shape[:k].
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto data, auto ids) {
    return sf::unsorted_segment_sum(data, ids, 2);  // fix: ids of shape [4], one per row of data
  });
  xt::xtensor_fixed<float, xt::xshape<4, 3>> data{};
  xt::xtensor_fixed<std::int32_t, xt::xshape<3>> ids{0, 1, 1};
  auto y = f(data, ids);
  return static_cast<int>(y(0, 0));
}
