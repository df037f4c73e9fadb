#include "zero_bytes.hpp"

#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace weft::runtime {
namespace {

// One stream of loads, OR-ed in 128-byte strides, where memcmp against a page of zeros needs
// two: on the stack probe of Writes, 7,200 cycles an execution became 5,700
// (docs/performance.md). Not instrumented: it reads the program's memory whole, redzones
// included, and calls nothing a sanitizer intercepts.
__attribute__((target("avx2"), no_sanitize("address"))) bool reads_as_zero_avx2(const char* p,
                                                                                std::size_t size) {
  std::size_t at = 0;
  for (; at + 128 <= size; at += 128) {
    const auto* v = reinterpret_cast<const __m256i_u*>(p + at);
    const __m256i low = _mm256_or_si256(_mm256_loadu_si256(v), _mm256_loadu_si256(v + 1));
    const __m256i high = _mm256_or_si256(_mm256_loadu_si256(v + 2), _mm256_loadu_si256(v + 3));
    const __m256i any = _mm256_or_si256(low, high);
    if (!_mm256_testz_si256(any, any)) return false;
  }
  for (; at < size; ++at)
    if (p[at] != 0) return false;
  return true;
}

// The same with 8-byte words, for machines without AVX2.
__attribute__((no_sanitize("address"))) bool reads_as_zero_words(const char* p, std::size_t size) {
  std::size_t at = 0;
  for (; at + 64 <= size; at += 64) {
    std::uint64_t w[8];
    std::memcpy(w, p + at, sizeof w);
    if ((w[0] | w[1] | w[2] | w[3] | w[4] | w[5] | w[6] | w[7]) != 0) return false;
  }
  for (; at < size; ++at)
    if (p[at] != 0) return false;
  return true;
}

}  // namespace

bool reads_as_zero(const void* bytes, std::size_t size) {
  static const bool avx2 = __builtin_cpu_supports("avx2");
  const auto* p = static_cast<const char*>(bytes);
  return avx2 ? reads_as_zero_avx2(p, size) : reads_as_zero_words(p, size);
}

}  // namespace weft::runtime
