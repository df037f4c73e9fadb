// The programs of Lei and Carver's evaluation (lei-carver-reachability-testing-richtest.txt,
// §VIII, Table 4; the solutions of Carver and Tai's "Modern Multithreading" they cite), written
// against weft's in-process API: the bounded buffer and readers and writers, each with a
// selective wait, semaphores, an SU monitor and an SC monitor; the dining philosophers with an SU
// monitor; and the philosophers that deadlock (the VeriSoft comparison, Fig. 13).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace weft::richtest {

struct Program {
  std::string name;
  /// Sequences RichTest exercised (Table 4), 0 where the paper gives none.
  long paper_sequences = 0;
  std::function<void()> body;
  /// Whether it has a bug (a deadlock) to find.
  bool buggy = false;
};

/// BB: 3 producers, 3 consumers, one item each, a buffer of 2 slots.
void bounded_buffer_select();
void bounded_buffer_semaphores();
void bounded_buffer_monitor_su();
void bounded_buffer_monitor_sc();
/// RW: 3 readers, 2 writers, one access each.
void readers_writers_select();
void readers_writers_semaphores();
void readers_writers_monitor_su();
void readers_writers_monitor_sc();
/// DP: `n` philosophers eating once each, an SU monitor (Hoare's solution: no deadlock).
void dining_monitor_su(int n);
/// The philosophers of VeriSoft's comparison: each takes its left fork, then its right (each
/// fork a binary semaphore), and all can deadlock.
void dining_deadlock(int n);

/// DME: distributed mutual exclusion (Ricart and Agrawala) among 3 processes of 2 threads each:
/// one enters the critical section once, the other answers the other processes' requests; the
/// processes talk over channels, a process's two threads share its state under a semaphore.
void distributed_mutual_exclusion();

/// Every program, with its name and the paper's count.
std::vector<Program> programs();

}  // namespace weft::richtest
