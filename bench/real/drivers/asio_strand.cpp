// Boost.Asio: an io_context run by 2 threads, with handlers posted through a strand that each
// increment a shared counter. Correct: the strand runs its handlers one at a time. Asio's
// scheduler waits in epoll_wait or on its own condition variable: what weft should say is a
// verdict that never blames the program (no data race on the counter); a wait weft does not
// model stops the run naming the call (exit 2).
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <cassert>
#include <thread>

int main() {
  boost::asio::io_context io;
  auto strand = boost::asio::make_strand(io);
  int counter = 0;
  for (int i = 0; i < 2; ++i) boost::asio::post(strand, [&] { ++counter; });
  std::thread other([&] { io.run(); });
  io.run();
  other.join();
  assert(counter == 2);
  return 0;
}
