// The race table of reachability testing (Lei and Carver §VI-B): Table 3 for the sequence Q0 of
// Fig. 1, the removal and validity rules on small cases, and Construct-Race-Table (Fig. 7)
// against the naive construction it replaces on random SYN-sequence shapes.
#include "weft/explore/race_table.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

namespace weft::explorer {
namespace {

RaceTableInput unrelated(std::vector<std::size_t> sizes) {
  return {std::move(sizes), [](std::size_t, std::size_t) { return false; },
          [](std::size_t, std::size_t, std::size_t) { return false; }};
}

// Fig. 1: race_set(r1) = {s2}, race_set(r3) = {s4}, and r1 is not in c-struct(r3) nor in
// c-struct(s4). Table 3 has the rows (0, 1), (1, 0), (1, 1): variants V1, V2, V3.
TEST(RaceTable, Table3OfTheFigure1Sequence) {
  EXPECT_EQ(construct_race_table(unrelated({1, 1})),
            (std::vector<RaceVariantRow>{{0, 1}, {1, 0}, {1, 1}}));
}

// Changing r1's partner removes r2 when r1 is in c-struct(r2): no row changes both.
TEST(RaceTable, AChangeRemovesTheEventsItControls) {
  RaceTableInput in = unrelated({1, 1});
  in.receive_controls_receive = [](std::size_t i, std::size_t j) { return i == 0 && j == 1; };
  EXPECT_EQ(construct_race_table(in), (std::vector<RaceVariantRow>{{0, 1}, {1, -1}}));
}

// r2's only racing send needs r1's partner unchanged (r1 in its c-struct): the row that changes
// both is not a variant (rule 3).
TEST(RaceTable, ANewPartnerARemovedEventControlsIsNoVariant) {
  RaceTableInput in = unrelated({1, 1});
  in.receive_controls_send = [](std::size_t j, std::size_t i, std::size_t) {
    return j == 0 && i == 1;
  };
  EXPECT_EQ(construct_race_table(in), (std::vector<RaceVariantRow>{{0, 1}, {1, 0}}));
}

// A column right of another may control that one's new partner (concurrent receives, the
// heading in either order): no row changes both. Fig. 7 as printed checks only the digit it
// just incremented, and would add (1, 1).
TEST(RaceTable, ALaterColumnThatRemovesAnEarlierOnesNewPartnerIsChecked) {
  RaceTableInput in = unrelated({1, 1});
  in.receive_controls_send = [](std::size_t j, std::size_t i, std::size_t) {
    return j == 1 && i == 0;
  };
  EXPECT_EQ(construct_race_table(in), (std::vector<RaceVariantRow>{{0, 1}, {1, 0}}));
}

// Larger race sets count through every partner: base 3 and base 2 give 3 * 2 - 1 rows.
TEST(RaceTable, EveryPartnerOfEveryColumnIsTried) {
  const auto rows = construct_race_table(unrelated({2, 1}));
  EXPECT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows.back(), (RaceVariantRow{2, 1}));
}

// Random shapes: a transitive "controls" relation among the receives in a happened-before
// order, and per racing send the receives in its c-struct (closed downward, and never the
// receive it races for or what that one controls, which happen before it otherwise).
TEST(RaceTable, Figure7BuildsExactlyTheNaiveTableOnRandomSequences) {
  std::mt19937_64 rng(7);
  int with_removals = 0;
  for (int round = 0; round < 3000; ++round) {
    const auto uniform = [&](int lo, int hi) {
      return std::uniform_int_distribution<int>(lo, hi)(rng);
    };
    const std::size_t n = static_cast<std::size_t>(uniform(1, 6));
    std::vector<std::size_t> sizes;
    for (std::size_t i = 0; i < n; ++i) sizes.push_back(static_cast<std::size_t>(uniform(1, 3)));
    std::vector<std::vector<bool>> controls(n, std::vector<bool>(n, false));
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j) controls[i][j] = uniform(0, 3) == 0;
    for (std::size_t k = 0; k < n; ++k)  // transitive closure
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
          if (controls[i][k] && controls[k][j]) controls[i][j] = true;
    // send_cstruct[i][k-1][j]: r_j in c-struct of the k-th send of race_set(r_i).
    std::vector<std::vector<std::vector<bool>>> send_cstruct(n);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = 0; k < sizes[i]; ++k) {
        std::vector<bool> in(n, false);
        for (std::size_t j = 0; j < n; ++j)
          if (j != i && !controls[i][j] && uniform(0, 3) == 0) {
            in[j] = true;
            for (std::size_t h = 0; h < n; ++h)
              if (controls[h][j]) in[h] = true;
          }
        bool allowed = !in[i];
        for (std::size_t j = 0; j < n; ++j) allowed &= !(in[j] && controls[i][j]);
        if (!allowed) in.assign(n, false);
        send_cstruct[i].push_back(in);
      }
    RaceTableInput input{sizes, [&](std::size_t i, std::size_t j) { return controls[i][j]; },
                         [&](std::size_t j, std::size_t i, std::size_t k) {
                           return static_cast<bool>(send_cstruct[i][k - 1][j]);
                         }};
    const std::vector<RaceVariantRow> fast = construct_race_table(input);
    const std::vector<RaceVariantRow> naive = naive_race_table(input);
    const std::set<RaceVariantRow> distinct(fast.begin(), fast.end());
    ASSERT_EQ(distinct.size(), fast.size()) << "a row twice, round " << round;
    ASSERT_EQ(distinct, std::set<RaceVariantRow>(naive.begin(), naive.end())) << "round " << round;
    for (const RaceVariantRow& row : fast)
      with_removals += std::count(row.begin(), row.end(), -1) > 0 ? 1 : 0;
  }
  EXPECT_GT(with_removals, 100);  // not vacuous
}

}  // namespace
}  // namespace weft::explorer
