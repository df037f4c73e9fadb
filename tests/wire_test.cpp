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

TEST(Wire, MalformedInputIsAClearError) {
  ThreadRegistry r;
  EXPECT_THROW(decode_schedule("0,0,1", r), WireError);
  EXPECT_THROW(decode_schedule("w1:0,x", r), WireError);
  EXPECT_THROW(decode_schedule("w1:0*z", r), WireError);
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
