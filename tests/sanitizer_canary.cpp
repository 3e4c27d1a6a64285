// The sanitized tests' own check (tests/CMakeLists.txt, "the sanitizers' canary"): built with the
// flags those tests get, it makes the two mistakes ASan is there to report -- a read past the end
// of a heap buffer and a read of a local through a pointer that outlived its scope (the dangling
// reference of expression templates) -- so a change of the flags that stops either report fails.
#include <cstring>
#include <vector>

namespace {

int read_past_the_end() {
  std::vector<int> values(4, 1);
  const volatile int* data = values.data();
  return data[values.size()];
}

const int* outlived = nullptr;

int read_after_scope() {
  {
    int local = 7;
    outlived = &local;
  }
  return *static_cast<const volatile int*>(outlived);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "heap-buffer-overflow") == 0) return read_past_the_end();
  if (argc == 2 && std::strcmp(argv[1], "stack-use-after-scope") == 0) return read_after_scope();
  return 2;
}
