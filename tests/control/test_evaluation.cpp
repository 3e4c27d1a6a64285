// control/evaluation.hpp: the backend-neutral half of running control flow, which the CPU and
// Thrust backends share (their loops and tensor arrays are tested in test_loops.cpp and
// tests/thrust/loops_suite.cpp).
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include <staticflow/staticflow.hpp>

namespace ce = staticflow::detail::control_evaluation;
using staticflow::dyn;
using staticflow::extents;

namespace {
std::string message_of(auto&& f) {
  try {
    f();
  } catch (const staticflow::shape_error& e) {
    return e.what();
  }
  return "(no shape_error)";
}

// A backend's loop variable as make_room_for_write sees it: extents and a growing leading extent.
struct growing_buffer {
  extents<2> ext{};
  std::size_t grown_to = 0;
  int grow_calls = 0;
  void grow_leading(std::size_t rows) {
    ext[0] = rows;
    grown_to = rows;
    ++grow_calls;
  }
};
// One that cannot grow (the CPU's in-object buffer of a small static shape).
struct fixed_buffer {
  static constexpr extents<2> ext{4, 3};
};
}  // namespace

TEST_CASE("evaluation: a tensor-array write's checks name the index, the shapes and the size") {
  extents<2> array{4, 3};
  CHECK(ce::checked_write(2, array, extents<1>{3}, false) == 4);
  CHECK(ce::checked_write(4, array, extents<1>{3}, true) == 5);
  CHECK(ce::checked_write(9, array, extents<1>{3}, true) == 10);
  CHECK(message_of([&] { ce::checked_write(-1, array, extents<1>{3}, true); }) ==
        "staticflow: tensor_array::write: index -1 is negative");
  CHECK(message_of([&] { ce::checked_write(0, array, extents<1>{2}, true); }) ==
        "staticflow: tensor_array::write: the element has shape (2,), the array's elements have shape (3,)");
  CHECK(message_of([&] { ce::checked_write(4, array, extents<1>{3}, false); }) ==
        "staticflow: tensor_array::write: index 4 is out of range for a tensor array of size 4 (its size is fixed; make it "
        "with dynamic_size to let it grow)");
  CHECK(array == extents<2>{4, 3});  // a check that throws leaves the extents as they were
}

TEST_CASE("evaluation: an array that holds nothing takes its element extents from the first write") {
  extents<2> empty{0, 0};
  CHECK(ce::checked_write(0, empty, extents<1>{5}, true) == 1);
  CHECK(empty == extents<2>{0, 5});
  extents<2> sized{3, 0};  // with_size(3) of elements whose extents are not known yet
  CHECK(ce::checked_write(1, sized, extents<1>{2}, false) == 3);
  CHECK(sized == extents<2>{3, 2});
}

TEST_CASE("evaluation: the extents of a copy-and-write and of with_size's zeros") {
  using grows = staticflow::shape<dyn, 3>;
  using fixed = staticflow::shape<4, 3>;
  CHECK(ce::written_array_extents<grows>(5, extents<2>{4, 3}, extents<1>{3}, true) == extents<2>{6, 3});
  CHECK(ce::written_array_extents<grows>(1, extents<2>{4, 3}, extents<1>{3}, true) == extents<2>{4, 3});
  // a static leading extent is a fixed size, whatever dynamic_size says
  CHECK(message_of([] { ce::written_array_extents<fixed>(4, extents<2>{4, 3}, extents<1>{3}, true); })
            .starts_with("staticflow: tensor_array::write: index 4 is out of range for a tensor array of size 4"));
  CHECK(ce::zero_elements_extents<staticflow::shape<dyn, dyn>>(7) == extents<2>{7, 0});
  CHECK(ce::zero_elements_extents<staticflow::shape<dyn, 2>>(0) == extents<2>{0, 2});
  CHECK(ce::zero_elements_extents<staticflow::shape<3, 2>>(3) == extents<2>{3, 2});
  CHECK(message_of([] { ce::zero_elements_extents<staticflow::shape<dyn, 2>>(-2); }) ==
        "staticflow: tensor_array: the size -2 is negative");
}

TEST_CASE("evaluation: an in-place write grows a dynamic-size variable and adopts element extents") {
  growing_buffer b;
  b.ext = {2, 3};
  ce::make_room_for_write(b, 1, extents<1>{3}, true);  // inside: nothing to do
  CHECK(b.grow_calls == 0);
  ce::make_room_for_write(b, 4, extents<1>{3}, true);  // past the end: rows 2..4 added
  CHECK(b.grow_calls == 1);
  CHECK(b.ext == extents<2>{5, 3});
  CHECK(message_of([&] { ce::make_room_for_write(b, 5, extents<1>{3}, false); }).starts_with(
      "staticflow: tensor_array::write: index 5 is out of range for a tensor array of size 5"));

  growing_buffer unknown;  // with_size(2) of elements of unknown extents: 2 rows of nothing
  unknown.ext = {2, 0};
  ce::make_room_for_write(unknown, 0, extents<1>{4}, false);
  // the old rows held nothing: the array starts from 0 rows of the adopted extents, then grows
  // back to 2 (zero-filled by the backend)
  CHECK(unknown.grow_calls == 1);
  CHECK(unknown.grown_to == 2);
  CHECK(unknown.ext == extents<2>{2, 4});

  fixed_buffer f;  // a buffer that cannot grow: only the checks
  ce::make_room_for_write(f, 3, extents<1>{3}, true);
  CHECK(message_of([&] { ce::make_room_for_write(f, 4, extents<1>{3}, true); }).starts_with(
      "staticflow: tensor_array::write: index 4 is out of range for a tensor array of size 4"));
}

TEST_CASE("evaluation: a loop body's outputs: a value per variable, an index and an element per in-place write") {
  using layout = ce::loop_output_layout<false, true, false>;
  STATIC_REQUIRE(layout::count == 4);
  STATIC_REQUIRE(layout::table[0] == std::pair<std::size_t, std::size_t>{0, 0});
  STATIC_REQUIRE(layout::table[1] == std::pair<std::size_t, std::size_t>{1, 0});
  STATIC_REQUIRE(layout::table[2] == std::pair<std::size_t, std::size_t>{1, 1});
  STATIC_REQUIRE(layout::table[3] == std::pair<std::size_t, std::size_t>{2, 0});
  STATIC_REQUIRE(layout::first_output(0) == 0);
  STATIC_REQUIRE(layout::first_output(1) == 1);
  STATIC_REQUIRE(layout::first_output(2) == 3);
  STATIC_REQUIRE(ce::loop_output_layout<>::count == 0);

  float condition = 0.f;
  const ce::scalar_target<float> target{&condition};
  CHECK(target.allocate<0>(extents<0>{}) == &condition);
}
