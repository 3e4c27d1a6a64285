// expect: staticflow: a variable assignment, sf::print or sf::for_range bound cannot use the variables of an sf::while_loop
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;
int main() {
  auto f = sf::function([](auto n) {
    return sf::while_loop([](auto i) { return i < 3; }, [](auto i) { sf::print("i", i); return i + 1; }, n);
  });
  (void)f(0);
}
