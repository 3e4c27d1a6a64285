// libFuzzer target: sf::checkpoint::restore on arbitrary bytes (an .npz from anywhere is
// untrusted input). Built by tests/fuzz/run_fuzz.cmake with clang's -fsanitize=fuzzer,address,
// undefined. Every input either restores or throws sf::checkpoint_error; one that throws must
// leave every variable exactly as it was (restore checks everything before it writes).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

#include <staticflow/io/checkpoint.hpp>

namespace sf = staticflow;

namespace {
struct state {
  sf::variable<float, 2, 3> w;
  sf::variable<std::int64_t, sf::dyn> ids;
  sf::variable<bool> flag;
  sf::variable<double, sf::dyn, 2> table;
  sf::checkpoint ckpt;
  state() { ckpt.track("w", w).track("ids", ids).track("flag", flag).track("layer/table", table); }

  std::vector<unsigned char> bytes() const {
    std::vector<unsigned char> out;
    for (const sf::detail::variable_base* v : {static_cast<const sf::detail::variable_base*>(&w), static_cast<const sf::detail::variable_base*>(&ids),
                                               static_cast<const sf::detail::variable_base*>(&flag), static_cast<const sf::detail::variable_base*>(&table)}) {
      const auto* p = static_cast<const unsigned char*>(v->raw_data());
      out.insert(out.end(), reinterpret_cast<const unsigned char*>(v->extents_data()),
                 reinterpret_cast<const unsigned char*>(v->extents_data() + v->rank()));
      if (v->bytes() != 0) out.insert(out.end(), p, p + v->bytes());
    }
    return out;
  }
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static state s;
  static const std::string path = "/tmp/staticflow_fuzz_" + std::to_string(::getpid()) + ".npz";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size != 0) std::fwrite(data, 1, size, f);
  std::fclose(f);
  const auto before = s.bytes();
  try {
    s.ckpt.restore(path);
  } catch (const sf::checkpoint_error&) {
    if (s.bytes() != before) {
      std::fprintf(stderr, "a restore that threw changed a variable\n");
      std::abort();
    }
  }
  return 0;
}
