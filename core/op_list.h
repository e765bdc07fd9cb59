// op_list.h — the machinery behind the elementwise op lists (core/unary_ops.h, core/binary_ops.h):
// a type list of op structs, and the run-time handle a kernel receives for one of them.
//
// An op is a struct (its name, formulas and flags side by side); a list is OpList<Op...>. The handle
// OpHandle<List> is the op's position in its list, made from the type (`OpHandle<List>::of<Op>()`),
// so there is no enum to keep in step with the list and no name table: name(op) is Op::name.
// A kernel turns the handle back into the type with op.visit(f), which calls f.template
// operator()<Op>() once per call; the per-element loop then runs Op's formula inlined, with no
// switch inside it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>

namespace lintra::op {

template <class... Ops> struct OpList {
  static constexpr size_t size = sizeof...(Ops);
};

// The I-th op of a list.
template <size_t I, class List> struct op_at;
template <size_t I, class... Ops> struct op_at<I, OpList<Ops...>> {
  using type = std::tuple_element_t<I, std::tuple<Ops...>>;
};

// The position of Op in a list (a compile error when it is not there).
template <class Op, class... Ops> constexpr size_t index_in(OpList<Ops...>) {
  static_assert((std::is_same_v<Op, Ops> + ...) == 1, "this op is not in the list (or is listed twice)");
  constexpr bool is_op[] = {std::is_same_v<Op, Ops>...};
  size_t i = 0;
  while (!is_op[i]) ++i;
  return i;
}

// Calls f.template operator()<Op>() for every op of the list, in order (tests iterate lists this way).
template <class... Ops, class F> constexpr void for_each(OpList<Ops...>, F&& f) {
  (f.template operator()<Ops>(), ...);
}

// Calls f.template operator()<Op>() for the op at `index` and returns what it returns.
template <class List, size_t I = 0, class F> constexpr decltype(auto) visit_at(size_t index, F&& f) {
  using Op = typename op_at<I, List>::type;
  if constexpr (I + 1 == List::size) {
    return f.template operator()<Op>();
  } else {
    if (index == I) return f.template operator()<Op>();
    return visit_at<List, I + 1>(index, f);
  }
}

// One op of `List` at run time: what the kernels receive (kernels::UnaryOp, kernels::BinaryOp).
template <class List> class OpHandle {
 public:
  template <class Op> static constexpr OpHandle of() { return OpHandle(uint8_t(index_in<Op>(List{}))); }

  // f.template operator()<Op>() for this handle's op.
  template <class F> constexpr decltype(auto) visit(F&& f) const { return visit_at<List>(index_, f); }

  friend constexpr const char* name(OpHandle op) {
    return op.visit([]<class Op>() -> const char* { return Op::name; });
  }
  friend constexpr bool operator==(OpHandle, OpHandle) = default;

 private:
  explicit constexpr OpHandle(uint8_t index) : index_(index) {}
  uint8_t index_;
};

}  // namespace lintra::op
