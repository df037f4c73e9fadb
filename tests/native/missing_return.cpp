// A function that should return a value falls off its end when a thread passes 0: in C++ clang
// puts a trap instruction (ud2) there, and the program dies of SIGILL. weft reports the crash and
// explains the trap, instead of a bare "illegal instruction".
#include <thread>

static int sign(int x) {
  if (x > 0) return 1;
  if (x < 0) return -1;
}

int main() {
  int result = 0;
  std::thread t([&] { result = sign(0); });
  t.join();
  return result;
}
