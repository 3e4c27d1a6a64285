// staticflow/effects/recorder.hpp -- how effects (variable assignments, sf::print, sf::for_range)
// are recorded while a function is traced, and run, in program order, on every call.
//
// A statement such as `v.assign_add(x)` returns nothing, so it cannot become part of the graph's
// type. It is recorded at trace time instead: the traced lambda runs once, and every effect it
// performs appends a type-erased `effect` (which holds its own typed, planned graph) to the
// recorder on top of this thread's trace stack. The concrete function keeps the resulting
// `effect_program` and runs it before computing its outputs (TensorFlow's automatic control
// dependencies: effects in program order, reads see earlier writes of the same call).
//
// Reads of a variable are `graph::external` leaves. A read followed, in program order, by a write
// of the same variable must still see the old value: a call's first write goes to the variable's
// spare buffer, where the read stays pointed at the old one (a later write copies it into the
// read's snapshot buffer first). A first write that nothing after it can undo, and whose old
// values nothing reads later, goes in place (effect_program::find_in_place_writes).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "staticflow/core/errors.hpp"
#include "staticflow/graph/external.hpp"

namespace staticflow::detail {

/// An argument of the call as an effect sees it: data and extents, types erased (an effect's
/// graph knows the types from its own argument leaves).
struct erased_view {
  const void* data = nullptr;
  const std::size_t* ext = nullptr;
};
using erased_args = const erased_view*;

/// The largest rank a variable may have.
inline constexpr std::size_t max_variable_rank = 8;

/// What every sf::variable has, whatever its dtype and shape: where its data is, its extents,
/// its lock, and a backup that restores it when a call throws.
class variable_base {
 public:
  variable_base() = default;
  variable_base(const variable_base&) = delete;
  variable_base& operator=(const variable_base&) = delete;
  virtual ~variable_base() = default;

  std::size_t rank() const { return rank_; }
  const std::size_t* extents_data() const { return ext_.data(); }
  std::size_t size() const {
    std::size_t n = 1;
    for (std::size_t d = 0; d < rank_; ++d) n *= ext_[d];
    return n;
  }
  std::size_t bytes() const { return size() * element_bytes_; }
  std::mutex& mutex() const { return mutex_; }

  /// The variable's TensorSpec (TensorFlow's format).
  virtual std::string spec_string() const = 0;
  /// Its dtype's name ("float32", ...) and its declared extent along dim d (`dyn` where any
  /// extent may be assigned): what code that does not know the type checks (sf::checkpoint).
  virtual std::string_view dtype_name() const = 0;
  virtual std::size_t declared_extent(std::size_t d) const = 0;
  /// A new variable of the same type, zeros of the current extents (an optimizer's slot for it).
  virtual std::unique_ptr<variable_base> make_slot() const = 0;

  /// The contents, row-major (read them under mutex()).
  const void* raw_data() const { return data_; }
  /// Replaces the contents with rank() extents `ext` and size() * element bytes of `bytes`. The
  /// caller has checked the dtype and that `ext` fits the declared extents.
  void overwrite(const std::size_t* ext, const void* bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!std::equal(ext, ext + rank_, ext_.data())) resize_storage(ext);
    if (size() != 0) std::memcpy(data_, bytes, this->bytes());
  }

  /// The source every read of the current contents goes through (no snapshot).
  const graph::external_source* live_source() const { return &live_; }

  /// A call that may write this variable starts (its lock held). A variable that can swap
  /// buffers (every one but a scalar) sends the call's first write to a spare buffer, which then
  /// becomes the contents (assign_effect): the old contents stay where they were, ready to come
  /// back if the call throws, and no copy is made. A scalar is copied now.
  /// `in_place`: the call may write the first value in place instead, where the write's
  /// target allows it (effect_program::run: nothing after that write can throw).
  void begin_call(bool in_place = false) {
    if (swappable_) first_write_pending_ = true, in_place_allowed_ = in_place;
    else save();
  }
  /// The call threw: the contents before it come back.
  void roll_back() {
    if (!swappable_) restore();
    else if (swapped_) swap_spare();
    end_call();
  }
  /// The call ended (either way).
  void end_call() {
    first_write_pending_ = false;
    in_place_allowed_ = false;
    swapped_ = false;
  }
  /// Whether the next write of the running call goes to the spare buffer, leaving the present
  /// contents untouched until the call ends.
  bool first_write_pending() const { return first_write_pending_; }
  /// Whether the call's first write may go in place (begin_call's `in_place`): no rollback will
  /// need the contents it replaces.
  bool in_place_allowed() const { return in_place_allowed_; }
  /// The call's first write goes in place: later writes follow it there.
  void write_in_place() { first_write_pending_ = false; }

  /// Keeps a copy of the contents (eager mode, and scalars: a call that may write this variable
  /// is about to start).
  void save() {
    backup_ext_ = ext_;
    backup_.resize(bytes());
    if (!backup_.empty()) std::memcpy(backup_.data(), data_, backup_.size());
  }
  /// Puts the saved contents back (the call threw).
  void restore() {
    if (backup_ext_ != ext_) resize_storage(backup_ext_.data());
    if (!backup_.empty()) std::memcpy(data_, backup_.data(), backup_.size());
  }

 protected:
  /// Reallocates the storage for new extents (variables with sf::dyn dims); updates data_.
  virtual void resize_storage(const std::size_t* ext) = 0;
  /// Exchanges the contents and the spare buffer (swappable variables); updates data_ and ext_.
  virtual void swap_spare() {}
  /// The spare buffer now holds the contents the running call wrote: it becomes the contents,
  /// and the old ones wait in the spare until the call ends.
  void commit_spare() {
    swap_spare();
    swapped_ = true;
    first_write_pending_ = false;
  }

  void set_storage(void* data, std::size_t rank, const std::size_t* ext, std::size_t element_bytes) {
    data_ = data;
    rank_ = rank;
    element_bytes_ = element_bytes;
    for (std::size_t d = 0; d < rank; ++d) ext_[d] = ext[d];
  }

  void* data_ = nullptr;
  std::array<std::size_t, max_variable_rank> ext_{};
  bool swappable_ = false;  // set by a variable with a spare buffer

 private:
  bool first_write_pending_ = false;
  bool in_place_allowed_ = false;
  bool swapped_ = false;

 private:
  friend struct read_point;
  std::size_t rank_ = 0;
  std::size_t element_bytes_ = 1;
  mutable std::mutex mutex_;
  graph::external_source live_{&data_, ext_.data(), "read_variable", this};
  std::vector<unsigned char> backup_;
  std::array<std::size_t, max_variable_rank> backup_ext_{};
};

/// A read of a variable at one point of a traced function. It reads the variable's storage,
/// unless a later effect of the same call (or loop iteration) writes the variable: then that
/// effect copies the contents here first (`take`), and from then on the read sees the copy.
/// When execution passes the read's own place in the program again (the next call, the next
/// iteration), it reads the storage again (`rearm`).
struct read_point {
  graph::external_source source;
  const variable_base* variable;
  std::size_t position;  // how many effects its recorder held when the read was made
  std::vector<unsigned char> buffer;
  const void* buffer_data = nullptr;
  std::array<std::size_t, max_variable_rank> snapshot_ext{};

  read_point(const variable_base& v, std::size_t at) : source(*v.live_source()), variable(&v), position(at) {}
  void rearm() { source = *variable->live_source(); }
  void take() {
    if (variable->first_write_pending()) {
      // the write to come goes to the spare buffer: the present one keeps these contents until
      // the call ends, so the read can stay where it is
      buffer_data = variable->data_;
      snapshot_ext = variable->ext_;
      source.data = &buffer_data;
      source.ext = snapshot_ext.data();
      return;
    }
    buffer.resize(variable->bytes());
    if (!buffer.empty()) std::memcpy(buffer.data(), variable->data_, buffer.size());
    buffer_data = buffer.data();
    snapshot_ext = variable->ext_;
    source.data = &buffer_data;
    source.ext = snapshot_ext.data();
  }
};

/// One recorded effect. `writes` are the variables it may write (those of nested effects
/// included), `snapshots` the earlier reads it must preserve before it runs, `rearm` the reads
/// made just before it that must see the storage again.
struct effect {
  virtual ~effect() = default;
  virtual void run(erased_args args) = 0;
  /// Runs the effect for *counter = lo, ..., hi - 1 (a for_range body of one statement).
  /// Effects override this with a loop the compiler sees whole.
  virtual void run_counted(erased_args args, std::int32_t* counter, std::int32_t lo, std::int32_t hi) {
    for (*counter = lo; *counter < hi; ++*counter) run(args);
  }
  virtual void run_counted(erased_args args, std::int64_t* counter, std::int64_t lo, std::int64_t hi) {
    for (*counter = lo; *counter < hi; ++*counter) run(args);
  }
  /// Whether running the effect cannot throw (an optimizer's update: elementwise graphs of static
  /// shape over variables and scalars; effect_program::find_in_place_writes).
  virtual bool infallible() const { return false; }
  /// Whether the effect cannot throw once it has written a variable (static shapes: what may
  /// throw, its materialized values, is computed before any value is written).
  virtual bool infallible_once_writing() const { return false; }
  /// Appends the external values the effect's graphs read (variable reads among them); false
  /// when it cannot tell (graphs with loops or branches, whose bodies read values of their own).
  virtual bool list_reads(std::vector<const graph::external_source*>&) const { return false; }
  std::vector<const variable_base*> writes;
  std::vector<read_point*> snapshots;
  std::vector<read_point*> rearm;
  const char* name = "an effect";  // what recorded it ("assign_add", "sf::print"), for messages
};

/// Runs one effect: re-arms the reads made just before it, preserves the reads it would
/// overwrite, then runs it.
inline void run_effect(effect& e, erased_args args) {
  for (read_point* r : e.rearm) r->rearm();
  for (read_point* r : e.snapshots) r->take();
  e.run(args);
}

/// What tracing one function body (or one for_range body) records.
struct recorder {
  std::vector<std::unique_ptr<effect>> effects;
  std::vector<read_point*> pending_reads;  // reads no later write has preserved yet

  void add(std::unique_ptr<effect> e) {
    // every earlier read of a variable this effect writes must keep its old value
    auto& reads = pending_reads;
    for (auto it = reads.begin(); it != reads.end();) {
      if (std::find(e->writes.begin(), e->writes.end(), (*it)->variable) != e->writes.end()) {
        e->snapshots.push_back(*it);
        // back to the storage where the read stands in the program (its position's effect)
        (*it)->position < effects.size() ? effects[(*it)->position]->rearm.push_back(*it) : e->rearm.push_back(*it);
        it = reads.erase(it);
      } else {
        ++it;
      }
    }
    effects.push_back(std::move(e));
  }

  /// Takes over the reads a branch body left pending: the branch's values read them when the
  /// outputs are computed, so a later write here must preserve them. `at` is their place in this
  /// body (the position of the effect that runs the branch).
  void adopt_reads(recorder& branch, std::size_t at) {
    for (read_point* r : branch.pending_reads) {
      r->position = at;
      pending_reads.push_back(r);
    }
    branch.pending_reads.clear();
  }
};

/// What a traced function keeps: its effects in program order, what their graphs point into
/// (read points, captured and constant data), the checks to run first on every call (captured
/// containers still have their traced shape) and the locks a call takes.
class effect_program {
 public:
  std::vector<std::unique_ptr<effect>> effects;
  std::vector<std::shared_ptr<void>> resources;
  std::vector<std::function<void()>> prechecks;
  std::vector<const variable_base*> touched;  // read or written
  /// What the graph captures (variables, sf::capture containers): an identity and a TensorSpec,
  /// for the "Captures" of pretty-printed signatures.
  std::vector<std::pair<const void*, std::string>> captured;

  void add_capture(const void* identity, std::string spec) {
    for (const auto& c : captured)
      if (c.first == identity) return;
    captured.emplace_back(identity, std::move(spec));
  }

  /// The "Captures" lines of a pretty-printed signature (TensorFlow prints an id, then the spec).
  std::string captures_string() const {
    if (captured.empty()) return "  None";
    std::string s;
    for (const auto& c : captured)
      s += (s.empty() ? "  " : "\n  ") + std::to_string(reinterpret_cast<std::uintptr_t>(c.first)) + ": " + c.second;
    return s;
  }

  /// Sorts out the locks and the variables to back up (after tracing).
  void finish() {
    std::vector<const variable_base*> written;
    for (const auto& e : effects) written.insert(written.end(), e->writes.begin(), e->writes.end());
    written_ = unique(std::move(written));
    in_place_.assign(written_.size(), false);
    touched = unique(std::move(touched));
    locks_.clear();
    locks_.push_back(&own_);
    for (const auto* v : touched) locks_.push_back(&v->mutex());
    std::sort(locks_.begin(), locks_.end(), std::less<>{});  // one global order: no deadlock
  }

  /// Finds the variables whose first write in a call may go in place, given what the call's
  /// outputs read (`output_reads`; `outputs_known` false when they cannot be listed). The spare
  /// buffer a first write goes to keeps the contents a rollback puts back, and costs a second
  /// buffer's memory traffic (an optimizer's update of a large weight: the write-allocate reads,
  /// a working set twice the size). A write that nothing after it can undo needs no spare: every
  /// later effect is infallible, the writing effect cannot throw once it writes (what it computes
  /// before, a step's matmuls, may throw), the outputs cannot throw (run's RestInfallible), and no
  /// read of the variable from before the write (a snapshot the write takes) is read by a later
  /// effect or by the outputs. Per call, the target still checks that writing in place overwrites
  /// nothing the effect's graphs read elsewhere (cpu::effect_graph's `in_place_ok`).
  void find_in_place_writes(const std::vector<const graph::external_source*>& output_reads, bool outputs_known) {
    in_place_.assign(written_.size(), false);
    if (!outputs_known) return;
    std::size_t tail = effects.size();
    while (tail > 0 && effects[tail - 1]->infallible()) --tail;
    if (tail > 0 && effects[tail - 1]->infallible_once_writing()) --tail;
    if (tail == effects.size()) return;
    // the external values each effect of the tail reads (known[k] false: effect k cannot tell)
    std::vector<std::vector<const graph::external_source*>> reads(effects.size());
    std::vector<bool> known(effects.size(), false);
    for (std::size_t k = tail; k < effects.size(); ++k) known[k] = effects[k]->list_reads(reads[k]);
    const auto read_after = [&](std::size_t e, const graph::external_source* source) {
      const auto reads_it = [&](const auto& list) { return std::find(list.begin(), list.end(), source) != list.end(); };
      if (reads_it(output_reads)) return true;
      for (std::size_t k = e + 1; k < effects.size(); ++k)
        if (!known[k] || reads_it(reads[k])) return true;
      return false;
    };
    for (std::size_t w = 0; w < written_.size(); ++w) {
      const variable_base* v = written_[w];
      std::size_t first = 0;  // the effect that writes v first
      while (std::find(effects[first]->writes.begin(), effects[first]->writes.end(), v) == effects[first]->writes.end())
        ++first;
      if (first < tail) continue;
      bool preserved = false;  // a read of v from before its first write is read later
      for (const read_point* r : effects[first]->snapshots)
        preserved = preserved || (r->variable == v && read_after(first, &r->source));
      in_place_[w] = !preserved;
    }
  }
  /// How many variables' first writes may go in place when the call's rest is infallible.
  std::size_t in_place_write_count() const {
    return static_cast<std::size_t>(std::count(in_place_.begin(), in_place_.end(), true));
  }

  /// Whether a call has anything to do here (else the program only keeps resources alive).
  bool active() const { return !effects.empty() || !prechecks.empty() || !touched.empty(); }
  bool empty() const { return !active() && resources.empty(); }
  /// The name of the first effect that cannot run on the Thrust backend (null when all can).
  std::size_t effect_count() const { return effects.size(); }

  /// Runs the effects, then `rest` (the outputs), holding the locks of this function and of
  /// every variable it touches. When anything throws, every variable written goes back to its
  /// contents before the call.
  /// RestInfallible: `rest` cannot throw (the caller's outputs are scalars from external values
  /// and scalars): the writes find_in_place_writes found may go in place.
  template <bool RestInfallible = false, class F>
  decltype(auto) run(erased_args args, F&& rest) {
    struct locked {
      const std::vector<std::mutex*>& m;
      explicit locked(const std::vector<std::mutex*>& l) : m(l) { for (auto* x : m) x->lock(); }
      ~locked() { for (auto it = m.rbegin(); it != m.rend(); ++it) (*it)->unlock(); }
    } hold(locks_);
    for (auto& check : prechecks) check();  // before any effect
    for (std::size_t k = 0; k < written_.size(); ++k)
      const_cast<variable_base*>(written_[k])->begin_call(RestInfallible && in_place_[k]);
    // when the outputs are computed (they may read a snapshot in a spare buffer), or when
    // anything throws: then every variable written goes back
    struct call_end {
      const std::vector<const variable_base*>& written;
      const int exceptions = std::uncaught_exceptions();
      ~call_end() {
        const bool threw = std::uncaught_exceptions() > exceptions;
        for (const auto* v : written) {
          if (threw) const_cast<variable_base*>(v)->roll_back();
          else const_cast<variable_base*>(v)->end_call();
        }
      }
    } ending{written_};
    for (auto& e : effects) run_effect(*e, args);
    return rest();
  }

 private:
  template <class P>
  static std::vector<P> unique(std::vector<P> v) {
    std::sort(v.begin(), v.end(), std::less<>{});
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  }
  std::vector<const variable_base*> written_;
  std::vector<bool> in_place_;  // per variable of written_: its first write may go in place
  std::vector<std::mutex*> locks_;
  std::mutex own_;  // the program's read points and counters are shared by its calls
};

/// This thread's trace: the program being recorded, the recorders of the bodies being traced
/// (innermost last), and where effects are not allowed.
struct trace_state {
  effect_program* program = nullptr;
  std::vector<recorder*> recorders;
  const char* forbidden = nullptr;  // "sf::while_loop conditions" while a loop condition is traced
  /// Eager mode (sf::run_functions_eagerly): effects at the top level run at once, reads copy
  /// the variable at once; the variables written are listed here (restored if the call throws).
  std::vector<const variable_base*>* eager_saved = nullptr;
  /// The function is traced for the Thrust backend: effects that can run there build device
  /// graphs (effects/evaluator.hpp).
  bool for_device = false;
};
inline trace_state& trace_local() {
  thread_local trace_state state;
  return state;
}

/// Whether this thread is tracing a function now.
inline bool tracing() { return trace_local().program != nullptr; }

/// Whether this thread runs a function eagerly and stands at its top level (not in a body
/// being recorded): what happens now happens for real.
inline bool eager_now() {
  const auto& t = trace_local();
  return t.eager_saved != nullptr && t.recorders.size() == 1;
}

/// The program being traced; throws (naming `what`) when nothing is traced.
inline effect_program& traced_program(const char* what) {
  auto* p = trace_local().program;
  if (!p) throw trace_error(std::string(what) + " is only possible inside a traced function");
  return *p;
}

/// Records effect e in the innermost body being traced.
inline void record_effect(std::unique_ptr<effect> e, const char* what) {
  auto& t = trace_local();
  e->name = what;
  if (!t.program) throw trace_error(std::string(what) + " is only possible inside a traced function");
  if (t.forbidden)
    throw trace_error(std::string(what) + " inside " + t.forbidden +
                      " is not supported: effects run at the top level of a function, in loop bodies and in "
                      "sf::cond / sf::switch_case branches (move it into the loop's body)");
  if (eager_now()) {  // run it now: effects in program order, as the lambda runs
    std::vector<std::mutex*> locks;
    for (const auto* v : e->writes) {
      if (std::find(t.eager_saved->begin(), t.eager_saved->end(), v) == t.eager_saved->end()) {
        std::lock_guard<std::mutex> hold(v->mutex());
        const_cast<variable_base*>(v)->save();
        t.eager_saved->push_back(v);
      }
      locks.push_back(&v->mutex());
    }
    std::sort(locks.begin(), locks.end(), std::less<>{});
    locks.erase(std::unique(locks.begin(), locks.end()), locks.end());
    for (auto* m : locks) m->lock();
    try {
      run_effect(*e, nullptr);  // an eager graph reads no argument: they are eager values
    } catch (...) {
      for (auto* m : locks) m->unlock();
      throw;
    }
    for (auto it = locks.rbegin(); it != locks.rend(); ++it) (*it)->unlock();
    return;
  }
  t.recorders.back()->add(std::move(e));
}

/// A new read of variable v at this point of the trace.
inline const graph::external_source* record_read(const variable_base& v) {
  auto& program = traced_program("reading an sf::variable as a symbolic tensor (use value() outside)");
  auto* r = trace_local().recorders.back();
  auto point = std::make_shared<read_point>(v, r->effects.size());
  program.resources.push_back(point);
  program.touched.push_back(&v);
  program.add_capture(&v, v.spec_string());
  if (eager_now()) {
    std::lock_guard<std::mutex> hold(v.mutex());
    point->take();  // eager: the value now
  } else {
    r->pending_reads.push_back(point.get());
  }
  return &point->source;
}

/// While alive, effects recorded on this thread go to `r` (a for_range body).
class body_scope {
 public:
  explicit body_scope(recorder& r) { trace_local().recorders.push_back(&r); }
  ~body_scope() { trace_local().recorders.pop_back(); }
  body_scope(const body_scope&) = delete;
  body_scope& operator=(const body_scope&) = delete;
};

/// While alive, recording an effect throws (tracing a while loop's condition).
class effects_forbidden {
 public:
  // a trace at compile time (a constant expression) records no effect: nothing to guard
  constexpr explicit effects_forbidden(const char* where) {
    if (std::is_constant_evaluated()) return;
    saved_ = trace_local().forbidden;
    if (!saved_) trace_local().forbidden = where;
  }
  constexpr ~effects_forbidden() {
    if (!std::is_constant_evaluated()) trace_local().forbidden = saved_;
  }
  effects_forbidden(const effects_forbidden&) = delete;
  effects_forbidden& operator=(const effects_forbidden&) = delete;

 private:
  const char* saved_ = nullptr;
};

/// The recording of one trace: while alive, this thread's effects go into its program.
/// `finish()` returns the program, or null when the function has no effect, no variable and no
/// capture.
class trace_scope {
 public:
  explicit trace_scope(std::vector<const variable_base*>* eager_saved = nullptr, bool for_device = false)
      : program_(std::make_unique<effect_program>()), saved_(trace_local()) {
    auto& t = trace_local();
    t.program = program_.get();
    t.recorders = {&top_};
    t.forbidden = nullptr;
    t.eager_saved = eager_saved;
    t.for_device = for_device;
  }
  ~trace_scope() { trace_local() = std::move(saved_); }
  trace_scope(const trace_scope&) = delete;
  trace_scope& operator=(const trace_scope&) = delete;

  std::unique_ptr<effect_program> finish() {
    program_->effects = std::move(top_.effects);
    program_->finish();
    if (program_->empty()) return nullptr;
    return std::move(program_);
  }

 private:
  std::unique_ptr<effect_program> program_;
  recorder top_;
  trace_state saved_;  // a nested trace (a function called while another is traced) restores it
};

}  // namespace staticflow::detail
