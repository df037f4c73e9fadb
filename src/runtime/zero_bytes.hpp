// Whether a range of memory reads as zero, as fast as the machine reads: the worker asks it of
// every stack page below those an execution used and of every page its snapshot holds as zeros.
#pragma once

#include <cstddef>

namespace weft::runtime {

/// Whether the `size` bytes at `bytes` are all zero. Stops at the first 128-byte stride that is
/// not. Reading a page never written maps the kernel's zero page, once.
bool reads_as_zero(const void* bytes, std::size_t size);

}  // namespace weft::runtime
