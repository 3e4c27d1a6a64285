// String tensors (core/string.hpp, graph/strings.hpp, backend/cpu/strings.hpp) as tf.string and
// tf.strings: arguments (std::string, const char*, xtensor of std::string), results as std::string,
// +, ==, !=, where, each sf::strings op against values TensorFlow gives, broadcasting, data
// movement, cond and while_loop, eager mode, printing, listings, the errors TF raises, size 0,
// threads, and the string pool's steady state.
#include <catch2/catch.hpp>

#include <cstdint>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>

#include <xtensor/xtensor.hpp>

#include <staticflow/staticflow.hpp>
#include <staticflow/graph/strings_regex.hpp>

namespace sf = staticflow;
using strings1 = xt::xtensor<std::string, 1>;
using strings2 = xt::xtensor<std::string, 2>;

TEST_CASE("a string scalar traces a string signature; results come back as std::string", "[strings]") {
  int traces = 0;
  auto dbl = sf::function([&](auto a) {
    ++traces;
    return a + a;
  });
  const std::string aa = dbl("a");  // the seed's double(tf.constant('a'))
  CHECK(aa == "aa");
  CHECK(dbl(std::string("b")) == "bb");  // same signature: no new trace
  CHECK(dbl(std::string_view("cd")) == "cdcd");
  const char* text = "xyz";
  CHECK(dbl(text) == "xyzxyz");
  CHECK(dbl("") == "");
  CHECK(traces == 1);
  CHECK(dbl.pretty_printed_concrete_signatures() ==
        "Input Parameters:\n"
        "  arg0 (POSITIONAL_ONLY): TensorSpec(shape=(), dtype=tf.string, name=None)\n"
        "Output Type:\n"
        "  TensorSpec(shape=(), dtype=tf.string, name=None)\n"
        "Captures:\n"
        "  None");
  using C = std::remove_cvref_t<decltype(dbl.get_concrete_function(sf::spec<sf::string>{}))>;
  STATIC_REQUIRE(C::kernel<0> == sf::kernel_kind::scalar);
  STATIC_REQUIRE(std::is_same_v<decltype(dbl("a")), std::string>);
}

TEST_CASE("string tensors: +, ==, != and where broadcast like numbers", "[strings]") {
  auto f = sf::function([](auto s, auto t) {
    return std::tuple{s + t, s == t, s != "b", sf::where(s == "b", s + "!", t)};
  });
  const strings2 s = {{"a"}, {"b"}};  // [2, 1] against [3]
  const strings1 t = {"a", "b", "c"};
  const auto [sum, equal, not_b, picked] = f(s, t);
  CHECK((sum == strings2{{"aa", "ab", "ac"}, {"ba", "bb", "bc"}}));
  CHECK((equal == xt::xtensor<bool, 2>{{true, false, false}, {false, true, false}}));
  CHECK((not_b == xt::xtensor<bool, 2>{{true}, {false}}));
  CHECK((picked == strings2{{"a", "b", "c"}, {"b!", "b!", "b!"}}));
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(sum)>, strings2>);
  // a 1-D string tensor of one element against three (backend/cpu/kernel.hpp's run_flat_spread)
  const auto [one_sum, one_equal, one_not_b, one_picked] = f(strings1{"b"}, t);
  CHECK((one_sum == strings1{"ba", "bb", "bc"}));
  CHECK((one_equal == xt::xtensor<bool, 1>{false, true, false}));
  CHECK((one_not_b == xt::xtensor<bool, 1>{false}));
  CHECK((one_picked == strings1{"b!", "b!", "b!"}));
}

TEST_CASE("sf::strings ops give tf.strings' values", "[strings]") {
  const strings2 s = {{"Hello", "World", "x"}, {"a", "yz", "BC"}};
  auto f = sf::function([](auto x) {
    return std::tuple{sf::strings::length(x), sf::strings::upper(x), sf::strings::lower(x),
                      sf::strings::substr(x, 1, 2), sf::strings::substr(x, -1, 5),
                      sf::strings::join(std::tuple{x, "!", x}, "-"), sf::strings::join(std::tuple{x, x}),
                      sf::strings::regex_full_match(x, "[A-Z][a-z]+")};
  });
  const auto [length, upper, lower, sub, last, joined, doubled, match] = f(s);
  CHECK((length == xt::xtensor<std::int32_t, 2>{{5, 5, 1}, {1, 2, 2}}));
  CHECK((upper == strings2{{"HELLO", "WORLD", "X"}, {"A", "YZ", "BC"}}));
  CHECK((lower == strings2{{"hello", "world", "x"}, {"a", "yz", "bc"}}));
  CHECK((sub == strings2{{"el", "or", ""}, {"", "z", "C"}}));
  CHECK((last == strings2{{"o", "d", "x"}, {"a", "z", "C"}}));
  CHECK((joined == strings2{{"Hello-!-Hello", "World-!-World", "x-!-x"}, {"a-!-a", "yz-!-yz", "BC-!-BC"}}));
  CHECK((doubled == strings2{{"HelloHello", "WorldWorld", "xx"}, {"aa", "yzyz", "BCBC"}}));
  CHECK((match == xt::xtensor<bool, 2>{{true, true, false}, {false, false, false}}));
}

TEST_CASE("substr takes integer tensors for pos and len, broadcast against the strings", "[strings]") {
  auto f = sf::function([](auto x, auto pos, auto len) { return sf::strings::substr(x, pos, len); });
  const strings1 x = {"abcdef", "uvwxyz", "012345"};
  const xt::xtensor<std::int64_t, 1> pos = {0, 2, -3};
  CHECK((f(x, pos, 2) == strings1{"ab", "wx", "34"}));
  CHECK((f(x, pos, -1) == strings1{"abcdef", "wxyz", "345"}));  // len < 0: the rest (TF)
  CHECK((f(x, 6, 1) == strings1{"", "", ""}));                    // pos at the end: empty
}

TEST_CASE("reduce_join joins along axes in row-major order, with a separator", "[strings]") {
  const strings2 s = {{"a", "b", "c"}, {"d", "e", "f"}};
  auto f = sf::function([](auto x) {
    return std::tuple{sf::strings::reduce_join(x, 1, ","), sf::strings::reduce_join(x, sf::axes<0>{}),
                      sf::strings::reduce_join(x, " "), sf::strings::reduce_join(x, sf::axes<-1>{}, sf::keepdims, "+")};
  });
  const auto [rows, columns, all, kept] = f(s);
  CHECK((rows == strings1{"a,b,c", "d,e,f"}));
  CHECK((columns == strings1{"ad", "be", "cf"}));
  CHECK(all == "a b c d e f");
  CHECK((kept == strings2{{"a+b+c"}, {"d+e+f"}}));
  auto with_empty = sf::function([](auto x) { return sf::strings::reduce_join(x, ","); });
  CHECK(with_empty(strings1{"", "a", ""}) == ",a,");  // an empty string still gets its separators
  CHECK(with_empty(strings1{"", ""}) == ",");
  CHECK(with_empty(strings1{""}) == "");
  CHECK(f.get_concrete_function(s).graph_string() ==
        "{ lambda ; a:string[None,None]. let\n"
        "    b:string[None] = ReduceJoin[axes=(1,) separator=','] a\n"
        "    c:string[None] = ReduceJoin[axes=(0,) separator=''] a\n"
        "    d:string[] = ReduceJoin[axes=(0,1) separator=' '] a\n"
        "    e:string[None,1] = ReduceJoin[axes=(1,) separator='+' keepdims=True] a\n"
        "  in (b, c, d, e) }\n");
}

TEST_CASE("as_string and to_number convert like tf.strings", "[strings]") {
  auto show = sf::function([](auto x) { return sf::strings::as_string(x); });
  CHECK(show(1.5f) == "1.500000");
  CHECK(show(-7) == "-7");
  CHECK(show(std::int64_t{1} << 40) == "1099511627776");
  CHECK(show(true) == "true");
  CHECK(show(1e20) == "100000000000000000000.000000");
  const std::string huge = show(1e300);  // every digit of printf's "%f": longer than its buffer
  CHECK(huge.size() == 308);
  CHECK(huge.substr(0, 20) == "10000000000000000525");
  auto parse = sf::function([](auto s) {
    return std::tuple{sf::strings::to_number(s), sf::strings::to_number<std::int32_t>(s),
                      sf::strings::to_number<double>(s) * 2.0};
  });
  const auto [f32, i32, twice] = parse(" 42 ");
  CHECK(f32 == 42.f);
  CHECK(i32 == 42);
  CHECK((twice == 84.0));
  auto to_double = sf::function([](auto s) { return sf::strings::to_number<double>(s); });
  CHECK(to_double("+2.5e-1") == 0.25);
  CHECK(to_double("-inf") == -std::numeric_limits<double>::infinity());
  CHECK_THROWS_WITH(to_double("12abc"), "staticflow: to_number: cannot convert b'12abc' to float64");
  CHECK_THROWS_WITH(to_double(""), "staticflow: to_number: cannot convert b'' to float64");
  auto to_int = sf::function([](auto s) { return sf::strings::to_number<std::int32_t>(s); });
  CHECK_THROWS_WITH(to_int("1.5"), "staticflow: to_number: cannot convert b'1.5' to int32");
  CHECK_THROWS_WITH(to_int("99999999999"), "staticflow: to_number: cannot convert b'99999999999' to int32");
  CHECK_THROWS_AS(to_int("x"), sf::invalid_argument_error);
}

TEST_CASE("values an op cannot take throw sf::invalid_argument_error with TF's words", "[strings]") {
  auto sub = sf::function([](auto s, auto pos) { return sf::strings::substr(s, pos, 1); });
  CHECK_THROWS_WITH(sub("abc", 4), "staticflow: substr: pos 4 out of range for string b'abc'");
  CHECK_THROWS_WITH(sub("abc", -4), "staticflow: substr: pos -4 out of range for string b'abc'");
  CHECK(sub("abc", 3) == "");
  CHECK(sub("abc", -3) == "a");
  auto match = sf::function([](auto s, auto pattern) { return sf::strings::regex_full_match(s, pattern); });
  CHECK(match("abc", "a.c"));
  CHECK_FALSE(match("abcd", "a.c"));  // a full match, not a search
  CHECK_THROWS_WITH(match("abc", "a("), Catch::StartsWith("staticflow: regex_full_match: invalid pattern b'a(': "));
  CHECK(match("xyz", "[x-z]+"));  // a new pattern after the failed one compiles
}

TEST_CASE("data movement moves strings as it moves numbers", "[strings]") {
  const strings2 s = {{"a", "b", "c"}, {"d", "e", "f"}};
  auto f = sf::function([](auto x) {
    return std::tuple{sf::transpose(x), sf::reshape<sf::shape<sf::dyn>>(x), sf::reverse(x, sf::axes<1>{}),
                      sf::gather(x, sf::constant(std::int32_t{1})), sf::concat<0>(x, x), x(sf::span(1, 2))};
  });
  const auto [t, flat, reversed, row, both, tail] = f(s);
  CHECK((t == strings2{{"a", "d"}, {"b", "e"}, {"c", "f"}}));
  CHECK((flat == strings1{"a", "b", "c", "d", "e", "f"}));
  CHECK((reversed == strings2{{"c", "b", "a"}, {"f", "e", "d"}}));
  CHECK((row == strings1{"d", "e", "f"}));
  CHECK((both == strings2{{"a", "b", "c"}, {"d", "e", "f"}, {"a", "b", "c"}, {"d", "e", "f"}}));
  CHECK((tail == strings2{{"d", "e", "f"}}));
}

TEST_CASE("strings in cond branches and while_loop variables", "[strings]") {
  auto pick = sf::function([](auto s, auto n) {
    return sf::cond(n > 2, [&] { return s + "+"; }, [&] { return sf::strings::upper(s); });
  });
  CHECK(pick("ab", 3) == "ab+");
  CHECK(pick("ab", 1) == "AB");
  auto repeat = sf::function([](auto s, auto n) {
    auto [i, acc] = sf::while_loop([&](auto i, auto) { return i < n; },
                                   [&](auto i, auto acc) { return std::tuple{i + 1, acc + s}; }, 0, s);
    (void)i;
    return acc;
  });
  CHECK(repeat("ab", 3) == "abababab");
  CHECK(repeat("ab", 0) == "ab");
}

TEST_CASE("sf::print writes a string scalar as it is and a string tensor's elements quoted", "[strings][print]") {
  std::ostringstream out;
  auto f = sf::function([&](auto s) {
    sf::print("scalar:", s[0], "tensor:", s, sf::output_stream(out));
    return sf::strings::length(s);
  });
  CHECK((f(strings1{"ab", "c"}) == xt::xtensor<std::int32_t, 1>{2, 1}));
  CHECK(out.str() == "scalar: ab tensor: [\"ab\" \"c\"]\n");
}

TEST_CASE("size-0 string tensors are ordinary input", "[strings]") {
  auto f = sf::function([](auto s) {
    return std::tuple{s + "x", sf::strings::length(s), sf::strings::reduce_join(s, ","), sf::strings::reduce_join(s, 0)};
  });
  const strings2 empty = strings2::from_shape({0, 3});
  const auto [plus, length, all, columns] = f(empty);
  CHECK(plus.shape() == std::array<std::size_t, 2>{0, 3});
  CHECK(length.size() == 0);
  CHECK(all == "");
  CHECK((columns == strings1{"", "", ""}));
}

TEST_CASE("numbers out of strings: call_into and numeric results need no string scope of the caller", "[strings]") {
  auto f = sf::function([](auto s) { return sf::strings::length(s + "!"); });
  const strings1 s = {"a", "bb", ""};
  xt::xtensor<std::int32_t, 1> out = xt::xtensor<std::int32_t, 1>::from_shape({3});
  f.call_into(out, s);
  CHECK((out == xt::xtensor<std::int32_t, 1>{2, 3, 1}));
}

TEST_CASE("a literal made from a temporary std::string keeps its own bytes", "[strings]") {
  auto f = sf::function([](auto s) {
    std::string suffix = "-suffix";  // gone when the trace returns
    return s + suffix;
  });
  CHECK(f("a") == "a-suffix");
  std::string filler(64, 'z');  // reuse the freed memory
  CHECK(f("b") == "b-suffix");
}

TEST_CASE("large string tensors run on the calling thread and the pool stops growing", "[strings]") {
  const std::size_t n = sf::cpu::parallel_grain + 17;  // above the grain: a numeric graph would use threads
  strings1 s = strings1::from_shape({n});
  for (std::size_t i = 0; i < n; ++i) s(i) = std::to_string(i);
  auto f = sf::function([](auto x) { return sf::strings::join(std::tuple{x, sf::strings::as_string(sf::strings::length(x))}, "/"); });
  auto r = f(s);
  CHECK(r(0) == "0/1");
  CHECK(r(12345) == "12345/5");
  CHECK(r(n - 1) == std::to_string(n - 1) + "/" + std::to_string(std::to_string(n - 1).size()));
  const std::size_t capacity = sf::detail::string_pool::local().capacity();
  for (int k = 0; k < 5; ++k) r = f(s);
  CHECK(sf::detail::string_pool::local().capacity() == capacity);
}

TEST_CASE("sf::constant copies C++ text and string containers at trace time", "[strings]") {
  auto f = sf::function([](auto s) {
    std::string greeting = "hello ";                         // gone after the trace
    const strings1 names = {"ann", "bob"};                   // so is this
    return sf::constant(greeting) + sf::constant(names) + s;  // tf.constant('hello ') + ...
  });
  CHECK((f("!") == strings1{"hello ann!", "hello bob!"}));
  CHECK((f("?") == strings1{"hello ann?", "hello bob?"}));
}

TEST_CASE("an input signature of string specs: one trace for every length", "[strings][signature]") {
  int traces = 0;
  auto f = sf::function<sf::spec<sf::string, sf::dyn>>([&](auto s) {
    ++traces;
    return s + "!";
  });
  CHECK((f(strings1{"a", "b"}) == strings1{"a!", "b!"}));
  CHECK((f(strings1{"c"}) == strings1{"c!"}));
  CHECK(traces == 1);
  CHECK(f.pretty_printed_concrete_signatures() ==
        "Input Parameters:\n"
        "  arg0 (POSITIONAL_ONLY): TensorSpec(shape=(None,), dtype=tf.string, name=None)\n"
        "Output Type:\n"
        "  TensorSpec(shape=(None,), dtype=tf.string, name=None)\n"
        "Captures:\n"
        "  None");
}

TEST_CASE("xtensor_fixed string containers keep their static shape in and out", "[strings]") {
  auto f = sf::function([](auto s) { return std::tuple{s + "!", sf::strings::length(s)}; });
  const xt::xtensor_fixed<std::string, xt::xshape<2>> v = {"a", "bc"};
  const auto [marked, length] = f(v);
  STATIC_REQUIRE(std::is_same_v<std::remove_cvref_t<decltype(marked)>, xt::xtensor_fixed<std::string, xt::xshape<2>>>);
  CHECK((marked == xt::xtensor_fixed<std::string, xt::xshape<2>>{"a!", "bc!"}));
  CHECK((length == xt::xtensor_fixed<std::int32_t, xt::xshape<2>>{1, 2}));
  CHECK(f.pretty_printed_concrete_signatures().find("TensorSpec(shape=(2,), dtype=tf.string, name=None)") !=
        std::string::npos);
}

TEST_CASE("string ops folded while tracing give their pool bytes back", "[strings]") {
  auto& pool = sf::detail::string_pool::local();
  const auto before = pool.top();
  auto f = sf::function([](auto s) {
    // both operands are constants: folded into one literal when traced
    return s + (sf::constant("ab") + sf::strings::upper(sf::constant("cd")));
  });
  CHECK(f("x") == "xabCD");
  const auto after = pool.top();
  CHECK(after.chunk == before.chunk);
  CHECK(after.offset == before.offset);
  CHECK(f.get_concrete_function("y").graph_string().find("b'abCD'") != std::string::npos);
}
