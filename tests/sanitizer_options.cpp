// The sanitizer runtimes' default options for the tests an optimized build sanitizes
// (tests/CMakeLists.txt, STATICFLOW_TEST_SANITIZED): the same as the sanitizer build's test preset
// (CMakePresets.json, "asan"). An ASAN_OPTIONS / UBSAN_OPTIONS in the environment still wins.
extern "C" {
const char* __asan_default_options();
const char* __ubsan_default_options();

const char* __asan_default_options() { return "detect_leaks=1:abort_on_error=1:strict_string_checks=1"; }
const char* __ubsan_default_options() { return "print_stacktrace=1:halt_on_error=1"; }
}
