#include "weft/trace/memory_model.hpp"

namespace weft {

std::string_view memory_model_name(MemoryModel model) {
  switch (model) {
    case MemoryModel::kTso:
      return "tso";
    case MemoryModel::kRc11:
      return "rc11";
    default:
      return "sc";
  }
}

std::string_view memory_model_title(MemoryModel model) {
  switch (model) {
    case MemoryModel::kTso:
      return "x86-TSO";
    case MemoryModel::kRc11:
      return "RC11 (the C/C++ model)";
    default:
      return "sequential consistency";
  }
}

std::optional<MemoryModel> parse_memory_model(std::string_view name) {
  if (name == "sc") return MemoryModel::kSequentialConsistency;
  if (name == "tso") return MemoryModel::kTso;
  if (name == "rc11") return MemoryModel::kRc11;
  return std::nullopt;
}

}  // namespace weft
