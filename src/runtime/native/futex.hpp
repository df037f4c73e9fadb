// The futex system call as weft's visible operations (futex.cpp), for other waits built on it.
#pragma once

#include <cstdint>

#include "native_runtime.hpp"

namespace weft::runtime::native {

/// FUTEX_WAIT and FUTEX_WAIT_BITSET (libstdc++ passes FUTEX_BITSET_MATCH_ANY, which is all a
/// plain wake matches) on `word`: 0 when woken, -1 with errno EAGAIN (the word was not
/// `expected`) or ETIMEDOUT (`timed`: the timeout is a scheduling choice).
long futex_wait(NativeRuntime& rt, std::uint32_t* word, std::uint32_t expected, bool timed,
                std::uint64_t site);

}  // namespace weft::runtime::native
