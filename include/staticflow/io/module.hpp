// staticflow/io/module.hpp -- sf::module: a model as a server sees it (tf.Module with the
// `signatures` of a SavedModel): named functions with input signatures, called with named
// run-time tensors, and the named variables they read, saved and restored as a checkpoint.
//
//   #include <staticflow/io/module.hpp>   // opt-in, like io/checkpoint.hpp
//
//   auto classify = sf::function<sf::spec<float, sf::dyn, 2>>(
//       [&](auto points) { return std::tuple{sf::argmax(logits(points), sf::axes<1>{}), ...}; },
//       sf::arg_names("points"));
//   sf::module model;
//   model.track("w", w).track("b", b);
//   model.add_signature("serving_default", classify, sf::output_names("class", "probabilities"));
//   model.checkpoint().restore(path);
//   std::cout << model.signatures();                  // as saved_model_cli show --all prints them
//   std::map<std::string, sf::tensor> out = model.call("serving_default", {{"points", request}});
//
// The functions are compiled (their one graph each, from the input signature) when they are
// added; a call takes sf::tensors whose dtypes and shapes are known only at run time, checks
// the names here and the dtypes and shapes against the input signature, and throws
// sf::signature_error, before anything runs, when they do not fit.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "staticflow/core/errors.hpp"
#include "staticflow/core/spec.hpp"
#include "staticflow/interop/tensor.hpp"
#include "staticflow/io/checkpoint.hpp"
#include "staticflow/trace/constant_trace.hpp"
#include "staticflow/trace/function.hpp"

namespace staticflow {

/// The names of a signature's outputs (TensorFlow's output dict keys); without it they are
/// output_0, output_1, ...
struct output_names {
  std::vector<std::string> names;
  template <class... S>
  explicit output_names(const S&... s) : names{std::string(s)...} {}
};

/// One input or output of a signature, as SavedModel's TensorInfo describes it.
struct tensor_info {
  std::string key;                  // the name a call uses
  dtype_id dtype;
  std::vector<std::int64_t> shape;  // -1 where the extent is not fixed (sf::dyn)
  std::string name;                 // the graph tensor's name, TensorFlow's way
};

/// A signature: what a server needs to know to call it.
struct signature_def {
  std::vector<tensor_info> inputs, outputs;
  std::string method_name = "tensorflow/serving/predict";
};

namespace detail {
template <class Spec>
tensor_info make_tensor_info(std::string key, std::string name) {
  tensor_info info{std::move(key), dtype_id_of<typename Spec::value_type>, {}, std::move(name)};
  for (const std::size_t d : Spec::shape_type::dims) info.shape.push_back(d == dyn ? -1 : static_cast<std::int64_t>(d));
  return info;
}

/// saved_model_cli's names of the dtypes.
inline std::string_view tf_enum_name(dtype_id id) {
  constexpr std::string_view names[] = {"DT_BOOL", "DT_INT32", "DT_INT64", "DT_FLOAT", "DT_DOUBLE"};
  return names[static_cast<std::size_t>(id)];
}

/// A result of a call on sf::tensors (a container or a number) as an sf::tensor.
template <class R>
tensor as_tensor(R&& r) {
  if constexpr (std::is_arithmetic<std::remove_cvref_t<R>>::value) return tensor(r);
  else return tensor(std::forward<R>(r));
}
}  // namespace detail

class module {
 public:
  using tensor_map = std::map<std::string, tensor>;

  module() = default;
  module(const module&) = delete;
  module& operator=(const module&) = delete;

  /// Tracks a variable (or an optimizer) under `name` in the module's checkpoint.
  template <class V>
  module& track(const std::string& name, V& v) {
    checkpoint_.track(name, v);
    return *this;
  }
  /// The checkpoint of the tracked variables: save, write, restore.
  staticflow::checkpoint& checkpoint() { return checkpoint_; }

  /// Adds `f` (an sf::function with an input signature; it must outlive the module) as the
  /// signature `key`. Inputs are named as f's sf::arg_names (else arg0, arg1, ...); outputs as
  /// `names` says (else output_0, ...). f's graph is traced now.
  template <class F>
  module& add_signature(const std::string& key, F& f, output_names names = output_names{}) {
    using config = typename F::config_type;
    static_assert(config::has_signature,
                  "staticflow: sf::module::add_signature: the function needs an input signature "
                  "(sf::function<sf::spec<...>, ...>): a served signature has fixed dtypes and ranks");
    if constexpr (config::has_signature) {
      using sig = typename config::signature;
      using concrete = typename F::template concrete_for_signature<sig>;
      using result = typename concrete::graph_type;
      constexpr std::size_t n_in = std::tuple_size<sig>::value, n_out = concrete::output_count;
      if (signatures_.count(key)) throw signature_error("module: a signature named '" + key + "' exists already");
      if (!names.names.empty() && names.names.size() != n_out)
        throw signature_error("module: add_signature('" + key + "'): " + std::to_string(names.names.size()) +
                              " output names for " + std::to_string(n_out) + " output" + (n_out == 1 ? "" : "s"));
      entry e;
      [&]<std::size_t... K>(std::index_sequence<K...>) {
        (e.def.inputs.push_back(detail::make_tensor_info<std::tuple_element_t<K, sig>>(
             K < f.arg_names().size() ? f.arg_names()[K] : "arg" + std::to_string(K), std::string())),
         ...);
      }(std::make_index_sequence<n_in>{});
      for (auto& in : e.def.inputs) in.name = key + "_" + in.key + ":0";
      if constexpr (n_out > 0) {
        using nodes = decltype(detail::output_nodes(std::declval<const result&>()));
        [&]<std::size_t... K>(std::index_sequence<K...>) {
          (e.def.outputs.push_back(detail::make_tensor_info<spec_of_node_t<std::remove_cvref_t<std::tuple_element_t<K, nodes>>>>(
               names.names.empty() ? "output_" + std::to_string(K) : names.names[K],
               "StatefulPartitionedCall:" + std::to_string(K))),
           ...);
        }(std::make_index_sequence<n_out>{});
      }
      f.get_concrete_function();  // traced now, not on the first request
      e.call = [&f, key, inputs = e.def.inputs, outputs = e.def.outputs](const tensor_map& in) {
        std::array<const tensor*, n_in> args{};
        auto taken = [&] {  // for the messages only: not built on a request that fits
          std::string list;
          for (const auto& i : inputs) list += (list.empty() ? "'" : ", '") + i.key + "'";
          return list;
        };
        for (std::size_t k = 0; k < n_in; ++k) {
          const auto it = in.find(inputs[k].key);
          if (it == in.end())
            throw signature_error(key + ": the input '" + inputs[k].key + "' is missing (the signature takes " + taken() + ")");
          args[k] = &it->second;
        }
        if (in.size() != n_in)
          for (const auto& [name, t] : in) {
            bool known = false;
            for (const auto& i : inputs) known = known || i.key == name;
            if (!known) throw signature_error(key + ": no input is named '" + name + "' (the signature takes " + taken() + ")");
          }
        tensor_map out;
        try {
          if constexpr (n_out == 0) {
            [&]<std::size_t... K>(std::index_sequence<K...>) { f(*args[K]...); }(std::make_index_sequence<n_in>{});
          } else {
            auto r = [&]<std::size_t... K>(std::index_sequence<K...>) { return f(*args[K]...); }(std::make_index_sequence<n_in>{});
            if constexpr (n_out == 1 && !detail::is_tuple<result>::value) {
              out.emplace(outputs[0].key, detail::as_tensor(std::move(r)));
            } else {
              [&]<std::size_t... K>(std::index_sequence<K...>) {
                (out.emplace(outputs[K].key, detail::as_tensor(std::move(std::get<K>(r)))), ...);
              }(std::make_index_sequence<n_out>{});
            }
          }
        } catch (const signature_error& error) {
          const std::string what = error.what();
          throw signature_error(key + ": " + (what.starts_with("staticflow: ") ? what.substr(12) : what));
        }
        return out;
      };
      signatures_.emplace(key, std::move(e));
    }
    return *this;
  }

  /// The signatures' keys, in order.
  std::vector<std::string> signature_keys() const {
    std::vector<std::string> keys;
    for (const auto& [key, e] : signatures_) keys.push_back(key);
    return keys;
  }

  /// The signature `key` (throws sf::signature_error when there is none).
  const signature_def& signature(const std::string& key) const { return find(key).def; }

  /// Every signature as `saved_model_cli show --all` prints a SavedModel's.
  std::string signatures() const {
    std::string s;
    auto print = [&](const tensor_info& t, const char* kind) {
      s += std::string("    ") + kind + "['" + t.key + "'] tensor_info:\n        dtype: " + std::string(detail::tf_enum_name(t.dtype)) +
           "\n        shape: (";
      for (std::size_t d = 0; d < t.shape.size(); ++d) s += (d ? ", " : "") + std::to_string(t.shape[d]);
      s += ")\n        name: " + t.name + "\n";
    };
    for (const auto& [key, e] : signatures_) {
      s += (s.empty() ? "" : "\n") + std::string("signature_def['") + key + "']:\n";
      s += "  The given SavedModel SignatureDef contains the following input(s):\n";
      for (const auto& t : e.def.inputs) print(t, "inputs");
      s += "  The given SavedModel SignatureDef contains the following output(s):\n";
      for (const auto& t : e.def.outputs) print(t, "outputs");
      s += "  Method name is: " + e.def.method_name + "\n";
    }
    return s;
  }

  /// Calls the signature `key` with its inputs by name; returns its outputs by name.
  tensor_map call(const std::string& key, const tensor_map& inputs) const { return find(key).call(inputs); }

 private:
  struct entry {
    signature_def def;
    std::function<tensor_map(const tensor_map&)> call;
  };

  const entry& find(const std::string& key) const {
    const auto it = signatures_.find(key);
    if (it == signatures_.end()) {
      std::string keys;
      for (const auto& [k, e] : signatures_) keys += (keys.empty() ? "'" : ", '") + k + "'";
      throw signature_error("module: no signature is named '" + key + "' (it has " + (keys.empty() ? std::string("none") : keys) + ")");
    }
    return it->second;
  }

  staticflow::checkpoint checkpoint_;
  std::map<std::string, entry> signatures_;
};

}  // namespace staticflow
