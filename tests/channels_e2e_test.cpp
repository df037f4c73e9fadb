// Threads that talk through the kernel: pipes, socket pairs, loopback and UNIX sockets,
// eventfds, poll and epoll (tests/native/ fixtures through the weft command line;
// docs/process-state.md, "Channels through the kernel"). Each correct program is explored
// completely and its buggy variant's bug found; exhaustive search (--strategy dfs, no
// reduction) is the oracle for the number of distinct behaviours the reducing strategies see.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <mqueue.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "native_cli.hpp"

namespace weft::test {
namespace {

struct Fixture {
  const char* file;
  const char* bug_flag;  // defines the variant with a bug
  const char* extra = "";
};

const Fixture kFixtures[] = {
    {"pipe_between_threads.c", "-DFIRST_BYTE_ASSUMED"},
    {"poll_two_socketpairs.c", "-DWRONG_ORDER_ASSUMED"},
    {"eventfd_wakeups.c", "-DONE_READ_ASSUMED"},
    {"epoll_event_loop.c", "-DWAKEUP_FIRST_ASSUMED"},
    {"epoll_registration.c", "-DREGISTERED_FIRST_ASSUMED"},
    {"message_queue_workers.c", "-DPRIORITY_FIRST_ASSUMED"},
    {"loopback_echo_server.c", "-DACCEPT_ORDER_ASSUMED"},
    {"loopback_echo_server.c", "-DACCEPT_ORDER_ASSUMED", "-DUNIX_SOCKET"},
};

std::uint64_t traces(const CliRun& r) {
  return r.result["statistics"]["traces"].get<std::uint64_t>();
}

TEST(Channels, CorrectProgramsAreExploredCompletely) {
  for (const Fixture& f : kFixtures) {
    const std::string args = std::string(*f.extra ? "-- " : "") + f.extra;
    const CliRun r = check(f.file, args);
    EXPECT_EQ(r.exit_code, 0) << f.file << f.extra << r.out << r.err;
    EXPECT_EQ(r.result["complete"], true) << f.file << f.extra << r.out;
    EXPECT_FALSE(r.result.contains("kernel_communication")) << r.out;
  }
}

TEST(Channels, TheOrderAProgramWronglyAssumesIsFound) {
  for (const Fixture& f : kFixtures)
    for (const char* strategy : {"optimal", "reachability"}) {
      const CliRun r = check(
          f.file, std::string("--strategy ") + strategy + " -- " + f.bug_flag + " " + f.extra);
      ASSERT_EQ(r.exit_code, 1) << f.file << f.extra << strategy << r.out << r.err;
      EXPECT_EQ(first_bug_kind(r), "assertion failure") << r.out;
    }
}

// Exhaustive search tries every interleaving; DPOR, optimal DPOR and reachability testing must
// see the same number of distinct behaviours (Mazurkiewicz traces), with channel operations
// dependent as trace/dependence.cpp says.
TEST(Channels, ReducingStrategiesSeeEveryBehaviourExhaustiveSearchSees) {
  for (const Fixture& f : kFixtures) {
    const std::string args = std::string(*f.extra ? "-- " : "") + f.extra;
    const CliRun all = check(f.file, "--strategy dfs " + args);
    ASSERT_EQ(all.exit_code, 0) << f.file << all.out << all.err;
    const std::uint64_t expected = traces(all);
    EXPECT_GE(expected, 3u) << f.file;
    for (const char* strategy : {"dpor", "optimal"}) {
      const CliRun r = check(f.file, std::string("--strategy ") + strategy + " " + args);
      ASSERT_EQ(r.exit_code, 0) << f.file << strategy << r.out << r.err;
      EXPECT_EQ(traces(r), expected) << f.file << f.extra << " " << strategy;
    }
    // Reachability testing sees the same. On epoll_event_loop.c the order of the two writes
    // is a behaviour (epoll_wait lists ready descriptors in the order they became ready): every
    // interleaving (no sleep sets) confirms the count. The socket fixtures have too many
    // interleavings (each with real connections) to run them all.
    const CliRun r = check(f.file, "--strategy reachability " + args);
    ASSERT_EQ(r.exit_code, 0) << f.file << r.out << r.err;
    EXPECT_EQ(traces(r), expected) << f.file << f.extra << " reachability";
    if (std::string(f.file).rfind("loopback", 0) != 0) {
      const CliRun every = check(f.file, "--strategy dfs --no-sleep-sets " + args);
      ASSERT_EQ(every.exit_code, 0) << f.file << every.out << every.err;
      EXPECT_EQ(traces(every), expected) << f.file << f.extra << " every interleaving";
    }
  }
}

// Neither thread ever writes: each waits on the other's pipe, and the report says which.
TEST(Channels, ThreadsWaitingOnEachOthersPipesAreADeadlock) {
  const CliRun r = check("pipes_read_each_other.c");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(first_bug_kind(r), "deadlock");
  const std::string message = r.result["bugs"][0]["message"].get<std::string>();
  EXPECT_NE(message.find("thread 0 waits in read on pipe descriptor"), std::string::npos)
      << message;
  EXPECT_NE(message.find("(nothing to read) at pipes_read_each_other.c:21; no thread will "
                         "write to it"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("thread 0.0 waits in read on pipe"), std::string::npos) << message;
}

// A write larger than the pipe holds goes in pieces as the reader makes room, and the reader
// sees the end once the writer closes: every byte arrives, in order.
TEST(Channels, AWriteLargerThanThePipeGoesInPieces) {
  const CliRun r = check("big_write_through_pipe.c");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.result["complete"], true) << r.out;
}

// An accept that only a client outside the program could satisfy is not the program's deadlock:
// the run stops naming it (exit 2).
TEST(Channels, AnAcceptOnlyAnOutsideClientCouldSatisfyIsNotADeadlock) {
  const CliRun r = check("accept_without_clients.c");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.result["verdict"], "unsupported") << r.out;
  EXPECT_NE(r.result["incomplete_because"].get<std::string>().find(
                "accept on listening socket descriptor"),
            std::string::npos)
      << r.out;
}

// A queue the execution created is a channel: a receive no thread will satisfy is a deadlock
// that names it.
TEST(Channels, AReceiveOnAnEmptyMessageQueueNoThreadWillSendToIsADeadlock) {
  const CliRun r = check("message_queue_between_threads.c", "-- -DEMPTY_RECEIVE");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(first_bug_kind(r), "deadlock");
  EXPECT_NE(first_bug_message(r).find("thread 0 waits in mq_receive on message queue descriptor"),
            std::string::npos)
      << r.out;
  EXPECT_NE(first_bug_message(r).find("(empty) at message_queue_between_threads.c:40; no thread "
                                      "will send to it"),
            std::string::npos)
      << r.out;
}

// Each execution starts without the queues the one before created, and the run leaves none.
TEST(Channels, TheQueuesAnExecutionCreatedAreGoneWhenItEnds) {
  const std::string name = "/weft-e2e-left-" + std::to_string(::getpid());
  ::setenv("WEFT_TEST_QUEUE", name.c_str(), 1);
  const CliRun r = check("message_queue_workers.c");
  ::unsetenv("WEFT_TEST_QUEUE");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.result["complete"], true) << r.out;
  EXPECT_GT(stat(r, "executions"), 1u) << r.out;
  const mqd_t left = ::mq_open(name.c_str(), O_RDONLY);
  EXPECT_EQ(left, static_cast<mqd_t>(-1));
  EXPECT_EQ(errno, ENOENT);
  if (left != static_cast<mqd_t>(-1)) ::mq_unlink(name.c_str());
}

// A queue made before main belongs to the outside world too: the verdict says the threads
// talked through the kernel, never "explored"; a receive that would block stops the run naming
// the call.
TEST(Channels, AMessageQueueFromBeforeTheExecutionIsNamedAsNotExplored) {
  const CliRun r = check("message_queue_between_threads.c", "-- -DEXISTING_QUEUE");
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_EQ(r.result["incomplete_code"], "kernel-communication") << r.out;
  ASSERT_TRUE(r.result.contains("kernel_communication")) << r.out;
  EXPECT_NE(r.result["kernel_communication"][0].get<std::string>().find(
                "on a POSIX message queue at message_queue_between_threads.c:45 that existed "
                "before the execution"),
            std::string::npos)
      << r.out;
  // A sampling strategy explored not every interleaving: that is its verdict's reason, and the
  // caveat is said beside it.
  const CliRun sampled = weft_cli("check " + fixture("message_queue_between_threads.c") +
                                  " -q --strategy random --executions 2 -- -DEXISTING_QUEUE");
  EXPECT_EQ(sampled.exit_code, 3) << sampled.out << sampled.err;
  EXPECT_NE(sampled.out.find("the random strategy does not explore exhaustively"),
            std::string::npos)
      << sampled.out;
  EXPECT_EQ(sampled.out.find("every interleaving"), std::string::npos) << sampled.out;
  EXPECT_NE(sampled.out.find("weft: also, the threads talked through the kernel (mq_receive"),
            std::string::npos)
      << sampled.out;
  const CliRun blocked =
      check("message_queue_between_threads.c", "-- -DEXISTING_QUEUE -DEMPTY_RECEIVE");
  EXPECT_EQ(blocked.exit_code, 2) << blocked.out << blocked.err;
  EXPECT_NE(blocked.result["incomplete_because"].get<std::string>().find(
                "mq_receive at message_queue_between_threads.c:40 on an empty POSIX message "
                "queue that existed before the execution"),
            std::string::npos)
      << blocked.out;
}

}  // namespace
}  // namespace weft::test
