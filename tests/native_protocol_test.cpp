// The protocol between weft and a program (weft/runtime/native_protocol.hpp): what one side
// writes, the other reads back the same, with threads numbered as each side numbers them.
#include "weft/runtime/native_protocol.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

namespace weft::native {
namespace {

Operation memory_op(OpKind kind, ObjectKey object, std::uint32_t size) {
  Operation op;
  op.kind = kind;
  op.object = object;
  op.size = size;
  return op;
}

TEST(NativeProtocol, ADirectiveRoundTripsAndGivesWeftsThreadsTheirIds) {
  ThreadRegistry weft;
  const ThreadId a = weft.child(kMainThread, 0);
  const ThreadId b = weft.child(kMainThread, 1);
  const ThreadId c = weft.child(a, 0);
  TestDirective d;
  d.prefix = {kMainThread, a, c, b, b, kMainThread};
  d.sleep_from = 3;
  Operation section;
  section.kind = OpKind::kAtomicSection;
  section.footprint.add(0x1000, 4, true);
  section.footprint.add(0x2000, 8, false);
  Operation join;
  join.kind = OpKind::kThreadJoin;
  join.object = c;
  // (A reachability sleeper waits for its objects: SleepEntry::wake_on.)
  d.sleep = {{b, memory_op(OpKind::kWrite, 0x4000, 4)},
             {a, section, {0x4000, 0x9000}},
             {kMainThread, join}};
  d.read_policy = ReadPolicy::kReadsConflict;
  d.policy = SchedulePolicy::kPriority;
  d.seed = 0x123456789abcdefULL;
  d.priority_changes = {3, 17, 4000000000u};

  std::vector<char> bytes(4096);
  const std::size_t n = encode_directive(d, weft, bytes.data(), bytes.size());
  ASSERT_GT(n, 0u);
  ThreadRegistry program;
  const TestDirective back = decode_directive(bytes.data(), n, program);
  EXPECT_EQ(back.prefix, d.prefix);
  EXPECT_EQ(back.sleep_from, d.sleep_from);
  EXPECT_EQ(back.sleep, d.sleep);
  EXPECT_EQ(back.read_policy, d.read_policy);
  EXPECT_EQ(back.policy, d.policy);
  EXPECT_EQ(back.seed, d.seed);
  EXPECT_EQ(back.priority_changes, d.priority_changes);
  ASSERT_EQ(program.size(), weft.size());
  for (ThreadId t = 0; t < weft.size(); ++t) EXPECT_EQ(program.name(t), weft.name(t));
  // Too small a buffer: refused, not cut.
  EXPECT_EQ(encode_directive(d, weft, bytes.data(), n - 1), 0u);
  // Cut short: a protocol error, never a crash.
  ThreadRegistry again;
  EXPECT_THROW(decode_directive(bytes.data(), n - 3, again), ProtocolError);
}

TEST(NativeProtocol, ALogRoundTripsWithThreadsWeftDidNotSend) {
  // The program learns of two threads weft never saw, in the opposite order to the one weft's
  // registry (which knows a third thread the program never creates) would number them.
  ThreadRegistry weft;
  const ThreadId known = weft.child(kMainThread, 5);  // weft: 1
  ThreadRegistry program;
  ASSERT_EQ(program.child(kMainThread, 5), known);    // sent: ids 0 and 1
  const ThreadId p2 = program.child(kMainThread, 1);  // program: 2
  const ThreadId p3 = program.child(p2, 0);           // program: 3
  weft.child(kMainThread, 7);                         // weft: 2 (not in this execution)

  Trace t;
  Operation create;
  create.kind = OpKind::kThreadCreate;
  create.object = p3;
  t.events = {{kMainThread, memory_op(OpKind::kRead, 0x10, 4)},
              {p2, create},
              {p3, memory_op(OpKind::kAtomicStore, 0x18, 8)}};
  ThreadSet all;
  all.insert(kMainThread);
  all.insert(p2);
  all.insert(p3);
  t.enabled = {all, all, all};
  t.finished_thread = {false, false, true};
  t.sites = {0x401000, 0, 0x401234};
  Trace end;
  end.outcome = Outcome::kAssertionFailure;
  end.message = "thread 0.1.0: assertion `x' failed";
  end.failing_thread = p3;
  end.prefix_followed = 2;
  end.diverged_at = 1;
  end.failures = {{Outcome::kAssertionFailure, end.message, p3, 3}};
  end.pending = {{p2, memory_op(OpKind::kMutexLock, 0x20, 0), false}};

  std::vector<char> memory(1 << 16);
  LogWriter log(memory.data(), memory.size());
  log.reset(2);
  for (std::size_t i = 0; i < t.events.size(); ++i) log.event(t, i, program);
  log.text(Record::kInputs, "fixed");
  log.crashed(p2, program);
  log.text(Record::kWhere, "; the address is null");
  log.text(Record::kSanitizer, "AddressSanitizer: SEGV");
  log.end(end, program);

  const LoggedExecution back = read_log_records(memory.data(), 2, weft);
  const ThreadId w2 = *weft.intern("0.1");
  const ThreadId w3 = *weft.intern("0.1.0");
  EXPECT_EQ(w2, 3u);  // announced after weft's own thread 2
  EXPECT_EQ(w3, 4u);
  ASSERT_EQ(back.events.events.size(), 3u);
  EXPECT_EQ(back.events.events[0], t.events[0]);
  EXPECT_EQ(back.events.events[1].thread, w2);
  EXPECT_EQ(back.events.events[1].op.object, w3);  // a thread operation names weft's id
  EXPECT_EQ(back.events.events[2].thread, w3);
  EXPECT_EQ(back.events.events[2].op, t.events[2].op);
  EXPECT_EQ(back.events.finished_thread, t.finished_thread);
  EXPECT_EQ(back.events.sites, t.sites);
  ThreadSet weft_all;
  weft_all.insert(kMainThread);
  weft_all.insert(w2);
  weft_all.insert(w3);
  EXPECT_EQ(back.events.enabled[0], weft_all);
  EXPECT_TRUE(back.read_inputs);
  EXPECT_EQ(back.crashed, w2);
  EXPECT_EQ(back.crash_details, "; the address is null");
  EXPECT_EQ(back.sanitizer_report, "AddressSanitizer: SEGV");
  EXPECT_EQ(back.sanitizer_thread, w2);
  EXPECT_EQ(back.sanitizer_report_step, 3u);
  ASSERT_TRUE(back.ending.has_value());
  EXPECT_EQ(back.ending->outcome, end.outcome);
  EXPECT_EQ(back.ending->message, end.message);
  EXPECT_EQ(back.ending->failing_thread, w3);
  EXPECT_EQ(back.ending->prefix_followed, 2u);
  EXPECT_EQ(back.ending->diverged_at, std::optional<std::size_t>(1));
  ASSERT_EQ(back.ending->failures.size(), 1u);
  EXPECT_EQ(back.ending->failures[0].thread, w3);
  EXPECT_EQ(back.ending->failures[0].step, 3u);
  ASSERT_EQ(back.ending->pending.size(), 1u);
  EXPECT_EQ(back.ending->pending[0].thread, w2);
  EXPECT_FALSE(back.ending->pending[0].enabled);
}

// What a thread's code did between two events (--points=sync with the thread model) comes back
// as it was logged, its thread by weft's id; a record that claims more accesses than it holds
// is refused.
TEST(NativeProtocol, SegmentsRoundTripAndACutShortOneIsRefused) {
  ThreadRegistry weft;
  ThreadRegistry program;
  const ThreadId child = program.child(kMainThread, 0);  // not sent: announced
  std::vector<PlainAccess> accesses = {
      {0x1000, 7, 4, 0},          // a read of 4 bytes that saw 7
      {0x2008, 0xff00, 0, 0x06},  // a write of bytes 1 and 2 of the granule at 0x2008
      {0x1004, 0x123456, 3, 0}};  // the child's read
  Segment mine{3, kMainThread, false, 0, 1, 1, 1};
  Segment theirs{5, child, true, 2, 1, 3, 0};
  std::vector<char> memory(1 << 16);
  LogWriter log(memory.data(), memory.size());
  log.reset(1);
  log.segment(mine, accesses, program);
  log.segment(theirs, accesses, program);
  const LoggedExecution back = read_log_records(memory.data(), 1, weft);
  ASSERT_EQ(back.events.segments.size(), 2u);
  const Segment& a = back.events.segments[0];
  const Segment& b = back.events.segments[1];
  const auto& got = back.events.segment_accesses;
  EXPECT_EQ(a.after_step, 3u);
  EXPECT_EQ(a.thread, kMainThread);
  EXPECT_FALSE(a.opaque);
  ASSERT_EQ(a.read_count, 1u);
  ASSERT_EQ(a.write_count, 1u);
  EXPECT_EQ(got[a.reads_from], accesses[0]);
  EXPECT_EQ(got[a.writes_from], accesses[1]);
  EXPECT_EQ(b.after_step, 5u);
  EXPECT_EQ(b.thread, *weft.intern("0.0"));
  EXPECT_TRUE(b.opaque);
  ASSERT_EQ(b.read_count, 1u);
  EXPECT_EQ(b.write_count, 0u);
  EXPECT_EQ(got[b.reads_from], accesses[2]);

  // The first segment record with its read count raised past what it holds (records: a tag
  // byte, a 4-byte length, the payload; the count follows the step, thread and opaque flag).
  std::size_t at = sizeof(LogHeader);
  while (static_cast<Record>(memory[at]) != Record::kSegment) {
    std::uint32_t length;
    std::memcpy(&length, memory.data() + at + 1, sizeof length);
    at += 5 + length;
  }
  const std::uint32_t too_many = 1000;
  std::memcpy(memory.data() + at + 5 + 4 + 4 + 1, &too_many, sizeof too_many);
  ThreadRegistry other;
  EXPECT_THROW(read_log_records(memory.data(), 1, other), ProtocolError);
}

TEST(NativeProtocol, ALogThatRunsOutOfSpaceDropsWholeRecordsAndSaysSo) {
  Trace t;
  t.events = {{kMainThread, memory_op(OpKind::kWrite, 0x10, 4)}};
  t.enabled = {ThreadSet{}};
  t.enabled[0].insert(kMainThread);
  std::vector<char> memory(sizeof(LogHeader) + 60);
  LogWriter log(memory.data(), memory.size());
  log.event(t, 0, ThreadRegistry{});  // 5 + 40-odd bytes: fits once
  log.event(t, 0, ThreadRegistry{});
  const auto* header = reinterpret_cast<const LogHeader*>(memory.data());
  EXPECT_EQ(header->overflowed, 1u);
  ThreadRegistry weft;
  EXPECT_EQ(read_log_records(memory.data(), 1, weft).events.events.size(), 1u);
}

// An execution's path constraints as the runtime builds them: input 0, `in0 + k > 10`, branched
// on; then, on a path that differs from here on, `in0 * k2 == 3`.
InputObservations constraints(std::uint64_t shared_constant, std::uint64_t own_constant) {
  InputObservations o;
  InputRead in;
  in.key = {kMainThread, 0};
  o.inputs.push_back(in);
  auto& e = o.expressions;
  const auto x = e.input(32, 0);
  const auto gt = e.binary(symbolic::ExprKind::kSlt, e.constant(32, 10),
                           e.binary(symbolic::ExprKind::kAdd, x, e.constant(32, shared_constant)));
  o.branches.push_back({gt, true, BranchKind::kBranch, kMainThread, 0, 0x400100});
  const auto eq = e.binary(symbolic::ExprKind::kEq,
                           e.binary(symbolic::ExprKind::kMul, x, e.constant(32, own_constant)),
                           e.constant(32, 3));
  o.branches.push_back({eq, false, BranchKind::kBranch, kMainThread, 0, 0x400200});
  return o;
}

std::size_t log_bytes(const std::vector<char>& memory) {
  return reinterpret_cast<const LogHeader*>(memory.data())->used;
}

TEST(NativeProtocol, ExpressionNodesTheExecutionBeforeSentAreNotSentAgain) {
  std::vector<char> memory(1 << 16);
  std::vector<symbolic::ExprNode> mirror(64);
  LogWriter log(memory.data(), memory.size(), mirror.data(), mirror.size());
  ThreadRegistry program, weft;

  // The first execution: weft holds nothing yet, so every node is sent.
  const InputObservations first = constraints(5, 7);
  LogWriter::SymbolicLogged logged;
  log.reset(1, 0);
  log.symbolic(first, logged, program);
  const std::size_t everything = log_bytes(memory);
  const LoggedExecution one = read_log_records(memory.data(), 1, weft);
  ASSERT_EQ(one.symbolic.expressions.size(), first.expressions.size());

  // The second shares the first branch's nodes and differs after: only those after are sent.
  const InputObservations second = constraints(5, 9);
  logged = {};
  log.reset(1, one.symbolic.expressions.size());
  log.symbolic(second, logged, program);
  EXPECT_LT(log_bytes(memory), everything);
  const LoggedExecution two = read_log_records(memory.data(), 1, weft, &one.symbolic.expressions);
  ASSERT_EQ(two.symbolic.expressions.size(), second.expressions.size());
  for (std::size_t i = 1; i <= second.expressions.size(); ++i)
    EXPECT_EQ(two.symbolic.expressions[static_cast<symbolic::ExprId>(i)],
              second.expressions[static_cast<symbolic::ExprId>(i)])
        << "node " << i;
  EXPECT_EQ(two.symbolic.branches.size(), 2u);

  // A third that differs from the first node on sends everything again, and is read right.
  const InputObservations third = constraints(6, 9);
  logged = {};
  log.reset(1, two.symbolic.expressions.size());
  log.symbolic(third, logged, program);
  const LoggedExecution three = read_log_records(memory.data(), 1, weft, &two.symbolic.expressions);
  ASSERT_EQ(three.symbolic.expressions.size(), third.expressions.size());
  for (std::size_t i = 1; i <= third.expressions.size(); ++i)
    EXPECT_EQ(three.symbolic.expressions[static_cast<symbolic::ExprId>(i)],
              third.expressions[static_cast<symbolic::ExprId>(i)]);

  // A log that claims nodes weft does not hold is refused, not read as if it had them.
  logged = {};
  log.reset(1, third.expressions.size());
  log.symbolic(third, logged, program);
  EXPECT_THROW(read_log_records(memory.data(), 1, weft), ProtocolError);
  symbolic::ExpressionPool shorter;
  shorter.input(32, 0);
  EXPECT_THROW(read_log_records(memory.data(), 1, weft, &shorter), ProtocolError);
}

TEST(NativeProtocol, OptionsGoThroughTheEnvironmentAndBack) {
  ProgramOptions o;
  o.points = "all";
  o.max_steps_per_thread = 77;
  o.max_threads = 5;
  o.nondet_value = -3;
  o.execution_seconds = 2.5;
  o.memory_mb = 123;
  o.show_output = true;
  o.fresh_process = true;
  o.keep_spinning = true;
  o.memory_checks = false;
  o.leaks = true;
  o.record_segments = true;
  o.promoted_sites = {0x10, 0xabc};
  std::vector<std::string> names;
  for (const std::string& setting : o.environment()) {
    const auto eq = setting.find('=');
    names.push_back(setting.substr(0, eq));
    setenv(names.back().c_str(), setting.substr(eq + 1).c_str(), 1);
  }
  const ProgramOptions back = ProgramOptions::from_environment();
  for (const std::string& name : names) unsetenv(name.c_str());
  EXPECT_EQ(back.points, o.points);
  EXPECT_EQ(back.max_steps_per_thread, o.max_steps_per_thread);
  EXPECT_EQ(back.max_threads, o.max_threads);
  EXPECT_EQ(back.nondet_value, o.nondet_value);
  EXPECT_EQ(back.execution_seconds, o.execution_seconds);
  EXPECT_EQ(back.cpu_seconds(), 3u);
  EXPECT_EQ(back.memory_mb, o.memory_mb);
  EXPECT_EQ(back.show_output, o.show_output);
  EXPECT_EQ(back.fresh_process, o.fresh_process);
  EXPECT_EQ(back.keep_spinning, o.keep_spinning);
  EXPECT_EQ(back.memory_checks, o.memory_checks);
  EXPECT_EQ(back.leaks, o.leaks);
  EXPECT_EQ(back.record_segments, o.record_segments);
  EXPECT_EQ(back.promoted_sites, o.promoted_sites);
  // Unset, every option is its default.
  const ProgramOptions defaults = ProgramOptions::from_environment();
  EXPECT_EQ(defaults.points, ProgramOptions{}.points);
  EXPECT_TRUE(defaults.memory_checks);
  EXPECT_TRUE(defaults.promoted_sites.empty());
}

TEST(NativeProtocol, AWaiterWakesForEveryPublishedChange) {
  // Two threads hand a counter back and forth through the channel's words, as weft and the
  // worker do, with the waits long enough to sleep on the futex at times.
  Channel channel{};
  constexpr std::uint32_t kRounds = 2000;
  std::thread program([&] {
    for (std::uint32_t i = 0; i < kRounds; ++i) {
      ASSERT_TRUE(wait_for_change(channel.request, i, channel.program_sleeping, 10'000));
      if (i % 500 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      publish(channel.reply, channel.weft_sleeping);
    }
  });
  for (std::uint32_t i = 0; i < kRounds; ++i) {
    if (i % 700 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    publish(channel.request, channel.program_sleeping);
    ASSERT_TRUE(wait_for_change(channel.reply, i, channel.weft_sleeping, 10'000));
  }
  program.join();
  EXPECT_EQ(channel.request.load(), kRounds);
  EXPECT_EQ(channel.reply.load(), kRounds);
  // Nothing changes: the wait times out.
  EXPECT_FALSE(wait_for_change(channel.reply, kRounds, channel.weft_sleeping, 5));
}

}  // namespace
}  // namespace weft::native
