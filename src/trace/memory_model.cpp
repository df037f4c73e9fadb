#include "weft/trace/memory_model.hpp"

namespace weft {

std::string_view memory_model_name(MemoryModel model) {
  return model == MemoryModel::kTso ? "tso" : "sc";
}

std::string_view memory_model_title(MemoryModel model) {
  return model == MemoryModel::kTso ? "x86-TSO" : "sequential consistency";
}

std::optional<MemoryModel> parse_memory_model(std::string_view name) {
  if (name == "sc") return MemoryModel::kSequentialConsistency;
  if (name == "tso") return MemoryModel::kTso;
  return std::nullopt;
}

}  // namespace weft
