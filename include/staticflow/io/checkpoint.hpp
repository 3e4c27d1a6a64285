// staticflow/io/checkpoint.hpp -- sf::checkpoint: what a training run has learned (variables, and
// an optimizer's step count, learning rate and slots) saved to a file and restored from it
// (tf.train.Checkpoint).
//
//   #include <staticflow/io/checkpoint.hpp>   // opt-in: staticflow.hpp does no file I/O
//
//   sf::checkpoint ckpt;
//   ckpt.track("w", w).track("b", b).track("optimizer", opt);
//   const std::string path = ckpt.save("run/ckpt");   // run/ckpt-1.npz, then run/ckpt-2.npz, ...
//   ...
//   ckpt.restore(sf::latest_checkpoint("run/ckpt"));
//
// The file is NumPy's .npz (io/npz.hpp): `np.load(path)` gives the arrays by the names tracked
// here ("w", "optimizer/iterations", "optimizer/w/m", and the "save_counter"), and a file that
// np.savez wrote restores as well. A directory of .npy files would have been simpler to write,
// but one file is what makes saving atomic: it is written under a temporary name, flushed to
// disk, then renamed over the destination, so a crash mid-save leaves the previous checkpoint
// whole. Restoring reads and checks everything first (every tracked name present, dtype, shape,
// the checksums) and changes no variable unless all of it fits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#if __has_include(<unistd.h>)
#include <unistd.h>
#endif

#include "staticflow/core/errors.hpp"
#include "staticflow/effects/variable.hpp"
#include "staticflow/io/npz.hpp"
#include "staticflow/optimizers/optimizer.hpp"

namespace staticflow {

/// What a restore found: the values of the file that nothing tracked here asked for (restoring
/// a model without its optimizer, to serve it, is ordinary).
struct restore_status {
  std::string file;
  std::vector<std::string> unused;

  /// Throws sf::checkpoint_error when the file held values that were not restored
  /// (TensorFlow's assert_consumed).
  const restore_status& assert_consumed() const {
    if (!unused.empty()) {
      std::string names;
      for (const auto& n : unused) names += (names.empty() ? "'" : ", '") + n + "'";
      throw checkpoint_error("checkpoint: '" + file + "' holds values that nothing restored: " + names);
    }
    return *this;
  }
};

class checkpoint {
  using variable_base = detail::variable_base;
  using slot_visitor = std::function<void(const variable_base&, std::string_view, variable_base&)>;

 public:
  checkpoint() = default;
  checkpoint(const checkpoint&) = delete;
  checkpoint& operator=(const checkpoint&) = delete;

  /// Tracks v under `name` (letters, digits and `_ . -`, with `/` between parts).
  template <class T, std::size_t... D>
  checkpoint& track(const std::string& name, variable<T, D...>& v) {
    add(name, v);
    return *this;
  }

  /// Tracks an optimizer under `name`: its `name/iterations`, `name/learning_rate`, and each slot
  /// of a variable tracked here as `name/<variable's name>/<slot>` ("optimizer/w/m").
  template <class Derived, class T>
  checkpoint& track(const std::string& name, optimizer<Derived, T>& opt) {
    add(name + "/iterations", opt.iterations);
    add(name + "/learning_rate", opt.learning_rate);
    optimizers_.push_back({name, [&opt](const slot_visitor& f) { opt.for_each_slot(f); },
                           [&opt](const variable_base& v, std::string_view slot) -> variable_base& {
                             return opt.slot_for_restore(v, slot);
                           }});
    return *this;
  }

  /// How many times save() has written (restored with the rest: TensorFlow's save_counter).
  std::int64_t save_counter() const { return save_counter_; }

  /// Writes `prefix-N.npz` with N = save_counter() + 1 and returns its path.
  std::string save(const std::string& prefix) {
    const std::string path = prefix + "-" + std::to_string(save_counter_ + 1) + ".npz";
    ++save_counter_;
    try {
      write(path);
    } catch (...) {
      --save_counter_;
      throw;
    }
    return path;
  }

  /// Writes every tracked value to `file` (any name; made with its directories), atomically.
  void write(const std::string& file) const {
    const auto values = snapshot();
    if (const auto dir = std::filesystem::path(file).parent_path(); !dir.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
    }
    const std::string partial = file + ".partial";
    std::FILE* f = std::fopen(partial.c_str(), "wb");
    if (!f) throw checkpoint_error("checkpoint: cannot open '" + partial + "' for writing");
    try {
      detail::npz::zip_writer zip(f, file);
      for (const auto& v : values) {
        const std::string header = detail::npz::npy_header(detail::npz::descr_of(v.dtype), v.shape.data(), v.shape.size());
        zip.add(v.name + ".npy", {{header.data(), header.size()}, {v.bytes.data(), v.bytes.size()}});
      }
      zip.finish();
      if (std::fflush(f) != 0 || !flushed_to_disk(f)) throw checkpoint_error("checkpoint: writing '" + partial + "' failed");
    } catch (...) {
      std::fclose(f);
      std::remove(partial.c_str());
      throw;
    }
    if (std::fclose(f) != 0 || std::rename(partial.c_str(), file.c_str()) != 0) {
      std::remove(partial.c_str());
      throw checkpoint_error("checkpoint: cannot write '" + file + "'");
    }
  }

  /// Reads `file` and assigns every tracked value from it. Every tracked name must be there with
  /// its variable's dtype and a shape that fits it (a `dyn` dim takes the stored extent); the
  /// optimizer slots of tracked variables are made if missing, and zeroed if the file has none
  /// (saved before the first step). Throws sf::checkpoint_error, changing nothing, otherwise.
  restore_status restore(const std::string& file) {
    const detail::npz::zip_archive archive(file);
    std::map<std::string, detail::npz::array_view> arrays;
    for (const auto& e : archive.entries()) {
      const std::string name = e.name.ends_with(".npy") ? e.name.substr(0, e.name.size() - 4) : e.name;
      arrays.emplace(name, detail::npz::parse_npy(e.data, e.size, name));
    }
    std::map<std::string, bool> used;
    for (const auto& [name, a] : arrays) used[name] = false;

    std::vector<std::pair<variable_base*, const detail::npz::array_view*>> writes;
    for (const auto& t : variables_) {
      const auto it = arrays.find(t.name);
      if (it == arrays.end()) {
        std::string held;
        for (const auto& [name, a] : arrays) held += (held.empty() ? "'" : ", '") + name + "'";
        throw checkpoint_error("checkpoint: '" + file + "' has no value for '" + t.name + "' (it holds " +
                               (held.empty() ? std::string("nothing") : held) + ")");
      }
      check(file, t.name, *t.var, it->second);
      writes.emplace_back(t.var, &it->second);
      used[t.name] = true;
    }
    struct slot_write {
      const tracked_optimizer* opt;
      const variable_base* var;
      std::string slot;
      const detail::npz::array_view* value;
    };
    std::vector<slot_write> slot_writes;
    for (const auto& o : optimizers_)
      for (const auto& [name, a] : arrays) {
        if (!name.starts_with(o.name + "/") || used[name]) continue;
        const std::string rest = name.substr(o.name.size() + 1);
        const auto cut = rest.rfind('/');
        const variable_base* var = cut == std::string::npos ? nullptr : find(rest.substr(0, cut));
        if (!var) continue;  // not a slot of a variable tracked here: reported as unused
        check(file, name, *var, a);
        slot_writes.push_back({&o, var, rest.substr(cut + 1), &a});
        used[name] = true;
      }
    const auto counter = arrays.find("save_counter");
    if (counter != arrays.end()) {
      if (counter->second.dtype != "int64" || !counter->second.shape.empty() || counter->second.bytes != 8)
        throw checkpoint_error("checkpoint: '" + file + "': 'save_counter' is not an int64 scalar");
      used["save_counter"] = true;
    }

    // Everything fits: now change the variables.
    for (const auto& [var, a] : writes) var->overwrite(a->shape.data(), a->data);
    for (const auto& o : optimizers_) {
      std::vector<variable_base*> stale;  // slots of tracked variables that the file does not have
      o.for_each_slot([&](const variable_base& var, std::string_view slot, variable_base& s) {
        if (!tracked(&var)) return;
        for (const auto& w : slot_writes)
          if (w.opt == &o && w.var == &var && w.slot == slot) return;
        stale.push_back(&s);
      });
      for (variable_base* s : stale) {
        const std::vector<unsigned char> zeros(s->bytes());
        s->overwrite(s->extents_data(), zeros.data());
      }
    }
    for (const auto& w : slot_writes) w.opt->slot_for_restore(*w.var, w.slot).overwrite(w.value->shape.data(), w.value->data);
    if (counter != arrays.end()) std::memcpy(&save_counter_, counter->second.data, sizeof save_counter_);

    restore_status status{file, {}};
    for (const auto& [name, was_used] : used)
      if (!was_used) status.unused.push_back(name);
    return status;
  }

 private:
  struct tracked_variable {
    std::string name;
    variable_base* var;
  };
  struct tracked_optimizer {
    std::string name;
    std::function<void(const slot_visitor&)> for_each_slot;
    std::function<variable_base&(const variable_base&, std::string_view)> slot_for_restore;
  };
  struct value {
    std::string name;
    std::string_view dtype;
    std::vector<std::size_t> shape;
    std::vector<unsigned char> bytes;
  };

  void add(const std::string& name, variable_base& v) {
    bool valid = !name.empty() && name.front() != '/' && name.back() != '/' && name.find("//") == std::string::npos;
    for (const char c : name)
      valid = valid && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                        c == '.' || c == '-' || c == '/');
    if (!valid)
      throw checkpoint_error("checkpoint::track: '" + name +
                             "' is not a valid name (letters, digits and _ . -, with / between parts)");
    if (name == "save_counter") throw checkpoint_error("checkpoint::track: the name 'save_counter' is taken");
    for (const auto& t : variables_) {
      if (t.name == name)
        throw checkpoint_error("checkpoint::track: the name '" + name + "' is taken");
      if (t.var == &v) throw checkpoint_error("checkpoint::track: this variable is tracked already, as '" + t.name + "'");
    }
    variables_.push_back({name, &v});
  }

  const variable_base* find(const std::string& name) const {
    for (const auto& t : variables_)
      if (t.name == name) return t.var;
    return nullptr;
  }
  const std::string* tracked(const variable_base* v) const {
    for (const auto& t : variables_)
      if (t.var == v) return &t.name;
    return nullptr;
  }

  /// Copies of every value to write, each taken under its variable's lock.
  std::vector<value> snapshot() const {
    std::vector<value> values;
    auto take = [&](std::string name, const variable_base& v) {
      std::lock_guard<std::mutex> lock(v.mutex());
      const auto* bytes = static_cast<const unsigned char*>(v.raw_data());
      values.push_back({std::move(name), v.dtype_name(), std::vector<std::size_t>(v.extents_data(), v.extents_data() + v.rank()),
                        std::vector<unsigned char>(bytes, bytes + v.bytes())});
    };
    for (const auto& t : variables_) take(t.name, *t.var);
    for (const auto& o : optimizers_)
      o.for_each_slot([&](const variable_base& var, std::string_view slot, variable_base& s) {
        const std::string* var_name = tracked(&var);
        if (!var_name)
          throw checkpoint_error("checkpoint: optimizer '" + o.name + "' has a '" + std::string(slot) +
                                 "' slot for a variable that this checkpoint does not track: track the variable too");
        take(o.name + "/" + *var_name + "/" + std::string(slot), s);
      });
    const std::int64_t counter = save_counter_;
    values.push_back({"save_counter", "int64", {}, std::vector<unsigned char>(reinterpret_cast<const unsigned char*>(&counter),
                                                                               reinterpret_cast<const unsigned char*>(&counter + 1))});
    for (std::size_t i = 0; i < values.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (values[i].name == values[j].name)
          throw checkpoint_error("checkpoint: two values would be saved as '" + values[i].name + "'");
    return values;
  }

  /// Throws unless array a (the file's value `name`) has v's dtype and a shape v may take.
  static void check(const std::string& file, const std::string& name, const variable_base& v, const detail::npz::array_view& a) {
    const std::string where = "checkpoint: '" + file + "': '" + name + "' ";
    if (a.dtype != v.dtype_name())
      throw checkpoint_error(where + "is " + a.dtype + " there, and the variable is " + std::string(v.dtype_name()));
    std::vector<std::size_t> declared(v.rank());
    bool fits = a.shape.size() == v.rank();
    for (std::size_t d = 0; d < v.rank(); ++d) {
      declared[d] = v.declared_extent(d);
      fits = fits && (declared[d] == dyn || declared[d] == a.shape[d]);
    }
    if (!fits)
      throw checkpoint_error(where + "has shape " + detail::npz::shape_text(a.shape.data(), a.shape.size()) +
                             " there, and the variable has shape " + detail::npz::shape_text(declared.data(), declared.size()));
    if (a.fortran_order && a.shape.size() > 1)
      throw checkpoint_error(where + "is stored in Fortran order; save it C-ordered (np.ascontiguousarray)");
    std::size_t count = detail::npz::element_bytes(a.dtype);
    for (const std::size_t e : a.shape) count *= e;
    if (a.bytes != count)
      throw checkpoint_error(where + "has " + std::to_string(a.bytes) + " bytes of data, and its shape needs " +
                             std::to_string(count) + " (the file is damaged)");
  }

  static bool flushed_to_disk([[maybe_unused]] std::FILE* f) {
#if __has_include(<unistd.h>)
    return ::fsync(::fileno(f)) == 0;
#else
    return true;
#endif
  }

  std::vector<tracked_variable> variables_;
  std::vector<tracked_optimizer> optimizers_;
  std::int64_t save_counter_ = 0;
};

/// The newest checkpoint that save(prefix) wrote (the largest N of `prefix-N.npz`), or an empty
/// string when there is none (tf.train.latest_checkpoint).
inline std::string latest_checkpoint(const std::string& prefix) {
  const std::filesystem::path p(prefix);
  const std::filesystem::path dir = p.parent_path().empty() ? std::filesystem::path(".") : p.parent_path();
  const std::string stem = p.filename().string() + "-";
  std::error_code ec;
  std::string best;
  long long best_n = -1;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(stem) || !name.ends_with(".npz") || name.size() <= stem.size() + 4) continue;
    const std::string digits = name.substr(stem.size(), name.size() - stem.size() - 4);
    if (digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    if (const long long n = std::stoll(digits); n > best_n) best_n = n, best = (p.parent_path() / name).string();
  }
  return best;
}

}  // namespace staticflow
