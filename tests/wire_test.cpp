// Compact serialized forms round-trip, and bad input is a clear error.
#include "weft/trace/wire.hpp"

#include <gtest/gtest.h>

namespace weft {
namespace {

TEST(Wire, ScheduleRoundTripsWithRunLengths) {
  ThreadRegistry r;
  const ThreadId a = r.child(0, 0), b = r.child(a, 3);
  const std::vector<ThreadId> s{0, 0, 0, a, b, b, 0};
  const std::string text = encode_schedule(s, r);
  EXPECT_EQ(text, "w1:0*3,0.0,0.0.3*2,0");
  ThreadRegistry fresh;  // another process: names, not ids, carry the meaning
  const auto decoded = decode_schedule(text, fresh);
  EXPECT_EQ(encode_schedule(decoded, fresh), text);
}

TEST(Wire, DirectiveRoundTrips) {
  ThreadRegistry r;
  TestDirective d;
  d.prefix = {0, r.child(0, 0), r.child(0, 1)};
  d.sleep_from = 2;
  d.sleep = {{r.child(0, 0), Operation{OpKind::kWrite, 0, 4, 123456, 0}}};
  // Atomic sections with a footprint (empty or not) and without one.
  Operation section{OpKind::kAtomicSection, 0, 0, 0, 0};
  d.sleep.push_back({r.child(0, 1), section});
  section.footprint.known = true;
  d.sleep.push_back({r.child(0, 1), section});
  section.footprint.add(0x7fff1234, 8, true);
  section.footprint.add(0x10, 4, false);
  d.sleep.push_back({r.child(0, 1), section});
  d.read_policy = ReadPolicy::kReadsConflict;
  d.policy = SchedulePolicy::kPriority;
  d.seed = 99;
  d.priority_changes = {2, 40};
  const std::string text = encode_directive(d, r);
  const TestDirective back = decode_directive(text, r);
  EXPECT_EQ(back.prefix, d.prefix);
  EXPECT_EQ(back.sleep_from, 2u);
  EXPECT_EQ(back.sleep, d.sleep);
  EXPECT_EQ(back.read_policy, d.read_policy);
  EXPECT_EQ(back.policy, d.policy);
  EXPECT_EQ(back.seed, 99u);
  EXPECT_EQ(back.priority_changes, d.priority_changes);
  // A policy that does not exist, and a step beyond 32 bits, are refused.
  EXPECT_THROW(decode_directive("D|policy=9", r), WireError);
  EXPECT_THROW(decode_directive("D|changes=1,4294967296", r), WireError);
}

TEST(Wire, TraceRoundTrips) {
  ThreadRegistry r;
  const ThreadId a = r.child(0, 0);
  Trace t;
  t.events = {{0, Operation{OpKind::kThreadCreate, 0, 0, a, 0}},
              {a, Operation{OpKind::kMutexTryLock, 1, 0, 77, 0}}};
  ThreadSet e0, e1;
  e0.insert(0);
  e1.insert(0);
  e1.insert(a);
  t.enabled = {e0, e1};
  t.finished_thread = {false, true};
  t.pending = {{0, Operation{OpKind::kThreadJoin, 0, 0, a, 0}, true}};
  t.outcome = Outcome::kAssertionFailure;
  t.message = "assertion failed: x|y == 1; at a.cpp:3";
  t.failing_thread = a;
  t.failures = {{Outcome::kAssertionFailure, t.message, a, 1},
                {Outcome::kMisuse, "unlock/of m", 0, 2}};
  t.prefix_followed = 1;
  t.diverged_at = 1;
  const Trace back = decode_trace(encode_trace(t, r), r);
  EXPECT_EQ(back.events, t.events);
  EXPECT_EQ(back.enabled, t.enabled);
  EXPECT_EQ(back.finished_thread, t.finished_thread);
  EXPECT_EQ(back.pending.size(), 1u);
  EXPECT_EQ(back.pending[0].op, t.pending[0].op);
  EXPECT_EQ(back.outcome, t.outcome);
  EXPECT_EQ(back.message, t.message);
  EXPECT_EQ(back.failing_thread, a);
  EXPECT_EQ(back.diverged_at, t.diverged_at);
  ASSERT_EQ(back.failures.size(), 2u);
  EXPECT_EQ(back.failures[1].message, "unlock/of m");
  EXPECT_EQ(back.failures[1].thread, kMainThread);
  EXPECT_EQ(back.failures[0].step, 1u);
  EXPECT_EQ(back.failures[0].thread, a);
}

TEST(Wire, MalformedInputIsAClearError) {
  ThreadRegistry r;
  EXPECT_THROW(decode_schedule("0,0,1", r), WireError);
  EXPECT_THROW(decode_schedule("w1:0,x", r), WireError);
  EXPECT_THROW(decode_schedule("w1:0*z", r), WireError);
  EXPECT_THROW(decode_directive("D|nonsense=1", r), WireError);
  EXPECT_THROW(decode_trace("T|events=0@1.2", r), WireError);
  // Footprints: hex entries, at most Footprint::kCapacity of them.
  EXPECT_THROW(decode_trace("T|events=0@24.0.0.0.0.fzz//", r), WireError);
  EXPECT_THROW(decode_trace("T|events=0@24.0.0.0.0.f1-2-3-4-5//", r), WireError);
  EXPECT_NO_THROW(decode_trace("T|events=0@24.0.0.0.0.f1-2-3-4//", r));
}

// A repeat count is checked against kMaxScheduleSteps before the steps are expanded: these would
// otherwise ask for 400 GB, or overflow the count.
TEST(Wire, ScheduleLengthIsBoundedBeforeAnythingIsAllocated) {
  ThreadRegistry r;
  EXPECT_EQ(decode_schedule("w1:0*" + std::to_string(kMaxScheduleSteps), r).size(),
            kMaxScheduleSteps);
  for (const std::string& text : std::vector<std::string>{
           "w1:0*99999999999", "w1:0*18446744073709551615", "w1:0*18446744073709551616",
           "w1:0*" + std::to_string(kMaxScheduleSteps) + ",0", "w1:0*5000000,0.0*5000001"}) {
    try {
      decode_schedule(text, r);
      ADD_FAILURE() << text;
    } catch (const WireError& e) {
      const std::string what = e.what();
      EXPECT_TRUE(what.find("10000000 steps") != std::string::npos ||
                  what.find("out of range") != std::string::npos)
          << what;
    }
  }
  EXPECT_THROW(decode_schedule("w1:0*0", r), WireError);
}

// Error messages quote the input cut short and on one line, whatever it holds.
TEST(Wire, ErrorMessagesQuoteInputOnOneShortLine) {
  ThreadRegistry r;
  try {
    decode_schedule("w1:0,x\n" + std::string(10000, 'y'), r);
    FAIL();
  } catch (const WireError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_LT(what.size(), 200u) << what;
    EXPECT_NE(what.find("step 2"), std::string::npos) << what;
  }
}

// A name parsed from input may be very deep; naming it must not recurse once per level.
TEST(Wire, DeepThreadNamesRoundTrip) {
  std::string name = "0";
  for (int i = 0; i < 200000; ++i) name += ".1";
  ThreadRegistry r;
  const auto steps = decode_schedule("w1:" + name + "*2", r);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(r.name(steps[0]), name);
  EXPECT_EQ(encode_schedule(steps, r), "w1:" + name + "*2");
}

}  // namespace
}  // namespace weft
