// expect: static assertion failed: staticflow: call_into: string results come back from a call
// A string result's bytes are made during the call; it comes back as std::string from f(args...).
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto s) { return s + "!"; });
  xt::xtensor<std::string, 1> in = {"a", "b"};
  xt::xtensor<std::string, 1> out = in;
  f.call_into(out, in);  // fix: out = f(in);
  return static_cast<int>(out.size());
}
