// AddressSanitizer's thread key. ASan finds the state of the running thread (its stack bounds,
// which the fiber switches tell it about) under a pthread key it creates first of all, while it
// initialises. Every program thread runs on the one OS thread whose state that is, so the key's
// value is the OS thread's for all of them, not kept per program thread as the program's own
// keys' values are (pthread_threads.cpp): otherwise ASan would see no thread while the program
// runs, and its reports would have no stack.
#pragma once

#include <pthread.h>

namespace weft::runtime::native {

/// Called for every key the process creates: the first, when ASan's runtime is in the process,
/// is ASan's.
void note_key_created(pthread_key_t key);
/// Whether `key` is ASan's.
bool is_sanitizer_key(pthread_key_t key);
/// The value of ASan's key (for every program thread: the OS thread's).
void*& sanitizer_key_value();

}  // namespace weft::runtime::native
