#include "weft/trace/inputs.hpp"

#include <algorithm>

namespace weft {

std::uint64_t input_value(std::span<const InputValue> inputs, InputKey key,
                          std::uint64_t fallback) {
  auto it = std::lower_bound(inputs.begin(), inputs.end(), key,
                             [](const InputValue& v, const InputKey& k) { return v.key < k; });
  return it != inputs.end() && it->key == key ? it->value : fallback;
}

std::vector<InputValue> InputObservations::values() const {
  std::vector<InputValue> out;
  out.reserve(inputs.size());
  for (const InputRead& in : inputs) out.push_back({in.key, in.value});
  std::sort(out.begin(), out.end(),
            [](const InputValue& a, const InputValue& b) { return a.key < b.key; });
  return out;
}

void InputObservations::clear() {
  inputs.clear();
  expressions.clear();
  branches.clear();
  unconstrained_concretisations = 0;
  untracked = false;
  tracked = true;
}

}  // namespace weft
