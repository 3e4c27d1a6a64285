// expect: staticflow: a variable assignment, sf::print or sf::for_range bound cannot use the variables of an sf::while_loop
// Effects run once per call, outside the loop's iterations, so they cannot read a loop variable; fix: return the value from the loop and print it after.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;
int main() {
  auto f = sf::function([](auto n) {
    return sf::while_loop([](auto i) { return i < 3; }, [](auto i) { sf::print("i", i); return i + 1; }, n);
  });
  (void)f(0);
}
