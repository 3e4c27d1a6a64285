// staticflow/interop/tensor.hpp -- sf::tensor: a tensor whose dtype and rank are known only at run
// time (the analog of a tf.Tensor handed around by code that does not know its dtype). A
// polymorphic function dispatches it over the dtypes and ranks it was declared for.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>

#include "staticflow/core/dtype.hpp"
#include "staticflow/core/errors.hpp"
#include "staticflow/core/shape.hpp"

namespace staticflow {

/// A dtype as a run-time value.
enum class dtype_id : std::uint8_t { bool_, int32, int64, float32, float64 };

template <staticflow::dtype T>
inline constexpr dtype_id dtype_id_of = std::is_same<T, bool>::value           ? dtype_id::bool_
                                        : std::is_same<T, std::int32_t>::value ? dtype_id::int32
                                        : std::is_same<T, std::int64_t>::value ? dtype_id::int64
                                        : std::is_same<T, float>::value        ? dtype_id::float32
                                                                          : dtype_id::float64;

/// TensorFlow's name of a run-time dtype: "float32", ...
constexpr std::string_view dtype_name_of(dtype_id id) {
  constexpr std::string_view names[] = {"bool", "int32", "int64", "float32", "float64"};
  return names[static_cast<std::size_t>(id)];
}

/// A tensor of run-time dtype and shape: row-major data shared between copies (copying a tensor
/// copies a handle, as with tf.Tensor; `clone()` copies the data). Ranks up to 8.
class tensor {
 public:
  static constexpr std::size_t max_rank = 8;

  /// A float32 scalar 0.
  tensor() : tensor(0.f) {}

  /// A 0-d tensor of the scalar's dtype (`int` is int32, `double` float64).
  template <class T>
    requires(std::is_arithmetic<T>::value && staticflow::dtype<canonical_dtype_t<T>>)
  tensor(T value) {  // NOLINT(google-explicit-constructor): a scalar is a 0-d tensor
    using D = canonical_dtype_t<T>;
    auto holder = std::make_shared<D>(static_cast<D>(value));
    set(dtype_id_of<D>, holder.get(), std::span<const std::size_t>{});
    owner_ = std::move(holder);
  }

  /// Takes the buffer of an xt::xarray or xt::xtensor (no copy).
  template <class T>
  tensor(xt::xarray<T>&& a) {  // NOLINT(google-explicit-constructor)
    own(std::move(a));
  }
  template <class T, std::size_t N>
  tensor(xt::xtensor<T, N>&& a) {  // NOLINT(google-explicit-constructor)
    own(std::move(a));
  }

  /// Evaluates any other xtensor expression into a new buffer.
  template <class E>
  tensor(const xt::xexpression<E>& e) {  // NOLINT(google-explicit-constructor)
    using T = std::remove_cv_t<typename E::value_type>;
    own(xt::xarray<T>(e));
  }

  /// A zero-filled tensor.
  template <staticflow::dtype T>
  static tensor zeros(std::span<const std::size_t> shape) {
    check_rank(shape.size());
    auto a = xt::xarray<T>::from_shape(std::vector<std::size_t>(shape.begin(), shape.end()));
    std::fill(a.begin(), a.end(), T{});
    return tensor(std::move(a));
  }
  template <staticflow::dtype T>
  static tensor zeros(std::initializer_list<std::size_t> shape) {
    return zeros<T>(std::span<const std::size_t>(shape.begin(), shape.size()));
  }

  /// A view of the caller's row-major buffer (no copy, no ownership: the buffer must outlive
  /// every copy of the tensor).
  template <staticflow::dtype T>
  static tensor adapt(T* data, std::span<const std::size_t> shape) {
    check_rank(shape.size());
    tensor t(0.f);
    t.owner_.reset();
    t.set(dtype_id_of<T>, data, shape);
    return t;
  }
  template <staticflow::dtype T>
  static tensor adapt(T* data, std::initializer_list<std::size_t> shape) {
    return adapt(data, std::span<const std::size_t>(shape.begin(), shape.size()));
  }

  /// Takes any row-major container with contiguous data (a result of a concrete function).
  template <class C>
  static tensor from_container(C&& c) {
    tensor t(0.f);
    using U = std::remove_cvref_t<C>;
    if constexpr (std::is_arithmetic<U>::value) {
      t = tensor(c);
    } else {
      t.own(std::forward<C>(c));
    }
    return t;
  }

  dtype_id dtype() const { return dtype_; }
  std::size_t rank() const { return rank_; }
  std::span<const std::size_t> shape() const { return {shape_.data(), rank_}; }
  std::size_t size() const {
    std::size_t n = 1;
    for (std::size_t d = 0; d < rank_; ++d) n *= shape_[d];
    return n;
  }

  /// The data as T; a signature_error when the tensor holds another dtype.
  template <staticflow::dtype T>
  const T* data() const {
    check_dtype<T>();
    return static_cast<const T*>(data_);
  }
  template <staticflow::dtype T>
  T* data() {
    check_dtype<T>();
    return static_cast<T*>(data_);
  }
  const void* raw_data() const { return data_; }
  void* raw_data() { return data_; }

  /// A copy of the data as an xt::xarray<T> (T must be the tensor's dtype).
  template <staticflow::dtype T>
  xt::xarray<T> to_xarray() const {
    const T* p = data<T>();
    auto a = xt::xarray<T>::from_shape(std::vector<std::size_t>(shape().begin(), shape().end()));
    std::copy(p, p + size(), a.data());
    return a;
  }

  /// Calls f with the data as a `const T*` of the tensor's dtype.
  template <class F>
  decltype(auto) visit(F&& f) const {
    switch (dtype_) {
      case dtype_id::bool_: return f(static_cast<const bool*>(data_));
      case dtype_id::int32: return f(static_cast<const std::int32_t*>(data_));
      case dtype_id::int64: return f(static_cast<const std::int64_t*>(data_));
      case dtype_id::float32: return f(static_cast<const float*>(data_));
      default: return f(static_cast<const double*>(data_));
    }
  }

  /// A copy with its own buffer.
  tensor clone() const {
    static constexpr std::size_t bytes_per[] = {sizeof(bool), 4, 8, 4, 8};
    const std::size_t bytes = size() * bytes_per[static_cast<std::size_t>(dtype_)];
    std::shared_ptr<unsigned char[]> buffer(new unsigned char[bytes ? bytes : 1]);  // aligned for any dtype
    if (bytes) std::memcpy(buffer.get(), data_, bytes);
    tensor t = *this;
    t.data_ = buffer.get();
    t.owner_ = std::move(buffer);
    return t;
  }

  /// `float32[2,3]`: the dtype and the run-time shape.
  std::string spec_string() const {
    std::string s = std::string(dtype_name_of(dtype_)) + "[";
    for (std::size_t d = 0; d < rank_; ++d) s += d ? "," : "", s += std::to_string(shape_[d]);
    return s + "]";
  }

 private:
  static void check_rank(std::size_t rank) {
    if (rank > max_rank)
      throw signature_error("sf::tensor supports ranks up to " + std::to_string(max_rank) + ", not " +
                            std::to_string(rank));
  }

  template <class T>
  void check_dtype() const {
    if (dtype_ != dtype_id_of<T>)
      throw signature_error("sf::tensor holds " + std::string(dtype_name_of(dtype_)) + ", not " +
                            std::string(dtype_name<T>));
  }

  void set(dtype_id id, const void* data, std::span<const std::size_t> shape) {
    dtype_ = id;
    data_ = const_cast<void*>(data);
    rank_ = static_cast<std::uint8_t>(shape.size());
    std::copy(shape.begin(), shape.end(), shape_.begin());
  }

  template <class C>
  void own(C&& c) {
    using U = std::remove_cvref_t<C>;
    using T = std::remove_cv_t<typename U::value_type>;
    static_assert(staticflow::dtype<T>, "staticflow: an sf::tensor holds bool, int32_t, int64_t, float or double");
    check_rank(c.shape().size());
    auto holder = std::make_shared<U>(std::forward<C>(c));
    std::array<std::size_t, max_rank> ext{};
    const auto& s = holder->shape();
    for (std::size_t d = 0; d < s.size(); ++d) ext[d] = static_cast<std::size_t>(s[d]);
    set(dtype_id_of<T>, holder->data(), std::span<const std::size_t>(ext.data(), s.size()));
    owner_ = std::move(holder);
  }

  std::shared_ptr<void> owner_;
  void* data_ = nullptr;
  dtype_id dtype_ = dtype_id::float32;
  std::uint8_t rank_ = 0;
  std::array<std::size_t, max_rank> shape_{};
};

namespace detail {
template <class A>
concept sf_tensor = std::is_same<std::remove_cvref_t<A>, tensor>::value;
}  // namespace detail

}  // namespace staticflow
