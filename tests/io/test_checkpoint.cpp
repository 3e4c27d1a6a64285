// sf::checkpoint: save / restore of variables and optimizer state, the checks before any change,
// damaged files, atomic writes (a child killed mid-save), numbered saves.
#include <catch2/catch.hpp>

#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <staticflow/io/checkpoint.hpp>
#include <staticflow/staticflow.hpp>

namespace sf = staticflow;
namespace fs = std::filesystem;

namespace {
/// A fresh directory under the build tree's temp area, removed at the end of the test.
struct scratch_dir {
  fs::path path;
  explicit scratch_dir(const std::string& name)
      : path(fs::temp_directory_path() / ("staticflow_ckpt_" + name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~scratch_dir() { fs::remove_all(path); }
  std::string operator/(const std::string& file) const { return (path / file).string(); }
};

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void put_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const sf::checkpoint_error& e) {
    return e.what();
  }
  return "(no sf::checkpoint_error)";
}
}  // namespace

TEST_CASE("checkpoint: every dtype, scalars, dyn and size-0 variables come back as saved", "[checkpoint]") {
  scratch_dir dir("roundtrip");
  sf::variable<float, 2, 3> w{{{1.5f, -2.f, 3.f}, {4.f, 5.25f, -6.f}}};
  sf::variable<double> scale{0.125};
  sf::variable<std::int32_t, sf::dyn> ids{xt::xtensor<std::int32_t, 1>{7, -8, 9}};
  sf::variable<std::int64_t, sf::dyn> none{xt::xtensor<std::int64_t, 1>::from_shape({0})};
  sf::variable<bool, 4> mask{{true, false, false, true}};

  sf::checkpoint ckpt;
  ckpt.track("layer/w", w).track("scale", scale).track("ids", ids).track("none", none).track("mask", mask);
  const std::string path = dir / "model.npz";
  ckpt.write(path);

  w.assign(xt::xtensor_fixed<float, xt::xshape<2, 3>>{{0, 0, 0}, {0, 0, 0}});
  scale.assign(9.0);
  ids.assign(xt::xtensor<std::int32_t, 1>{1, 2, 3, 4, 5});  // dyn: a new extent
  none.assign(xt::xtensor<std::int64_t, 1>{42});
  mask.assign(xt::xtensor_fixed<bool, xt::xshape<4>>{false, true, true, false});

  const auto status = ckpt.restore(path);
  CHECK(status.unused.empty());
  CHECK(w.value() == xt::xtensor<float, 2>{{1.5f, -2.f, 3.f}, {4.f, 5.25f, -6.f}});
  CHECK(scale.value() == 0.125);
  CHECK(ids.value() == xt::xtensor<std::int32_t, 1>{7, -8, 9});
  CHECK(none.value().size() == 0);
  CHECK(none.current_extents()[0] == 0);
  CHECK(mask.value() == xt::xtensor<bool, 1>{true, false, false, true});
  CHECK_FALSE(fs::exists(path + ".partial"));
}

TEST_CASE("checkpoint: save numbers the files, latest_checkpoint finds the newest, save_counter is restored", "[checkpoint]") {
  scratch_dir dir("numbered");
  sf::variable<float, 2> v{{1.f, 2.f}};
  sf::checkpoint ckpt;
  ckpt.track("v", v);
  CHECK(sf::latest_checkpoint(dir / "ckpt") == "");
  CHECK(ckpt.save(dir / "ckpt") == dir / "ckpt-1.npz");
  v.assign_add(1.f);
  CHECK(ckpt.save(dir / "ckpt") == dir / "ckpt-2.npz");
  CHECK(ckpt.save_counter() == 2);
  v.assign_add(1.f);
  CHECK(ckpt.save(dir / "ckpt") == dir / "ckpt-3.npz");
  CHECK(sf::latest_checkpoint(dir / "ckpt") == dir / "ckpt-3.npz");

  sf::variable<float, 2> u;
  sf::checkpoint other;
  other.track("v", u);
  other.restore(dir / "ckpt-2.npz");
  CHECK(u.value() == xt::xtensor<float, 1>{2.f, 3.f});
  CHECK(other.save_counter() == 2);
  CHECK(other.save(dir / "ckpt") == dir / "ckpt-3.npz");  // continues the numbering (TF's save_counter)
}

TEST_CASE("checkpoint: an optimizer's step count, learning rate and slots make a resumed run equal the uninterrupted one",
          "[checkpoint][optimizer]") {
  scratch_dir dir("adam");
  // y = x . (1, -2, 3) + 0.5 on fixed random points
  std::mt19937 rng(7);
  std::normal_distribution<float> n01;
  xt::xtensor_fixed<float, xt::xshape<16, 3>> x;
  xt::xtensor_fixed<float, xt::xshape<16>> y;
  for (std::size_t i = 0; i < 16; ++i) {
    for (std::size_t j = 0; j < 3; ++j) x(i, j) = n01(rng);
    y(i) = x(i, 0) - 2.f * x(i, 1) + 3.f * x(i, 2) + 0.5f;
  }

  struct run {
    sf::variable<float, 3> w;
    sf::variable<float> b;
    sf::adam<float> opt{0.05f};
  };
  auto step_of = [](run& r) {
    return sf::function([&r](auto xs, auto ys) {
      sf::gradient_tape tape;
      auto loss = sf::reduce_mean(sf::square(sf::reduce_sum(xs * r.w, sf::axes<1>{}) + r.b - ys));
      r.opt.apply_gradients(tape.gradient(loss, r.w, r.b), r.w, r.b);
      return loss;
    });
  };
  auto track = [](sf::checkpoint& c, run& r) { c.track("w", r.w).track("b", r.b).track("optimizer", r.opt); };

  run a;
  auto step_a = step_of(a);
  sf::checkpoint ckpt_a;
  track(ckpt_a, a);
  const std::string before_training = ckpt_a.save(dir / "a");  // no slots yet
  for (int i = 0; i < 3; ++i) step_a(x, y);
  const std::string after_3 = ckpt_a.save(dir / "a");
  float loss_a = 0;
  for (int i = 0; i < 2; ++i) loss_a = step_a(x, y);
  const xt::xtensor<float, 1> w_a = a.w.value();
  const float b_a = a.b.value();

  SECTION("a fresh run restored from step 3 (its slots made by the restore) takes the same two steps") {
    run r;
    r.opt.learning_rate.assign(1.f);  // restored too
    sf::checkpoint ckpt;
    track(ckpt, r);
    ckpt.restore(after_3).assert_consumed();
    CHECK(r.opt.iterations.value() == 3);
    CHECK(r.opt.learning_rate.value() == 0.05f);
    CHECK(r.opt.slot(r.w, "m").value() != xt::xtensor<float, 1>{0.f, 0.f, 0.f});
    auto step = step_of(r);
    float loss = 0;
    for (int i = 0; i < 2; ++i) loss = step(x, y);
    CHECK(loss == loss_a);
    CHECK(r.w.value() == w_a);
    CHECK(r.b.value() == b_a);
    CHECK(r.opt.iterations.value() == 5);
  }
  SECTION("restoring the checkpoint saved before any step zeroes the slots the run has made since") {
    ckpt_a.restore(before_training);
    CHECK(a.opt.iterations.value() == 0);
    CHECK(a.opt.slot(a.w, "m").value() == xt::xtensor<float, 1>{0.f, 0.f, 0.f});
    CHECK(a.opt.slot(a.b, "v").value() == 0.f);
    CHECK(a.w.value() == xt::xtensor<float, 1>{0.f, 0.f, 0.f});
    for (int i = 0; i < 3; ++i) step_a(x, y);
    run r;  // the state saved after the first run's third step
    sf::checkpoint ckpt;
    track(ckpt, r);
    ckpt.restore(after_3);
    CHECK(a.w.value() == r.w.value());
    CHECK(a.b.value() == r.b.value());
    CHECK(a.opt.slot(a.w, "m").value() == r.opt.slot(r.w, "m").value());
    CHECK(a.opt.slot(a.w, "v").value() == r.opt.slot(r.w, "v").value());
    CHECK(a.opt.iterations.value() == 3);
  }
  SECTION("a checkpoint of the model alone restores into a model without an optimizer; the rest is reported") {
    sf::variable<float, 3> w;
    sf::variable<float> b;
    sf::checkpoint model;
    model.track("w", w).track("b", b);
    const auto status = model.restore(after_3);
    CHECK(status.unused == std::vector<std::string>{"optimizer/b/m", "optimizer/b/v", "optimizer/iterations",
                                                    "optimizer/learning_rate", "optimizer/w/m", "optimizer/w/v"});
    CHECK(error_of([&] { status.assert_consumed(); }) ==
          "staticflow: checkpoint: '" + after_3 +
              "' holds values that nothing restored: 'optimizer/b/m', 'optimizer/b/v', 'optimizer/iterations', "
              "'optimizer/learning_rate', 'optimizer/w/m', 'optimizer/w/v'");
  }
  SECTION("an optimizer with slots for an untracked variable cannot be saved without losing them") {
    sf::checkpoint partial;
    partial.track("w", a.w).track("optimizer", a.opt);
    CHECK(error_of([&] { partial.write(dir / "partial.npz"); }) ==
          "staticflow: checkpoint: optimizer 'optimizer' has a 'm' slot for a variable that this checkpoint does not "
          "track: track the variable too");
    CHECK_FALSE(fs::exists(dir / "partial.npz"));
  }
}

TEST_CASE("checkpoint: a restore that does not fit changes nothing and says why", "[checkpoint][errors]") {
  scratch_dir dir("mismatch");
  sf::variable<float, 2, 3> w{{{1, 2, 3}, {4, 5, 6}}};
  sf::variable<double, 2> b{{0.5, 0.25}};
  sf::checkpoint saved;
  saved.track("w", w).track("b", b);
  const std::string path = dir / "m.npz";
  saved.write(path);

  sf::variable<float, 2, 3> w2{{{9, 9, 9}, {9, 9, 9}}};
  const xt::xtensor<float, 2> w2_before = w2.value();

  SECTION("a missing name") {
    sf::variable<double, 2> c;
    sf::checkpoint ckpt;
    ckpt.track("w", w2).track("c", c);
    CHECK(error_of([&] { ckpt.restore(path); }) ==
          "staticflow: checkpoint: '" + path + "' has no value for 'c' (it holds 'b', 'save_counter', 'w')");
  }
  SECTION("another dtype") {
    sf::variable<float, 2> b32;
    sf::checkpoint ckpt;
    ckpt.track("w", w2).track("b", b32);
    CHECK(error_of([&] { ckpt.restore(path); }) ==
          "staticflow: checkpoint: '" + path + "': 'b' is float64 there, and the variable is float32");
  }
  SECTION("another shape; a dyn dim takes any extent, a static one only its own") {
    sf::variable<double, 3> b3;
    sf::checkpoint ckpt;
    ckpt.track("w", w2).track("b", b3);
    CHECK(error_of([&] { ckpt.restore(path); }) ==
          "staticflow: checkpoint: '" + path + "': 'b' has shape (2,) there, and the variable has shape (3,)");
    sf::variable<float, sf::dyn, 2> wd;
    sf::checkpoint dyn_ckpt;
    dyn_ckpt.track("w", wd);
    CHECK(error_of([&] { dyn_ckpt.restore(path); }) ==
          "staticflow: checkpoint: '" + path + "': 'w' has shape (2, 3) there, and the variable has shape (None, 2)");
  }
  CHECK(w2.value() == w2_before);  // restored first, yet unchanged
}

TEST_CASE("checkpoint: damaged, truncated and foreign files are errors", "[checkpoint][errors]") {
  scratch_dir dir("damaged");
  xt::xtensor<float, 1> init = xt::arange<float>(0.f, 64.f);
  sf::variable<float, 64> v{init};
  sf::checkpoint ckpt;
  ckpt.track("v", v);
  const std::string path = dir / "v.npz";
  ckpt.write(path);
  const std::string good = file_bytes(path);
  v.assign(0.f);

  std::string flipped = good;
  flipped[200] = static_cast<char>(flipped[200] ^ 0x10);  // inside v's data
  put_bytes(path, flipped);
  CHECK(error_of([&] { ckpt.restore(path); }) ==
        "staticflow: checkpoint: '" + path + "' is not a readable .npz file: the checksum of 'v.npy' does not match (the file is damaged)");
  put_bytes(path, good.substr(0, good.size() / 2));
  CHECK(error_of([&] { ckpt.restore(path); }) ==
        "staticflow: checkpoint: '" + path + "' is not a readable .npz file: no zip end record (truncated?)");
  put_bytes(path, "weights: 1 2 3\n");
  CHECK(error_of([&] { ckpt.restore(path); }) ==
        "staticflow: checkpoint: '" + path + "' is not a readable .npz file: too short for a zip archive");
  CHECK(error_of([&] { ckpt.restore(dir / "absent.npz"); }) == "staticflow: checkpoint: cannot open '" + (dir / "absent.npz") + "' for reading");
  CHECK(xt::all(xt::equal(v.value(), 0.f)));

  put_bytes(path, good);
  ckpt.restore(path);
  CHECK(v.value() == init);
}

TEST_CASE("checkpoint: names are checked when tracked", "[checkpoint][errors]") {
  sf::variable<float> a, b;
  sf::checkpoint ckpt;
  ckpt.track("a", a);
  CHECK(error_of([&] { ckpt.track("a", b); }) == "staticflow: checkpoint::track: the name 'a' is taken");
  CHECK(error_of([&] { ckpt.track("a2", a); }) == "staticflow: checkpoint::track: this variable is tracked already, as 'a'");
  CHECK(error_of([&] { ckpt.track("save_counter", b); }) == "staticflow: checkpoint::track: the name 'save_counter' is taken");
  for (const char* bad : {"", "/b", "b/", "b//c", "b c", "b:0"})
    CHECK(error_of([&] { ckpt.track(bad, b); }) ==
          "staticflow: checkpoint::track: '" + std::string(bad) + "' is not a valid name (letters, digits and _ . -, with / between parts)");
  ckpt.track("layer_1/b.0-x", b);
}

TEST_CASE("checkpoint: a process killed mid-save leaves the previous checkpoint whole", "[checkpoint][atomic]") {
  scratch_dir dir("killed");
  // 96 MiB of data: writing it takes long enough to be caught in the middle
  constexpr std::size_t n = std::size_t(24) << 20;
  sf::variable<float, sf::dyn> big{xt::xtensor<float, 1>(xt::zeros<float>({n}))};
  sf::variable<std::int32_t> version{1};
  sf::checkpoint ckpt;
  ckpt.track("version", version).track("big", big);
  const std::string path = dir / "big.npz";
  ckpt.write(path);
  const std::string partial = path + ".partial";

  version.assign(2);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {  // the child saves version 2 over version 1 and is killed while it writes
    try {
      ckpt.write(path);
    } catch (...) {
    }
    ::_exit(0);
  }
  struct stat st {};
  bool seen_partial = false;
  for (int i = 0; i < 200000 && !seen_partial; ++i) {  // up to ~20 s
    seen_partial = ::stat(partial.c_str(), &st) == 0 && st.st_size > 0;
    if (!seen_partial) ::usleep(100);
  }
  ::kill(child, SIGKILL);
  int wstatus = 0;
  ::waitpid(child, &wstatus, 0);
  REQUIRE(seen_partial);
  REQUIRE(WIFSIGNALED(wstatus));  // killed, not finished
  REQUIRE(WTERMSIG(wstatus) == SIGKILL);

  sf::variable<std::int32_t> restored_version{0};
  sf::variable<float, sf::dyn> restored_big;
  sf::checkpoint reader;
  reader.track("version", restored_version).track("big", restored_big);
  reader.restore(path);
  CHECK(restored_version.value() == 1);
  CHECK(restored_big.current_extents()[0] == n);
  CHECK(fs::exists(partial));  // what the crash left; the next save replaces it
  ckpt.write(path);
  CHECK_FALSE(fs::exists(partial));
  reader.restore(path);
  CHECK(restored_version.value() == 2);
}
