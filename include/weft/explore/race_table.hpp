// The race table of reachability testing (Lei and Carver, §VI-B, Fig. 7): the race variants of a
// SYN-sequence, each a row saying, per receiving event with a non-empty race set, whether its
// sending partner is kept, changed, or the event removed. A building block of
// `--strategy reachability`, kept apart so that it is checked on its own against the paper's
// Table 3 and against the naive construction it replaces (tests/race_table_test.cpp).
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace weft::explorer {

/// What a race table needs to know of a SYN-sequence. Columns are the receiving events with a
/// non-empty race set, in an order compatible with happened-before (an event left of those it
/// happens before).
struct RaceTableInput {
  /// |race_set(r_i)| of each column.
  std::vector<std::size_t> race_set_sizes;
  /// Whether r_i is in c-struct(r_j) (i < j): changing r_i's partner may remove r_j.
  std::function<bool(std::size_t i, std::size_t j)> receive_controls_receive;
  /// Whether r_j is in c-struct(s), s the k-th (from 1) sending event of race_set(r_i):
  /// changing r_j's partner would remove s.
  std::function<bool(std::size_t j, std::size_t i, std::size_t k)> receive_controls_send;
};

/// A row: per column, -1 (the event is removed from the variant), 0 (its sending partner is
/// left as it is, or unspecified if that partner is removed) or k > 0 (its partner becomes the
/// k-th event of its race set).
using RaceVariantRow = std::vector<int>;

/// Construct-Race-Table (Fig. 7): every valid row, each once. Unlike the figure, a row is kept
/// only if no changed column's new partner is removed by another change, not only the column
/// just incremented (a column right of another can remove that one's new partner).
std::vector<RaceVariantRow> construct_race_table(const RaceTableInput& input);

/// The naive construction (§VI-B): every tuple of the domains' product that passes the three
/// validity rules. Exponential; for checking construct_race_table.
std::vector<RaceVariantRow> naive_race_table(const RaceTableInput& input);

}  // namespace weft::explorer
