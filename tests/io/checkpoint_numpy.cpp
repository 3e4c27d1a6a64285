// NumPy and sf::checkpoint read each other's files: this program writes a checkpoint, runs
// checkpoint_numpy.py (which checks it with np.load and writes files with np.savez), then
// restores those. Usage: checkpoint_numpy PYTHON SCRIPT DIR. Exits 77 (skipped) without numpy.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <sys/wait.h>

#include <staticflow/io/checkpoint.hpp>

namespace sf = staticflow;

namespace {
int failures = 0;
void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::cerr << "FAILED: " << what << "\n";
    ++failures;
  }
}
std::string error_of(sf::checkpoint& c, const std::string& path) {
  try {
    c.restore(path);
  } catch (const sf::checkpoint_error& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: checkpoint_numpy PYTHON SCRIPT DIR\n";
    return 2;
  }
  const std::string dir = argv[3];
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);

  sf::variable<float, 2, 3> w{{{1.5f, -2.f, 3.f}, {4.f, 5.25f, -6.f}}};
  sf::variable<double> scale{0.125};
  sf::variable<std::int32_t, sf::dyn> ids{xt::xtensor<std::int32_t, 1>{7, -8, 9}};
  sf::variable<std::int64_t, sf::dyn> steps{xt::xtensor<std::int64_t, 1>::from_shape({0})};
  sf::variable<bool, 4> mask{{true, false, false, true}};
  sf::checkpoint ckpt;
  ckpt.track("layer/w", w).track("scale", scale).track("ids", ids).track("steps", steps).track("mask", mask);
  ckpt.write(dir + "/from_cpp.npz");

  const std::string command = std::string("\"") + argv[1] + "\" \"" + argv[2] + "\" \"" + dir + "\"";
  const int status = std::system(command.c_str());
  if (status == -1 || !WIFEXITED(status)) return 1;
  if (WEXITSTATUS(status) == 77) return 77;
  if (WEXITSTATUS(status) != 0) {
    std::cerr << "FAILED: " << argv[2] << " exited with " << WEXITSTATUS(status) << "\n";
    return 1;
  }

  const auto restored = ckpt.restore(dir + "/from_numpy.npz");  // np.savez's zip64 local headers included
  expect(restored.unused.empty(), "every value of from_numpy.npz restored");
  expect(w.value() == xt::xtensor<float, 2>{{0.f, 0.25f, 0.5f}, {0.75f, 1.f, 1.25f}}, "layer/w");
  expect(scale.value() == -3.5, "scale");
  expect(ids.value() == xt::xtensor<std::int32_t, 1>{1, 2, 3, 4, 5}, "ids (a dyn dim takes the stored extent)");
  expect(steps.value() == xt::xtensor<std::int64_t, 1>{10, 20}, "steps");
  expect(mask.value() == xt::xtensor<bool, 1>{false, true, true, false}, "mask");
  expect(ckpt.save_counter() == 0, "no save_counter in the file: unchanged");

  sf::checkpoint just_w;
  just_w.track("layer/w", w);
  const std::string compressed = error_of(just_w, dir + "/compressed.npz");
  expect(compressed == "staticflow: checkpoint: '" + dir + "/compressed.npz' is not a readable .npz file: 'layer/w.npy' "
                       "is compressed (np.savez_compressed); staticflow reads stored entries (np.savez)",
         "compressed: " + compressed);
  const std::string fortran = error_of(just_w, dir + "/fortran.npz");
  expect(fortran == "staticflow: checkpoint: '" + dir + "/fortran.npz': 'layer/w' is stored in Fortran order; save it "
                    "C-ordered (np.ascontiguousarray)",
         "fortran: " + fortran);
  expect(w.value()(1, 2) == 1.25f, "a failed restore changes nothing");

  std::cout << (failures ? "FAILED\n" : "numpy and sf::checkpoint read each other's files\n");
  return failures ? 1 : 0;
}
