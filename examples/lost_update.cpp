// A bank account with a lost-update bug: deposit() reads the balance and writes it back without
// holding the lock, so two concurrent deposits can overwrite each other. weft finds the
// interleaving, prints it, and shows how to replay it.
//
//   ./build/examples/lost_update                 explore, report the bug (exit code 1)
//   ./build/examples/lost_update --replay SCHED  re-run exactly the reported interleaving
#include <cstdio>
#include <cstring>

#include "weft/weft.hpp"

namespace {

struct Account {
  weft::mutex lock;
  weft::shared<int> balance{100};

  void deposit(int amount) {
    const int seen = balance;  // BUG: read outside the critical section
    std::lock_guard<weft::mutex> guard(lock);
    balance = seen + amount;
  }
};

void two_deposits() {
  Account account;  // built fresh for every execution
  weft::thread alice([&] { account.deposit(10); });
  weft::thread bob([&] { account.deposit(20); });
  alice.join();
  bob.join();
  WEFT_ASSERT(account.balance == 130);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--replay") == 0) {
    try {
      const weft::Result r = weft::replay(argv[2], two_deposits);
      std::printf("%s", r.ok() ? "replayed: no bug in this interleaving\n" : r.bugs[0].report.c_str());
      return r.ok() ? 0 : 1;
    } catch (const weft::replay_error& e) {
      std::fprintf(stderr, "lost_update: %s\n", e.what());
      return 2;
    }
  }
  if (argc != 1) {
    std::fprintf(stderr, "usage: %s [--replay SCHEDULE]\n", argv[0]);
    return 2;
  }
  const weft::Result r = weft::explore(two_deposits);
  std::printf("%s\n", r.summary().c_str());
  for (const auto& bug : r.bugs) {
    std::printf("\n%s", bug.report.c_str());
    std::printf("replay from the shell: %s --replay '%s'\n", argv[0], bug.schedule.c_str());
  }
  return r.ok() ? 0 : 1;
}
