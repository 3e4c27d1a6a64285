// Introspection: the jaxpr-like listing of a traced graph and a Graphviz picture of it, rendered
// to PNG with `dot` when Graphviz is installed.
#include <cstdlib>
#include <fstream>
#include <iostream>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

int main() {
  auto f = sf::function([](auto x, auto y) {
    auto t = sf::tanh(x * x + y);
    return sf::where(t > 0.f, t, t * 0.5f);  // `t` is listed once, however often it is used
  });
  auto& c = f.get_concrete_function(sf::spec<float, sf::dyn>{}, sf::spec<float, sf::dyn>{});
  std::cout << c.graph_string() << "\n" << c.to_dot();

  const char* dot_file = "staticflow_graph.dot";
  const char* png_file = "staticflow_graph.png";
  std::ofstream(dot_file) << c.to_dot();
  if (std::system("command -v dot > /dev/null 2>&1") != 0) {
    std::cout << "\nGraphviz's dot is not installed; wrote " << dot_file << " only\n";
    return 0;
  }
  const std::string command = std::string("dot -Tpng ") + dot_file + " -o " + png_file;
  if (std::system(command.c_str()) != 0) {
    std::cerr << "dot failed\n";
    return 1;
  }
  std::cout << "\nrendered " << png_file << " with Graphviz\n";
  return 0;
}
