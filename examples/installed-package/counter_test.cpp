// A C++ class tested with weft in GoogleTest: WEFT_TEST explores the body's interleavings.
#include <mutex>
#include <weft/gtest.hpp>

namespace {

// Generic in its mutex and integer, so that the test can give it weft's, whose operations are
// where weft switches threads.
template <class Mutex, class Int>
class Account {
 public:
  void deposit(int amount) {
    std::lock_guard<Mutex> hold(lock_);
    balance_ = balance_ + amount;
  }
  // The bug: the check and the withdrawal are two critical sections, so two withdrawals can
  // both pass the check.
  bool withdraw(int amount) {
    {
      std::lock_guard<Mutex> hold(lock_);
      if (balance_ < amount) return false;
    }
    std::lock_guard<Mutex> hold(lock_);
    balance_ = balance_ - amount;
    return true;
  }
  int balance() {
    std::lock_guard<Mutex> hold(lock_);
    return balance_;
  }

 private:
  Mutex lock_;
  Int balance_{0};
};

using TestedAccount = Account<weft::mutex, weft::shared<int>>;

WEFT_TEST(Account, ConcurrentDepositsAddUp) {
  TestedAccount account;
  weft::thread other([&] { account.deposit(10); });
  account.deposit(5);
  other.join();
  WEFT_ASSERT(account.balance() == 15);
}

// Fails: weft finds the interleaving where both withdrawals pass the check.
WEFT_TEST(Account, TheBalanceNeverGoesNegative) {
  TestedAccount account;
  account.deposit(10);
  weft::thread other([&] { account.withdraw(10); });
  account.withdraw(10);
  other.join();
  WEFT_ASSERT(account.balance() >= 0);
}

}  // namespace
