#include "library_calls.hpp"

#include <array>
#include <utility>

namespace weft::instrument {

std::optional<Hook> library_model(llvm::StringRef name) {
  static constexpr std::array<std::pair<llvm::StringLiteral, Hook>, 15> kModels{{
      {"strlen", Hook::__weft_model_strlen},
      {"strnlen", Hook::__weft_model_strnlen},
      {"strcmp", Hook::__weft_model_strcmp},
      {"strncmp", Hook::__weft_model_strncmp},
      {"memcmp", Hook::__weft_model_memcmp},
      {"bcmp", Hook::__weft_model_bcmp},
      {"memchr", Hook::__weft_model_memchr},
      {"strchr", Hook::__weft_model_strchr},
      {"atoi", Hook::__weft_model_atoi},
      {"atol", Hook::__weft_model_atol},
      {"atoll", Hook::__weft_model_atoll},
      {"strtol", Hook::__weft_model_strtol},
      {"strcpy", Hook::__weft_model_strcpy},
      {"strncpy", Hook::__weft_model_strncpy},
      {"strcat", Hook::__weft_model_strcat},
  }};
  for (const auto& [library, model] : kModels)
    if (name == library) return model;
  return std::nullopt;
}

bool reads_nothing_back(llvm::StringRef name) {
  static constexpr std::array<llvm::StringLiteral, 9> kPrefixes{
      "pthread_", "sem_", "omp_", "__kmpc_", "GOMP_", "__cxa_", "_Unwind_", "__assert", "_Zd"};
  for (llvm::StringRef prefix : kPrefixes)
    if (name.startswith(prefix)) return true;
  static constexpr std::array<llvm::StringLiteral, 26> kNames{
      "malloc",         "calloc",   "realloc", "free",     "aligned_alloc",
      "posix_memalign", "memalign", "valloc",  "pvalloc",  "malloc_usable_size",
      "printf",         "fprintf",  "vprintf", "vfprintf", "dprintf",
      "puts",           "fputs",    "fputc",   "putc",     "fwrite",
      "fflush",         "perror",   "write",   "exit",     "atexit",
      "abort"};
  for (llvm::StringRef known : kNames)
    if (name == known) return true;
  return false;
}

}  // namespace weft::instrument
