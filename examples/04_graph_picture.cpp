// Introspection: the jaxpr-like listing of a traced graph, a Graphviz picture of it (rendered to
// PNG with `dot` when Graphviz is installed), and the C++ the graph stands for (to_code, the
// analog of tf.autograph.to_code). A loop's condition and body and a cond's branches are listed
// under their node and drawn as clusters; each node is marked fused (into which loop),
// materialized (a buffer of its own) or a view.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include <xtensor/xio.hpp>

#include <staticflow/staticflow.hpp>

namespace sf = staticflow;

namespace {
// Writes the picture to <stem>.dot and, with Graphviz, <stem>.png.
bool draw(const std::string& dot, const std::string& stem) {
  const std::string dot_file = stem + ".dot", png_file = stem + ".png";
  std::ofstream(dot_file) << dot;
  if (std::system("command -v dot > /dev/null 2>&1") != 0) {
    std::cout << "Graphviz's dot is not installed; wrote " << dot_file << " only\n";
    return true;
  }
  const std::string command = "dot -Tpng " + dot_file + " -o " + png_file;
  if (std::system(command.c_str()) != 0) {
    std::cerr << "dot failed on " << dot_file << "\n";
    return false;
  }
  std::cout << "rendered " << png_file << " with Graphviz\n";
  return true;
}
}  // namespace

int main() {
  auto f = sf::function([](auto x, auto y) {
    auto t = sf::tanh(x * x + y);
    return sf::where(t > 0.f, t, t * 0.5f);  // `t` is listed once, however often it is used
  });
  auto& c = f.get_concrete_function(sf::spec<float, sf::dyn>{}, sf::spec<float, sf::dyn>{});
  std::cout << c.graph_string() << "\n" << c.to_dot() << "\n";
  if (!draw(c.to_dot(), "staticflow_graph")) return 1;

  // Control flow, with the names sf::arg_names and sf::function_name give.
  auto normalize = sf::function(
      [](auto x) {
        auto small = sf::while_loop([](auto v) { return sf::reduce_max(sf::abs(v)) > 1.f; },
                                    [](auto v) { return v * 0.5f; }, x);
        return sf::cond(sf::reduce_sum(small) > 0.f, [&] { return small; }, [&] { return -small; });
      },
      sf::arg_names("x"), sf::function_name("normalize"));
  auto& n = normalize.get_concrete_function(sf::spec<float, sf::dyn>{});
  std::cout << "\n" << n.graph_string() << "\n" << n.to_code() << "\n";
  if (!draw(n.to_dot(), "staticflow_control_flow")) return 1;
  xt::xtensor<float, 1> x = {-6.f, 2.f, 3.f};
  std::cout << "normalize([-6, 2, 3]) = " << normalize(x) << "\n";
  return 0;
}
