// expect: static assertion failed: staticflow: sf::variable<T> holds numbers
// A variable outlives calls; the bytes a call's string ops make do not.
#include <staticflow/staticflow.hpp>
namespace sf = staticflow;

int main() {
  sf::variable<std::string> name{std::string("a")};  // fix: std::string name = "a"; pass it as an argument
  return 0;
}
