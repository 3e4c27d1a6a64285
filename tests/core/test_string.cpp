// The string dtype (core/string.hpp): sf::string as a view, its dtype name and concepts, the
// thread's string pool and the scope that gives its bytes back.
#include <catch2/catch.hpp>

#include <cstring>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>

#include "staticflow/core/dtype.hpp"
#include "staticflow/core/string.hpp"

namespace sf = staticflow;

TEST_CASE("sf::string is a trivially copyable view named string, not a number", "[core][string]") {
  STATIC_REQUIRE(std::is_trivially_copyable_v<sf::string>);
  STATIC_REQUIRE(sf::dtype<sf::string>);
  STATIC_REQUIRE(sf::string_dtype<sf::string>);
  STATIC_REQUIRE_FALSE(sf::numeric_dtype<sf::string>);
  STATIC_REQUIRE_FALSE(sf::string_dtype<float>);
  CHECK(sf::dtype_name<sf::string> == std::string_view("string"));
  STATIC_REQUIRE(std::is_same_v<sf::canonical_dtype_t<std::string>, sf::string>);
  STATIC_REQUIRE(std::is_same_v<sf::canonical_dtype_t<const char*>, sf::string>);
  STATIC_REQUIRE(std::is_same_v<sf::canonical_dtype_t<char[4]>, sf::string>);
  STATIC_REQUIRE(std::is_same_v<sf::canonical_dtype_t<std::string_view>, sf::string>);
  STATIC_REQUIRE(std::is_same_v<sf::canonical_dtype_t<char>, void>);  // a char is no dtype
  STATIC_REQUIRE(std::is_same_v<sf::promote_t<sf::string, sf::string>, sf::string>);

  const std::string text = "hello";
  const sf::string s(text);
  CHECK(s.data() == text.data());  // a view: no copy
  CHECK(s.size() == 5);
  CHECK(s == sf::string("hello"));
  CHECK(s != sf::string("hell"));
  CHECK(sf::string("abc") < sf::string("abd"));
  CHECK(sf::string().empty());
  CHECK(sf::string().str().empty());
  std::ostringstream os;
  os << s;
  CHECK(os.str() == "hello");
}

TEST_CASE("concatenation puts its bytes in the string pool; a scope gives them back", "[core][string]") {
  auto& pool = sf::detail::string_pool::local();
  const auto before = pool.top();
  {
    sf::string_scope scope;
    const sf::string ab = sf::string("ab") + sf::string("cd");
    CHECK(ab.str() == "abcd");
    const sf::string empty = sf::string() + sf::string();
    CHECK(empty.empty());
    const std::string long_text(10000, 'x');  // larger than a first chunk: a chunk of its own
    const sf::string big = sf::string(long_text) + sf::string("y");
    CHECK(big.size() == 10001);
    CHECK(big.view().back() == 'y');
    CHECK(ab.str() == "abcd");  // chunks never move: an earlier string is still there
  }
  const auto after = pool.top();
  CHECK(after.chunk == before.chunk);
  CHECK(after.offset == before.offset);
  const std::size_t capacity = pool.capacity();
  for (int i = 0; i < 100; ++i) {
    sf::string_scope scope;
    (void)(sf::string("some") + sf::string(" text"));
  }
  CHECK(pool.capacity() == capacity);  // a steady stream of scopes reuses the same bytes
}
